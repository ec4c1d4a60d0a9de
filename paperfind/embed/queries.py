"""Query vectors: the query as typed, and for Chinese its English rendering, with a small cache.

On the development subset the multilingual model matched a Chinese query to its English paper
far less often than the same model given the word-by-word English rendering of the query
(bench/semantic_quality.py); the normalised sum of both vectors keeps what each gets right.
Embedding a query costs tens of milliseconds on this machine, so repeated queries (paging,
facet clicks) are served from an LRU cache owned by the encoder object.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

import numpy as np

from paperfind.embed.base import Embedder
from paperfind.search.crosslingual import ZhEnTranslator, has_han


class QueryEncoder:
    """Turns a query string into one unit query vector for the semantic route."""

    def __init__(self, embedder: Embedder, translator: ZhEnTranslator | None = None,
                 cache_size: int = 512) -> None:
        self.embedder = embedder
        self.translator = translator
        self.cache_size = cache_size
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def english(self, query: str) -> str | None:
        """The English rendering of a query with Han characters, or None."""
        if self.translator is None or not has_han(query):
            return None
        english = self.translator.translate(query).english
        return english if english.strip() else None

    def vector(self, query: str) -> np.ndarray:
        query = " ".join(query.split())
        with self._lock:
            cached = self._cache.get(query)
            if cached is not None:
                self._cache.move_to_end(query)
                return cached
        texts = [query]
        english = self.english(query)
        if english:
            texts.append(english)
        rows = self.embedder.embed(texts, query=True)
        vector = rows.sum(axis=0)
        norm = float(np.linalg.norm(vector))
        vector = (vector / norm if norm > 0 else vector).astype(np.float32)
        vector.setflags(write=False)
        with self._lock:
            self._cache[query] = vector
            while len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)
        return vector
