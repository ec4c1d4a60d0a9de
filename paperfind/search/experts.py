"""Who works on this: people ranked by their own papers' match to a topic or an abstract.

The voting model of expert search (Balog et al. 2006, "Model 2"), over paper scores made the
way paperfind matches papers: each paper eligible for the query (published before `before`,
within the venue / institution / year filters) gets a score in [0, 1] from two routes, the
lexical one (BM25F of the query's strongest terms, `similar.weighted_terms`, each counted once,
over the whole index) and the semantic one (cosine of the query's e5 vector with the stored paper vectors),
each as standard scores over the `depth` papers it found, weighed and summed; the lexical
route's papers first gain the idf of the query's word pairs they hold (`expert_pairs`). A person's score is a decaying sum over their best `top_papers` works among them (a
work's versions count once), each weighed up when recent (relative to the query's own time)
and when they are the first or last author; the first people are then re-ordered by the
query's rare word pairs their own papers hold (signature phrases, `expert_phrases`), and those
whose eligible papers link the GitHub account the query links are lifted (`expert_links`). A prolific person does not win by volume (only
their best few papers count), and a group does not fill the list: a person whose evidence is
papers already shown for people above them is moved down (`group_discount`). Only people with a
track record are listed: at least `min_works` eligible works (the request's, or the settings'
3), the same count each person shows as works counted.

Eligibility is applied to the papers before anything is summed, so `before=2023` can never
count a 2023 paper, and `exclude` (a paper's people and their recent co-authors, the conflicts
a chair avoids) removes people, never papers. The per-person arrays are the index's
(`paperfind.index.profiles`); the semantic route is the backend's own (`nearest`), so the
Milvus backend answers from its collection's vectors.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import NamedTuple

import numpy as np

from paperfind.index.distinct import union
from paperfind.index.profiles import PersonProfiles
from paperfind.search.expert_links import by_links, linked_people
from paperfind.search.expert_learned import ExpertRanker, expert_ranker, learned_order, person_features
from paperfind.search.expert_pairs import pair_bonus
from paperfind.search.expert_phrases import QueryPairs, by_phrases, query_pairs, query_term_ids
from paperfind.search.backend import IndexBackend, Restriction
from paperfind.search.filters import Filters
from paperfind.search.settings import ExpertSettings
from paperfind.search.similar import SimilarSettings, _term_scores, weighted_terms
from paperfind.text.analyze import Analyzer

SCORE_DECIMALS = 6


@dataclass(frozen=True)
class ExpertQuery:
    """What to find people for: the query's text, or a paper's (`paper_row` >= 0, its row)."""

    text: str
    lexical_text: str = ""  # what the lexical route reads (a Chinese query's English); "" = text
    filters: Filters = Filters()
    before: int | None = None  # only papers published before this year count
    exclude_people: frozenset[int] = frozenset()  # author ids never listed (conflicts)
    paper_row: int = -1

    def restriction(self) -> Restriction:
        """The papers that may count as evidence: the filters, and nothing from `before` on."""
        f = self.filters
        if self.before is not None:
            year_to = self.before - 1 if f.year_to is None else min(f.year_to, self.before - 1)
            f = Filters(venues=f.venues, year_from=f.year_from, year_to=year_to, insts=f.insts,
                        areas=f.areas, statuses=f.statuses, since=f.since)
        if f.since is not None:
            year_from = f.since if f.year_from is None else max(f.year_from, f.since)
            f = Filters(venues=f.venues, year_from=year_from, year_to=f.year_to, insts=f.insts,
                        areas=f.areas, statuses=f.statuses)
        return Restriction(filters=f)


@dataclass
class Expert:
    """One person: score, their best matching papers (rows, best first) and how many works count."""

    author_id: int
    score: float
    evidence: list[int] = field(default_factory=list)
    evidence_scores: list[float] = field(default_factory=list)


@dataclass
class PaperScores:
    """The eligible papers either route found, with each route's score in [0, 1]."""

    rows: np.ndarray
    text: np.ndarray
    meaning: np.ndarray
    cosine: np.ndarray | None = None  # the raw cosines (nan where the vectors did not find it)

    def combined(self, settings: ExpertSettings) -> np.ndarray:
        """The weighted sum of the routes' standard scores, divided by its best: in [0, 1]."""
        blend = settings.text_weight * self.text + settings.vector_weight * self.meaning
        best = float(blend.max(initial=0.0))
        return blend / best if best > 0 else blend


