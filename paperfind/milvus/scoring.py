"""paperfind's own BM25 / BM25F, computed over candidates fetched from Milvus.

Milvus finds the candidates (its BM25 over the `text` field, which writes the BM25F field
weights as repetitions); their scores are then computed here exactly as the local index
computes them (paperfind.index.lexical: Lucene idf, per-field k1/b, BM25F over title + abstract +
keywords) from the candidates' analysed fields and the corpus statistics: document
frequencies from the vocabulary tables and the average field lengths `sync` recorded. So the
two backends rank a candidate the same; they can differ only in which papers are candidates.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

from paperfind.index.lexical import FIELD_PARAMS, TEXT_FIELD_PARAMS, TEXT_K1
from paperfind.milvus.schema import SEQUENCE_END

LENGTH_FIELDS = ("title", "abstract", "keywords", "authors", "venue")
BREAK = ","  # the keyword boundary token of the analysed keywords field


@dataclass
class Analysed:
    """One candidate's analysed fields: term counts (with the joined stems) and lengths (without)."""

    counts: dict[str, Counter]
    lengths: dict[str, int]
    sequences: dict[str, list[str]]  # title, abstract, keywords in order (keywords with BREAK)
    text_terms: frozenset = frozenset()  # the terms of title, abstract and keywords (the `text` field)

    @classmethod
    def of_row(cls, row: dict) -> "Analysed":
        counts: dict[str, Counter] = {}
        lengths: dict[str, int] = {}
        sequences: dict[str, list[str]] = {}
        for name in ("title", "abstract", "keywords"):
            head, _, tail = (row.get(name) or "").partition(SEQUENCE_END)
            seq = head.split()
            own = [t for t in seq if t != BREAK]
            sequences[name] = seq
            lengths[name] = len(own)
            counts[name] = Counter(own + tail.split())
        for name, column in (("authors", "authors"), ("venue", "venue_terms")):
            terms = (row.get(column) or "").split()
            lengths[name] = len(terms)
            counts[name] = Counter(terms)
        return cls(counts, lengths, sequences,
                   frozenset(counts["title"]) | frozenset(counts["abstract"]) | frozenset(counts["keywords"]))


class FieldScorer:
    """Per-(field, term) BM25 weights of candidates, from corpus statistics.

    `doc_freq(field, term)` and `n_docs` are the vocabulary's (the same numbers the local index
    was built with); `avg_lengths` per field the collection's, as `sync` measured them."""

    def __init__(self, n_docs: int, doc_freq, avg_lengths: dict[str, float]) -> None:
        self.n_docs = n_docs
        self.doc_freq = doc_freq
        self.avg = {f: (avg_lengths.get(f) or 1.0) for f in LENGTH_FIELDS}
        self._idf: dict[tuple[str, str], float] = {}

    def idf(self, field: str, term: str) -> float:
        key = (field, term)
        value = self._idf.get(key)
        if value is None:
            df = self.doc_freq(field, term)
            value = float(np.log1p((self.n_docs - df + 0.5) / (df + 0.5))) if df > 0 else 0.0
            value = float(np.float32(value))
            if len(self._idf) > 100_000:
                self._idf.clear()
            self._idf[key] = value
        return value

    def weight(self, doc: Analysed, field: str, term: str) -> np.float32:
        """What the local index's column of (field, term) holds for this paper (0 if absent),
        computed in float32 step by step as paperfind.index.lexical builds it, so the two
        backends' scores are equal to the last bit, not only close."""
        if field == "text":
            tf = np.float32(0.0)
            for name, (w, b) in TEXT_FIELD_PARAMS.items():
                count = doc.counts[name].get(term, 0)
                if count:
                    share = np.float32(w / (1 - b + b * doc.lengths[name] / self.avg[name]))
                    for _ in range(count):  # the builder sums one entry per occurrence
                        tf = np.float32(tf + share)
            if tf == 0.0:
                return np.float32(0.0)
            return np.float32(np.float32(np.float32(self.idf("text", term)) * tf) * np.float32(TEXT_K1 + 1)
                              / np.float32(tf + np.float32(TEXT_K1)))
        count = doc.counts[field].get(term, 0)
        if not count:
            return np.float32(0.0)
        k1, b = FIELD_PARAMS[field]
        norm = np.float32(k1 * (1 - b + b * doc.lengths[field] / self.avg[field]))
        c = np.float32(count)
        return np.float32(np.float32(np.float32(self.idf(field, term)) * c) * np.float32(k1 + 1)
                          / np.float32(c + norm))

    def score(self, docs: list[Analysed], groups) -> tuple[np.ndarray, np.ndarray]:
        """(score, groups matched) per doc for the term groups [(field, term, boost), ...]."""
        scores = np.zeros(len(docs), dtype=np.float32)
        matched = np.zeros(len(docs), dtype=np.int16)
        for group in groups:
            hit = np.zeros(len(docs), dtype=bool)
            for field, term, boost in group:
                if boost <= 0:
                    continue
                # only the papers having the term (most have few of a query's alternatives);
                # each paper still adds its weights in group and alternative order
                if field == "text":
                    having = [j for j, doc in enumerate(docs) if term in doc.text_terms]
                else:
                    having = [j for j, doc in enumerate(docs) if term in doc.counts[field]]
                for j in having:
                    w = self.weight(docs[j], field, term)
                    if w:
                        scores[j] += w if boost == 1.0 else w * np.float32(boost)
                        hit[j] = True
            matched += hit
        return scores, matched
