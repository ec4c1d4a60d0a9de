"""Other ways of fusing the semantic list into the lexical one, against lexical alone (issue 4).

    .venv/bin/python bench/fusion_variants.py [--corpus default] [--vectors DIR]

Runs every development set once through `Searcher.search` in hybrid mode, keeping what the
engine hands to `fuse_rows` (lexical rows and scores, vector candidates), then replays that
input through each fusion rule below: one search per query, however many rules. Every rule is
per kind of query (the weight of the query's kind, as in QUERY_KINDS); none looks at a query's
text. `lexical` (weight 0 everywhere) is the baseline of the same run; `shipped` is `fuse` as it
is. author_dev is scored --lenient. Prints the table (nothing is written to RESULTS.md: the
sweep of the shipped rule is bench/fusion_sweep.py's).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import OUT, load_set, score, write_run  # noqa: E402

SETS = ("tldr_dev", "title_typo_dev", "author_dev", "topical_dev", "zh_dev")
OPTIONS = {"author_dev": ("--lenient",)}
Fuse = Callable[[list, list, float], list]  # (lexical, semantic top 100, weight) -> fused


def _order(scores: dict) -> list:
    return sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))


def _best(ranked) -> dict:
    out: dict = {}
    for k, s in ranked:
        out[k] = max(out.get(k, float("-inf")), float(s))
    return out


def normalised(lexnorm: str, semnorm: str) -> Fuse:
    """Convex sum after min-max or z-score normalisation of both lists (over the lexical top 100)."""
    def fuse(lexical, semantic, w):
        lex, sem = _best(lexical), _best(semantic)
        def norm(scores, sample, how):
            v = np.asarray(sample, dtype=float)
            if how == "z":
                mu, sd = v.mean(), v.std() or 1.0
                return {k: (s - mu) / sd for k, s in scores.items()}, (v.min() - mu) / sd
            lo, span = v.min(), (v.max() - v.min()) or 1.0
            return {k: max(0.0, (s - lo) / span) for k, s in scores.items()}, 0.0
        L, lfloor = norm(lex, [s for _, s in lexical[:100]], lexnorm)
        S, sfloor = norm(sem, list(sem.values()), semnorm)
        return _order({k: L.get(k, lfloor) + w * S.get(k, sfloor) for k in lex.keys() | sem.keys()})
    return fuse


def margin(lexical, ref: int) -> float:
    """(lexical best - mean of ranks 2..ref) / best: how confident the lexical ranking is."""
    vals = sorted((s for _, s in lexical), reverse=True)
    if len(vals) < 2 or vals[0] <= 0:
        return 1.0
    return (vals[0] - float(np.mean(vals[1:ref]))) / vals[0]


def gated(tau: float, ref: int) -> Fuse:
    """Convex fusion only when the lexical margin is at most `tau`; lexical order otherwise."""
    from paperfind.search.fusion import convex_fusion
    return lambda lexical, semantic, w: convex_fusion(lexical, semantic, w if margin(lexical, ref) <= tau else 0.0)


def scaled(tau: float, ref: int) -> Fuse:
    """Convex fusion with the weight shrinking linearly to 0 as the lexical margin reaches `tau`."""
    from paperfind.search.fusion import convex_fusion
    return lambda lexical, semantic, w: convex_fusion(lexical, semantic, w * max(0.0, 1 - margin(lexical, ref) / tau))


def protect_first(lexical, semantic, w):
    """Convex fusion, but the lexical first stays first."""
    from paperfind.search.fusion import convex_fusion
    fused = convex_fusion(lexical, semantic, w)
    first = _order(_best(lexical))[0][0]
    return _order({**dict(fused), first: fused[0][1] + 1.0})


def rrf(lexical, semantic, w):
    """Reciprocal rank fusion (k = 60), the semantic list weighted by w."""
    from paperfind.search.fusion import weighted_rrf
    return weighted_rrf([lexical, semantic], [1.0, w])


def admitted(gap: float) -> Fuse:
    """Convex fusion; papers only the semantic list found need a cosine within `gap` of its best."""
    from paperfind.search.fusion import convex_fusion
    def fuse(lexical, semantic, w):
        keep = _best(lexical).keys() | {k for k, s in semantic if s >= semantic[0][1] - gap}
        return [(k, s) for k, s in convex_fusion(lexical, semantic, w) if k in keep]
    return fuse


def shipped(kind_name: str) -> Fuse:
    from paperfind.search.fusion import QUERY_KINDS, fuse
    return lambda lexical, semantic, w: fuse("", lexical, semantic,
                                             kind=dataclasses.replace(QUERY_KINDS[kind_name], semantic_weight=w))


def variants() -> list[tuple[str, Callable[[str], Fuse], dict[str, float]]]:
    """(label, kind name -> fusion rule, weight per kind); kinds missing from the dict stay lexical."""
    from paperfind.search.fusion import QUERY_KINDS, convex_fusion
    ship = {k: v.semantic_weight for k, v in QUERY_KINDS.items() if v.semantic_weight}
    plain = lambda kind: convex_fusion  # noqa: E731
    return [
        ("lexical", plain, {}),
        ("shipped (fuse as it is)", shipped, ship),
        ("convex, natural 0.1 (before)", plain, {"natural": 0.1, "chinese": 0.2}),
        ("convex, natural 0.05", plain, {"natural": 0.05, "chinese": 0.2}),
        ("gate: fuse only if margin(2) <= 0.05", lambda k: gated(0.05, 2), {"natural": 0.1, "chinese": 0.2}),
        ("gate: fuse only if margin(5) <= 0.05", lambda k: gated(0.05, 5), {"natural": 0.1, "chinese": 0.2}),
        ("gate: fuse only if margin(2) <= 0.2", lambda k: gated(0.2, 2), {"natural": 0.1, "chinese": 0.2}),
        ("weight * (1 - margin(5) / 0.1)", lambda k: scaled(0.1, 5), {"natural": 0.1, "chinese": 0.2}),
        ("weight * (1 - margin(2) / 0.4)", lambda k: scaled(0.4, 2), {"natural": 0.1, "chinese": 0.2}),
        ("lexical first kept, 0.2 / 0.3", lambda k: protect_first, {"natural": 0.2, "chinese": 0.3}),
        ("RRF k=60, 0.1 / 0.2", lambda k: rrf, {"natural": 0.1, "chinese": 0.2}),
        ("min-max both, 0.05 / 0.1", lambda k: normalised("minmax", "minmax"), {"natural": 0.05, "chinese": 0.1}),
        ("min-max both, 0.1 / 0.3", lambda k: normalised("minmax", "minmax"), {"natural": 0.1, "chinese": 0.3}),
        ("z-score both, 0.05 / 0.2", lambda k: normalised("z", "z"), {"natural": 0.05, "chinese": 0.2}),
        ("z-score both, 0.1 / 0.4", lambda k: normalised("z", "z"), {"natural": 0.1, "chinese": 0.4}),
        ("semantic-only if cos >= best - 0.03", lambda k: admitted(0.03), {"natural": 0.05, "chinese": 0.2}),
    ]


def capture(searcher, request_type) -> dict:
    """Per set and query: the lexical ranking and the arguments of the engine's fuse_rows call."""
    from paperfind.search import engine, fusion
    seen: dict = {}
    real = engine.fuse_rows
    def spy(*args):
        seen["args"] = tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)
        return real(*args)
    engine.fuse_rows = spy
    kinds = dict(fusion.QUERY_KINDS)
    # keyword queries rank lexically in hybrid mode (no embedding): a tiny weight makes the engine
    # fetch their vector candidates so that rules giving them a weight can be replayed too
    fusion.QUERY_KINDS["keywords"] = dataclasses.replace(kinds["keywords"], semantic_weight=1e-9)
    try:
        out = {}
        for name in SETS:
            out[name] = {}
            for it in load_set(name):
                lexical = [h["key"] for h in searcher.search(request_type(q=it["query"], limit=100, mode="lexical")).results]
                seen.clear()
                searcher.search(request_type(q=it["query"], limit=100, mode="hybrid"))
                out[name][it["qid"]] = (lexical, seen.get("args"))
        return out
    finally:
        engine.fuse_rows = real
        fusion.QUERY_KINDS.update(kinds)