def query_terms(backend: IndexBackend, analyzer: Analyzer, text: str,
                settings: ExpertSettings) -> list[tuple[str, float]]:
    """The query's lexical terms: its `max_terms` strongest by count x idf, as `similar` chooses a
    paper's, each at its count in the query when `settings.term_counts`, else once (BM25's idf
    alone weighs it). An abstract repeats its topic's words ("graph" six times), which then
    outweigh the rarer words of its method and setting that tell its authors' own papers apart
    (once: dev R@10 .425 -> .470, dev2 .330 -> .365, bench/RESULTS.md)."""
    terms = weighted_terms(backend, analyzer, "", text, SimilarSettings(max_terms=settings.max_terms))
    return terms if settings.term_counts else [(term, 1.0) for term, _ in terms]


def text_route(backend: IndexBackend, terms: list[tuple[str, float]], eligible: np.ndarray | None,
               depth: int) -> tuple[np.ndarray, np.ndarray]:
    """(rows, BM25F) of the `depth` best eligible papers by BM25F of `terms`."""
    if not terms:
        return np.zeros(0, dtype=np.int64), np.zeros(0)
    scores = _term_scores(backend, "text", terms)
    if eligible is not None:
        scores = np.where(eligible, scores, 0.0)
    hits = np.flatnonzero(scores > 0)
    if len(hits) > depth:
        hits = hits[np.argpartition(-scores[hits], depth - 1)[:depth]]
    if not len(hits):
        return hits.astype(np.int64), np.zeros(0)
    return hits.astype(np.int64), scores[hits]


def standardised(scores: np.ndarray) -> np.ndarray:
    """A route's scores over the papers it found as standard scores, those below the mean 0:
    BM25 and e5 cosines live on unrelated scales (cosines of unrelated papers sit near .75), and
    how far a paper stands above the route's own crowd is what both say alike (dev R@10 .340 with
    each route divided by its best, .375 standardised, .395 with the text route at twice the
    weight: bench/RESULTS.md)."""
    if not len(scores):
        return np.zeros(0)
    scores = np.asarray(scores, dtype=np.float64)
    spread = float(scores.std())
    if spread <= 0:  # one paper found, or all alike: each as good as the best
        return np.ones(len(scores))
    return np.clip((scores - scores.mean()) / spread, 0.0, None)


def merge_routes(text_rows: np.ndarray, text: np.ndarray, meaning_rows: np.ndarray,
                 meaning: np.ndarray, cosines: np.ndarray | None = None) -> PaperScores:
    rows = union(text_rows, meaning_rows).astype(np.int64)
    t, m, c = np.zeros(len(rows)), np.zeros(len(rows)), np.full(len(rows), np.nan)
    t[np.searchsorted(rows, text_rows)] = text
    m[np.searchsorted(rows, meaning_rows)] = meaning
    if cosines is not None:
        c[np.searchsorted(rows, meaning_rows)] = cosines
    return PaperScores(rows, t, m, c)


def paper_weights(backend: IndexBackend, rows: np.ndarray, reference_year: int,
                  settings: ExpertSettings) -> np.ndarray:
    """Recency per paper: 1 for the reference year, halving every `recency_half_life_years`."""
    if settings.recency_half_life_years <= 0:
        return np.ones(len(rows))
    years = np.asarray(backend.index.docs.year[rows], dtype=np.float64)
    age = np.clip(reference_year - years, 0, None)
    return 0.5 ** (age / settings.recency_half_life_years)


