"""The searcher: query → parsed plan → candidates → re-ranked, filtered, faceted response.

Intent is read from the query itself: a name puts that person's papers first (most likely
person first), a near-exact title wins through the title features, a filter-only query lists
the filtered papers most-cited first. Everything is deterministic: every ordering ends with the
handle, and handles order as paper keys do. The engine (`SearchBackend`) hands out candidates
and counts; everything here runs over the candidates.
"""

from __future__ import annotations

import copy
import math
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from paperfind.cards import best_first
from paperfind.index.docs import IndexSource
from paperfind.text.analyze import Analyzer
from paperfind.text.fold import has_han
from paperfind.limits import MAX_OFFSET, MAX_PAGE_SIZE
from paperfind.search.backend import (PAPER_FACETS, CandidateRequest, Candidates, Clause, Restriction,
                                      SearchBackend)
from paperfind.search.cache import ResultCache, request_key
from paperfind.search.filters import Filters, merge_filters
from paperfind.search.drafts import CardDrafts
from paperfind.search.highlight import Marker
from paperfind.search.fusion import classify_query
from paperfind.search.hybrid import FUSION_DEPTH, fuse_rows
from paperfind.search.learned import (DEFAULT_MODEL, FEATURES, FirstStage, LearnedRanker, ModelError,
                                      candidate_features, learned_relevance)
from paperfind.search.live import LiveIndex
from paperfind.search.named import name_tier, named_papers
from paperfind.search.people import person_tiers
from paperfind.search.plan import QueryPlan, build_plan, translated_plan
from paperfind.search.sense_weights import with_implied_senses
from paperfind.search.pool import Pool, joined_candidates, lexical_matches_among, with_tail
from paperfind.search.query import ParsedQuery, parse_query
from paperfind.search.rank import top_order
from paperfind.search.row_features import QueryFeatures
from paperfind.search.response import (MODES, SORTS, SearchRequest, SearchResponse, author_card,
                                       suggestion_text)
from paperfind.search.second_stage import (certain_title, phrase_share, query_terms,
                                           weighted, with_phrases)
from paperfind.search.settings import SearchSettings, SenseSettings
from paperfind.search.trend import trend, work_facets
from paperfind.search.understand import Understanding, find_institutions, typed_without, without_names

if TYPE_CHECKING:
    from paperfind.search.expert_results import ExpertsRequest
    from paperfind.text.translate import ZhEnTranslator

SCORE_DECIMALS = 6  # scores are compared (and shown) at this precision
# lexical mode: every sense of the reading at the translation's weight, no implied sense added
UNWEIGHED_SENSES = SenseSettings(below=0.0, implied=False)
# the facets a search counts in papers; its year and venue facets are counted in works
PAPERS_COUNTED = tuple(f for f in PAPER_FACETS if f not in ("year", "venue"))


def _ranks_lexically(q: ParsedQuery, plan: QueryPlan) -> bool:
    """Whether hybrid mode ranks this query by words alone (names, keyword kinds), so it needs
    no query embedding."""
    return plan.person_is_query or classify_query(q.text).semantic_weight == 0


@dataclass
class Ranking:
    """What `Searcher._rank` found: the pool, the mode used, what retrieval computed for the
    learned ranker (when fused), and the match set the counts are over (`request`, or the pool
    alone when None) with whether the pool may miss matches (the engine's cut to k)."""

    pool: Pool
    mode: str
    stage: FirstStage | None
    request: CandidateRequest | None
    truncated: bool = False
    rows: QueryFeatures | None = None  # the candidates' features computed so far (for `stage`)
    # the pool's first rows that are the query's candidates; those below fill a deep page
    # (Searcher._fill_with_relaxed) and are not counted. None: every row
    matched: int | None = None

    def counted(self) -> Pool:
        """The pool without the rows that fill a deep page: what the total, facets and trend
        read besides the match set, the same for every page of one query."""
        if self.matched is None:
            return self.pool
        return self.pool.take(np.arange(self.matched))


@dataclass
class Query:
    """A request read: parsed text, the plan, the restriction."""

    q: ParsedQuery
    plan: QueryPlan
    restriction: Restriction


