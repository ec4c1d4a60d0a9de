"""Hybrid ranking on the dev subset with paperfind's own lexical engine (before full-corpus vectors).

Lexical lists come from the Searcher over the whole default corpus (lexical mode, 100 deep),
restricted to the papers of the embedded subset; semantic lists are exact cosine over the
subset vectors cached by semantic_embed_subset.py. Chinese queries reach the lexical engine as
their zh→en rendering. Compares lexical alone, semantic alone and fusion settings.
    nice .venv/bin/python bench/semantic_hybrid_subset.py --cache /tmp/semantic-cache \
        --index bench/out/default.raw.index
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from semantic_corpus import load_set  # noqa: E402
from semantic_quality import dense, keys_of, metrics  # noqa: E402

from paperfind.search.crosslingual import ZhEnTranslator  # noqa: E402
from paperfind.search.fusion import QUERY_KINDS, classify_query, fuse, weighted_rrf  # noqa: E402


def lexical_lists(index: Path, queries: list[str], allowed: set[str]) -> list[list[tuple[str, float]]]:
    from paperfind.search.engine import open_searcher
    from paperfind.search.response import SearchRequest

    searcher = open_searcher(index)
    out = []
    for text in queries:
        hits = searcher.search(SearchRequest(q=text, limit=100, mode="lexical")).results
        out.append([(h["key"], float(h["score"])) for h in hits if h["key"] in allowed])
    return out


def convex(lexical, sims: np.ndarray, keys: list[str], weight: float, depth: int = 100):
    """Experiment: lexical score / its max + weight * cosine rescaled over the top `depth`."""
    row = {k: i for i, k in enumerate(keys)}
    top = np.argsort(-sims, kind="stable")[:depth]
    hi, lo = float(sims[top[0]]), float(sims[top[-1]])
    span = hi - lo if hi > lo else 1.0
    lex_max = max((s for _, s in lexical), default=1.0) or 1.0
    lex = {k: s / lex_max for k, s in lexical}
    cands = set(lex) | {keys[i] for i in top}
    fused = {k: lex.get(k, 0.0) + weight * max(0.0, (float(sims[row[k]]) - lo) / span) for k in cands}
    return sorted(fused.items(), key=lambda kv: (-kv[1], kv[0]))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cache", type=Path, required=True)
    parser.add_argument("--index", type=Path, required=True)
    parser.add_argument("--budgets", default="title,sentence,words24,words48")
    args = parser.parse_args()
    keys = json.loads((args.cache / "keys.json").read_text())
    allowed = set(keys)
    zh, tldr = load_set("zh_dev"), load_set("tldr_dev")
    translator = ZhEnTranslator()
    lex_zh = lexical_lists(args.index, [translator.translate(q["query"]).english for q in zh], allowed)
    lex_tl = lexical_lists(args.index, [q["query"] for q in tldr], allowed)
    kinds = {}
    for q in tldr:
        kinds[classify_query(q["query"]).name] = kinds.get(classify_query(q["query"]).name, 0) + 1
    print(f"subset {len(keys)} papers; tldr query kinds {kinds}")
    print(f"zh   lexical(zh→en)   {metrics(keys_of(lex_zh), zh)}")
    print(f"tldr lexical          {metrics(keys_of(lex_tl), tldr)}")
    qzh, qtl = np.load(args.cache / "q_zh_dev.npy"), np.load(args.cache / "q_tldr_dev.npy")
    qtr = np.load(args.cache / "q_zh_dev_translated.npy")
    # as QueryEncoder does: the English rendering alone unless some segment stayed untranslated
    partial = np.array([bool(translator.translate(q["query"]).untranslated) for q in zh])
    qsum = qtr + np.where(partial[:, None], qzh, 0.0)
    qsum /= np.linalg.norm(qsum, axis=1, keepdims=True)
    for budget in args.budgets.split(","):
        path = args.cache / f"d_{budget}.npy"
        if not path.exists():
            continue
        dv = np.load(path)
        sem_zh, sem_tl = dense(qsum, dv, keys), dense(qtl, dv, keys)
        print(f"--- {budget}")
        print(f"zh   semantic(zh→en)  {metrics(keys_of(sem_zh), zh)}")
        for w in (0.25, 0.5, 1.0, 2.0):
            fused = [weighted_rrf([a, b], [1.0, w]) for a, b in zip(lex_zh, sem_zh)]
            print(f"zh   rrf lexical + {w:.2f}·semantic  {metrics(keys_of(fused), zh)}")
        print(f"tldr semantic         {metrics(keys_of(sem_tl), tldr)}")
        for w in (0.1, 0.2, 0.3, 0.5, 0.7):
            fused = [weighted_rrf([a, b], [1.0, w]) for a, b in zip(lex_tl, sem_tl)]
            print(f"tldr rrf lexical + {w:.1f}·semantic  {metrics(keys_of(fused), tldr)}")
        sims_zh, sims_tl = qsum @ dv.T, qtl @ dv.T
        for w in (0.1, 0.2, 0.3, 0.5, 1.0):
            fz = [convex(a, s_, keys, w) for a, s_ in zip(lex_zh, sims_zh)]
            ft = [convex(a, s_, keys, w) for a, s_ in zip(lex_tl, sims_tl)]
            print(f"convex lexical + {w:.1f}·cos  zh {metrics(keys_of(fz), zh)} | tldr {metrics(keys_of(ft), tldr)}")
        shipped_zh = [fuse(q["query"], a, b) for q, a, b in zip(zh, lex_zh, sem_zh)]
        shipped_tl = [fuse(q["query"], a, b) for q, a, b in zip(tldr, lex_tl, sem_tl)]
        print(f"zh   fuse() as shipped  {metrics(keys_of(shipped_zh), zh)}  weights {QUERY_KINDS['chinese']}")
        print(f"tldr fuse() as shipped  {metrics(keys_of(shipped_tl), tldr)}")


if __name__ == "__main__":
    main()