def listed_people(profiles: PersonProfiles, ids: np.ndarray, eligible: np.ndarray | None,
                  settings: ExpertSettings, works: np.ndarray | None = None) -> np.ndarray | None:
    """Which of `ids` may be listed: those with at least `min_works` eligible works (a work's
    versions once: the number each listed person shows as works counted), read from `works`
    (every person's, in `profiles.ids` order: `IndexBackend.people_works`) or counted among the
    `eligible` rows, or None when every one may (a floor of 1 or less: each of them has a
    matching eligible paper). The judge's
    relevant people have 3 earlier works; a newcomer with one or two matching papers took a
    place in the top 10 that no relevant person can hold (2,000 training queries: R@10 +.007
    [+.003, +.011] at 3, -.008 at 4; rows or works alike: exp32c, bench/RESULTS.md)."""
    if settings.min_works <= 1:
        return None
    if works is not None:
        return works[np.searchsorted(profiles.ids, ids)] >= settings.min_works
    return profiles.eligible_works(ids, eligible) >= settings.min_works


class Ranking(NamedTuple):
    """`rank_people`'s answer: the people listed, best first, and how many there are."""

    experts: list[Expert]
    total: int  # people with an eligible matching paper and at least `min_works` eligible works
    below_floor: int  # people with an eligible matching paper but fewer works (not listed)


def rank_people(backend: IndexBackend, profiles: PersonProfiles, papers: PaperScores,
                reference_year: int, settings: ExpertSettings,
                exclude: frozenset[int] = frozenset(), needed: int = 0,
                pairs: QueryPairs | None = None, eligible: np.ndarray | None = None,
                linked: frozenset[int] = frozenset(), works: np.ndarray | None = None) -> Ranking:
    """The best `needed` (at least `spread_depth`) people with an eligible matching paper and
    `min_works` eligible works, best first (ties by author id), how many people are listed and
    how many the floor left out. With the query's rare word `pairs`
    the first of them are re-ordered by their signature phrases among the `eligible` rows
    (paperfind.search.expert_phrases), then the `linked` people (those whose eligible papers
    link the query's code account, paperfind.search.expert_links) lifted, before the group spread.
    `works`: every person's eligible works when known (`IndexBackend.people_works`), else
    the floor counts them among `eligible`."""
    docs = backend.index.docs
    score = papers.combined(settings) * paper_weights(backend, papers.rows, reference_year, settings)
    keep = score > 0
    rows, score = papers.rows[keep], score[keep]
    if not len(rows):
        return Ranking([], 0, 0)
    starts = np.asarray(docs.author_indptr[rows], dtype=np.int64)
    counts = np.asarray(docs.author_indptr[rows + 1], dtype=np.int64) - starts
    entries = np.repeat(starts - np.cumsum(counts) + counts, counts) + np.arange(int(counts.sum()))
    people = np.asarray(docs.author[entries], dtype=np.int64)
    paper = np.repeat(np.arange(len(rows)), counts)
    edge = profiles.entry_edge[entries]
    value = score[paper] * np.where(edge, 1.0, settings.middle_author_weight)
    ok = people > 0
    if exclude:
        ok &= ~np.isin(people, np.fromiter(exclude, dtype=np.int64))
    people, paper, value = people[ok], paper[ok], value[ok]
    if not len(people):  # every author of every matching paper excluded (or unresolved)
        return Ranking([], 0, 0)
    work = np.asarray(docs.work[rows], dtype=np.int64)[paper]
    # best first within a person; a work's other versions after its best (then dropped)
    order = np.lexsort((rows[paper], -value, people))
    people, paper, value, work = people[order], paper[order], value[order], work[order]
    # one int64 key a (person, work): np.unique over a 2-row stack sorts structured rows (~1 ms)
    key = people * (int(work.max(initial=0)) + 1) + work
    _, first = np.unique(key, return_index=True)
    first_of_work = np.zeros(len(people), dtype=bool)
    first_of_work[first] = True  # the first of each (person, work) is its best version
    people, paper, value = people[first_of_work], paper[first_of_work], value[first_of_work]
    group_start = np.flatnonzero(np.r_[True, people[1:] != people[:-1]])
    rank = np.arange(len(people)) - np.repeat(group_start, np.diff(np.r_[group_start, len(people)]))
    counted = rank < settings.top_papers
    weight = np.where(counted, settings.decay ** rank, 0.0)
    ids = people[group_start]
    totals = np.add.reduceat(value * weight, group_start)
    totals = np.round(totals, SCORE_DECIMALS)
    # only the head is made into objects (8,000 people match a topic of two words)
    order = np.lexsort((ids, -totals))
    everyone = len(order)
    listed = listed_people(profiles, ids, eligible, settings, works)
    if listed is not None:
        order = order[listed[order]]
    head = order[:max(settings.spread_depth, needed)]
    ends = np.r_[group_start[1:], len(people)]
    experts = []
    for i in head.tolist():
        lo, hi = int(group_start[i]), int(ends[i])
        best = paper[lo:min(hi, lo + settings.evidence)]
        experts.append(Expert(int(ids[i]), float(totals[i]), [int(rows[p]) for p in best],
                              [round(float(v), SCORE_DECIMALS) for v in value[lo:lo + len(best)]]))
    if pairs is not None:
        experts = by_phrases(backend, profiles, experts, pairs, eligible, settings)
    experts = by_links(experts, linked, settings)
    return Ranking(spread_groups(experts, settings), len(order), everyone - len(order))


