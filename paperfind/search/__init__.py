"""Search: query language, intent, retrieval through a backend, ranking, facets, highlights."""
