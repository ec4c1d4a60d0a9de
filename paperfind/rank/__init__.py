"""Training of the learned re-ranker (`python -m paperfind.rank.train`); the searcher applies
the model it writes through `paperfind.search.learned`."""