def spread_groups(experts: list[Expert], settings: ExpertSettings) -> list[Expert]:
    """Move down people whose evidence is papers already shown above them: of ten co-authors
    of the same three papers, the first keeps its place, the others lose `group_discount` per
    paper shown before (as a share of their evidence). Only the head is re-ordered."""
    if settings.group_discount <= 0 or len(experts) < 2:
        return experts
    head, tail = experts[:settings.spread_depth], experts[settings.spread_depth:]
    shown: dict[int, int] = {}
    adjusted = []
    for e in head:
        seen = sum(1 for r in e.evidence if shown.get(r, 0) > 0)
        share = seen / max(len(e.evidence), 1)
        adjusted.append((e.score * (1.0 - settings.group_discount * share), e))
        for r in e.evidence:
            shown[r] = shown.get(r, 0) + 1
    adjusted.sort(key=lambda pair: (-pair[0], pair[1].author_id))
    return [e for _, e in adjusted] + tail


def conflicts(backend: IndexBackend, profiles: PersonProfiles, row: int, years: int) -> frozenset[int]:
    """The paper's own people and everyone who wrote a paper with one of them in the
    `years` years up to the paper's year (from year - years on), the conflicts of interest."""
    docs = backend.index.docs
    own = [int(a) for a in docs.authors_of(row) if int(a) > 0]
    year = int(docs.year[row])
    people = set(own)
    for author_id in own:
        rows = profiles.rows_of(author_id)
        recent = rows[np.asarray(docs.year[rows]) >= year - years]
        for r in recent.tolist():
            people.update(int(a) for a in docs.authors_of(r) if int(a) > 0)
    return frozenset(people)


@dataclass
class ExpertsFound:
    """The people for a query, best first, with the words of the query their evidence holds."""

    experts: list[Expert]  # the best, at least as many as asked for
    total: int  # people listed: with an eligible matching paper and `min_works` eligible works
    below_floor: int  # people with an eligible matching paper but fewer works (not listed)
    eligible: np.ndarray | None  # rows that may count (None: all)
    terms: list[tuple[str, float]]
    reference_year: int
    papers: PaperScores | None = None  # what the voting summed (for the learned ranker's features)


def vector_text(text: str, settings: ExpertSettings) -> str:
    """What is embedded of a query: its first words, as a paper's vector is of its opening."""
    return " ".join(text.split()[:settings.query_vector_words])


