"""What one request may ask for, defined once.

The API's parameters (`Query(le=...)`, so /openapi.json), the CLI's options (`IntRange`) and
the searcher's own clamps for direct callers all read these, so no two of them can disagree.
They are constants, not settings: the OpenAPI document is built from them at import time.
"""

from __future__ import annotations

MAX_PAGE_SIZE = 100  # results in one answer: a page of results or of a list, similar papers
MAX_PAGE = 10_000  # page number of a paged list
MAX_OFFSET = 10_000  # results one search skips
# what a search reads of its query; the rest is cut, not refused (a 20,000-word query took seconds)
MAX_QUERY_CHARS = 1000
# what the expert finder reads of its query: a whole abstract (the longest of the bundled corpus
# are ~4,000 characters); the rest is cut, not refused, as a search's
MAX_EXPERT_QUERY_CHARS = 5000
MAX_MIN_WORKS = 10_000  # the expert finder's floor of works a person has (no one has as many)
MAX_EXPORT = 1000  # papers in one exported file
MAX_SIMILAR_PER_REQUEST = 50  # /api/papers/{key}/similar (the CLI lists up to MAX_PAGE_SIZE)
