"""The answer of "who works on this" as every entry point shows it: people with their evidence
as paper cards (paperfind.cards, the same card as every list), built from the ranking of
`paperfind.search.experts`. The web's JSON and pages and the CLI print this dict as it is."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Protocol

import numpy as np

from paperfind.limits import MAX_PAGE_SIZE
from paperfind.search.experts import ExpertQuery, conflicts, find_experts
from paperfind.search.filters import Filters
from paperfind.search.similar import UnknownPaper
from paperfind.text.analyze import Analyzer
from paperfind.text.fold import has_han

class ExpertsSearcher(Protocol):
    """What the answer is built from (`paperfind.search.engine.Searcher` is one)."""

    settings: Any  # SearchSettings: `.experts` are the expert finder's
    analyzer: Analyzer
    live: Any  # its `store()`: the database the cards come from

    def backend(self) -> Any: ...
    def name_cards(self, cards: list[dict]) -> list[dict]: ...
    def lexical_text_of(self, text: str) -> str: ...

MATCHED_WORDS = 6  # words of the query shown per person (from their evidence's titles)


@dataclass(frozen=True)
class ExpertsRequest:
    q: str = ""
    paper: str = ""  # a paper key: its title and abstract are the query
    before: int | None = None
    exclude: str = ""  # a paper key: its people and their recent co-authors are not listed
    filters: Filters = Filters()
    min_works: int | None = None  # only people with this many eligible works; None: the settings'
    page: int = 1
    size: int = 10


def experts_response(searcher: ExpertsSearcher, request: ExpertsRequest) -> dict[str, Any]:
    """The page of people for `request`: no one without a query or a paper (as a search without
    words), the paper's text with `q`'s words after it when both are given; only people with
    `min_works` eligible works (the settings' without it), with how many the floor left out, so
    a page can say so rather than list no one in silence. Raises `UnknownPaper` for a `paper`
    or `exclude` key the index does not hold."""
    q, paper = " ".join(request.q.split()), request.paper.strip()
    backend = searcher.backend()
    settings = searcher.settings.experts
    if request.min_works is not None:
        settings = replace(settings, min_works=max(request.min_works, 0))
    out: dict[str, Any] = {"q": q, "paper": paper or None, "before": request.before,
                           "exclude": request.exclude or None, "min_works": settings.min_works,
                           "page": request.page, "size": request.size, "total": 0,
                           "fewer_works": 0, "results": [], "matched": []}
    if backend is None or not (q or paper):
        return out
    local = getattr(backend, "local", backend)
    text = " ".join(t for t in (_paper_text(local, paper) if paper else "", q) if t)
    excluded: frozenset[int] = frozenset()
    if request.exclude:
        row = int(local.row_of(request.exclude))
        if row < 0:
            raise UnknownPaper(request.exclude)
        excluded = conflicts(local, local.profiles(), row, settings.conflict_years)
    lexical = searcher.lexical_text_of(text) if has_han(text) else ""
    size = max(1, min(request.size, MAX_PAGE_SIZE))
    start = (max(request.page, 1) - 1) * size
    found = find_experts(backend, ExpertQuery(text=text, lexical_text=lexical, filters=request.filters,
                                              before=request.before, exclude_people=excluded),
                         settings, searcher.analyzer, needed=start + size)
    chosen = found.experts[start:start + size]
    out["total"], out["fewer_works"] = found.total, found.below_floor
    words = {t: float(len(found.terms) - i) for i, (t, _) in enumerate(found.terms)}
    if not chosen:
        return out
    works = local.profiles().works_counted([e.author_id for e in chosen], found.eligible)
    store = searcher.live.store()
    keys = [local.key_of(r) for e in chosen for r in e.evidence]
    cards = {c["key"]: c for c in searcher.name_cards(store.paper_cards(keys))}
    institutions = store.people_institutions([e.author_id for e in chosen], request.before)
    names = local.index.names
    results = []
    for expert, counted in zip(chosen, works):
        card = names.card(int(np.searchsorted(names.ids, expert.author_id)))
        evidence = [dict(cards[local.key_of(r)], score=s) for r, s in
                    zip(expert.evidence, expert.evidence_scores) if local.key_of(r) in cards]
        results.append({"id": card["slug"], "name": card["name"], "score": expert.score,
                        "institutions": institutions.get(expert.author_id, []),
                        "works": counted, "evidence": evidence,
                        "matched": _matched(evidence, words, searcher.analyzer)})
    out["results"] = results
    out["matched"] = list(dict.fromkeys(w for r in results for w in r["matched"]))[:12]
    return out


def _paper_text(local, key: str) -> str:
    row = int(local.row_of(key))
    if row < 0:
        raise UnknownPaper(key)
    doc = local.stored([row])[0]
    return f"{doc.get('title', '')}. {doc.get('abstract', '')}".strip()


def _matched(evidence: list[dict], weights: dict[str, float], analyzer: Analyzer) -> list[str]:
    """Words of the evidence's titles that are query terms (`weights`: analysed term -> its
    rank weight in the query), the query's strongest first: words a reader knows, not stems."""
    seen: dict[str, float] = {}
    for card in evidence:
        for word in card.get("title", "").replace("-", " ").split():
            clean = word.strip(".,:;!?()[]{}\"'").lower()
            if not clean or clean in seen:
                continue
            stems = analyzer.terms(clean)
            if stems and stems[0] in weights:
                seen[clean] = weights[stems[0]]
    return [w for w, _ in sorted(seen.items(), key=lambda kv: (-kv[1], kv[0]))][:MATCHED_WORDS]
