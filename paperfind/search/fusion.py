"""Fusion of lexical and semantic candidate lists, with weights that depend on the query kind.

Author TL;DRs share words with their abstracts, so BM25 is already right on them and a naive
fusion with a weaker dense model lowers MRR; names and exact titles have nothing to gain from
meaning at all; Chinese queries have nothing to gain from English words alone. So the weight of
each list is chosen per query kind (see `QUERY_KINDS`), and the fusion is a weighted reciprocal
rank fusion, which needs no score calibration between BM25 and cosine similarity.
Results are deterministic: ties are broken by paper key.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from paperfind.search.crosslingual import han_share

Ranked = Sequence[tuple[str, float]]  # (paper key, score), best first

RRF_K = 60
_WORD = re.compile(r"[^\W\d_][\w'\-.]*", re.UNICODE)
_NAME_PART = re.compile(r"^(?:[A-Z][a-z'\-]+|[A-Z]\.?|[A-Z][a-z]+-[A-Z][a-z]+|(?:van|von|de|der|da|di|del|le|la))$")
_LOWER_NAME_PART = re.compile(r"^[a-z][a-z'\-]+$")
_STOP = frozenset("a an and are as at be by can do does for from how in is it of on or the to what when "
                  "which why with we our using via towards toward into under over".split())


@dataclass(frozen=True)
class QueryKind:
    """How much each list counts for one kind of query; a weight of 0 drops that list."""

    name: str
    lexical_weight: float
    semantic_weight: float


QUERY_KINDS: dict[str, QueryKind] = {
    "name": QueryKind("name", 1.0, 0.0),
    "chinese": QueryKind("chinese", 0.5, 1.0),
    "keywords": QueryKind("keywords", 1.0, 0.5),
    "natural": QueryKind("natural", 1.0, 0.7),
}


def looks_like_name(query: str) -> bool:
    """A person's name: 2-4 name-shaped words ("Yuval Tassa", "D. Jain", "tomas lozano-perez")."""
    parts = query.split()
    if not 2 <= len(parts) <= 4 or any(p.lower() in _STOP for p in parts):
        return False
    if all(_NAME_PART.match(p) for p in parts):
        return True
    return False


def classify_query(query: str) -> QueryKind:
    """The kind of a query, from its text alone (no index access, so it costs microseconds)."""
    if han_share(query) >= 0.3:
        return QUERY_KINDS["chinese"]
    if looks_like_name(query.strip()):
        return QUERY_KINDS["name"]
    words = _WORD.findall(query)
    content = [w for w in words if w.lower() not in _STOP]
    if len(words) <= 4 or len(content) == len(words) and len(words) <= 6:
        return QUERY_KINDS["keywords"]
    return QUERY_KINDS["natural"]


def weighted_rrf(lists: Sequence[Ranked], weights: Sequence[float], k: int = RRF_K,
                 depth: int | None = None) -> list[tuple[str, float]]:
    """Weighted reciprocal rank fusion: score(key) = sum_i w_i / (k + rank_i(key)).

    A list with weight 0 contributes nothing; `depth` cuts each list before fusing.
    Ties (equal fused score) are ordered by key so that the ranking is reproducible.
    """
    if len(lists) != len(weights):
        raise ValueError(f"{len(lists)} ranked lists but {len(weights)} weights")
    fused: dict[str, float] = {}
    for ranked, weight in zip(lists, weights):
        if weight <= 0:
            continue
        seen: set[str] = set()
        for rank, (key, _score) in enumerate(ranked[:depth] if depth else ranked, start=1):
            if key in seen:  # a key repeated in one list counts at its best rank only
                continue
            seen.add(key)
            fused[key] = fused.get(key, 0.0) + weight / (k + rank)
    return sorted(fused.items(), key=lambda item: (-item[1], item[0]))


def fuse(query: str, lexical: Ranked, semantic: Ranked, *, kind: QueryKind | None = None,
         k: int = RRF_K, depth: int = 200) -> list[tuple[str, float]]:
    """Hybrid ranking for `query` from its lexical and semantic candidates.

    `kind` overrides the classification (e.g. a caller that knows the query is an author
    name). When one list is empty the other is returned in its own order, ties by key.
    """
    kind = kind or classify_query(query)
    if not semantic or kind.semantic_weight == 0:
        return _own_order(lexical)
    if not lexical or kind.lexical_weight == 0:
        return _own_order(semantic)
    return weighted_rrf([lexical, semantic], [kind.lexical_weight, kind.semantic_weight], k=k, depth=depth)


def _own_order(ranked: Ranked) -> list[tuple[str, float]]:
    best: dict[str, float] = {}
    for key, score in ranked:
        if key not in best:
            best[key] = float(score)
    return sorted(best.items(), key=lambda item: (-item[1], item[0]))
