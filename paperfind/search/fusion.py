"""Fusion of lexical and semantic candidate lists, with a weight that depends on the query kind.

Our lexical ranking is already right at rank 1 for most author-TL;DR and translated Chinese
queries, and reciprocal rank fusion flattens exactly that: with k=60 ranks 1 and 2 differ by
0.0003 while a semantic list at weight 0.1 moves a paper by more. RRF lowered MRR below lexical
alone (whole default corpus, words24 vectors: tldr MRR .819 vs lexical .867; bench/RESULTS.md,
"Fusion weight per query kind"), while a convex sum of scores raised it: `lexical /
max(lexical) + w * cosine rescaled between the semantic list's first and last score`. Names
stay lexical (w = 0). Ties are broken by paper key.

For descriptions the semantic list is weak on its own (the shipped words24 vectors, title + 24
abstract words, reach tldr MRR@10 .558 alone against lexical's .864: bench/RESULTS.md, "Search
modes"), so a larger weight undoes more right lexical answers than it fixes, and every weight
plateaued at lexical's MRR. Where the semantic list does help is a near-tie at the lexical top:
when the lexical score of its first choice is within a few percent of the lexical best (and
among the lexical top 3), the meaning decides rank 1 (`near_tie`). When lexical is confident,
its order stands (bench/RESULTS.md, the retired fusion_sweep).
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from paperfind.index.distinct import union
from paperfind.text.fold import han_share
from paperfind.text.stopwords import CLASSIFIER_STOPWORDS

# (paper key or index row, score), best first; keys must sort consistently (rows sorted by key do)
Ranked = Sequence[tuple[Any, float]]

SEMANTIC_DEPTH = 100  # the cosine rescaling spans the top 100, as when the weights were chosen
NEAR_TIE_RANKS = 3  # a near-tie is settled among this many lexical leaders (2-5 measured alike)
_WORD = re.compile(r"[^\W\d_][\w'\-.]*", re.UNICODE)
_NAME_PART = re.compile(r"^(?:[A-Z][a-z'\-]+|[A-Z]\.?|[A-Z][a-z]+-[A-Z][a-z]+|(?:van|von|de|der|da|di|del|le|la))$")
_LOWER_NAME_PART = re.compile(r"^[a-z][a-z'\-]+$")


@dataclass(frozen=True)
class QueryKind:
    """The weight of the semantic score against the normalised lexical one (0 = lexical only)."""

    name: str
    semantic_weight: float
    # the semantic first choice takes rank 1 when its lexical score is within this share of the
    # lexical best and it is among the lexical top NEAR_TIE_RANKS (0 = off)
    near_tie: float = 0.0


# One weight per kind of query, chosen by the retired fusion sweep (bench/RESULTS.md) on the whole default corpus
# (bench/RESULTS.md, "Fusion weight per query kind"), swept with title vectors and with the
# shipped words24 ones, which pick the same weights. With words24: short keyword queries lost
# at every weight (topical nDCG@10 .694 at 0, .678 at 0.05); Chinese queries gained most at 0.2
# (zh nDCG .788 → .840, MRR .746 → .799, R@10 .917 → .967), where the near-tie rule changed
# nothing (0.03-0.05) or lost (0.1). Descriptions: weight 0.05 with near-tie 0.05 (tldr MRR
# .867 → .873, nDCG .879 → .886, R@10 .919 → .928; 0.1 alone gave MRR .868); near-tie 0.03-0.1
# all measured above lexical, with both vector sets.
QUERY_KINDS: dict[str, QueryKind] = {
    "name": QueryKind("name", 0.0),
    "chinese": QueryKind("chinese", 0.2),
    "keywords": QueryKind("keywords", 0.0),
    "natural": QueryKind("natural", 0.05, near_tie=0.05),
}


def looks_like_name(query: str) -> bool:
    """A person's name: 2-4 name-shaped words ("Ferenc Huszar", "C. Laurent", "Roberto Martin-Martin").

    The other rule, `plan.find_people`, asks the name index whether the words name someone in
    the corpus, and the engine passes its answer as `kind` where it has one. This one reads the
    text alone and answers a different question, so it stays: a name nobody in the corpus has
    ("Zorblax Quuxington", no lexical match) must get no papers by meaning either, and the
    benches classify queries without an index.
    """
    parts = query.split()
    if not 2 <= len(parts) <= 4 or any(p.lower() in CLASSIFIER_STOPWORDS for p in parts):
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
    content = [w for w in words if w.lower() not in CLASSIFIER_STOPWORDS]
    if len(words) <= 4 or len(content) == len(words) and len(words) <= 6:
        return QUERY_KINDS["keywords"]
    return QUERY_KINDS["natural"]


def convex_fusion(lexical: Ranked, semantic: Ranked, weight: float) -> list[tuple[Any, float]]:
    """score = lexical / max(lexical) + weight * (cos - last cos) / (first cos - last cos).

    `semantic` is the semantic top list (best first, cosine scores); a paper outside it gets 0
    for its semantic part, a paper outside the lexical list 0 for its lexical part.
    """
    lex = _best_scores(lexical)
    sem = _best_scores(semantic)
    top = max(lex.values(), default=0.0)
    lex = {k: min(1.0, max(0.0, v / top)) for k, v in lex.items()} if top > 0 else dict.fromkeys(lex, 0.0)
    if sem:
        hi, lo = max(sem.values()), min(sem.values())
        span = hi - lo if hi > lo else 1.0
        sem = {k: (v - lo) / span for k, v in sem.items()}
    fused = {k: lex.get(k, 0.0) + weight * sem.get(k, 0.0) for k in lex.keys() | sem.keys()}
    return sorted(fused.items(), key=lambda item: (-item[1], item[0]))


def fuse(query: str, lexical: Ranked, semantic: Ranked, *,
         kind: QueryKind | None = None) -> list[tuple[Any, float]]:
    """Hybrid ranking for `query` from its lexical and semantic candidates.

    `kind` overrides the classification (e.g. a caller that found the query to be an author's
    name). With no semantic list, or weight 0, the lexical list comes back in its own order;
    with no lexical list, the semantic one does (except for a name: meaning cannot find people).
    """
    kind = kind or classify_query(query)
    if not semantic:
        return _own_order(lexical)
    if not lexical and kind.name != "name":
        return _own_order(semantic)
    if kind.semantic_weight == 0:
        return _own_order(lexical)
    fused = convex_fusion(lexical, _own_order(semantic)[:SEMANTIC_DEPTH], kind.semantic_weight)
    if kind.near_tie > 0:
        fused = settle_near_tie(fused, lexical, semantic, kind.near_tie)
    return fused


def settle_near_tie(fused: list[tuple[Any, float]], lexical: Ranked, semantic: Ranked,
                    share: float, ranks: int = NEAR_TIE_RANKS) -> list[tuple[Any, float]]:
    """`fused` with the semantic first choice at rank 1 when lexical nearly ties it with its best.

    Near-tie: the paper is among the lexical top `ranks` and its lexical score is at least
    (1 - share) of the lexical best. A confident lexical ranking (a clear gap after rank 1) is
    left as fused: there the lexical answer is right far more often than the semantic one.
    """
    if not lexical or not semantic or not fused:
        return fused
    ordered = heapq.nsmallest(ranks, _best_scores(lexical).items(), key=lambda item: (-item[1], item[0]))
    best = ordered[0][1]
    leaders = dict(ordered)
    choice = _own_order(semantic)[0][0]
    if best <= 0 or choice not in leaders or leaders[choice] < best * (1 - share) \
            or fused[0][0] == choice:
        return fused
    lifted = dict(fused)
    lifted[choice] = fused[0][1] + 1e-3  # above the old first, beyond the displayed precision
    return sorted(lifted.items(), key=lambda item: (-item[1], item[0]))


def _best_scores(ranked: Ranked) -> dict[Any, float]:
    best: dict[Any, float] = {}
    for key, score in ranked:
        if key not in best or score > best[key]:
            best[key] = float(score)
    return best


def _own_order(ranked: Ranked) -> list[tuple[Any, float]]:
    return sorted(_best_scores(ranked).items(), key=lambda item: (-item[1], item[0]))


def fuse_arrays(query: str, lex_keys: np.ndarray, lex_scores: np.ndarray, sem_keys: np.ndarray,
                sem_scores: np.ndarray, *, kind: QueryKind | None = None) -> tuple[np.ndarray, np.ndarray]:
    """`fuse` of integer keys (index rows) given as arrays: the same keys in the same order with
    the same scores, bit for bit (the same float64 operations, elementwise), as (keys, scores).

    Why: the engine fuses a thousand lexical rows with the vector list on every hybrid query of
    a natural-language or Chinese kind, and `fuse` over Python lists and dicts took ~3 ms of it
    on a quiet core, ~10 ms under load (issue 33); these array operations take a small part of that.
    """
    kind = kind or classify_query(query)
    lex_keys, lex = _best_array(lex_keys, lex_scores)
    sem_keys, sem = _best_array(sem_keys, sem_scores)
    if not len(sem_keys):
        return _array_order(lex_keys, lex)
    if not len(lex_keys) and kind.name != "name":
        return _array_order(sem_keys, sem)
    if kind.semantic_weight == 0:
        return _array_order(lex_keys, lex)
    top_keys, top = (a[:SEMANTIC_DEPTH] for a in _array_order(sem_keys, sem))
    keys, fused = _convex_arrays(lex_keys, lex, top_keys, top, kind.semantic_weight)
    if kind.near_tie > 0 and len(lex_keys) and len(keys):
        keys, fused = _near_tie_arrays(keys, fused, lex_keys, lex, sem_keys, sem, kind.near_tie)
    return keys, fused


def _best_array(keys: np.ndarray, scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each key once, with its best score (`_best_scores`), keys ascending."""
    keys = np.asarray(keys, dtype=np.int64)
    scores = np.asarray(scores, dtype=np.float64)
    order = np.lexsort((-scores, keys))
    keys, scores = keys[order], scores[order]
    first = np.ones(len(keys), dtype=bool)
    first[1:] = keys[1:] != keys[:-1]
    return keys[first], scores[first]