def replay(args: tuple, rule: Callable[[str], Fuse], weights: dict[str, float]) -> tuple[np.ndarray, np.ndarray]:
    """The engine's fuse_rows with `rule` in place of `fuse` (same head, tail and score floor)."""
    from paperfind.search.fusion import SEMANTIC_DEPTH, classify_query
    from paperfind.search.hybrid import FUSION_DEPTH
    from paperfind.search.rank import top_order
    text, rows, relevance, vec_rows, vec_scores, _mode, is_name = args
    kind = "name" if is_name else classify_query(text).name
    if not weights.get(kind):
        return rows, relevance
    head = top_order(rows, relevance, FUSION_DEPTH)
    lexical = list(zip(rows[head].tolist(), relevance[head].tolist()))
    semantic = sorted(zip(vec_rows.tolist(), vec_scores.tolist()), key=lambda kv: (-kv[1], kv[0]))
    fused = rule(kind)(lexical, semantic[:SEMANTIC_DEPTH], weights[kind]) if lexical else semantic
    fused_rows = np.asarray([r for r, _ in fused], dtype=np.int64)
    tail = np.setdiff1d(np.arange(len(rows)), head)
    tail = tail[~np.isin(rows[tail], fused_rows)]
    scores = np.asarray([s for _, s in fused], dtype=np.float64)
    rest = relevance[tail]
    if len(rest):
        rest = float(scores.min()) * 0.5 * rest / max(float(rest.max()), 1e-9)
    return np.concatenate([fused_rows, rows[tail].astype(np.int64)]), np.concatenate([scores, rest])


