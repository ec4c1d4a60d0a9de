"""The retrieval contract between paperfind's query pipeline and an index engine.

An engine is asked what a distributed one can answer: the top `k` candidates of a query
(with the few stored fields the re-ranker reads), facet counts of a match set, the papers of
given people, papers by key, and the spelling and people look-ups. Re-ranking, fusion,
people-first, highlights, the trend and folding versions into works run over the candidates
in paperfind itself (`paperfind.search.engine`). `IndexBackend` is the in-process engine over
our memory-mapped index; a cluster engine (Milvus) implements the same `SearchBackend`.

Papers are addressed by int64 handles that the backend defines; handles order as the paper
keys do, so "ties broken by handle" is "ties broken by key". Query terms arrive already
analysed by paperfind (stems for the text fields, folded words for the name fields).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Protocol

import numpy as np

from paperfind.index.distinct import distinct, union
from paperfind.index.doctable import add_tallies
from paperfind.index.manager import IndexVersion
from paperfind.index.names import PersonMatch
from paperfind.index.retrieval import score_handles
from paperfind.index.scored import Scored, score_query
from paperfind.index.rare_pairs import RarePairs
from paperfind.index.code_links import LINK_TERM, CodeLinks
from paperfind.index.title_company import sense_company
from paperfind.index.profiles import PersonProfiles
from paperfind.search.filters import Filters
from paperfind.search.rank import top_set
from paperfind.search.term_codes import TermCodes
from paperfind.search.trend import WorkCounter, WorkCounts, WorkTally

# One query word with its alternatives: (field, analysed term, boost). Fields: "text" (BM25F
# over title + abstract + keywords), "title", "abstract", "keywords", "authors", "venue".
TermGroup = list[tuple[str, str, float]]
Mode = Literal["lexical", "semantic", "hybrid"]
OTHER_TERM = -1  # in `TermSequences.codes`: a word that is none of the asked terms
BOUNDARY = -2  # ... the boundary between two keywords


@dataclass(frozen=True)
class Clause:
    """Papers having every group: each group is alternatives (field, term), any of which will do."""

    groups: tuple[tuple[tuple[str, str], ...], ...]


@dataclass
class Restriction:
    """Which papers a query may return: the filters, and the query's own `author:` and `-word`
    parts. Every part must hold."""

    filters: Filters = field(default_factory=Filters)
    people: tuple[tuple[int, ...], ...] = ()  # per `author:` name: papers by one of these author ids
    require: tuple[Clause, ...] = ()  # per `author:` name no person has: papers with all its words
    exclude: tuple[Clause, ...] = ()  # per `-word` part: papers having all of it are left out

    def empty(self) -> bool:
        return self.filters.empty() and not (self.people or self.require or self.exclude)

    def cache_key(self) -> tuple:
        return (self.filters, self.people, self.require, self.exclude)


@dataclass
class CandidateRequest:
    """A lexical candidate query. A paper matches when it has at least `min_match` of the
    `groups` (at least one when fewer than `relax_below` papers have `min_match`) and passes
    the restriction; the papers of `people` (within the restriction) are candidates whatever
    their score, and so are the `papers` the query names (`SearchBackend.paper_names`). No groups
    and a non-empty restriction: every paper the restriction lets through."""

    groups: list[TermGroup]
    restriction: Restriction = field(default_factory=Restriction)
    min_match: int = 1
    relax_below: int = 0
    people: tuple[int, ...] = ()  # author ids
    k: int | None = None  # the best k by (score desc, handle asc), plus the people's papers; None: all
    papers: tuple[int, ...] = ()  # handles of the papers the query names: candidates whatever their score
    # relaxed only when at most this many papers have any one group (a person's name); None: always
    relax_most: int | None = None

    def may_relax(self, strict: int) -> bool:
        """Whether `strict` papers with `min_match` groups are few enough to relax at all: a
        caller counts the papers with any one group only then (`relaxes` decides)."""
        return strict < self.relax_below and self.min_match > 1

    def relaxes(self, strict: int, relaxed: int) -> bool:
        """Whether `relaxed` papers with any one group replace the `strict` ones with `min_match`."""
        return self.may_relax(strict) and (self.relax_most is None or relaxed <= self.relax_most)

    def cache_key(self) -> tuple:
        return (tuple(tuple(g) for g in self.groups), self.restriction.cache_key(), self.min_match,
                self.relax_below, self.people, self.papers, self.relax_most)


@dataclass
class Candidates:
    """Candidates column by column, with the stored fields the pipeline reads: the score
    (`candidates`: BM25F as retrieved, 0 for a person's paper without the words; `nearest`:
    the cosine), query groups matched, work, year, citations. `candidates` gives them in handle
    order, `nearest` best first."""

    handles: np.ndarray  # int64
    scores: np.ndarray  # float32
    matched: np.ndarray  # int16
    works: np.ndarray  # int64: versions of one paper share it
    years: np.ndarray  # int64 (0: unknown)
    citations: np.ndarray  # int64
    total: int  # papers matching, before the cut to k (the people's papers included)

    def __len__(self) -> int:
        return len(self.handles)

    @classmethod
    def empty(cls) -> "Candidates":
        none = np.zeros(0, dtype=np.int64)
        return cls(none, np.zeros(0, dtype=np.float32), np.zeros(0, dtype=np.int16), none, none, none, 0)

    def take(self, positions: np.ndarray) -> "Candidates":
        return Candidates(self.handles[positions], self.scores[positions], self.matched[positions],
                          self.works[positions], self.years[positions], self.citations[positions],
                          self.total)


@dataclass
class TermSequences:
    """One field of some candidates as codes, in word order: code i is `terms[i]` of the
    request, `OTHER_TERM` any other word, `BOUNDARY` between two keywords. Candidate j's
    codes are `codes[indptr[j]:indptr[j + 1]]`."""

    indptr: np.ndarray
    codes: np.ndarray

    def row(self, j: int) -> np.ndarray:
        return self.codes[int(self.indptr[j]):int(self.indptr[j + 1])]


# the facets a match set's papers are counted in: venue and year too, though a search shows
# those two counted in works (`Facets.works`, paperfind.search.trend.work_facets) and asks
# for the other three only
PAPER_FACETS = ("venue", "year", "institution", "status", "area")


@dataclass
class Facets:
    """Counts over a match set: papers per facet value (venue, year, institution, status, area;
    the most frequent 20, ties by value), and works per year, venue and venue-year (the units
    of the total, the year and venue facets and the trend). `exact` is False when an engine
    counted over its top candidates only."""

    papers: dict[str, list[list]]
    works: WorkCounts
    total_works: int
    exact: bool = True


@dataclass
class CorpusStats:
    """What the trend divides by: every work per year and venue-year, and the paper count."""

    papers: int
    works: WorkCounts


@dataclass
class Version:
    """One version of a work, as stored; `allowed`: it passes the restriction asked with."""

    handle: int
    doc: dict
    allowed: bool


class SearchBackend(Protocol):
    """What the query pipeline asks of an index engine: each call is one engine request
    (a search, a query with a filter, a count), never an array over the whole corpus."""

    n_docs: int  # papers
    data_version: int  # the store's data version the engine holds
    # `candidates` with k returns the exact best k by BM25F (a match it leaves out ranks below
    # its k-th), so the vector route brings no lexical match it missed (pool.lexical_matches_among)
    exact_candidates: bool

    # -- candidates -------------------------------------------------------------------------
    def candidates(self, request: CandidateRequest) -> Candidates: ...
    def nearest(self, text: str, restriction: Restriction, k: int,
                max_tokens: int | None = None) -> Candidates:
        """The `k` papers nearest to `text`'s embedding within the restriction, best first
        (ties by handle), scored by cosine; none without vectors. `max_tokens` (not None)
        embeds `text` with that cap on its model tokens (0: all) instead of the search's
        (`SearchSettings.query_max_tokens`): the expert finder's whole abstracts."""
        ...
    def vectors_ready(self) -> bool: ...
    def prefetch_vector(self, text: str) -> None:
        """A hint: `text` will be asked of `nearest` soon (embed it meanwhile)."""
        ...
    def prefetch_nearest(self, text: str, restriction: Restriction, k: int) -> None:
        """A hint: `nearest(text, restriction, k)` comes next; search it as soon as the
        prefetched embedding is made (nothing when it was not prefetched)."""
        ...
    def vector_pending(self, text: str) -> bool:
        """Whether `text`'s prefetched embedding is still running (`nearest` would wait)."""
        ...
    def scores(self, groups: list[TermGroup], handles: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(BM25 as float32, groups matched as int16) of `groups` for each of `handles`,
        whether or not they match, regardless of any restriction."""
        ...
    def sequences(self, handles: np.ndarray, field: str, terms: list[str]) -> TermSequences:
        """The title, abstract or keywords of `handles` as codes of `terms`."""
        ...
    # -- counts -----------------------------------------------------------------------------
    def facets(self, request: CandidateRequest | None, extra: np.ndarray,
               papers: tuple[str, ...] = PAPER_FACETS) -> Facets:
        """Counts over the papers `request` matches (all of them, not its k) and `extra`; the
        works always (the total, the year and venue facets in works), the papers per facet
        value of the facets in `papers` (none: `()`)."""
        ...
    def count_ahead(self, request: CandidateRequest, papers: tuple[str, ...] = PAPER_FACETS) -> None:
        """A hint: `facets(request, ..., papers)` comes next; count `request`'s matches now (a
        fused query does while its vector is made), the candidates added to them then."""
        ...
    def corpus_stats(self) -> CorpusStats: ...
    # -- papers and people ------------------------------------------------------------------
    def papers_of(self, author_ids: list[int], restriction: Restriction | None = None
                  ) -> tuple[np.ndarray, np.ndarray]:
        """(handle, author id) of every authorship of these people (within the restriction)."""
        ...
    def handles_of(self, keys: list[str]) -> np.ndarray:
        """The handle of each key; -1 for a key the engine does not hold."""
        ...
    def stored(self, handles: list[int]) -> list[dict]: ...
    def work_versions(self, handles: list[int], restriction: Restriction) -> list[list[Version]]:
        """Per handle: its own paper first, then the other versions of its work in handle order."""
        ...
    def people(self, name: str) -> list[PersonMatch]: ...
    def people_by_surname(self, surname: str, min_works: int, max_people: int) -> list[PersonMatch]:
        """The few people with at least `min_works` papers whose surname this is, most first."""
        ...
    def person_card(self, match: PersonMatch) -> dict: ...
    def paper_names(self, text: str) -> np.ndarray:
        """Handles of the papers `text` is the name of ("mixup", "BigGAN"), best standing first
        (paperfind.index.paper_names); none for a text that names no paper."""
        ...
    def standing(self, handles: np.ndarray) -> np.ndarray:
        """The standing of each handle, in [0, 1] (0 where the index has none)."""
        ...
    def ratings(self, handles: np.ndarray) -> np.ndarray:
        """The mean review score of each handle, NaN where it has none (the order of sort=rating)."""
        ...
    def also_known_as(self, handles: list[int]) -> list[list[str]]:
        """The names each paper goes by."""
        ...
    # -- vocabulary -------------------------------------------------------------------------
    def is_known(self, term: str) -> bool: ...
    def doc_freq(self, field: str, term: str) -> int: ...
    def title_company(self, words: list[list[tuple[str, ...]]]) -> list[list[tuple[int, int]]]:
        """Per query word of several senses (each sense its analysed terms), per sense: (papers
        whose title holds it, the sum over the other words of those also holding one of their
        senses): which reading of a Chinese word the corpus writes with the rest of the query
        (paperfind.index.title_company); `[]` for a word of fewer than two senses."""
        ...
    def spelling_candidates(self, word: str) -> list[tuple[str, int]]: ...
    def word_frequency(self, word: str) -> int: ...


def _label_match(wanted: str, label: str, display: str = "") -> bool:
    w = " ".join(wanted.casefold().replace("-", " ").replace("_", " ").split())
    candidates = {label.casefold().replace("-", " "), display.casefold()}
    return any(w == c or (len(w) >= 3 and c.startswith(w)) for c in candidates if c)


def matching_labels(wanted: tuple[str, ...] | list[str], labels: list[str],
                    names: dict[str, str] | None = None) -> list[int]:
    """Positions of the labels a filter's values stand for: a value that is a label itself
    (`mit`, `meta`) is that label alone, else any label or display name it is, or begins with
    in three letters or more (`inst:carnegie`). Without the first rule `inst:mit` took in
    Mitsubishi and MITRE."""
    names = names or {}
    exact = {lab.casefold(): i for i, lab in enumerate(labels)}
    out: set[int] = set()
    for w in wanted:
        hit = exact.get(w.strip().casefold())
        if hit is not None:
            out.add(hit)
        else:
            out.update(i for i, lab in enumerate(labels) if _label_match(w, lab, names.get(lab, "")))
    return sorted(out)


@dataclass(frozen=True)
class _MatchTally:
    """A match set's rows and counts, to which `facets` adds the candidates beyond it
    (paperfind.index.doctable.facet_tally, paperfind.search.trend.WorkTally). The rows are
    kept here, not looked up again in the memo: a memo cleared between the count and the
    facets (it is dropped whole when full) made the match set, its scoring included, again."""

    rows: np.ndarray  # the match set, ascending
    works: WorkTally
    papers: dict[str, np.ndarray]


_EMPTY_ROWS = np.zeros(0, dtype=np.int64)
_MEMO_SIZE = 4  # scorings kept: a query asks for its own groups, then per field, then its facets
# restrictions whose people's works are kept (`IndexBackend.people_works`): 4 bytes a person
_PEOPLE_WORKS_KEPT = 8


def beyond(rows: np.ndarray, matched: np.ndarray) -> np.ndarray:
    """The distinct `rows` that are not among `matched` (ascending, distinct): each of the
    pool's few hundred rows found by a binary search among the matches, where a mask over
    every row was made and set at each match (the bundled corpus's 156k rows, a broad query's
    50k matches) for the same answer (issue 33)."""
    rows = np.asarray(rows, dtype=np.int64)
    if not len(matched) or not len(rows):
        return distinct(rows)
    at = np.searchsorted(matched, rows)
    at[at == len(matched)] = 0
    return distinct(rows[matched[at] != rows])


class IndexBackend:
    """`SearchBackend` over one opened `IndexVersion` (in-process, memory-mapped).

    Handles are index rows (papers sorted by key). A query's scoring over every row is kept
    for the next few calls (`_scored`), so asking for a query's candidates, then their scores
    per field and its facets costs one scoring, as when the searcher read the arrays itself.
    """

    exact_candidates = True  # every match scored, the best k returned

    def __init__(self, index: IndexVersion) -> None:
        self.index = index
        self.n_docs = index.docs.n
        self.n_terms = int(index.params["n_terms"])
        self.data_version = index.data_version
        self._term_ids: dict[str, int] = {}  # memo: a query asks for the same terms many times
        self._word_freq: dict[str, int] = {}
        self._memo: dict[tuple, object] = {}  # recent scorings, masks and match sets (small)
        self._counter: tuple[WorkCounter, CorpusStats] | None = None
        self._code_table: tuple[tuple[str, ...], TermCodes] | None = None
        self.semantic = None  # a SemanticRetriever (paperfind.embed) once vectors exist
        self._profiles: PersonProfiles | None = None
        self._people_works: dict[tuple, np.ndarray] = {}  # per restriction (`people_works`)
        self._rare_pairs: RarePairs | None = None
        self._code_links: CodeLinks | None = None

    # -- memo ---------------------------------------------------------------------------------
    def _remember(self, key: tuple, make):
        value = self._memo.get(key)
        if value is None:
            value = make()
            if len(self._memo) >= 4 * _MEMO_SIZE:
                self._memo.clear()  # threads share it: dropped whole, never half-updated
            self._memo[key] = value
        return value

    def term_id(self, term: str) -> int:
        tid = self._term_ids.get(term)
        if tid is None:
            if len(self._term_ids) > 200_000:
                self._term_ids.clear()
            tid = self._term_ids[term] = self.index.lexical.term_id(term)
        return tid

    def _scored(self, groups: list[TermGroup]) -> tuple[np.ndarray, np.ndarray]:
        """(BM25 per row, groups matched per row) of `groups` over every row, unfiltered: the
        require / exclude clauses' masks (a query's own scoring is `_query_scored`)."""
        key = ("scores", tuple(tuple(g) for g in groups))

        return self._remember(key, lambda: self.index.lexical.score(self._resolve(groups), None))

    def _query_scored(self, groups: list[TermGroup]) -> Scored:
        """`_scored`, at the rows the query touches when its postings are few (paperfind.index.scored)."""
        key = ("scored", tuple(tuple(g) for g in groups))
        return self._remember(key, lambda: score_query(self.index.lexical, self._resolve(groups)))

    def _resolve(self, groups: list[TermGroup]) -> list[list[tuple[str, int, float]]]:
        return [[(f, self.term_id(t), b) for f, t, b in g] for g in groups]

    def _mask(self, restriction: Restriction) -> np.ndarray | None:
        """Bool per row of what `restriction` lets through; None when it lets everything."""
        if restriction.empty():
            return None
        return self._remember(("mask", restriction.cache_key()), lambda: self._make_mask(restriction))

    def _make_mask(self, restriction: Restriction) -> np.ndarray | None:
        mask = self._filter_mask(restriction.filters)
        for people in restriction.people:
            allowed = self.index.docs.mask_authors(list(people))
            mask = allowed if mask is None else mask & allowed
        for clause in restriction.require:  # a clause without words lets nothing through
            _, matched = self._scored([[(f, t, 1.0) for f, t in g] for g in clause.groups])
            allowed = matched >= max(len(clause.groups), 1)
            mask = allowed if mask is None else mask & allowed
        for clause in restriction.exclude:  # ... and leaves nothing out
            if clause.groups:
                _, matched = self._scored([[(f, t, 1.0) for f, t in g] for g in clause.groups])
                keep = matched < len(clause.groups)
                mask = keep if mask is None else mask & keep
        return mask

    def _filter_mask(self, filters: Filters) -> np.ndarray | None:
        if filters.empty():
            return None
        docs = self.index.docs
        mask = docs.mask_years(filters.year_from, filters.year_to)
        if filters.rated():
            mask &= docs.mask_rating(filters.rating_from, filters.rating_to)
        named = {"venue": docs.venue_names, "institution": docs.institution_names}
        for facet, wanted in (("venue", filters.venues), ("institution", filters.insts),
                              ("area", filters.areas), ("status", filters.statuses)):
            if wanted:
                labels = docs.labels[facet]
                names = dict(zip(labels, named[facet])) if facet in named else {}
                mask &= docs.mask_codes(facet, matching_labels(wanted, labels, names))
        return mask

    # -- candidates ---------------------------------------------------------------------------
    def _matches(self, request: CandidateRequest) -> tuple[np.ndarray, Scored | None, np.ndarray]:
        """(matching rows in row order, the query's scores, the people's rows)."""
        def match():
            mask = self._mask(request.restriction)
            if not request.groups:
                return (np.flatnonzero(mask) if mask is not None else _EMPTY_ROWS), None, _EMPTY_ROWS
            scored = self._query_scored(request.groups)
            rows = scored.matching(request.min_match, mask)
            if request.may_relax(len(rows)):
                relaxed = scored.matching(0, mask)
                if request.relaxes(len(rows), len(relaxed)):
                    rows = relaxed
            named = self._people_rows(request.people, mask)
            if request.papers:
                papers = np.asarray(request.papers, dtype=np.int64)
                papers = papers[(papers >= 0) & (papers < self.n_docs)]
                named = union(named, papers[mask[papers]] if mask is not None else papers)
            if len(named):
                rows = union(rows, named)
            return rows, scored, named
        return self._remember(("matches", request.cache_key()), match)

    def _people_rows(self, author_ids, mask: np.ndarray | None) -> np.ndarray:
        if not author_ids:
            return _EMPTY_ROWS
        rows = distinct(self.papers_of(list(author_ids))[0])
        return rows[mask[rows]] if mask is not None else rows

    def candidates(self, request: CandidateRequest) -> Candidates:
        rows, scored, named = self._matches(request)
        total = len(rows)
        if request.k is not None and request.k < len(rows):  # ties at the cut: by handle
            # the best k kept in row order (`top_set`: not sorted by score, which the
            # candidates' row order undid)
            best = (rows[top_set(rows, scored.scores_of(rows), request.k)] if scored is not None
                    else rows[:request.k])
            rows = union(best, named) if len(named) else best
        docs = self.index.docs
        if scored is None:
            s, m = np.zeros(len(rows), dtype=np.float32), np.zeros(len(rows), dtype=np.int16)
        else:
            s, m = scored.of(rows)
        return Candidates(rows.astype(np.int64), s, m, np.asarray(docs.work[rows], dtype=np.int64),
                          np.asarray(docs.year[rows], dtype=np.int64),
                          np.asarray(docs.citations[rows], dtype=np.int64), total)

    def nearest(self, text: str, restriction: Restriction, k: int,
                max_tokens: int | None = None) -> Candidates:
        """Rows by cosine from the attached semantic retriever; none without vectors."""
        if self.semantic is None:
            return Candidates.empty()
        rows, cosines = self.semantic.vector_candidates(text, self._mask(restriction), k, max_tokens)
        rows = np.asarray(rows, dtype=np.int64)
        docs = self.index.docs
        return Candidates(rows, cosines, np.zeros(len(rows), dtype=np.int16),
                          np.asarray(docs.work[rows], dtype=np.int64),
                          np.asarray(docs.year[rows], dtype=np.int64),
                          np.asarray(docs.citations[rows], dtype=np.int64), len(rows))

    def vectors_ready(self) -> bool:
        return self.semantic is not None

    def prefetch_vector(self, text: str) -> None:
        if self.semantic is not None:
            self.semantic.prefetch(text)

    def prefetch_nearest(self, text: str, restriction: Restriction, k: int) -> None:
        if self.semantic is not None:
            self.semantic.prefetch_candidates(text, self._mask(restriction), k)

    def vector_pending(self, text: str) -> bool:
        return self.semantic is not None and self.semantic.pending(text)

    def scores(self, groups: list[TermGroup], handles: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Looked up for `handles` alone (paperfind.index.retrieval), unless this query's scoring
        over every row is at hand already."""
        scored = self._memo.get(("scored", tuple(tuple(g) for g in groups)))
        if scored is not None:
            return scored.of(handles)
        return score_handles(self.index.lexical, self._resolve(groups), handles)

    def sequences(self, handles: np.ndarray, field: str, terms: list[str]) -> TermSequences:
        seq = {"title": self.index.docs.title_seq, "abstract": self.index.docs.abstract_seq,
               "keywords": self.index.docs.keyword_seq}[field]
        indptr, ids = seq.rows(handles)
        if not len(ids):
            return TermSequences(indptr, np.zeros(0, dtype=np.int32))
        # keyword sequences hold -1 between keywords: a BOUNDARY
        return TermSequences(indptr, self._codes(tuple(terms)).of(ids))

    def _codes(self, terms: tuple[str, ...]) -> TermCodes:
        """The codes of `terms` by term id (each known term's position in `terms`): a look-up
        table of the few asked terms, where one over the whole vocabulary (286k ids at the
        bundled corpus) was allocated per query; made once for a query's fields."""
        memo = self._code_table
        if memo is not None and memo[0] == terms:
            return memo[1]
        first: dict[int, int] = {}
        for code, term in enumerate(terms):  # a term asked twice gets its first code
            tid = self.term_id(term)
            if tid >= 0:
                first.setdefault(tid, code)
        asked = np.asarray(sorted(first), dtype=np.int64)
        codes = TermCodes(asked, np.asarray([first[t] for t in asked.tolist()], dtype=np.int32),
                          OTHER_TERM, BOUNDARY)
        self._code_table = (terms, codes)
        return codes

    # -- counts -------------------------------------------------------------------------------
    def load_for_serving(self) -> None:
        """Make now the tables the first search would make (a server's warm-up): every row's
        paper names (read lazily for a short-lived CLI search), the work counter with the
        corpus's counts and the works' groups of versions (at 1M papers ~110 and ~150 ms of a
        fresh server's first query)."""
        self.index.paper_names.load_all()
        self._work_counter()
        self.index.docs.work_groups()

    @property
    def loaded_for_serving(self) -> bool:
        return self._counter is not None and self.index.docs.work_groups_made

    def _work_counter(self) -> tuple[WorkCounter, CorpusStats]:
        """The work counter of this index and its counts over every row, made once."""
        if self._counter is None:
            docs = self.index.docs
            counter = WorkCounter(docs.work, docs.year, docs.venue, docs.labels["venue"],
                                  beside=docs.facet_cells().status_area,
                                  sizes=np.diff(docs.inst_indptr))  # each row's institutions
            self._counter = (counter, CorpusStats(self.n_docs, counter.count(np.arange(self.n_docs))))
        return self._counter

    def facets(self, request: CandidateRequest | None, extra: np.ndarray,
               papers: tuple[str, ...] = PAPER_FACETS) -> Facets:
        rows = np.asarray(extra, dtype=np.int64)
        counter, docs = self._work_counter()[0], self.index.docs
        if request is None:
            tallied, counts = self._tally(rows, papers)
            works, total = counter.finish(tallied)  # total: distinct works, same pass
            return Facets(docs.facet_lists(counts), works, total)
        matched = self._matched_tally(request, papers)
        more = beyond(rows, matched.rows)
        if not len(more):  # the lexical mode's pool is among its matches: nothing to add
            works, total = counter.finish(matched.works)
            return Facets(docs.facet_lists(matched.papers) if papers else {}, works, total)
        tallied, counts = self._tally(more, papers)
        works, total = counter.finish(matched.works, tallied)
        tally = add_tallies(matched.papers, counts) if papers else {}
        return Facets(docs.facet_lists(tally), works, total)

    def _tally(self, rows: np.ndarray, papers: tuple[str, ...]) -> tuple[WorkTally, dict[str, np.ndarray]]:
        """The works' tally of `rows` and their papers per facet of `papers`: the works' cells,
        the status x area grid and the institutions' number in one read of the rows when the
        three are asked (`WorkCounter.tally_beside`)."""
        counter, docs = self._work_counter()[0], self.index.docs
        if not papers:
            return counter.tally(rows), {}
        if "status" in papers and "area" in papers and counter.beside is not None:
            works, status_area, entries = counter.tally_beside(rows)
            return works, docs.facet_tally(rows, papers, status_area=status_area,
                                           institution_entries=entries)
        return counter.tally(rows), docs.facet_tally(rows, papers)

    def count_ahead(self, request: CandidateRequest, papers: tuple[str, ...] = PAPER_FACETS) -> None:
        self._matched_tally(request, papers)

    def _matched_tally(self, request: CandidateRequest, papers: tuple[str, ...]) -> "_MatchTally":
        """The counts of `request`'s match set, kept for the next `facets` of the same request."""
        def tally() -> _MatchTally:
            matched = self._matches(request)[0]
            return _MatchTally(matched, *self._tally(matched, papers))
        return self._remember(("tally", request.cache_key(), papers), tally)

    def corpus_stats(self) -> CorpusStats:
        return self._work_counter()[1]

    # -- papers and people --------------------------------------------------------------------
    def papers_of(self, author_ids: list[int], restriction: Restriction | None = None
                  ) -> tuple[np.ndarray, np.ndarray]:
        if not author_ids:
            return _EMPTY_ROWS, _EMPTY_ROWS
        # from the authorships grouped by person: a look-up per person, where a scan of the
        # whole author column (np.isin) cost ~3 ms a name query at the bundled corpus
        profiles = self.profiles()
        found = [(profiles.rows_of(int(a)), int(a)) for a in dict.fromkeys(author_ids)]
        rows = np.concatenate([r for r, _ in found]).astype(np.int64)
        ids = np.concatenate([np.full(len(r), a, dtype=np.int64) for r, a in found])
        order = np.lexsort((ids, rows))  # row order, as the author column has them
        rows, ids = rows[order], ids[order]
        mask = self._mask(restriction) if restriction is not None else None
        if mask is not None:
            keep = mask[rows]
            rows, ids = rows[keep], ids[keep]
        return rows, ids

    def handles_of(self, keys: list[str]) -> np.ndarray:
        return np.asarray([self.index.docs.row_of(k) for k in keys], dtype=np.int64)

    def stored(self, handles: list[int]) -> list[dict]:
        self.index.docs.stored.read_ahead(handles)
        return [self.index.docs.stored_doc(int(h)) for h in handles]

    def work_versions(self, handles: list[int], restriction: Restriction) -> list[list[Version]]:
        mask = self._mask(restriction)
        docs = self.index.docs
        works = docs.works_of([int(h) for h in handles])
        docs.stored.read_ahead([r for rows in works for r in rows])  # the page's cards read together
        return [[Version(r, docs.stored_doc(r), mask is None or bool(mask[r])) for r in rows]
                for rows in works]

    def people(self, name: str) -> list[PersonMatch]:
        return self.index.names.lookup(name)

    def people_by_surname(self, surname: str, min_works: int, max_people: int) -> list[PersonMatch]:
        return self.index.names.by_surname(surname, min_works, max_people)

    def person_card(self, match: PersonMatch) -> dict:
        return self.index.names.card(match.row)

    def paper_names(self, text: str) -> np.ndarray:
        return np.asarray(self.index.paper_names.rows_named(text), dtype=np.int64)

    def standing(self, handles: np.ndarray) -> np.ndarray:
        handles = np.asarray(handles, dtype=np.int64)
        out = np.zeros(len(handles))
        ok = (handles >= 0) & (handles < self.n_docs)
        out[ok] = self.index.paper_names.standing[handles[ok]]
        return out

    def ratings(self, handles: np.ndarray) -> np.ndarray:
        handles = np.asarray(handles, dtype=np.int64)
        out = np.full(len(handles), np.nan)
        ok = (handles >= 0) & (handles < self.n_docs)
        out[ok] = self.index.docs.rating[handles[ok]]
        return out

    def also_known_as(self, handles: list[int]) -> list[list[str]]:
        return [self.index.paper_names.names_of(int(h)) if 0 <= int(h) < self.n_docs else []
                for h in handles]

    def mentions(self, handles: list[int]) -> list[int]:
        """Later papers that name each one (local only: the paper page's figure)."""
        counts = self.index.paper_names.mentions
        return [int(counts[int(h)]) if 0 <= int(h) < self.n_docs else 0 for h in handles]

    # -- vocabulary ---------------------------------------------------------------------------
    def is_known(self, term: str) -> bool:
        return self.term_id(term) >= 0

    def doc_freq(self, field: str, term: str) -> int:
        return self.index.lexical.doc_freq(field, self.term_id(term))

    def spelling_candidates(self, word: str) -> list[tuple[str, int]]:
        return self.index.spelling.candidates(word)

    def title_company(self, words: list[list[tuple[str, ...]]]) -> list[list[tuple[int, int]]]:
        ids = [[tuple(self.term_id(t) for t in sense) for sense in senses] for senses in words]
        return sense_company(self.index.lexical.fields["title"], ids)

    def word_frequency(self, word: str) -> int:
        freq = self._word_freq.get(word)
        if freq is None:
            if len(self._word_freq) > 200_000:
                self._word_freq.clear()
            freq = self._word_freq[word] = self.index.spelling.frequency(word)
        return freq

    # -- local only: whole-corpus arrays for similar.py, paperfind.rank.train and bench; not
    # part of the contract (a cluster engine serves "papers like this" its own way)
    def corpus_scores(self, groups: list[TermGroup]) -> tuple[np.ndarray, np.ndarray]:
        """(BM25, groups matched) of `groups` for every row."""
        return self.index.lexical.score(self._resolve(groups), None)

    def author_ids(self, row: int) -> np.ndarray:
        return self.index.docs.authors_of(row)

    def row_of(self, key: str) -> int:
        return self.index.docs.row_of(key)

    def key_of(self, row: int) -> str:
        return self.index.docs.key(row)

    def profiles(self) -> PersonProfiles:
        """Authorships grouped by person (the expert finder's), made on first use from this
        index's author column: rebuilt with the index, never stale against its rows."""
        if self._profiles is None:
            docs = self.index.docs
            self._profiles = PersonProfiles.build(docs.author_indptr, docs.author, docs.work)
        return self._profiles

    def people_works(self, restriction: Restriction) -> np.ndarray:
        """Every person's works among the rows `restriction` lets through (versions once), in
        `profiles().ids` order: the expert finder's floor reads them for ~10,000 people a query
        (3 ms a query counted for those alone at the bundled corpus: exp33a), and the requests
        with the same filters and `before` share one count (a paper page's section has neither).
        Kept apart from the memo of scorings, which searches fill and drop every few queries:
        every person's works cost 11-14 ms, four queries' floors."""
        key = restriction.cache_key()
        works = self._people_works.get(key)
        if works is None:
            profiles = self.profiles()
            works = profiles.eligible_works(profiles.ids, self._mask(restriction)).astype(np.int32)
            if len(self._people_works) >= _PEOPLE_WORKS_KEPT:
                self._people_works.clear()  # threads share it: dropped whole, never half-updated
            self._people_works[key] = works
        return works

    def rare_pairs(self, max_df: int) -> RarePairs:
        """The word pairs of titles and abstracts at most `max_df` papers hold, or more (a table
        made with a larger bound holds every such pair with the same count: the expert finder's
        signature phrases and its text route's pairs share one), made on first use from this
        index's term sequences."""
        if self._rare_pairs is None or self._rare_pairs.max_df < max_df:
            docs = self.index.docs
            self._rare_pairs = RarePairs.build((docs.title_seq, docs.abstract_seq), docs.n,
                                               self.n_terms, max_df)
        return self._rare_pairs

    def code_links(self) -> CodeLinks:
        """The GitHub accounts the papers' abstracts link to, with their rows (the expert finder's
        `paperfind.search.expert_links`), made on first use from this index: the rows holding
        the term "github" in their abstract, their stored abstracts read."""
        if self._code_links is None:
            abstracts = self.index.lexical.fields["abstract"]
            term = self.index.lexical.term_id(LINK_TERM)
            rows = abstracts.column(term)[0] if term >= 0 else np.zeros(0, dtype=np.int64)
            docs = self.index.docs
            self._code_links = CodeLinks.build(rows, lambda row: docs.stored_doc(row).get("abstract") or "")
        return self._code_links

    def experts_ready(self, max_df: int) -> bool:
        """The expert finder's derived parts (people, the pairs of at most `max_df` papers, the
        code links) are made."""
        pairs = self._rare_pairs
        return (self._profiles is not None and pairs is not None and pairs.max_df >= max_df
                and self._code_links is not None)

    def works(self) -> np.ndarray:
        """The work group of every row (versions of one paper share it)."""
        return self.index.docs.work