class Searcher:
    """Answers `SearchRequest`s from the backend `live` holds now.

    `translator` is the process's zh→en translator (a Chinese query's lexical route searches
    its English rendering); the live index's query encoder holds the same one.
    """

    def __init__(self, live: LiveIndex, translator: "ZhEnTranslator",
                 settings: SearchSettings | None = None) -> None:
        self.live = live
        self.translator = translator
        self.settings = settings or SearchSettings()
        self.analyzer = Analyzer()
        self.cache = ResultCache(self.settings.result_cache)
        self._ranker: LearnedRanker | bool | None = None  # False: tried, unusable

    def backend(self) -> SearchBackend | None:
        return self.live.backend()

    def load_parts(self) -> None:
        """Load what the first queries need besides the index (the learned ranker, the
        segmenter's dictionary, the translator, the query model), so that a first start can
        load them while its index is still being written."""
        self.ranker()
        self.live.load_kernel()
        self.analyzer.load_segmenter()
        self.translator.load()
        self.live.load_encoder()

    def warm_for_serving(self) -> None:
        """Load once, before the first request, what a server would otherwise load during an
        early one (`LiveIndex.load_for_serving`, pypinyin's tables): each was a 0.2-0.5 s
        outlier among a fresh server's first queries. And the translator reads its segmenter's
        frequent words ahead (`ZhEnTranslator.warm`): a fresh server's Chinese queries are new."""
        from paperfind.index.names import load_pinyin

        self.live.load_for_serving()
        load_pinyin()
        if self.settings.translate_chinese:
            self.translator.warm(self.settings.translator_warm_words)

    def load_experts(self) -> None:
        """Make the expert finder's people and rare word pairs (a server's warm-up)."""
        self.live.load_experts()

    def warm_state(self) -> dict[str, bool]:
        """Which of the parts a first query would otherwise wait for are loaded: the index, the
        expert finder's parts, the segmenter's dictionary, the translator, and with vectors the
        vectors, their graph and the query encoder's model. Read from the parts themselves, so
        a test can tell."""
        live = self.live.warm_state()
        state = {"index": live.pop("index"), "segmenter": self.analyzer.segmenter_loaded,
                 "translator": self.translator.loaded}
        state.update(live)
        return state

    def lexical_text_of(self, text: str) -> str:
        """The English the lexical route reads for a Chinese `text` ("" when it is not Chinese)."""
        from paperfind.text.translate import lexical_query_text

        return lexical_query_text(text, self.translator) if has_han(text) else ""

    def experts(self, request: "ExpertsRequest") -> dict:
        """Who works on a topic, an abstract or a paper (paperfind.search.expert_results).
        Answers are kept in the result cache beside the searches' (keyed by the request and the
        index and vector generations, as a search is): every paper page asks for its own
        "Who works on this?" section, at 100-200 ms, and pages are reloaded and revisited."""
        from paperfind.search.expert_results import experts_response

        self.backend()  # the generation names what is loaded: load it first
        key = ("experts", self.live.generation(), request)
        cached = self.cache.get(key)
        if cached is not None:  # copied: a caller may decorate the answer
            return copy.deepcopy(cached)
        out = experts_response(self, request)
        self.cache.put(key, copy.deepcopy(out))
        return out

    def paper_names(self, key: str) -> dict:
        """The names a paper goes by and its standing, as the index mined them (the paper
        page's "also known as"): nothing for a paper the index does not hold yet."""
        backend = self.backend()
        local = getattr(backend, "local", backend)  # a remote engine's names are the local index's
        row = int(local.handles_of([key])[0]) if local is not None else -1
        if row < 0:
            return {"also_known_as": [], "standing": {"score": 0.0, "mentions": 0}}
        return {"also_known_as": local.also_known_as([row])[0],
                "standing": {"score": round(float(local.standing(np.asarray([row]))[0]), 4),
                             "mentions": local.mentions([row])[0]}}

    def standing_of(self, keys: list[str]) -> dict[str, float]:
        """The standing of each key the index holds (the order of sort=citations, for the lists
        of a person, an institution or a venue); none while no index is open."""
        backend = self.backend()
        local = getattr(backend, "local", backend)
        if local is None or not keys:
            return {}
        handles = np.asarray(local.handles_of(keys), dtype=np.int64)
        scores = local.standing(handles)
        return {k: float(s) for k, h, s in zip(keys, handles, scores) if h >= 0}

    def similar(self, key: str, limit: int = 10, aspect: str | None = None) -> list[dict]:
        """Papers like `key` (never its other versions), as result cards with their reasons;
        `aspect` ("background", "method", "result") asks for papers like it in that respect.

        Raises `UnknownPaper` for a key the index does not hold, `ValueError` for another aspect.
        """
        from paperfind.search.similar import similar_papers

        backend = self.backend()
        if backend is None:
            return []
        # similar papers read whole-corpus arrays (similar.py is not on the candidate contract):
        # a remote engine hands over the local index it keeps beside itself (MilvusBackend.local)
        found = similar_papers(getattr(backend, "local", backend), key, limit, aspect=aspect)
        store = self.live.store()
        cards = {c["key"]: c for c in store.paper_cards([p.key for p in found])}
        # a work is shown by its best version (paperfind.cards), as in search results
        best = {k: best_first([c, *c["versions"]])[0]["key"] for k, c in cards.items()}
        cards.update((c["key"], c) for c in store.paper_cards(
            [b for k, b in best.items() if b != k]))
        return self._name_cards(backend, [dict(cards[best[p.key]], **{
            k: v for k, v in p.to_json().items() if k not in ("title", "key")})
            for p in found if p.key in cards and best[p.key] in cards])

    def name_cards(self, cards: list[dict]) -> list[dict]:
        """`cards` (of any list: an author's, a venue's, an export) with the names their works
        go by, as search results carry them; none while no index is open."""
        backend = self.backend()
        return cards if backend is None else self._name_cards(backend, cards)

    @staticmethod
    def _name_cards(backend: SearchBackend, cards: list[dict],
                    known: dict[str, int] | None = None) -> list[dict]:
        """Each card's `also_known_as`: the names of the version shown, then of the work's
        other versions on the card, once each. One rule for every list, so a paper's card is the
        same wherever it appears. `known`: handles of keys the caller holds already (a search's
        page), so only the others are looked up by key."""
        keys = [[c["key"], *(v["key"] for v in c.get("versions", ()))] for c in cards]
        flat = [k for ks in keys for k in ks]
        known = known or {}
        missing = [k for k in flat if k not in known]
        found = dict(zip(missing, (int(h) for h in backend.handles_of(missing)))) if missing else {}
        handles = [known[k] if k in known else found[k] for k in flat]
        known = [h for h in handles if h >= 0]
        names = dict(zip(known, backend.also_known_as(known))) if known else {}
        at = 0
        for card, ks in zip(cards, keys):
            own = handles[at:at + len(ks)]
            at += len(ks)
            card["also_known_as"] = list(dict.fromkeys(n for h in own if h >= 0 for n in names[h]))
        return cards

    # -- search -------------------------------------------------------------------------------
    def _read(self, backend: SearchBackend, q: ParsedQuery, filters: Filters, mode: str) -> Query:
        """The plan (with a Chinese query's English rendering) and the restriction of a query.
        A Chinese word's senses are weighed by their titles' company in the modes with vectors
        only: in lexical mode the weighing failed its keep rule (zh_dev2 MRR@10 .890 -> .879 at
        156k) and its ~1-2 ms at p95 is a tenth of that mode's budget (bench/RESULTS.md, zh28q
        and the lead's session 30 section)."""
        plan = build_plan(q, self.analyzer, backend)
        if self.settings.overlap_embedding:
            self._prefetch_query_vector(backend, q, plan, mode)
        if not plan.person_is_query and self.settings.translate_chinese and has_han(q.text):
            translation = self.translator.translate(q.text)
            if translation.english.strip() and translation.english != q.text:
                senses = self.settings.senses if mode != "lexical" else UNWEIGHED_SENSES
                terms = translation.terms
                if senses.implied and senses.below > 0:
                    terms = with_implied_senses(terms, self.analyzer, self.translator.implied_sense)
                plan = translated_plan(plan, self.analyzer, backend, translation.english, terms, senses)
        restriction = self._restriction(backend, q, plan, merge_filters(filters, q))
        return Query(q, plan, restriction)

    def _ranked(self, backend: SearchBackend, query: Query, offset: int, limit: int, sort: str,
                mode: str, explain: bool, drafts: CardDrafts | None = None,
                counted: tuple[str, ...] | None = None) -> tuple[Ranking, np.ndarray, dict[int, list]]:
        """The ranking, the page (positions into its pool) and what decided the learned
        model's order (with `explain`). From the engine's best candidates: every candidate
        below those ranks below them too, so the page is the same unless it reaches down
        there (a deep page), and then it is made from every match. `drafts`: the page's cards,
        which a fused query drafts for its lexical leaders while it waits for its vector."""
        needed = offset + limit
        if sort != "relevance" or offset:  # the lexical leaders are a first page's likely results
            drafts = None
        k = None  # the date and citations orders, and filter-only queries, sort every match
        if sort == "relevance" and query.plan.groups:
            k = max(self.settings.phrase_check_depth, FUSION_DEPTH + self.settings.rerank_depth,
                    2 * needed)
        while True:
            ranking = self._rank(backend, query, needed, mode, k, drafts, counted)
            explained: dict[int, list] = {}
            if ranking.stage is not None and sort == "relevance" \
                    and ranking.stage.kind in self.settings.learned_kinds:
                ranking.pool.relevance, explained = self._learned_order(
                    backend, query.plan, ranking.stage, ranking.pool, explain, ranking.rows)
            # float noise must not beat the key order
            ranking.pool.relevance = np.round(ranking.pool.relevance, SCORE_DECIMALS)
            page = self._page(backend, ranking.pool, sort, offset, limit)
            relevance = ranking.pool.relevance
            # a candidate the engine left out scores at most the pool's lowest; at that score
            # (deep pages, where rounding makes many 0) the key order would mix it in
            if ranking.truncated and not (len(page) == limit and relevance[page[-1]] > relevance.min()):
                k = None
                continue
            # filled once the pool holds every match: below all of them, never among them (in
            # relevance order only; a date's or a standing's order would mix them in)
            if len(page) < limit and sort == "relevance" and self._relaxable(ranking.request):
                self._fill_with_relaxed(backend, ranking, needed)
                page = self._page(backend, ranking.pool, sort, offset, limit)
            return ranking, page, explained

    @staticmethod
    def _page(backend: SearchBackend, pool: Pool, sort: str, offset: int, limit: int) -> np.ndarray:
        """The page's positions in `pool`, with the stored fields its order reads."""
        if sort in ("citations", "influence"):  # one standing order (Pool.sort)
            pool.standing = backend.standing(pool.handles)
        if sort == "rating":
            pool.rating = backend.ratings(pool.handles)
        return pool.page(sort, offset, limit)

    def _relaxable(self, request: CandidateRequest | None) -> bool:
        """Whether a short page may be filled with papers having fewer of the query's words:
        its matches were cut to a share of its words by a fixed count (`relax_below`), not by
        the page's size; a person's name never (`SearchSettings.relax_names_below`)."""
        return self.settings.relax_below is not None and request is not None \
            and bool(request.groups) and request.min_match > 1 and request.relax_most is None

    @staticmethod
    def _fill_with_relaxed(backend: SearchBackend, ranking: Ranking, needed: int) -> None:
        """Put below the ranking's pool, in BM25 order, the papers with any one of the query's
        words: a deep page of a query with fewer matches of its words' share than the page
        reaches is filled as when the page's size decided the relaxing, and the rows above
        keep the order every shorter page has. The filled rows are not the query's matches:
        the counts leave them out (`Ranking.matched`), so every page says one total."""
        pool = ranking.pool
        tail = backend.candidates(replace(ranking.request, min_match=1, relax_below=0,
                                          k=needed + len(pool.handles)))
        filled = with_tail(pool, tail)
        filled.relevance = np.round(filled.relevance, SCORE_DECIMALS)
        ranking.pool, ranking.matched = filled, len(pool.handles)

    def search(self, request: SearchRequest, leftovers: list | None = None) -> SearchResponse:
        """The answer to `request`. `leftovers`: a list that the search's working objects (its
        query plan, candidates, pool, cards' drafts, counts) are put in instead of being freed as
        it returns, which took ~0.1 ms of a fresh query after its `took_ms` was stamped and
        before its answer could be sent; a server frees them once it has sent the answer
        (paperfind.web.search_route)."""
        started = time.perf_counter()
        q = parse_query(request.q or "")
        mode = request.mode if request.mode in MODES else "lexical"
        backend = self.live.backend(vectors=mode != "lexical")
        if backend is None:
            return SearchResponse(q.raw, 0, 0.0, [], [], {}, None, "lexical")
        key = request_key(request, self.live.generation())
        cached = self.cache.get(key)
        if cached is not None:  # hits are copied: a caller may decorate its results
            return replace(cached, results=[dict(r) for r in cached.results],
                           took_ms=(time.perf_counter() - started) * 1000)
        limit = max(1, min(int(request.limit or 10), MAX_PAGE_SIZE))
        offset = max(0, min(int(request.offset or 0), MAX_OFFSET))
        sort = request.sort if request.sort in SORTS else "relevance"
        q, understood = self._understand(backend, q, request.filters)
        query = self._read(backend, q, request.filters, mode)
        plan, restriction = query.plan, query.restriction
        stems = {s for g in plan.groups for s, _ in g.stems} | {s for p in plan.phrases for s in p}
        drafts = CardDrafts(backend, restriction, Marker(stems, self.analyzer, {g.word for g in plan.groups}))
        # the facets counted in papers; the total, years and venues (in works) always are
        shown = "facets" in request.include
        ranking, page, explained = self._ranked(backend, query, offset, limit, sort, mode,
                                                request.explain, drafts,
                                                PAPERS_COUNTED if shown else ())
        pool = ranking.pool
        results, works = drafts.results(pool.handles[page].tolist(), pool.relevance[page].tolist())
        self._name_cards(backend, results, {v.doc["key"]: v.handle for vs in works for v in vs})
        if explained:
            for j, result in zip(page, results):
                if int(j) in explained:
                    result["ranking"] = {"model": "learned", "top_features": [
                        {"feature": name, "contribution": value} for name, value in explained[int(j)]]}
        people = plan.people if plan.person_is_query or q.authors else plan.people[:2]
        cards = [author_card(backend.person_card(m)) for m in people[:self.settings.author_cards]]
        if plan.person_is_query or q.authors:
            _mark_named(results, {c["id"] for c in cards})
        # one pass over the matches counts the total, the facets and the trend's works; the
        # years and venues are shown in works, like the total and the trend: not counted in papers
        counted = ranking.counted()
        counts = backend.facets(ranking.request, counted.handles, papers=PAPERS_COUNTED if shown else ())
        facets = {}
        if shown and (len(counted.handles) or not restriction.empty()):
            in_works = work_facets(counts.works)
            facets = {f: in_works[f] if f in in_works else counts.papers[f] for f in PAPER_FACETS}
        filters = restriction.filters
        drawn = trend(counts.works, backend.corpus_stats().works, filters.year_from,
                      filters.year_to, self.settings.trend_venues) \
            if "trend" in request.include else None
        response = SearchResponse(q.raw, counts.total_works, 0.0, results, cards,
                                  facets, _as_stored_name(backend, suggestion_text(q.raw, plan.corrections)),
                                  ranking.mode, drawn,
                                  "exact" if counts.exact else "approximate",
                                  understood.to_json() if understood else None,
                                  None if ranking.truncated else counted.with_citations())
        self.cache.put(key, replace(response, results=[dict(r) for r in results]))
        if leftovers is not None:  # freed by the caller, once it has answered
            leftovers.append((query, drafts, ranking, works, counts))
        # timed last: the suggestion's spelling, the citations' count and the cache's copy are
        # the search's work too (~0.13 ms at p50, up to a few ms, otherwise counted as the web's)
        response.took_ms = (time.perf_counter() - started) * 1000
        return response

    def _understand(self, backend: SearchBackend, q: ParsedQuery,
                    filters: Filters) -> tuple[ParsedQuery, Understanding | None]:
        """`q` with the institutions its text names made filters (paperfind.search.understand),
        and what was understood. A name that is also a topic word keeps the reading that
        matches more papers; the other becomes the understanding's `alternative`."""
        if not self.settings.understand_institutions or not q.words:
            return q, None
        from paperfind.catalog.aliases import alias_table

        found = find_institutions(q, backend, alias_table(), self.translator.is_word,
                                  self.translator.field_sense)
        if not found:
            return q, None
        alternative = None
        two_ways = [f for f in found if f.mention.ambiguous]
        if two_ways:
            settled = [f for f in found if not f.mention.ambiguous]
            as_institution = without_names(q, found)
            # the words reading: the same other words, and the name as a word of the text
            as_words = replace(as_institution, insts=without_names(q, settled).insts)
            clauses = tuple(self._word_clause(f.mention.written) for f in two_ways)
            if self._count(backend, as_words, filters, clauses) > self._count(backend, as_institution, filters):
                insts = " ".join(f"inst:{f.mention.slug}" for f in two_ways)
                alternative = {"reading": "institution", "q": f"{insts} {typed_without(q.raw, two_ways)}".strip(),
                               "institutions": [f.mention.to_json() for f in two_ways]}
                found = settled
            else:
                quoted = q.raw
                for f in two_ways:
                    quoted = quoted.replace(f.mention.written, f'"{f.mention.written}"', 1)
                alternative = {"reading": "words", "q": quoted,
                               "institutions": [f.mention.to_json() for f in two_ways]}
        read = without_names(q, found) if found else q
        return read, Understanding([f.mention for f in found], read.text,
                                   typed_without(q.raw, found), alternative)

    def _word_clause(self, written: str) -> Clause:
        """Papers whose text has a name as words: a Latin name's words, or those of a Chinese
        one's sense in the field's glossary (字节: byte)."""
        fields = ("title", "abstract", "keywords")
        if has_han(written):
            written = self.translator.field_sense(written)
        return Clause(tuple(tuple((f, self.analyzer.stem(w)) for f in fields)
                            for w in self.analyzer.words(written) if not self.analyzer.is_stopword(w)))

    def _count(self, backend: SearchBackend, q: ParsedQuery, filters: Filters,
               require: tuple[Clause, ...] = ()) -> int:
        """Papers a reading of a query matches (its words as the ranking requires them, and
        every `require` clause)."""
        query = self._read(backend, q, filters, "lexical")
        restriction = replace(query.restriction, require=query.restriction.require + require)
        if not query.plan.groups:
            if restriction.empty():
                return 0
            return backend.candidates(CandidateRequest([], restriction)).total
        msm = self._min_match(q, query.plan.known_groups(backend))
        return backend.candidates(CandidateRequest(query.plan.lexical(), restriction, msm, k=1)).total

    def _min_match(self, q: ParsedQuery, n: int) -> int:
        """How many of the plan's groups a paper must match: all of one or two known words,
        all but one of three or four, a share of longer text, one after an OR (`n`: the
        plan's groups the index knows)."""
        if q.any_of or n == 0:
            return 1
        return n if n <= 2 else n - 1 if n <= 4 else math.ceil(self.settings.min_match_share * n)

    @staticmethod
    def _prefetch_query_vector(backend: SearchBackend, q: ParsedQuery, plan: QueryPlan, mode: str) -> None:
        """Embed the query on a worker thread while the lexical route runs, when `_rank` will need it."""
        if not backend.vectors_ready() or mode == "lexical" or not q.text.strip() or not plan.groups:
            return
        if mode == "hybrid" and _ranks_lexically(q, plan):
            return
        backend.prefetch_vector(q.text)

    def _restriction(self, backend: SearchBackend, q: ParsedQuery, plan: QueryPlan,
                     filters: Filters) -> Restriction:
        """The filters, and the query's `author:` and `-word` parts, as the engine takes them.
        A named author the engine knows puts that person first among the plan's people."""
        people: list[tuple[int, ...]] = []
        require: list[Clause] = []
        for name in q.authors:
            matches = backend.people(name)
            if matches:
                plan.people = matches + [m for m in plan.people if m not in matches]
                people.append(tuple(m.author_id for m in matches[:50]))
            else:  # no such person: papers whose author list has all the name's words
                require.append(Clause(tuple((("authors", w),) for w in self.analyzer.name_terms(name))))
        exclude: list[Clause] = []
        for text in q.excluded:
            words = [w for w in self.analyzer.words(text) if not self.analyzer.is_stopword(w)]
            if words:
                exclude.append(Clause(tuple(
                    tuple((f, self.analyzer.stem(w)) for f in ("title", "abstract", "keywords"))
                    + (("authors", w),) for w in words)))
        return Restriction(filters, tuple(people), tuple(require), tuple(exclude))

    def _rank(self, backend: SearchBackend, query: Query, needed: int, mode: str,
              k: int | None, drafts: CardDrafts | None = None,
              counted: tuple[str, ...] | None = None) -> Ranking:
        """The matching candidates and their relevance (not yet ordered), the mode used, and
        what retrieval computed (for the learned ranker) when the query was fused (hybrid);
        with `drafts`, the cards of the lexical leaders drafted while the vector is made, and
        with `counted` (the facets the search counts in papers), the lexical matches counted then."""
        q, plan, restriction = query.q, query.plan, query.restriction
        if not plan.groups:
            if restriction.empty():
                return Ranking(Pool.of(Candidates.empty(), np.zeros(0)), "lexical", None, None)
            request = CandidateRequest([], restriction)
            found = backend.candidates(request)
            return Ranking(Pool.of(found, np.zeros(len(found))), "lexical", None, request)  # by citations
        n = plan.known_groups(backend)
        msm = self._min_match(q, n)
        people = tuple(m.author_id for m in plan.people[:self.settings.max_people])
        named = named_papers(backend, q, plan) if self.settings.paper_names else np.zeros(0, dtype=np.int64)
        relax = needed if self.settings.relax_below is None else self.settings.relax_below
        relax_most = self.settings.relax_names_below \
            if plan.person_is_query and self.settings.relax_below is not None else None
        request = CandidateRequest(plan.lexical(), restriction, msm, relax, people, k,
                                   tuple(int(h) for h in named), relax_most)
        found = backend.candidates(request)
        truncated = found.total > len(found)
        # quotes in a sentence-like description are scare quotes ('a "simple" fix that works'),
        # not an operator: there they raise the papers with the phrase instead of dropping
        # every paper without it
        soft_phrases = bool(plan.phrases) and classify_query(q.text).name == "natural"
        terms = query_terms(plan)
        kept = QueryFeatures(backend, plan, terms, self.settings.max_people)
        if plan.phrases and not soft_phrases:
            found = found.take(with_phrases(backend, plan, terms, found, self.settings.phrase_check_depth))
            request, truncated = None, False  # the pool is every match there is
        pool, relevance, certain = self._lexical_order(backend, query, found, terms, n, soft_phrases, mode,
                                                       kept)
        used, stage = "lexical", None
        if mode == "hybrid" and len(pool.handles) and backend.vectors_ready() \
                and (_ranks_lexically(q, plan) or certain):
            # this kind of query ranks lexically, or its lexical first is a title the meaning
            # cannot unseat: spare the query embedding
            used = "hybrid"
        elif mode != "lexical" and q.text.strip():
            if self.settings.nearest_on_worker:  # searched by the worker once the vector is made
                backend.prefetch_nearest(q.text, restriction, self.settings.rerank_depth)
            if mode == "hybrid" and self._learns(q):
                # while the query's vector is made (a worker thread): the learned ranker's
                # features of the lexical leaders, most of the fused top it will order
                kept.prepare(pool.handles[top_order(pool.handles, relevance,
                                                    min(len(pool.handles), self.settings.learned_depth))])
            if mode == "hybrid" and drafts is not None and self.settings.draft_cards:
                # then, while it is still being made, the cards of the likeliest results: the
                # first page's number of lexical leaders (~4 in 5 of them are on it)
                leaders = pool.handles[top_order(pool.handles, relevance,
                                                 min(len(pool.handles), needed, self.settings.draft_cards))]
                drafts.draft(leaders.tolist(), lambda: backend.vector_pending(q.text))
            if mode == "hybrid" and counted is not None and request is not None \
                    and backend.vector_pending(q.text):
                # still waiting: the counts of the lexical matches, to which `facets` then adds
                # the vector's other candidates (~0.8 ms of a TL;DR query's after-the-vector part)
                backend.count_ahead(request, counted)
            near = backend.nearest(q.text, restriction, self.settings.rerank_depth)
            if len(near) and request is not None and mode == "hybrid":
                more = lexical_matches_among(backend, request, found, near)
                if len(more):  # the lexical ranking as if the engine had returned them too
                    found = joined_candidates(found, more)
                    pool, relevance, _ = self._lexical_order(backend, query, found, terms, n, soft_phrases,
                                                             mode, kept)
            if len(near):
                rows, fused, used = fuse_rows(q.text, pool.handles, relevance, near.handles,
                                              near.scores, mode, plan.person_is_query)
                pool = Pool.joined(rows, fused, [found, near])
                if used == "semantic":
                    request, truncated = None, False
                else:
                    stage = FirstStage(near.handles, near.scores, len(plan.groups),
                                       classify_query(q.text).name, len(q.text))
        if used != "semantic":
            pool.relevance = name_tier(pool.handles, pool.relevance, named)
        return Ranking(pool, used, stage, request, truncated, kept)

    def _learns(self, q: ParsedQuery) -> bool:
        """Whether the learned ranker orders this query's fused candidates (its kind, a model)."""
        return classify_query(q.text).name in self.settings.learned_kinds and self.ranker() is not None

    def _lexical_order(self, backend: SearchBackend, query: Query, found: Candidates, terms: list[str],
                       n: int, soft_phrases: bool, mode: str,
                       rows: QueryFeatures) -> tuple[Pool, np.ndarray, bool]:
        """The lexical candidates' pool and relevance (the second stage over the best BM25
        ones, the people's papers first for a name), and whether the first is a title the
        query types nearly whole (hybrid mode then spares the query embedding). `rows`: the
        query's per-row features, kept for the candidates ranked again after the vector."""
        q, plan = query.q, query.plan
        people = tuple(m.author_id for m in plan.people[:self.settings.max_people])
        relevance = found.scores.astype(np.float64)
        pool = Pool.of(found, relevance)
        # a long description's BM25 order is already informative; short queries (topics,
        # titles) need the wider pool for their keyword and title features
        depth = self.settings.rerank_depth if n <= 4 else self.settings.rerank_depth_long
        top_n = min(len(pool.handles), depth)
        certain = False
        if top_n:
            top = top_order(pool.handles, relevance, top_n)
            weights = self.settings.weights if self.settings.paper_names else replace(
                self.settings.weights, standing=0.0)
            second = rows.second_stage(pool.handles[top])
            reranked = weighted(second, plan, relevance[top], weights)
            rest = np.ones(len(pool.handles), dtype=bool)
            rest[top] = False
            if rest.any():  # below every re-ranked row, in BM25 order
                floor = max(float(reranked.min()), 1e-6)
                relevance[rest] = floor * 0.5 * relevance[rest] / max(float(relevance[rest].max()), 1e-9)
            if soft_phrases and self.settings.weights.phrase:
                reranked += self.settings.weights.phrase * phrase_share(
                    backend, plan, terms, pool.handles[top])
            relevance[top] = reranked
            certain = mode == "hybrid" and self.settings.lexical_certain \
                and certain_title(q.text, second, reranked, self.settings.certain_title_share,
                                  self.settings.learned_title_cover, pool.works[top])
        if people and plan.person_is_query:
            relevance += person_tiers(backend, plan, pool.handles, pool.years, relevance,
                                      self.settings.max_people, self.settings.interleave_people)
        return pool, relevance, certain

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
        """(handles of today's top `depth` in hybrid mode, their features) for `text`; None when
        the query is not fused (no vectors, or a kind that ranks by words alone). What the
        learned ranker sees at query time, for `paperfind.rank.train`."""
        backend = self.backend()
        q = parse_query(text)
        if backend is None or not q.text.strip():
            return None
        query = self._read(backend, q, Filters(), "hybrid")
        ranking = self._rank(backend, query, depth, "hybrid", None)
        if ranking.stage is None:
            return None
        pool = ranking.pool
        pool.relevance = np.round(pool.relevance, SCORE_DECIMALS)
        top = pool.page("relevance", 0, depth)
        return pool.handles[top], candidate_features(backend, query.plan, query_terms(query.plan),
                                                     ranking.stage, pool.take(top), self.settings.max_people,
                                                     ranking.rows)

    def _learned_order(self, backend: SearchBackend, plan: QueryPlan, stage: FirstStage, pool: Pool,
                       explain: bool, rows: QueryFeatures | None = None) -> tuple[np.ndarray, dict[int, list]]:
        """The pool's relevance with its first `learned_depth` works ordered by the learned
        model, and per re-ordered position its deciding features (`rows`: the query's per-row
        features computed so far)."""
        ranker = self.ranker()
        relevance = pool.relevance
        if ranker is None or not len(pool.handles):
            return relevance, {}
        rounded = Pool(pool.handles, np.round(relevance, SCORE_DECIMALS), pool.works, pool.years,
                       pool.citations)
        top = rounded.page("relevance", 0, self.settings.learned_depth)
        features = candidate_features(backend, plan, query_terms(plan), stage, pool.take(top),
                                      self.settings.max_people, rows)
        if features[:, FEATURES.index("title_cover")].max() >= self.settings.learned_title_cover:
            return relevance, {}  # a title typed (a typo, a word left out): its title decides
        rest = np.ones(len(pool.handles), dtype=bool)
        rest[top] = False
        out = relevance.copy()
        out[top], out[rest] = learned_relevance(relevance[rest], ranker.scores(features))
        explained = {}
        if explain:
            explained = dict(zip(top.tolist(), ranker.top_features(features)))
        return out, explained