def meaning_hits(backend, local: IndexBackend, text: str, restriction: Restriction,
                 depth: int, max_tokens: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(local rows, cosines) of the `depth` nearest eligible papers, from the serving backend's
    vectors (the local index's, or a Milvus collection's, mapped to local rows by key), the
    query embedded with `max_tokens` model tokens (`ExpertSettings.query_max_tokens`)."""
    found = backend.nearest(text, restriction, depth, max_tokens)
    rows = np.asarray(found.handles, dtype=np.int64)
    if backend is not local:
        rows = np.asarray(backend.local_rows(rows), dtype=np.int64)
    keep = rows >= 0
    return rows[keep], np.asarray(found.scores, dtype=np.float64)[keep]


def find_experts(backend, query: ExpertQuery, settings: ExpertSettings,
                 analyzer: Analyzer | None = None, needed: int = 10) -> ExpertsFound:
    """Everyone whose eligible papers match `query`, best first (see the module docstring).
    `backend` is the serving one: its whole-corpus arrays are the local index's."""
    local: IndexBackend = getattr(backend, "local", backend)
    analyzer = analyzer or Analyzer()
    profiles = local.profiles()
    restriction = query.restriction()
    eligible = local._mask(restriction)
    docs = local.index.docs
    reference_year = (query.before - 1) if query.before is not None else int(docs.year.max(initial=0))
    terms = query_terms(local, analyzer, query.lexical_text or query.text, settings) if settings.text_weight > 0 else []
    text_rows, text = text_route(local, terms, eligible, settings.depth)
    # the query's term ids, in order: its word pairs in the route and its signature phrases
    term_ids = query_term_ids(local, analyzer, query.lexical_text or query.text)
    text = text + pair_bonus(local, term_ids, text_rows, settings)
    if settings.vector_weight > 0 and backend.vectors_ready():
        meaning_rows, cosines = meaning_hits(backend, local, vector_text(query.text, settings),
                                             restriction, settings.depth, settings.query_max_tokens)
    else:
        meaning_rows, cosines = np.zeros(0, dtype=np.int64), np.zeros(0)
    papers = merge_routes(text_rows, standardised(text), meaning_rows, standardised(cosines), cosines)
    pairs = query_pairs(local, term_ids, settings)
    # the learned ranker re-orders the voting's first `learned_depth` people, as many as it was
    # trained on (train_experts asks for them): a page's 10 would give it only `spread_depth`,
    # and features read among the candidates (co-authors listed) would differ from training's
    wanted = max(needed, settings.learned_depth) if settings.learned else needed
    linked = linked_people(local, query.text, eligible) if settings.link_weight > 0 else frozenset()
    works = local.people_works(restriction) if settings.min_works > 1 else None
    experts, total, below_floor = rank_people(local, profiles, papers, reference_year, settings,
                                              query.exclude_people, wanted, pairs, eligible, linked,
                                              works)
    if settings.learned and experts:
        ranker = expert_ranker(settings.learned_model)
        if ranker is not None:
            experts = learned_rerank(ranker, local, profiles, papers, experts, eligible,
                                     reference_year, query.text, settings)
    return ExpertsFound(experts, total, below_floor, eligible, terms, reference_year, papers)


def candidate_features(local: IndexBackend, profiles: PersonProfiles, papers: PaperScores,
                       experts: list[Expert], eligible: np.ndarray | None, reference_year: int,
                       text: str, settings: ExpertSettings) -> np.ndarray:
    """The learned ranker's features of the voting's first `learned_depth` people: what the
    model is trained on (`paperfind.rank.train_experts`) and what it reads when serving."""
    head = experts[:settings.learned_depth]
    return person_features(local.index.docs, profiles, papers, papers.combined(settings),
                           [e.author_id for e in head], [e.score for e in head], eligible,
                           reference_year, len(text.split()))


def learned_rerank(ranker: ExpertRanker, local: IndexBackend, profiles: PersonProfiles,
                   papers: PaperScores, experts: list[Expert], eligible: np.ndarray | None,
                   reference_year: int, text: str, settings: ExpertSettings) -> list[Expert]:
    """The voting's first `learned_depth` people in the model's order, its scores in (0, 1);
    the people after them keep the voting's order below them (scores scaled under the last's)."""
    head, tail = experts[:settings.learned_depth], experts[settings.learned_depth:]
    features = candidate_features(local, profiles, papers, experts, eligible, reference_year, text, settings)
    order, scores = learned_order(ranker.scores(features))
    ranked = [replace(head[i], score=round(float(s), SCORE_DECIMALS)) for i, s in zip(order.tolist(), scores)]
    if tail:
        floor = float(scores.min()) / 2 if len(scores) else 1.0
        best = max(tail[0].score, 1e-9)
        tail = [replace(e, score=round(floor * e.score / best, SCORE_DECIMALS)) for e in tail]
    return ranked + tail
