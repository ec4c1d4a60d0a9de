"""The searcher: query → parsed plan → candidates → re-ranked, filtered, faceted response.

Intent is read from the query itself: a name puts that person's papers first (most likely
person first), a near-exact title wins through the title features, a filter-only query lists
the filtered papers most-cited first. Everything is deterministic: every ordering ends with the
row, and rows are papers sorted by key.
"""

from __future__ import annotations

import math
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from paperfind.cards import best_first, version_order
from paperfind.index.manager import IndexVersion, build_index, current_name, open_index
from paperfind.limits import MAX_OFFSET, MAX_PAGE_SIZE
from paperfind.search.backend import IndexBackend, SearchBackend
from paperfind.search.cache import ResultCache, request_key
from paperfind.search.filters import Filters, merge_filters
from paperfind.search.fusion import classify_query
from paperfind.search.highlight import Marker
from paperfind.search.hybrid import fuse_rows
from paperfind.search.learned import (DEFAULT_MODEL, FEATURES, FirstStage, LearnedRanker, ModelError,
                                      candidate_features, learned_relevance)
from paperfind.search.people import person_rank, person_rows, person_tiers
from paperfind.search.plan import QueryPlan, build_plan, idf_of_groups
from paperfind.search.query import ParsedQuery, parse_query
from paperfind.search.rank import (GroupMap, Mapped, adjacent_pairs, idf_share, keyword_match,
                                   phrase_present, title_in_query, top_order)
from paperfind.search.response import (MODES, SORTS, SearchRequest, SearchResponse, author_card,
                                       hit, suggestion_text)
from paperfind.search.settings import SearchSettings
from paperfind.search.trend import WorkCounter, WorkCounts, trend, work_facets
from paperfind.text.analyze import Analyzer
from paperfind.text.fold import has_han

if TYPE_CHECKING:
    from paperfind.text.translate import ZhEnTranslator

SCORE_DECIMALS = 6  # scores are compared (and shown) at this precision


def _ranks_lexically(q: ParsedQuery, plan: QueryPlan) -> bool:
    """Whether hybrid mode ranks this query by words alone (names, keyword kinds), so it needs
    no query embedding."""
    return plan.person_is_query or classify_query(q.text).semantic_weight == 0