def open_searcher(index_root: Path | str, store: IndexSource | None = None,
                  settings: SearchSettings | None = None,
                  vector_dir: Path | str | None = None) -> Searcher:
    """A searcher over the index under `index_root` (built from `store` when missing) with its
    own live index and translator: for scripts and tests that are the whole process."""
    from paperfind.text.translate import ZhEnTranslator

    settings = settings or SearchSettings()
    translator = ZhEnTranslator()
    live = LiveIndex(index_root, store=(lambda: store) if store is not None else None,
                     vector_dir=vector_dir, settings=settings, translator=translator)
    return Searcher(live, translator, settings)



def _mark_named(results: list[dict], slugs: set[str]) -> None:
    """Each card's `named`: where in its authors the people the query names are, so a card
    shows "A, B, C, …, Yoshua Bengio, … et al." when the person searched for is not first."""
    if not slugs:
        return
    for result in results:
        at = [i for i, a in enumerate(result.get("authors", ())) if a.get("id") in slugs]
        if at:
            result["named"] = at


def _as_stored_name(backend: SearchBackend, suggestion: str | None) -> str | None:
    """A suggestion that is a person's whole name, as the person's papers print it: the
    corrected words came out of the vocabulary in lower case ("Yoshua bengio")."""
    if not suggestion:
        return suggestion
    from paperfind.index.names import FULL
    from paperfind.text.names import fold_name

    for match in backend.people(suggestion)[:1]:
        name = backend.person_card(match).get("name", "")
        if match.kind == FULL and fold_name(name) == fold_name(suggestion):
            return name
    return suggestion