def _array_order(keys: np.ndarray, scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`_own_order` of distinct keys: score descending, then key."""
    order = np.lexsort((keys, -scores))
    return keys[order], scores[order]


def _convex_arrays(lex_keys: np.ndarray, lex: np.ndarray, sem_keys: np.ndarray, sem: np.ndarray,
                   weight: float) -> tuple[np.ndarray, np.ndarray]:
    """`convex_fusion` of distinct keys, best first."""
    top = float(lex.max()) if len(lex) else 0.0
    lex = np.minimum(1.0, np.maximum(0.0, lex / top)) if top > 0 else np.zeros(len(lex))
    hi, lo = float(sem.max()), float(sem.min())
    span = hi - lo if hi > lo else 1.0
    sem = (sem - lo) / span
    keys = union(lex_keys, sem_keys)
    lex_part, sem_part = np.zeros(len(keys)), np.zeros(len(keys))
    lex_part[np.searchsorted(keys, lex_keys)] = lex
    sem_part[np.searchsorted(keys, sem_keys)] = sem
    return _array_order(keys, lex_part + weight * sem_part)


def _near_tie_arrays(keys: np.ndarray, fused: np.ndarray, lex_keys: np.ndarray, lex: np.ndarray,
                     sem_keys: np.ndarray, sem: np.ndarray, share: float,
                     ranks: int = NEAR_TIE_RANKS) -> tuple[np.ndarray, np.ndarray]:
    """`settle_near_tie` of distinct keys."""
    leader_keys, leader_scores = (a[:ranks] for a in _array_order(lex_keys, lex))
    best = float(leader_scores[0])
    choice = int(_array_order(sem_keys, sem)[0][0])
    at = np.flatnonzero(leader_keys == choice)
    if best <= 0 or not len(at) or float(leader_scores[at[0]]) < best * (1 - share) \
            or int(keys[0]) == choice:
        return keys, fused
    fused = fused.copy()
    fused[np.flatnonzero(keys == choice)[0]] = float(fused[0]) + 1e-3
    return _array_order(keys, fused)