class Searcher:
    """Answers `SearchRequest`s from the current index version under `index_root`.

    `store` (optional; a `Store` or a callable returning this thread's `Store`) is asked for its
    data version, to tell when the index is stale, and to build the first index when none
    exists yet.
    """

    def __init__(self, store=None, index_root: Path | str | None = None,
                 settings: SearchSettings | None = None, vector_dir: Path | str | None = None) -> None:
        if index_root is None:
            raise ValueError("Searcher needs an index_root (Settings.index_dir)")
        self.store = store
        self.root = Path(index_root)
        self.vector_dir = Path(vector_dir) if vector_dir else None  # None: lexical only
        self._semantic = None
        self._translator = None
        self.settings = settings or SearchSettings()
        self.analyzer = Analyzer()
        self._index: IndexVersion | None = None
        self._backend: SearchBackend | None = None
        self._loaded_name: str | None = None
        self._current_stamp: tuple[int, int] | None = None
        self.cache = ResultCache(self.settings.result_cache)
        self._work_counter: tuple[SearchBackend, WorkCounter, WorkCounts] | None = None
        self._ranker: LearnedRanker | bool | None = None  # False: tried, unusable

    # -- index lifecycle ----------------------------------------------------------------------
    def _store(self):
        if self.store is not None and callable(self.store) and not hasattr(self.store, "data_version"):
            return self.store()
        return self.store

    def backend(self) -> SearchBackend | None:
        """The backend of the current index version, reopened when CURRENT has moved."""
        try:  # CURRENT is replaced (new inode) on every build: a stat tells us, no read needed
            st = (self.root / "CURRENT").stat()
            stamp = (st.st_ino, st.st_mtime_ns)
        except FileNotFoundError:
            stamp = None
        if stamp is not None and stamp == self._current_stamp and self._backend is not None:
            self._attach_vectors(self._backend)
            return self._backend
        self._current_stamp = stamp
        name = current_name(self.root)
        if name is None and self.store is not None and self._backend is None:
            build_index(self._store(), self.root)
            name = current_name(self.root)
        if name is not None and name != self._loaded_name:
            index = open_index(self.root)
            if index is None and self._backend is None and self.store is not None:
                # written by an older paperfind (another format): rebuild rather than answer nothing
                build_index(self._store(), self.root)
                index = open_index(self.root)
                self._current_stamp = None
            if index is not None:
                self._index, self._backend = index, IndexBackend(index)
                self._loaded_name = index.path.name
                self._semantic = None  # rows changed: the vectors are aligned again
        if self._backend is not None:
            self._attach_vectors(self._backend)
        return self._backend

    def _attach_vectors(self, backend: IndexBackend) -> None:
        """Give the backend the semantic route once vectors exist beside the database."""
        if not self.settings.use_vectors or self.vector_dir is None:
            return
        if self._semantic is None:
            if not (self.vector_dir / "CURRENT").exists():
                return
            from paperfind.embed.retriever import SemanticRetriever  # heavy: only with vectors
            from paperfind.embed.runtime import make_embedder

            keys = [backend.key_of(r) for r in range(backend.n_docs)]
            embedder = make_embedder(self.settings.embed_runtime, self.settings.embed_threads)
            self._semantic = SemanticRetriever(self.vector_dir, keys, embedder=embedder,
                                               translator=self.translator())
        else:
            self._semantic.reload()  # a newer generation written by the background embedder
        backend.semantic = self._semantic

    def _lexical_text(self, q: ParsedQuery) -> str | None:
        """The English the lexical route searches for a Chinese query (the corpus is English)."""
        if not has_han(q.text):
            return None
        from paperfind.text.translate import lexical_query_text

        english = lexical_query_text(q.text, self.translator())
        return english if english != q.text else None

    def translator(self) -> "ZhEnTranslator":
        """The zh→en translator, one for both routes: each holds a jieba dictionary and CC-CEDICT
        (a second copy cost a second of start-up and its memory)."""
        if self._translator is None:
            from paperfind.text.translate import ZhEnTranslator

            self._translator = ZhEnTranslator()
        return self._translator

    def warm_state(self) -> dict[str, bool]:
        """Which of the parts a first query would otherwise wait for are loaded: the index, the
        segmenter's dictionary, the translator, and with vectors the vectors, their graph and
        the query encoder's model. Read from the parts themselves, so a test can tell."""
        state = {"index": self._backend is not None,
                 "segmenter": self.analyzer.segmenter_loaded,
                 "translator": self._translator is not None and self._translator.loaded}
        semantic = self._semantic
        if self.settings.use_vectors and semantic is not None:
            state.update(vectors=semantic.coverage > 0, vector_graph=semantic.graph_loaded,
                         encoder=semantic.encoder_loaded)
        return state

    def generation(self) -> tuple:
        """What the current answers are computed from: the index version and the vectors'
        generation; a response cached under another generation is never served."""
        return (self._loaded_name, self._semantic.generation if self._semantic is not None else None)

    def similar(self, key: str, limit: int = 10, aspect: str | None = None) -> list[dict]:
        """Papers like `key` (never its other versions), as result cards with their reasons;
        `aspect` ("background", "method", "result") asks for papers like it in that respect.

        Raises `UnknownPaper` for a key the index does not hold, `ValueError` for another aspect.
        """
        from paperfind.search.similar import similar_papers

        backend = self.backend()
        if backend is None:
            return []
        found = similar_papers(backend, key, limit, aspect=aspect)
        store = self._store()
        cards = {c["key"]: c for c in store.paper_cards([p.key for p in found])}
        # a work is shown by its best version (paperfind.cards), as in search results
        best = {k: best_first([c, *c["versions"]])[0]["key"] for k, c in cards.items()}
        cards.update((c["key"], c) for c in store.paper_cards(
            [b for k, b in best.items() if b != k]))
        return [dict(cards[best[p.key]], **{k: v for k, v in p.to_json().items()
                                            if k not in ("title", "key")})
                for p in found if p.key in cards and best[p.key] in cards]

    # -- search -------------------------------------------------------------------------------
    def search(self, request: SearchRequest) -> SearchResponse:
        started = time.perf_counter()
        q = parse_query(request.q or "")
        backend = self.backend()
        mode = request.mode if request.mode in MODES else "lexical"
        if backend is None:
            return SearchResponse(q.raw, 0, 0.0, [], [], {}, None, "lexical")
        key = request_key(request, self.generation())
        cached = self.cache.get(key)
        if cached is not None:  # hits are copied: a caller may decorate its results
            return replace(cached, results=[dict(r) for r in cached.results],
                           took_ms=(time.perf_counter() - started) * 1000)
        limit = max(1, min(int(request.limit or 10), MAX_PAGE_SIZE))
        offset = max(0, min(int(request.offset or 0), MAX_OFFSET))
        sort = request.sort if request.sort in SORTS else "relevance"
        plan = build_plan(q, self.analyzer, backend)
        if self.settings.overlap_embedding:
            self._prefetch_query_vector(backend, q, plan, mode)
        if not plan.person_is_query and self.settings.translate_chinese:
            english = self._lexical_text(q)
            if english:
                plan = build_plan(q, self.analyzer, backend, translation=english)
        filters = merge_filters(request.filters, q)
        mask = self._mask(backend, q, plan, filters)
        rows, relevance, used, stage = self._rank(backend, q, plan, mask, offset + limit, mode)
        explained: dict[int, list] = {}
        if stage is not None and sort == "relevance" and stage.kind in self.settings.learned_kinds:
            relevance, explained = self._learned_order(backend, plan, stage, rows, relevance,
                                                       request.explain)
        relevance = np.round(relevance, SCORE_DECIMALS)  # float noise must not beat the key order
        page = self._page(backend, rows, relevance, sort, offset, limit)
        stems = {s for g in plan.groups for s, _ in g.stems} | {s for p in plan.phrases for s in p}
        marker = Marker(stems, self.analyzer, {g.word for g in plan.groups})
        results = [self._result(backend, int(rows[j]), relevance[j], marker, mask) for j in page]
        if explained:
            for j, result in zip(page, results):
                if int(j) in explained:
                    result["ranking"] = {"model": "learned", "top_features": [
                        {"feature": name, "contribution": value} for name, value in explained[int(j)]]}
        people = plan.people if plan.person_is_query or q.authors else plan.people[:2]
        cards = [author_card(backend.person_card(m)) for m in people[:self.settings.author_cards]]
        matching = self._work_counts(backend, rows)
        facets = backend.facets(rows) if len(rows) or mask is not None else {}
        if facets:  # years and venues in works, like the total and the trend
            facets.update(work_facets(matching))
        took = (time.perf_counter() - started) * 1000
        response = SearchResponse(q.raw, count_works(backend.works(), rows), took, results, cards,
                                  facets, suggestion_text(q.raw, plan.corrections), used,
                                  trend(matching, self._corpus_work_counts(backend),
                                        filters.year_from, filters.year_to,
                                        self.settings.trend_venues))
        self.cache.put(key, replace(response, results=[dict(r) for r in results]))
        return response

    def _counter(self, backend: SearchBackend) -> tuple[WorkCounter, WorkCounts]:
        """The work counter of the loaded index and its counts over every row (the trend's
        denominators), made once per index version."""
        memo = self._work_counter
        if memo is None or memo[0] is not backend:
            codes, labels = backend.venues()
            counter = WorkCounter(backend.works(), backend.years(), codes, labels)
            memo = (backend, counter, counter.count(np.arange(backend.n_docs)))
            self._work_counter = memo
        return memo[1], memo[2]

    def _work_counts(self, backend: SearchBackend, rows: np.ndarray) -> WorkCounts:
        return self._counter(backend)[0].count(rows)

    def _corpus_work_counts(self, backend: SearchBackend) -> WorkCounts:
        return self._counter(backend)[1]

    @staticmethod
    def _result(backend: SearchBackend, row: int, score: float, marker: Marker,
                mask: np.ndarray | None) -> dict:
        """The result of a work found by `row`: shown by its best version (paperfind.cards:
        accepted before under review before rejected, newest acceptance first) among those
        the filters let through, the others folded under it."""
        rows = [row] + [int(v) for v in backend.versions_of(row)]
        docs = {r: backend.stored(r) for r in rows}
        allowed = [r for r in rows if r == row or mask is None or mask[r]]
        shown = min(allowed, key=lambda r: version_order(docs[r]))
        return hit(docs[shown], score, marker, [docs[r] for r in rows if r != shown])

    @staticmethod
    def _prefetch_query_vector(backend: SearchBackend, q: ParsedQuery, plan: QueryPlan, mode: str) -> None:
        """Embed the query on a worker thread while the lexical route runs, when `_rank` will need it."""
        semantic = getattr(backend, "semantic", None)
        if semantic is None or mode == "lexical" or not q.text.strip() or not plan.groups:
            return
        if mode == "hybrid" and _ranks_lexically(q, plan):
            return
        semantic.prefetch(q.text)

    def _mask(self, backend: SearchBackend, q: ParsedQuery, plan: QueryPlan,
              filters: Filters) -> np.ndarray | None:
        mask = backend.filter_mask(filters)
        for name in q.authors:
            matches = backend.people(name)
            if matches:
                plan.people = matches + [m for m in plan.people if m not in matches]
                allowed = backend.author_mask([m.author_id for m in matches[:50]])
            else:  # no such person: papers whose author list has all the name's words
                words = self.analyzer.name_terms(name)
                _, matched = backend.lexical_scores([[("authors", w, 1.0)] for w in words], None)
                allowed = matched >= max(len(words), 1)
            mask = allowed if mask is None else mask & allowed
        if q.excluded:
            for text in q.excluded:
                words = [w for w in self.analyzer.words(text) if not self.analyzer.is_stopword(w)]
                if not words:
                    continue
                groups = [[(f, self.analyzer.stem(w), 1.0) for f in ("title", "abstract", "keywords")]
                          + [("authors", w, 1.0)] for w in words]
                _, matched = backend.lexical_scores(groups, None)
                keep = matched < len(words)
                mask = keep if mask is None else mask & keep
        return mask

    def _rank(self, backend: SearchBackend, q: ParsedQuery, plan: QueryPlan,
              mask: np.ndarray | None, needed: int,
              mode: str) -> tuple[np.ndarray, np.ndarray, str, FirstStage | None]:
        """All matching rows and their relevance (rows not yet ordered), the mode used, and
        what retrieval computed (for the learned ranker) when the query was fused (hybrid)."""
        if not plan.groups:
            if mask is None:
                return np.zeros(0, dtype=np.int64), np.zeros(0), "lexical", None
            rows = np.flatnonzero(mask)
            return rows, np.zeros(len(rows)), "lexical", None  # filter-only: sorted by citations
        scores, matched = backend.lexical_scores(plan.lexical(), mask)
        n = plan.known_groups(backend)
        msm = 1 if q.any_of or n == 0 else (n if n <= 2 else n - 1 if n <= 4
                                                  else math.ceil(self.settings.min_match_share * n))
        rows = np.flatnonzero((matched >= msm) & (scores > 0))
        if len(rows) < needed and msm > 1:
            rows = np.flatnonzero(scores > 0)
        named_rows = person_rows(backend, plan, mask, self.settings.max_people)
        if len(named_rows):
            rows = np.union1d(rows, named_rows)
        # quotes in a sentence-like description are scare quotes ('a "simple" fix that works'),
        # not an operator: there they raise the papers with the phrase instead of dropping
        # every paper without it
        soft_phrases = bool(plan.phrases) and classify_query(q.text).name == "natural"
        if plan.phrases and not soft_phrases:
            rows = self._with_phrases(backend, plan, rows, scores)
        relevance = scores[rows].astype(np.float64)
        # a long description's BM25 order is already informative; short queries (topics,
        # titles) need the wider pool for their keyword and title features
        depth = self.settings.rerank_depth if n <= 4 else self.settings.rerank_depth_long
        top_n = min(len(rows), depth)
        if top_n:
            top = top_order(rows, relevance, top_n)
            reranked = self._rerank(backend, plan, rows[top], relevance[top])
            rest = np.ones(len(rows), dtype=bool)
            rest[top] = False
            if rest.any():  # below every re-ranked row, in BM25 order
                floor = max(float(reranked.min()), 1e-6)
                relevance[rest] = floor * 0.5 * relevance[rest] / max(float(relevance[rest].max()), 1e-9)
            if soft_phrases and self.settings.weights.phrase:
                reranked += self.settings.weights.phrase * self._phrase_share(backend, plan, rows[top])
            relevance[top] = reranked
        if len(named_rows) and plan.person_is_query:
            relevance += person_tiers(backend, plan, rows, relevance, self.settings.max_people,
                                      self.settings.interleave_people)
        used, stage = "lexical", None
        if mode == "hybrid" and len(rows) and getattr(backend, "semantic", None) is not None \
                and _ranks_lexically(q, plan):
            used = "hybrid"  # this kind of query ranks lexically: spare the query embedding
        elif mode != "lexical" and q.text.strip():
            vec_rows, vec_scores = backend.vector_candidates(q.text, mask, self.settings.rerank_depth)
            if len(vec_rows):
                rows, relevance, used = fuse_rows(q.text, rows, relevance, vec_rows,
                                                  vec_scores, mode, plan.person_is_query)
                if used == "hybrid":
                    stage = FirstStage(scores, matched, vec_rows, vec_scores, len(plan.groups),
                                       classify_query(q.text).name, len(q.text))
        return rows, relevance, used, stage

    def ranker(self) -> LearnedRanker | None:
        """The learned ranker, loaded once; None when switched off or its file is unusable
        (the searcher then ranks as without it, and says why once, on stderr)."""
        if not self.settings.learned_ranking:
            return None
        if self._ranker is None:
            try:
                self._ranker = LearnedRanker.load(self.settings.learned_model or DEFAULT_MODEL)
            except ModelError as e:
                print(f"paperfind: learned ranking off: {e}", file=sys.stderr)
                self._ranker = False
        return self._ranker or None

    def first_stage(self, text: str, depth: int) -> tuple[np.ndarray, np.ndarray] | None:
        """(rows of today's top `depth` in hybrid mode, their features) for `text`; None when
        the query is not fused (no vectors, or a kind that ranks by words alone). What the
        learned ranker sees at query time, for `paperfind.rank.train`."""
        backend = self.backend()
        q = parse_query(text)
        if backend is None or not q.text.strip():
            return None
        plan = build_plan(q, self.analyzer, backend)
        if self.settings.translate_chinese:
            english = self._lexical_text(q)
            if english:
                plan = build_plan(q, self.analyzer, backend, translation=english)
        mask = self._mask(backend, q, plan, merge_filters(Filters(), q))
        rows, relevance, _, stage = self._rank(backend, q, plan, mask, depth, "hybrid")
        if stage is None:
            return None
        relevance = np.round(relevance, SCORE_DECIMALS)
        top = self._page(backend, rows, relevance, "relevance", 0, depth)
        return rows[top], candidate_features(self, backend, plan, stage, rows[top], relevance[top])

    def _learned_order(self, backend, plan: QueryPlan, stage: FirstStage, rows: np.ndarray,
                       relevance: np.ndarray, explain: bool) -> tuple[np.ndarray, dict[int, list]]:
        """`relevance` with the first `learned_depth` works ordered by the learned model."""
        ranker = self.ranker()
        if ranker is None or not len(rows):
            return relevance, {}
        top = self._page(backend, rows, np.round(relevance, SCORE_DECIMALS), "relevance", 0,
                         self.settings.learned_depth)
        features = candidate_features(self, backend, plan, stage, rows[top], relevance[top])
        if features[:, FEATURES.index("title_cover")].max() >= self.settings.learned_title_cover:
            return relevance, {}  # a title typed (a typo, a word left out): its title decides
        rest = np.ones(len(rows), dtype=bool)
        rest[top] = False
        out = relevance.copy()
        out[top], out[rest] = learned_relevance(relevance[rest], ranker.scores(features))
        explained = {}
        if explain:
            explained = dict(zip(top.tolist(), ranker.top_features(features)))
        return out, explained

    def _phrase_share(self, backend, plan: QueryPlan, rows: np.ndarray) -> np.ndarray:
        """Per row, the share of the quoted phrases it contains (title, abstract or keywords)."""
        ids = [[backend.term_id(t) for t in p] for p in plan.phrases]
        out = np.zeros(len(rows))
        for i, row in enumerate(rows.tolist()):
            f = backend.features(int(row))
            out[i] = sum(phrase_present(p, [f.title, f.abstract, f.keywords]) for p in ids) / len(ids)
        return out

    def _with_phrases(self, backend, plan: QueryPlan, rows, scores) -> np.ndarray:
        """Keep rows containing every quoted phrase (checked among the best-scored rows)."""
        depth = self.settings.phrase_check_depth
        best = rows[np.lexsort((rows, -scores[rows]))[:depth]]
        ids = [[backend.term_id(t) for t in p] for p in plan.phrases]
        keep = []
        for row in best:
            f = backend.features(int(row))
            if all(phrase_present(p, [f.title, f.abstract, f.keywords]) for p in ids):
                keep.append(row)
        return np.asarray(sorted(keep), dtype=np.int64)

    def _rerank(self, backend, plan: QueryPlan, rows: np.ndarray, base: np.ndarray) -> np.ndarray:
        w = self.settings.weights
        f = self.rerank_features(backend, plan, rows)
        score = base / (base.max() or 1.0)
        score += w.title_match * f["title_match"] + w.title_cover * f["title_cover"]
        score += w.title_in_query * f["title_in_query"]
        if w.title_exact:
            score += w.title_exact * f["title_exact"]
        score += w.proximity * f["proximity"]
        if w.coverage:
            score += w.coverage * f["coverage"]
        if w.keyword:
            score += w.keyword * f["keyword"]
        if plan.people and not plan.person_is_query:
            score += w.author * f["author"]
        return score

    def rerank_features(self, backend, plan: QueryPlan, rows: np.ndarray) -> dict[str, np.ndarray]:
        """The second stage's features of `rows` (each a share in [0, 1]), by name; `_rerank`
        adds them with fixed weights and the learned ranker reads them as they are."""
        n = len(rows)
        groups = [[backend.term_id(s) for s, _ in g.stems] for g in plan.groups]
        gm = GroupMap(groups, idf_of_groups(plan, backend), backend.n_terms)
        title = Mapped.gather(gm, *backend.sequences("title"), rows)
        abstract = Mapped.gather(gm, *backend.sequences("abstract"), rows)
        keywords = Mapped.gather(gm, *backend.sequences("keywords"), rows)
        q_in_t = idf_share(gm, [title], n)
        t_in_q = title_in_query(title, n)
        pairs = adjacent_pairs(gm, title, n) + adjacent_pairs(gm, abstract, n)
        out = {"title_match": (q_in_t * t_in_q) ** 2, "title_cover": q_in_t, "title_in_query": t_in_q,
               "title_exact": ((q_in_t > 1 - 1e-9) & (t_in_q > 1 - 1e-9)).astype(np.float64),
               "proximity": np.minimum(pairs / max(gm.n_groups - 1, 1), 1.0),
               "coverage": idf_share(gm, [title, abstract, keywords], n),
               "keyword": keyword_match(gm, keywords, n), "author": np.zeros(n)}
        if plan.people and not plan.person_is_query:
            rank = person_rank(backend, plan, rows, self.settings.max_people)
            evidence = np.asarray([m.score for m in plan.people[:self.settings.max_people]] + [0.0])
            out["author"] = evidence[rank] / plan.people[0].score  # rank -1 picks the 0.0
        return out

    def _page(self, backend: SearchBackend, rows: np.ndarray, relevance: np.ndarray,
              sort: str, offset: int, limit: int) -> np.ndarray:
        """Positions into `rows` of the page, one per work: a paper with several versions (a
        workshop and a main-track record, a rejected submission and its later acceptance) is
        listed once, by its best-placed version, and the others ride along on its result."""
        needed = offset + limit
        works = backend.works()
        k = needed
        while True:
            order = self._sort(backend, rows, relevance, sort, k)
            complete = len(order) >= len(rows)  # the newest/citations orders sort every row at once
            _, first = np.unique(works[rows[order]], return_index=True)
            order = order[np.sort(first)]
            if len(order) >= needed or complete:
                return order[offset:needed]
            k = min(len(rows), k * 2)

    def _sort(self, backend: SearchBackend, rows: np.ndarray, relevance: np.ndarray,
              sort: str, k: int) -> np.ndarray:
        """Positions into `rows` of the first `k` in display order; every order ends with the
        row (= key)."""
        years = backend.years()[rows]
        cites = backend.citations()[rows]
        if sort == "newest":
            return np.lexsort((rows, -relevance, -years))
        if sort == "citations":
            return np.lexsort((rows, -relevance, -cites))
        if not relevance.any():  # filter-only query: most cited, then newest
            return np.lexsort((rows, -years, -cites))
        return top_order(rows, relevance, k)


def count_works(works: np.ndarray, rows: np.ndarray) -> int:
    """How many works the matching rows are versions of: the total a user sees listed."""
    return int(np.count_nonzero(np.bincount(works[rows]))) if len(rows) else 0