def main() -> None:
    from paperfind.search.engine import SCORE_DECIMALS, open_searcher
    from paperfind.search.rank import top_order
    from paperfind.search.response import SearchRequest
    from paperfind.search.settings import SearchSettings
    from paperfind.store import Store

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", default="default")
    ap.add_argument("--vectors", type=Path, help="vector directory (default: <db>.vectors)")
    args = ap.parse_args()
    db = OUT / f"{args.corpus}.db"
    searcher = open_searcher(Path(str(db) + ".index"), Store(db, readonly=True), SearchSettings(result_cache=0),
                        vector_dir=args.vectors or Path(str(db) + ".vectors"))
    captured = capture(searcher, SearchRequest)
    backend = searcher.backend()
    print("| rule | tldr MRR | tldr nDCG | tldr R@10 | zh MRR | zh nDCG | zh R@10 | typo MRR "
          "| author nDCG | topical nDCG |\n|---|" + "---:|" * 9)
    for label, rule, weights in variants():
        figures = {}
        for name in SETS:
            ranked = {}
            for qid, (lexical, call) in captured[name].items():
                if call is None:  # a name: hybrid ranks it lexically
                    ranked[qid] = lexical
                    continue
                rows, rel = replay(call, rule, weights)
                rel = np.round(rel, SCORE_DECIMALS)
                ranked[qid] = [backend.key_of(int(rows[i])) for i in top_order(rows, rel, 100)]
            path = OUT / f"variants.{name}.jsonl"
            write_run(path, ranked)
            figures[name] = score(name, path, *OPTIONS.get(name, ()))["metrics"]
        t, z = figures["tldr_dev"], figures["zh_dev"]
        cells = [t["MRR@10"], t["nDCG@10"], t["R@10"], z["MRR@10"], z["nDCG@10"], z["R@10"],
                 figures["title_typo_dev"]["MRR@10"], figures["author_dev"]["nDCG@10"],
                 figures["topical_dev"]["nDCG@10"]]
        print(f"| {label} | " + " | ".join(f"{v:.3f}" for v in cells) + " |", flush=True)


if __name__ == "__main__":
    main()
