"""`MilvusBackend`: the search contract (paperfind.search.backend) answered by a Milvus collection.

What lives where:
- in Milvus, per paper: candidates (BM25 on the analysed text, papers: their versions are
  folded into works here), filters (escaped expressions; inverted indexes on the scalar
  fields), nearest papers by the stored e5 vector, the analysed fields the re-ranker reads, the
  stored cards, the keys of a work's versions, the papers of people (a search of their author-id
  words);
- in this process, per corpus: the vocabulary (document frequencies, spelling) and the people
  tables (`lookups`, the local index's, derived from the same store), and the key table that
  numbers papers as handles in key order (the contract's tie-break).

Candidates are scored here with paperfind's own BM25F over their analysed fields
(paperfind.milvus.scoring), so a paper both backends retrieve gets the same score; facets count
over the candidate pool, exact whenever the pool holds every match (`Facets.exact` says which).
A search costs a few engine calls (tests/milvus/test_search.py bounds them): one BM25 search
per analysed column the words are in, keyed gets for rows not seen before (kept, `ROW_CACHE`),
one search for the people's papers; only a filter-only query lists its matches by a scan.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections import OrderedDict

import numpy as np

from paperfind.embed.queries import QueryPrefetch
from paperfind.index.distinct import union
from paperfind.index.names import PersonMatch
from paperfind.milvus.client import MilvusConnection
from paperfind.milvus.expr import all_of, at_least, at_most, literal, one_of
from paperfind.milvus.schema import PROP_AVG_LENGTHS, PROP_DATA_VERSION, PROP_VECTORS, author_token
from paperfind.milvus.scoring import BREAK, Analysed, FieldScorer
from paperfind.search.backend import (BOUNDARY, OTHER_TERM, CandidateRequest, Candidates, Clause,
                                      CorpusStats, Facets, Filters, PAPER_FACETS, Restriction, TermSequences,
                                      Version, matching_labels)
from paperfind.search.trend import WorkCounts

POOL = 1000  # papers Milvus returns per field search (k or more when asked for more)
MAX_LIMIT = 16_384  # Milvus's largest topk / query limit
MAX_KEYS_IN_EXPR = 5_000  # people with more papers are filtered by `array_contains_any`
MAX_COMBINATIONS = 64  # "at least m of n groups" written out as an OR of ANDs up to this size
ROW_CACHE = 20_000
# the title route's papers: what the second stage re-ranks (SearchSettings.rerank_depth), where
# a typed title's features lift it
TITLE_ROUTE = 200
QUERY_REPEATS = 5  # a query word of the strongest weight is written this many times (0.2 steps)
SCALARS = ["key", "work", "year", "citations", "venue", "status", "area", "institutions", "versions"]
ANALYSED = ["title", "abstract", "keywords", "authors", "venue_terms"]
FACET_FIELDS = ("venue", "year", "institution", "status", "area")
# contract field -> the collection's analysed column that text_match reads ("abstract" and
# "keywords" are only in `text`, a superset: the words of title, abstract and keywords)
MATCH_COLUMN = {"text": "text", "title": "title", "abstract": "text", "keywords": "text",
                "authors": "authors", "venue": "venue_terms"}
_EMPTY = np.zeros(0, dtype=np.int64)
SEARCH_COLUMN = {"text": "text", "title": "title", "abstract": "text", "keywords": "text",
                 "authors": "authors", "venue": "venue_terms"}
class Pool:
    """A request's candidate pool: handles, their score and groups matched, whether the pool
    may have missed matches (a field search returned its full limit), and the handles of the
    request's people's papers among them."""

    def __init__(self, handles: np.ndarray, scores: np.ndarray, matched: np.ndarray,
                 saturated: bool, named: np.ndarray = _EMPTY) -> None:
        self.handles, self.scores, self.matched, self.saturated = handles, scores, matched, saturated
        self.named = named


class MilvusBackend:
    """`SearchBackend` over one Milvus collection (see the module docstring)."""

    exact_candidates = False  # its first stage is Milvus's own BM25, cut per field

    def __init__(self, conn: MilvusConnection, collection: str, lookups, *,
                 encoder=None, pool: int = POOL, first_stage: int = 0) -> None:
        self.conn = conn
        self.collection = collection
        self.lookups = lookups  # vocabulary, spelling, people, labels: an IndexBackend
        self.pool = pool
        self.first_stage = first_stage  # papers a field search returns at most (0: no cap)
        self._encoder = encoder  # a QueryEncoder (paperfind.embed.queries), or None: no vectors
        self._rows: OrderedDict[int, dict] = OrderedDict()
        self._analysed: OrderedDict[int, Analysed] = OrderedDict()
        self._pools: OrderedDict[tuple, Pool] = OrderedDict()
        self._people_exprs: OrderedDict[tuple, str] = OrderedDict()
        self._lock = threading.Lock()
        self._prefetch = QueryPrefetch()
        self.refresh()

    # -- the collection's state -------------------------------------------------------------
    def refresh(self) -> None:
        """Read the collection's versions, average lengths, keys and corpus counts."""
        self.conn.load(self.collection)
        described = self.conn.call("describe_collection", self.collection)
        props = {str(k): str(v) for k, v in (described.get("properties") or {}).items()}
        self.data_version = int(props.get(PROP_DATA_VERSION, "0") or 0)
        self.vector_generation = props.get(PROP_VECTORS, "-")
        self.avg_lengths = json.loads(props.get(PROP_AVG_LENGTHS, "{}"))
        rows = self._scan("", ["key", "work", "year", "venue"])
        rows.sort(key=lambda r: r["key"])
        self.keys = [r["key"] for r in rows]
        self._handle = {k: i for i, k in enumerate(self.keys)}
        self.n_docs = len(self.keys)
        self.scorer = FieldScorer(self.lookups.n_docs, self.lookups.doc_freq, self.avg_lengths)
        self._corpus = CorpusStats(self.n_docs, count_works(rows))

    def _scan(self, expr: str, fields: list[str], batch: int = 4000) -> list[dict]:
        iterator = self.conn.call("query_iterator", self.collection, batch_size=batch,
                                  filter=expr, output_fields=fields)
        out: list[dict] = []
        try:
            while True:
                started = time.perf_counter()
                page = iterator.next()
                self.conn.log.add("query_iterator.next", time.perf_counter() - started)
                if not page:
                    break
                out.extend(page)
        except Exception as exc:
            raise self.conn._error(exc) from None
        finally:
            try:
                iterator.close()
            except Exception:
                pass
        return out

    # -- expressions ------------------------------------------------------------------------
    def _labels(self, facet: str, wanted: list[str]) -> list[str]:
        """The collection's labels a filter's words stand for (as the local backend resolves
        them: paperfind.search.backend.matching_labels)."""
        docs = self.lookups.index.docs
        labels = docs.labels[facet]
        names = {"venue": docs.venue_names, "institution": docs.institution_names}.get(facet)
        shown = dict(zip(labels, names)) if names else {}
        return [labels[i] for i in matching_labels(wanted, labels, shown)]

    def filter_expr(self, filters: Filters) -> str:
        parts = []
        if filters.year_from is not None:
            parts.append(at_least("year", filters.year_from))
        if filters.year_to is not None:
            parts.append(at_most("year", filters.year_to))
        if filters.rated():  # a paper without scores has -1, below every range
            parts.append(f"rating >= {float(filters.rating_from or 0.0)!r}")
            if filters.rating_to is not None:
                parts.append(f"rating <= {float(filters.rating_to)!r}")
        for facet, field, wanted in (("venue", "venue", filters.venues),
                                     ("institution", "institutions", filters.insts),
                                     ("area", "area", filters.areas),
                                     ("status", "status", filters.statuses)):
            if wanted:
                parts.append(one_of(field, self._labels(facet, wanted)))
        return all_of(*parts)

    @staticmethod
    def _clause_expr(clause: Clause) -> str:
        if not clause.groups:
            return "false"
        return all_of(*[" or ".join(f"text_match({MATCH_COLUMN[f]}, {literal(t)})" for f, t in g)
                        for g in clause.groups])

    def restriction_expr(self, restriction: Restriction) -> str:
        parts = [self.filter_expr(restriction.filters)]
        parts += [self._people_expr(ids) for ids in restriction.people]
        parts += [self._clause_expr(c) for c in restriction.require]
        parts += [f"not ({self._clause_expr(c)})" for c in restriction.exclude if c.groups]
        return all_of(*parts)

    def _people_expr(self, author_ids: tuple[int, ...]) -> str:
        """Papers by one of these people, as their keys (found by one search of the author-id
        words, remembered: a request writes its restriction several times)."""
        key = tuple(sorted({int(a) for a in author_ids}))
        with self._lock:
            memo = self._people_exprs.get(key)
        if memo is None:
            keys = [self.keys[h] for h in np.unique(self.papers_of(list(key))[0])]
            memo = one_of("key", keys) if len(keys) <= MAX_KEYS_IN_EXPR else one_of("author_ids", list(key))
            with self._lock:
                self._people_exprs[key] = memo
                while len(self._people_exprs) > 64:
                    self._people_exprs.popitem(last=False)
        return memo

    def match_expr(self, request: CandidateRequest) -> tuple[str, bool]:
        """The expression of every paper `request` matches (restriction and at least
        `min_match` groups), and whether it is exact (a large "m of n" is written as "any")."""
        groups = [" or ".join(f"text_match({MATCH_COLUMN[f]}, {literal(t)})"
                              for f, t, b in g if b > 0) or "false" for g in request.groups]
        m, n = max(request.min_match, 1), len(groups)
        exact = True
        if m <= 1 or not groups:
            words = " or ".join(f"({g})" for g in groups)
        elif m >= n:
            words = all_of(*groups)
        elif _combinations(n, m) <= MAX_COMBINATIONS:
            words = " or ".join(f"({all_of(*c)})" for c in itertools.combinations(groups, m))
        else:
            words, exact = " or ".join(f"({g})" for g in groups), False
        return all_of(self.restriction_expr(request.restriction), words), exact

    # -- rows -------------------------------------------------------------------------------
    def _remember_rows(self, rows: list[dict]) -> None:
        with self._lock:
            for row in rows:
                h = self._handle.get(row["key"])
                if h is None:
                    continue
                # a backend lives for one data version of the collection: a row fetched again
                # is the same row, so fields fetched earlier (analysed text, `stored`) stay
                # valid beside the ones fetched now (vector hits and scans bring scalars only)
                self._rows[h] = {**self._rows.get(h, {}), **row}
                self._rows.move_to_end(h)
            while len(self._rows) > ROW_CACHE:
                old, _ = self._rows.popitem(last=False)
                self._analysed.pop(old, None)

    def _fetch(self, handles, fields: tuple[str, ...] = ()) -> dict[int, dict]:
        """Rows of `handles` with the scalar fields and `fields` (analysed text, `stored`). A
        row not cached with all of them is fetched with the scalar and analysed fields (and
        `stored` when asked): a row a vector search or a scan cached has scalars only, and taking
        it for complete once scored its empty text 0 and dropped the paper from word matches."""
        wanted = [int(h) for h in handles]
        needed = SCALARS + list(fields)
        with self._lock:
            have = {h: self._rows[h] for h in wanted
                    if h in self._rows and all(f in self._rows[h] for f in needed)}
        missing = [h for h in dict.fromkeys(wanted) if h not in have and 0 <= h < self.n_docs]
        for start in range(0, len(missing), 1000):
            chunk = missing[start:start + 1000]
            rows = self.conn.call("query", self.collection,
                                  filter=one_of("key", [self.keys[h] for h in chunk]),
                                  output_fields=SCALARS + ANALYSED + (["stored"] if "stored" in fields else []),
                                  limit=len(chunk))
            self._remember_rows(rows)
            for row in rows:
                h = self._handle.get(row["key"])
                if h is not None:
                    have[h] = row
        return have

    def _analysed_of(self, handles) -> list[Analysed]:
        rows = self._fetch(handles, tuple(ANALYSED))
        out = []
        for h in (int(x) for x in handles):
            with self._lock:
                a = self._analysed.get(h)
            if a is None:
                a = Analysed.of_row(rows[h])
                with self._lock:
                    self._analysed[h] = a
            out.append(a)
        return out

    # -- candidates -------------------------------------------------------------------------
    def _column_queries(self, request: CandidateRequest) -> dict[str, dict[str, float]]:
        """Per analysed column, its query terms with the summed boosts the local index scores
        them with (paperfind's BM25F adds boost x weight per alternative)."""
        weights: dict[str, dict[str, float]] = {}
        for g in request.groups:
            for f, t, b in g:
                # a term no paper has in that field finds nothing: its search is skipped (most
                # query words are in no author's name and no venue's)
                if b > 0 and self.lookups.doc_freq(f, t) > 0:
                    column = weights.setdefault(SEARCH_COLUMN[f], {})
                    column[t] = column.get(t, 0.0) + b
        return weights

    def _field_searches(self, request: CandidateRequest, expr: str, limit: int) -> tuple[list[dict], bool]:
        """Hits of one BM25 search per analysed column the groups name, plus the title route.

        Milvus ranks by its own BM25 of the `text` column (the title written three times
        before the abstract), not by paperfind's BM25F, which gives a short title its own
        length normalisation: a title typed with a typo or cut mid-word, of common words, can
        rank low there, below papers whose abstracts repeat those words, and a first stage
        that is a small share of the corpus (2,000 of 105k papers) then leaves it out. On the
        test slices (117 cut titles) its paper ranked down to 250th by the text column, 15th at
        worst by the title column. So the text words are also searched in the `title` column
        (`TITLE_ROUTE` papers). And each word is written as often as its boost says
        (`QUERY_REPEATS` for the strongest; Milvus weighs a query word by its count): a Chinese
        query's English rendering (0.6), a typo's corrections (0.5, 0.7) and a hyphen's joined
        form weigh in Milvus's order as in the score that decides."""
        weights = self._column_queries(request)
        searches = [(column, terms, limit, True) for column, terms in weights.items()]
        title = {t: w for t, w in weights.get("text", {}).items() if self.lookups.doc_freq("title", t) > 0}
        for t, w in weights.get("title", {}).items():
            title[t] = title.get(t, 0.0) + w
        if title and "title" not in weights:
            # only a route: the text column holds every title word, so it says what may be missed
            searches.append(("title", title, min(limit, TITLE_ROUTE), False))
        hits: list[dict] = []
        saturated = False
        for column, terms, cap, counted in searches:
            # papers, not works: no group_by. Grouping made the engine fetch ~12 hits for each
            # one returned (Milvus Lite over-fetches (limit x group_size x 3) to fill groups)
            # and the versions of a work are folded here anyway (paperfind.search.pool)
            result = self.conn.call("search", self.collection, data=[weighted_text(terms)],
                                    anns_field=f"{column}_sparse", search_params={"metric_type": "BM25"},
                                    filter=expr, limit=cap, output_fields=["key"])
            found = [h["entity"] for h in result[0]] if result else []
            saturated = saturated or (counted and len(found) >= cap)
            hits.extend(found)
        return hits, saturated

    def _first_stage_limit(self, request: CandidateRequest) -> int:
        """Papers each field search returns: the backend's pool, or the request's k when more
        (every match for k None), at most `first_stage` when set. With k honoured the exact
        scores here pick the local index's top k (each of the five dev sets identical at 16.5k,
        bench/RESULTS.md); 1,000 for k = 2,000 halved a query's time but changed 2 of 60 zh_dev
        100-deep lists."""
        limit = min(MAX_LIMIT, max(self.pool, request.k) if request.k else MAX_LIMIT)
        return min(limit, self.first_stage) if self.first_stage > 0 else limit

    def _pool(self, request: CandidateRequest) -> Pool:
        key = (request.cache_key(), request.k)
        with self._lock:
            memo = self._pools.get(key)
        if memo is not None:
            return memo
        expr = self.restriction_expr(request.restriction)
        if not request.groups:
            rows = self._scan(expr, SCALARS) if expr else []
            handles = np.asarray(sorted(self._handle[r["key"]] for r in rows if r["key"] in self._handle),
                                 dtype=np.int64)
            self._remember_rows(rows)
            pool = Pool(handles, np.zeros(len(handles), dtype=np.float32),
                        np.zeros(len(handles), dtype=np.int16), False)
        else:
            # the works Milvus ranks best by its BM25 (the repeated-field approximation of
            # paperfind's BM25F); the exact scores below decide among them
            limit = self._first_stage_limit(request)
            # keys only: the analysed fields of candidates come from the row cache, or one
            # query for those not seen yet (sending them with every hit cost most of a query)
            hits, saturated = self._field_searches(request, expr, limit)
            handles = sorted({self._handle[e["key"]] for e in hits if e["key"] in self._handle})
            named = union(self._people_handles(request.people, request.restriction),
                               self._named_handles(request.papers, expr))
            handles = np.asarray(sorted(set(handles) | set(named.tolist())), dtype=np.int64)
            scores, matched = self.scorer.score(self._analysed_of(handles), request.groups)
            keep = (matched >= request.min_match) & (scores > 0)
            if request.relaxes(int(keep.sum()), int((scores > 0).sum())):
                keep = scores > 0
            keep |= np.isin(handles, named)
            pool = Pool(handles[keep], scores[keep], matched[keep], saturated, named)
        with self._lock:
            self._pools[key] = pool
            while len(self._pools) > 16:
                self._pools.popitem(last=False)
        return pool

    def _named_handles(self, papers: tuple[int, ...], expr: str) -> np.ndarray:
        """The handles of the papers a query names that the restriction (`expr`) lets through."""
        wanted = [int(h) for h in papers if 0 <= int(h) < self.n_docs]
        if not wanted:
            return _EMPTY
        if expr:
            allowed = {r["key"] for r in self.conn.call(
                "query", self.collection, filter=all_of(one_of("key", [self.keys[h] for h in wanted]), expr),
                output_fields=["key"], limit=len(wanted))}
            wanted = [h for h in wanted if self.keys[h] in allowed]
        return np.asarray(sorted(wanted), dtype=np.int64)

    def _people_handles(self, author_ids, restriction: Restriction) -> np.ndarray:
        if not author_ids:
            return _EMPTY
        return np.unique(self.papers_of(list(author_ids), restriction)[0])

    def candidates(self, request: CandidateRequest) -> Candidates:
        pool = self._pool(request)
        handles, scores, matched = pool.handles, pool.scores, pool.matched
        total = len(handles)
        if request.k is not None and request.k < len(handles):
            order = np.lexsort((handles, -scores))[:request.k]
            chosen = union(handles[order], np.intersect1d(pool.named, handles))
            pos = np.searchsorted(handles, chosen)
            handles, scores, matched = handles[pos], scores[pos], matched[pos]
        rows = self._fetch(handles)
        works = np.asarray([rows[int(h)]["work"] for h in handles], dtype=np.int64)
        years = np.asarray([rows[int(h)]["year"] for h in handles], dtype=np.int64)
        cites = np.asarray([rows[int(h)]["citations"] for h in handles], dtype=np.int64)
        return Candidates(handles.astype(np.int64), scores.astype(np.float32),
                          matched.astype(np.int16), works, years, cites, total)

    def scores(self, groups, handles: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return self.scorer.score(self._analysed_of(handles), groups)

    def sequences(self, handles: np.ndarray, field: str, terms: list[str]) -> TermSequences:
        code = {}
        for i, t in enumerate(terms):
            code.setdefault(t, i)
        docs = self._analysed_of(handles)
        seqs = [[BOUNDARY if t == BREAK else code.get(t, OTHER_TERM) for t in d.sequences[field]]
                for d in docs]
        indptr = np.zeros(len(seqs) + 1, dtype=np.int64)
        np.cumsum([len(s) for s in seqs], out=indptr[1:])
        codes = np.fromiter((c for s in seqs for c in s), dtype=np.int32, count=int(indptr[-1]))
        return TermSequences(indptr, codes)

    # -- vectors ----------------------------------------------------------------------------
    def vectors_ready(self) -> bool:
        return self._encoder is not None and self.vector_generation != "-"

    def _query_vector(self, text: str) -> np.ndarray:
        return self._prefetch.take(text, self._encoder.vector)

    def prefetch_vector(self, text: str) -> None:
        if not self.vectors_ready() or not text.strip():
            return
        self._prefetch.start_prepared(text, self._encoder)

    def count_ahead(self, request: CandidateRequest, papers: tuple[str, ...] = PAPER_FACETS) -> None:
        """Nothing: Milvus counts in `facets`' own queries."""

    def prefetch_nearest(self, text: str, restriction: Restriction, k: int) -> None:
        """Nothing: the search is a round trip to Milvus, made when `nearest` asks."""

    def vector_pending(self, text: str) -> bool:
        return self._prefetch.pending(text)

    def nearest(self, text: str, restriction: Restriction, k: int,
                max_tokens: int | None = None) -> Candidates:
        """The `k` nearest papers by the stored e5 vectors (exact inner product of unit
        vectors: the cosine), best first, ties by handle; `max_tokens` as `SearchBackend.nearest`."""
        if not self.vectors_ready() or not text.strip() or k <= 0:
            return Candidates.empty()
        vector = self._query_vector(text) if max_tokens is None else self._encoder.vector(text, max_tokens)
        expr = all_of(self.restriction_expr(restriction), "has_vector == true")
        result = self.conn.call("search", self.collection, data=[np.asarray(vector, dtype=np.float32).tolist()],
                                anns_field="dense", search_params={"metric_type": "IP"},
                                filter=expr, limit=min(k, MAX_LIMIT), output_fields=SCALARS)
        entities = [h["entity"] for h in result[0]] if result else []
        self._remember_rows(entities)
        hits = [(self._handle.get(h["entity"]["key"], -1), float(h["distance"]), h["entity"])
                for h in result[0]] if result else []
        hits = sorted((x for x in hits if x[0] >= 0), key=lambda x: (-x[1], x[0]))
        return Candidates(np.asarray([h for h, _, _ in hits], dtype=np.int64),
                          np.asarray([d for _, d, _ in hits], dtype=np.float32),
                          np.zeros(len(hits), dtype=np.int16),
                          np.asarray([e["work"] for _, _, e in hits], dtype=np.int64),
                          np.asarray([e["year"] for _, _, e in hits], dtype=np.int64),
                          np.asarray([e["citations"] for _, _, e in hits], dtype=np.int64), len(hits))

    # -- counts -----------------------------------------------------------------------------
    def facets(self, request: CandidateRequest | None, extra: np.ndarray,
               papers: tuple[str, ...] = PAPER_FACETS) -> Facets:
        """Counts over the request's candidate pool and `extra`: every match while the pool
        holds them all (`exact`), else the best `POOL` per field (`exact` False)."""
        handles = np.asarray(extra, dtype=np.int64)
        exact = True
        if request is not None:
            pool = self._pool(request)
            exact = not pool.saturated
            handles = union(pool.handles, handles) if len(handles) else pool.handles
        rows = self._fetch(handles)
        docs = [rows[int(h)] for h in handles]
        works = count_works(docs)
        total = len({d["work"] for d in docs})
        counted = {f: pairs for f, pairs in paper_facets(docs).items() if f in papers} if papers else {}
        return Facets(counted, works, total, exact)

    def counted_facets(self, request: CandidateRequest, papers: dict[str, list[list]]) -> tuple[dict[str, list[list]], bool]:
        """The other way to count (measured by bench/milvus.py, not used to serve): for each
        value of `papers` (facet -> [[value, count]]), the papers `request` matches with that
        value, by one filtered count(*) query each, over the whole collection. Returns the
        counts in the same shape and whether the match expression was exact."""
        words, exact = self.match_expr(request)
        if request.people:
            named = all_of(self.restriction_expr(request.restriction),
                           one_of("author_ids", list(request.people)))
            words = f"({words}) or ({named})" if words else named
        column = {"venue": "venue", "status": "status", "area": "area", "institution": "institutions"}
        out: dict[str, list[list]] = {}
        for facet, pairs in papers.items():
            counted = []
            for value, _ in pairs:
                if facet == "year":
                    cond = f"year == {int(value)}"
                else:
                    cond = one_of(column[facet], [str(value)])
                rows = self.conn.call("query", self.collection, filter=all_of(words, cond),
                                      output_fields=["count(*)"])
                counted.append([value, int(rows[0]["count(*)"]) if rows else 0])
            out[facet] = counted
        return out, exact

    def corpus_stats(self) -> CorpusStats:
        return self._corpus

    # -- papers and people ------------------------------------------------------------------
    def papers_of(self, author_ids: list[int], restriction: Restriction | None = None
                  ) -> tuple[np.ndarray, np.ndarray]:
        if not author_ids:
            return _EMPTY, _EMPTY
        wanted = {int(a) for a in author_ids}
        restricted = self.restriction_expr(restriction) if restriction is not None else ""
        # one search of the author-id words (an inverted index); the row-by-row filter only
        # for more papers than one search returns
        result = self.conn.call("search", self.collection,
                                data=[" ".join(author_token(a) for a in sorted(wanted))],
                                anns_field="author_tokens_sparse", search_params={"metric_type": "BM25"},
                                filter=restricted, limit=MAX_LIMIT, output_fields=["key", "author_ids"])
        rows = [h["entity"] for h in result[0]] if result else []
        if len(rows) >= MAX_LIMIT:
            rows = self._scan(all_of(one_of("author_ids", sorted(wanted)), restricted),
                              ["key", "author_ids"])
        out_h, out_a = [], []
        for row in rows:
            h = self._handle.get(row["key"])
            if h is None:
                continue
            for a in row["author_ids"]:
                if int(a) in wanted:
                    out_h.append(h)
                    out_a.append(int(a))
        order = np.lexsort((out_a, out_h)) if out_h else _EMPTY
        return (np.asarray(out_h, dtype=np.int64)[order], np.asarray(out_a, dtype=np.int64)[order])

    def handles_of(self, keys: list[str]) -> np.ndarray:
        return np.asarray([self._handle.get(k, -1) for k in keys], dtype=np.int64)

    def stored(self, handles: list[int]) -> list[dict]:
        rows = self._fetch(handles, ("stored",))
        return [dict(rows[int(h)]["stored"], key=self.keys[int(h)]) for h in handles]

    def work_versions(self, handles: list[int], restriction: Restriction) -> list[list[Version]]:
        rows = self._fetch(handles)
        # every row lists its work's keys: the versions are a keyed get (and mostly cached)
        members = {int(h): [v for v in (self._handle.get(k) for k in rows[int(h)]["versions"])
                            if v is not None] for h in handles}
        wanted = sorted({v for group in members.values() for v in group})
        if not wanted:
            return [[] for _ in handles]
        docs = self._fetch(wanted, ("stored",))
        expr = self.restriction_expr(restriction)
        allowed = None
        if expr:
            allowed = {r["key"] for r in self.conn.call(
                "query", self.collection, filter=all_of(one_of("key", [self.keys[v] for v in wanted]), expr),
                output_fields=["key"], limit=len(wanted))}
        out = []
        for h in (int(x) for x in handles):
            group = sorted(members[h])
            own = [v for v in group if v == h] or [h]
            rest = [v for v in group if v != h]
            out.append([Version(v, dict(docs[v]["stored"], key=self.keys[v]),
                                allowed is None or self.keys[v] in allowed) for v in own + rest])
        return out

    def people(self, name: str) -> list[PersonMatch]:
        return self.lookups.people(name)

    def people_by_surname(self, surname: str, min_works: int, max_people: int) -> list[PersonMatch]:
        return self.lookups.people_by_surname(surname, min_works, max_people)

    def person_card(self, match: PersonMatch) -> dict:
        return self.lookups.person_card(match)

    # -- the papers' names: mined by the local index over the same store, read by key ---------
    def _local_rows(self, handles) -> np.ndarray:
        return self.lookups.handles_of([self.keys[int(h)] if 0 <= int(h) < self.n_docs else ""
                                        for h in handles])

    def local_rows(self, handles) -> np.ndarray:
        """The local index's rows of these handles (-1 for a paper it does not hold)."""
        return self._local_rows(handles)

    def paper_names(self, text: str) -> np.ndarray:
        rows = self.lookups.paper_names(text)
        keys = [self.lookups.key_of(int(r)) for r in rows]
        return np.asarray([h for h in (self._handle.get(k) for k in keys) if h is not None], dtype=np.int64)

    def standing(self, handles: np.ndarray) -> np.ndarray:
        return self.lookups.standing(self._local_rows(handles))

    def ratings(self, handles: np.ndarray) -> np.ndarray:
        return self.lookups.ratings(self._local_rows(handles))

    def also_known_as(self, handles: list[int]) -> list[list[str]]:
        return self.lookups.also_known_as(self._local_rows(handles).tolist())

    # -- vocabulary -------------------------------------------------------------------------
    def is_known(self, term: str) -> bool:
        return self.lookups.is_known(term)

    def doc_freq(self, field: str, term: str) -> int:
        return self.lookups.doc_freq(field, term)

    def spelling_candidates(self, word: str) -> list[tuple[str, int]]:
        return self.lookups.spelling_candidates(word)

    def title_company(self, words: list[list[tuple[str, ...]]]) -> list[list[tuple[int, int]]]:
        """The local index's titles: the same store's, so the same counts as the collection's."""
        return self.lookups.title_company(words)

    def word_frequency(self, word: str) -> int:
        return self.lookups.word_frequency(word)

    @property
    def local(self):
        """The local index kept beside the collection, for what the contract leaves local:
        similar papers (paperfind.search.similar reads whole-corpus arrays)."""
        return self.lookups

    def healthy(self) -> bool:
        return self.conn.healthy()


def weighted_text(terms: dict[str, float]) -> str:
    """The query text of a BM25 search: each term as many times as its share of the strongest
    term's weight in `QUERY_REPEATS` (at least once), in the order given."""
    top = max(terms.values())
    return " ".join(" ".join([t] * max(1, round(QUERY_REPEATS * w / top))) for t, w in terms.items())


def _combinations(n: int, m: int) -> int:
    from math import comb

    return comb(n, m)


def count_works(rows: list[dict]) -> WorkCounts:
    """Distinct works per year, venue and venue-year among `rows` (as paperfind.search.trend)."""
    per_year: dict[int, set] = {}
    per_venue: dict[str, set] = {}
    per_cell: dict[tuple[str, int], set] = {}
    for r in rows:
        w, y, v = int(r["work"]), int(r["year"]), r["venue"]
        if y > 0:
            per_year.setdefault(y, set()).add(w)
        if v:
            per_venue.setdefault(v, set()).add(w)
            if y > 0:
                per_cell.setdefault((v, y), set()).add(w)
    return WorkCounts({y: len(s) for y, s in per_year.items()},
                      {c: len(s) for c, s in per_cell.items()},
                      {v: len(s) for v, s in per_venue.items()})


def paper_facets(rows: list[dict], top: int = 20) -> dict[str, list[list]]:
    """Papers per facet value, most frequent first, ties by value (as DocTable.facets)."""
    from collections import Counter

    counts = {f: Counter() for f in FACET_FIELDS}
    for r in rows:
        if int(r["year"]) > 0:
            counts["year"][int(r["year"])] += 1
        counts["venue"][r["venue"]] += 1
        counts["status"][r["status"]] += 1
        counts["area"][r["area"]] += 1
        for inst in dict.fromkeys(r.get("institutions") or []):
            counts["institution"][inst] += 1
    out: dict[str, list[list]] = {"year": [[y, n] for y, n in sorted(counts["year"].items(), reverse=True)]}
    for facet in ("venue", "institution", "status", "area"):
        pairs = [[lab, n] for lab, n in counts[facet].items() if lab]
        pairs.sort(key=lambda p: (-p[1], p[0]))
        out[facet] = pairs[:top]
    return out

