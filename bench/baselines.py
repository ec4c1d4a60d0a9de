"""The baseline every quality and speed figure is measured against: bm25s, as the eval-dev README runs it.

bm25s 0.3.16 (Lucene variant, k1=1.5, b=0.75), English stop words, PyStemmer's English Snowball
stemmer. `for_docs` indexes paperfind's `IndexDoc`s as title + abstract + authors.
"""

from __future__ import annotations

from typing import Iterable, Sequence


class Bm25:
    """bm25s over one text per key."""

    def __init__(self, texts: Sequence[str], keys: Sequence[str]) -> None:
        try:
            import bm25s
            import Stemmer
        except ImportError:
            raise SystemExit("the baseline needs bm25s and PyStemmer (pip install -e '.[test]')") from None
        self._bm25s = bm25s
        self.stemmer = Stemmer.Stemmer("english")
        self.keys = list(keys)
        self.model = bm25s.BM25(k1=1.5, b=0.75)
        self.model.index(self._tokens(list(texts)), show_progress=False)

    def _tokens(self, texts: list[str]):
        return self._bm25s.tokenize(texts, stopwords="en", stemmer=self.stemmer, show_progress=False)

    def scored(self, query: str, k: int = 100) -> list[tuple[str, float]]:
        """The top `k` keys with their scores (keys scoring 0 included when fewer match)."""
        tokens = self._tokens([query])
        if not tokens.vocab:
            return []
        docs, scores = self.model.retrieve(tokens, k=min(k, len(self.keys)), show_progress=False)
        return [(self.keys[d], float(s)) for d, s in zip(docs[0], scores[0])]

    def search(self, query: str, k: int = 100) -> list[str]:
        return [key for key, _ in self.scored(query, k)]


def for_docs(docs: Iterable) -> Bm25:
    """bm25s over title + abstract + authors of `IndexDoc`s, as in the eval-dev README."""
    docs = list(docs)
    return Bm25([f"{d.title} {d.abstract} {' '.join(d.authors)}" for d in docs], [d.key for d in docs])
