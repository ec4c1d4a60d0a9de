"""A small LRU of recent search responses.

Searches repeat: search-as-you-type sends the same prefixes from many visitors, pages are
reloaded, filters toggled back and forth, and a portal's popular queries are few. A response
depends only on the request and on the index and vector generations it was computed from, so
keying on all three makes a cached answer exactly the answer a fresh search would give; a new
index or vector generation simply stops matching the old keys (they age out of the LRU).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Hashable

from paperfind.limits import MAX_QUERY_CHARS
from paperfind.search.response import SearchRequest


def request_key(request: SearchRequest, generation: Hashable) -> Hashable:
    """Everything a response depends on; equal keys give equal responses."""
    # the query as the parser reads it: longer queries that agree so far get the same answer
    return (generation, (request.q or "")[:MAX_QUERY_CHARS], request.limit, request.offset,
            request.sort, request.mode, request.filters, request.explain, request.include)


class ResultCache:
    """Thread-safe LRU (the web server answers from a thread pool); size 0 turns it off."""

    def __init__(self, size: int) -> None:
        self.size = max(0, int(size))
        self._items: OrderedDict[Hashable, object] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, key: Hashable):
        if not self.size:
            return None
        with self._lock:
            value = self._items.get(key)
            if value is None:
                self.misses += 1
                return None
            self._items.move_to_end(key)
            self.hits += 1
            return value

    def put(self, key: Hashable, value: object) -> None:
        if not self.size:
            return
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)

    def __len__(self) -> int:
        return len(self._items)
