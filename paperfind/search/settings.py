"""Search tuning knobs in one place (the application's settings object can embed this)."""

from __future__ import annotations

from dataclasses import dataclass, field

from paperfind.search.rank import RankWeights


@dataclass(frozen=True)
class SearchSettings:
    rerank_depth: int = 200  # candidates the second stage looks at
    phrase_check_depth: int = 2000  # candidates checked for a quoted phrase
    max_limit: int = 100
    max_offset: int = 10_000
    max_people: int = 20  # people whose papers are put first for a name query
    author_cards: int = 5
    weights: RankWeights = field(default_factory=RankWeights)
    rrf_k: int = 60  # hybrid mode: reciprocal rank fusion constant
