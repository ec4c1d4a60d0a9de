"""The retrieval backend interface, and the one implementation over our on-disk index.

The searcher (parsing, intent, ranking) talks only to a `SearchBackend`, so a distributed
engine could serve the same API by implementing these few calls. Documents are addressed by
opaque integer handles ("rows") that a backend defines; keys are the public ids.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

from paperfind.index.manager import IndexVersion
from paperfind.index.names import PersonMatch
from paperfind.search.filters import Filters

# A lexical query: groups of alternatives, each alternative (field, term, boost).
TermGroup = list[tuple[str, str, float]]


@dataclass
class DocFeatures:
    """What the re-ranker reads of one candidate."""

    title: np.ndarray  # term ids in order
    abstract: np.ndarray
    keywords: np.ndarray  # -1 between keywords
    author_ids: np.ndarray


class SearchBackend(Protocol):
    n_docs: int
    n_terms: int
    data_version: int

    def term_id(self, term: str) -> int: ...
    def doc_freq(self, field: str, term_id: int) -> int: ...
    def lexical_scores(self, groups: list[TermGroup],
                       mask: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]: ...
    def vector_candidates(self, text: str, mask: np.ndarray | None,
                          k: int) -> tuple[np.ndarray, np.ndarray]: ...
    def filter_mask(self, filters: Filters) -> np.ndarray | None: ...
    def author_mask(self, author_ids: list[int]) -> np.ndarray: ...
    def papers_by(self, author_ids: list[int]) -> tuple[np.ndarray, np.ndarray]: ...
    def facets(self, rows: np.ndarray) -> dict[str, list[list]]: ...
    def features(self, row: int) -> DocFeatures: ...
    def sequences(self, field: str) -> tuple[np.ndarray, np.ndarray]: ...
    def stored(self, row: int) -> dict: ...
    def row_of(self, key: str) -> int: ...
    def key_of(self, row: int) -> str: ...
    def years(self) -> np.ndarray: ...
    def citations(self) -> np.ndarray: ...
    def works(self) -> np.ndarray: ...
    def venues(self) -> tuple[np.ndarray, list[str]]: ...
    def versions_of(self, row: int) -> np.ndarray: ...
    def people(self, name: str) -> list[PersonMatch]: ...
    def person_card(self, match: PersonMatch) -> dict: ...
    def spelling_candidates(self, word: str) -> list[tuple[str, int]]: ...
    def word_frequency(self, word: str) -> int: ...


def _label_match(wanted: str, label: str, display: str = "") -> bool:
    w = " ".join(wanted.casefold().replace("-", " ").replace("_", " ").split())
    candidates = {label.casefold().replace("-", " "), display.casefold()}
    return any(w == c or (len(w) >= 3 and c.startswith(w)) for c in candidates if c)


class IndexBackend:
    """`SearchBackend` over one opened `IndexVersion` (in-process, memory-mapped)."""

    def __init__(self, index: IndexVersion) -> None:
        self.index = index
        self.n_docs = index.docs.n
        self.n_terms = int(index.params["n_terms"])
        self.data_version = index.data_version
        self._years = np.asarray(index.docs.year)
        self._citations = np.asarray(index.docs.citations)
        self._term_ids: dict[str, int] = {}  # memo: a query asks for the same terms many times
        self._word_freq: dict[str, int] = {}
        self.semantic = None  # a SemanticRetriever (paperfind.embed) once vectors exist

    def term_id(self, term: str) -> int:
        tid = self._term_ids.get(term)
        if tid is None:
            if len(self._term_ids) > 200_000:
                self._term_ids.clear()
            tid = self._term_ids[term] = self.index.lexical.term_id(term)
        return tid

    def doc_freq(self, field: str, term_id: int) -> int:
        return self.index.lexical.doc_freq(field, term_id)

    def lexical_scores(self, groups, mask):
        resolved = [[(f, self.term_id(t), b) for f, t, b in g] for g in groups]
        return self.index.lexical.score(resolved, mask)

    def vector_candidates(self, text, mask, k):
        """Rows by cosine from the attached semantic retriever; none without vectors."""
        if self.semantic is None:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        return self.semantic.vector_candidates(text, mask, k)

    def filter_mask(self, filters: Filters) -> np.ndarray | None:
        if filters.empty():
            return None
        docs = self.index.docs
        mask = docs.mask_years(filters.year_from, filters.year_to)
        if filters.venues:
            names = dict(zip(docs.labels["venue"], docs.venue_names))
            codes = docs.label_codes("venue", lambda lab: any(
                _label_match(v, lab, names.get(lab, "")) for v in filters.venues))
            mask &= docs.mask_codes("venue", codes)
        if filters.insts:
            names = dict(zip(docs.labels["institution"], docs.institution_names))
            codes = docs.label_codes("institution", lambda lab: any(
                _label_match(w, lab, names.get(lab, "")) for w in filters.insts))
            mask &= docs.mask_codes("institution", codes)
        for facet, wanted in (("area", filters.areas), ("status", filters.statuses)):
            if wanted:
                codes = docs.label_codes(facet, lambda lab: any(_label_match(w, lab) for w in wanted))
                mask &= docs.mask_codes(facet, codes)
        return mask

    def author_mask(self, author_ids: list[int]) -> np.ndarray:
        return self.index.docs.mask_authors(author_ids)

    def papers_by(self, author_ids: list[int]) -> tuple[np.ndarray, np.ndarray]:
        """(row, author id) for every authorship of these people."""
        docs = self.index.docs
        if not author_ids:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        hits = np.isin(docs.author, np.asarray(author_ids, dtype=docs.author.dtype))
        return docs.author_row[hits].astype(np.int64), docs.author[hits].astype(np.int64)

    def facets(self, rows):
        return self.index.docs.facets(rows)

    def features(self, row: int) -> DocFeatures:
        d = self.index.docs
        return DocFeatures(d.title_seq.row(row), d.abstract_seq.row(row), d.keyword_seq.row(row),
                           d.authors_of(row))

    def sequences(self, field: str) -> tuple[np.ndarray, np.ndarray]:
        """(indptr, indices) of the term sequences of `field` (title, abstract, keywords), by row."""
        seq = {"title": self.index.docs.title_seq, "abstract": self.index.docs.abstract_seq,
               "keywords": self.index.docs.keyword_seq}[field]
        return seq.indptr, seq.indices

    def stored(self, row: int) -> dict:
        return self.index.docs.stored_doc(row)

    def row_of(self, key: str) -> int:
        return self.index.docs.row_of(key)

    def key_of(self, row: int) -> str:
        return self.index.docs.key(row)

    def years(self) -> np.ndarray:
        return self._years

    def citations(self) -> np.ndarray:
        return self._citations

    def works(self) -> np.ndarray:
        """The work group of every row (versions of one paper share it)."""
        return self.index.docs.work

    def venues(self) -> tuple[np.ndarray, list[str]]:
        """The venue code of every row and the slugs the codes stand for."""
        return self.index.docs.venue, self.index.docs.labels["venue"]

    def versions_of(self, row: int) -> np.ndarray:
        return self.index.docs.versions_of(row)

    def people(self, name: str) -> list[PersonMatch]:
        return self.index.names.lookup(name)

    def person_card(self, match: PersonMatch) -> dict:
        return self.index.names.card(match.row)

    def spelling_candidates(self, word: str) -> list[tuple[str, int]]:
        return self.index.spelling.candidates(word)

    def word_frequency(self, word: str) -> int:
        freq = self._word_freq.get(word)
        if freq is None:
            if len(self._word_freq) > 200_000:
                self._word_freq.clear()
            freq = self._word_freq[word] = self.index.spelling.frequency(word)
        return freq
