"""What better document vectors could buy a known-item query set, without embedding the corpus.

    .venv/bin/python bench/semantic_ceiling.py [--set tldr_dev] [--text full,sentences,contrib24]
                                               [--depth 20] [--vectors DIR] [--cache DIR] [--threads 2]

Embedding whole abstracts takes hours for the bundled corpus on two cores, so this measures the
candidates only: each query's lexical, hybrid and semantic top `depth` (a few thousand papers
for tldr_dev) are embedded with each text recipe (a budget of paperfind/embed/text.py, or
`sentences`: every abstract sentence alone, the paper's cosine being the best sentence's), and
the ranking is simulated inside those candidates: semantic alone, the engine's convex fusion
(normalised lexical score + weight x cosine rescaled over the candidates; papers outside them
keep their lexical place) and the oracle that takes, per query, the better of the lexical and
semantic rankings (MRR@10), the ceiling of any rule choosing between the two lists. The shipped
vectors are measured the same way, as the calibration row. Lexical, hybrid and BM25 come from
the same run. Vectors are cached in --cache (default /tmp/paperfind-ceiling), one file per
recipe. Prints a table; nothing is written to RESULTS.md (the figures are copied there by hand).
"""

from __future__ import annotations

import argparse
import pickle
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import OUT, load_set  # noqa: E402

WEIGHTS = (0.05, 0.1, 0.2, 0.3, 0.5, 1.0)


def capture(searcher, items: list[dict]) -> dict:
    """Per query: lexical, hybrid and semantic keys, and the lexical rows/scores fusion sees."""
    from paperfind.search import engine
    from paperfind.search.response import SearchRequest

    seen: dict = {}
    real = engine.fuse_rows

    def spy(*args):
        seen["args"] = args
        return real(*args)

    engine.fuse_rows = spy
    try:
        out = {}
        for it in items:
            runs = {}
            for mode in ("lexical", "hybrid", "semantic"):
                seen.clear()
                response = searcher.search(SearchRequest(q=it["query"], limit=100, mode=mode))
                runs[mode] = [r["key"] for r in response.results]
                if mode == "hybrid":
                    runs["args"] = seen.get("args")
            out[it["qid"]] = runs
        return out
    finally:
        engine.fuse_rows = real


def recipe_texts(title: str, abstract: str, recipe: str) -> list[str]:
    from paperfind.embed.text import document_text, sentences

    if recipe == "sentences":
        return sentences(" ".join((abstract or "").split())) or [title]
    return [document_text(title, abstract, recipe)]


def embed_candidates(keys: set[str], docs: dict, recipe: str, cache: Path, embedder) -> dict[str, np.ndarray]:
    """key -> (n, dim) vectors of the recipe's texts, cached per recipe across runs."""
    path = cache / f"{recipe}.pkl"
    stored: dict[str, np.ndarray] = pickle.loads(path.read_bytes()) if path.exists() else {}
    todo = sorted(k for k in keys if k not in stored)
    texts, owner = [], []
    for key in todo:
        for text in recipe_texts(docs[key].title, docs[key].abstract, recipe):
            texts.append(text)
            owner.append(key)
    start = time.perf_counter()
    vectors = np.zeros((len(texts), embedder.dim), dtype=np.float32)
    for i in range(0, len(texts), 64):
        vectors[i:i + 64] = embedder.embed(texts[i:i + 64])
    if todo:
        took = time.perf_counter() - start
        print(f"{recipe}: embedded {len(todo)} papers ({len(texts)} texts) in {took:.0f} s, "
              f"{len(todo) / took:.1f} papers/s", file=sys.stderr, flush=True)
    grouped: dict[str, list] = {}
    for key, vector in zip(owner, vectors):
        grouped.setdefault(key, []).append(vector)
    stored.update({k: np.asarray(v) for k, v in grouped.items()})
    cache.mkdir(parents=True, exist_ok=True)
    path.write_bytes(pickle.dumps(stored))
    return stored


class Simulation:
    """Rankings inside each query's candidates, with the engine's head/tail and one-per-work rules."""

    def __init__(self, backend, captured: dict, candidates: dict, qvecs: dict) -> None:
        self.backend, self.captured, self.candidates, self.qvecs = backend, captured, candidates, qvecs
        self.works = backend.works()

    def _keys(self, ordered_rows: list[int], args) -> list[str]:
        from paperfind.search.rank import top_order

        _text, rows, relevance = args[:3]
        placed = set(ordered_rows)
        tail = [int(rows[i]) for i in top_order(rows, relevance, min(len(rows), 1200)) if int(rows[i]) not in placed]
        seen, out = set(), []
        for row in ordered_rows + tail:
            if self.works[row] not in seen:
                seen.add(self.works[row])
                out.append(self.backend.key_of(row))
            if len(out) == 100:
                break
        return out

    def run(self, cosine, weight: float | None) -> dict[str, list[str]]:
        """weight None: semantic alone inside the candidates; else convex fusion at `weight`."""
        from paperfind.search.hybrid import FUSION_DEPTH
        from paperfind.search.rank import top_order

        ranked = {}
        for qid, runs in self.captured.items():
            args = runs["args"]
            if args is None:  # ranked lexically in hybrid mode (a name)
                ranked[qid] = runs["lexical"]
                continue
            _text, rows, relevance = args[:3]
            head = top_order(rows, relevance, FUSION_DEPTH)
            lexical = dict(zip(rows[head].tolist(), relevance[head].tolist()))
            cos = {row: cosine(qid, row) for row in self.candidates[qid]}
            cos = {row: c for row, c in cos.items() if c is not None}
            if weight is None:
                order = sorted(cos, key=lambda r: (-cos[r], r))
            else:
                top = max(lexical.values())
                hi, lo = (max(cos.values()), min(cos.values())) if cos else (1.0, 0.0)
                span = (hi - lo) or 1.0
                fused = {r: s / top for r, s in lexical.items()}
                for r, c in cos.items():
                    fused[r] = fused.get(r, 0.0) + weight * (c - lo) / span
                order = sorted(fused, key=lambda r: (-fused[r], r))
            ranked[qid] = self._keys(order, args)
        return ranked


def reciprocal_rank(keys: list[str], relevant: set[str]) -> float:
    return next((1 / (i + 1) for i, k in enumerate(keys[:10]) if k in relevant), 0.0)


def main() -> None:
    from paperfind.embed.queries import QueryEncoder
    from paperfind.embed.runtime import make_embedder
    from paperfind.index.vectors import VectorIndex
    from paperfind.search.crosslingual import ZhEnTranslator
    from paperfind.search.engine import open_searcher
    from paperfind.search.settings import SearchSettings
    from paperfind.store import Store
    from bench.search_quality import Bm25Baseline

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--set", default="tldr_dev")
    ap.add_argument("--text", default="full,sentences", help="budgets of paperfind/embed/text.py or `sentences`")
    ap.add_argument("--depth", type=int, default=20)
    ap.add_argument("--db", type=Path, default=OUT / "default.db")
    ap.add_argument("--vectors", type=Path, help="shipped vectors (default: <db>.vectors)")
    ap.add_argument("--cache", type=Path, default=Path("/tmp/paperfind-ceiling"))
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    vector_dir = args.vectors or Path(str(args.db) + ".vectors")
    store = Store(args.db, readonly=True)
    searcher = open_searcher(Path(str(args.db) + ".index"), store, SearchSettings(result_cache=0), vector_dir=vector_dir)
    items = load_set(args.set)
    strict = {it["qid"]: set(it["relevant"]) for it in items}
    lenient = {it["qid"]: set(it["relevant"]) | set(it.get("dup_keys") or []) | set(it.get("lenient_extra") or [])
               for it in items}
    captured = capture(searcher, items)
    backend = searcher.backend()
    row_of = {backend.key_of(r): r for r in range(len(backend.works()))}
    candidates = {}
    for qid, runs in captured.items():
        keys = runs["lexical"][:args.depth] + runs["hybrid"][:args.depth] + runs["semantic"][:args.depth]
        candidates[qid] = {row_of[k] for k in keys}
    wanted = {backend.key_of(r) for rows in candidates.values() for r in rows}
    docs = {d.key: d for d in store.iter_index_docs() if d.key in wanted}
    embedder = make_embedder(threads=args.threads)
    encoder = QueryEncoder(embedder, ZhEnTranslator())
    qvecs = {it["qid"]: encoder.vector(it["query"]) for it in items}
    bm25 = Bm25Baseline(list(store.iter_index_docs()))
    sim = Simulation(backend, captured, candidates, qvecs)

    def mrr(ranked: dict, labels: dict) -> float:
        return sum(reciprocal_rank(ranked[q], labels[q]) for q in labels) / len(labels)

    def cell(ranked: dict) -> str:
        return f"{mrr(ranked, strict):.3f} / {mrr(ranked, lenient):.3f}"

    lexical = {q: r["lexical"] for q, r in captured.items()}
    hybrid = {q: r["hybrid"] for q, r in captured.items()}
    baseline = {it["qid"]: bm25.search(it["query"]) for it in items}
    contains = sum(bool({backend.key_of(r) for r in candidates[q]} & strict[q]) for q in strict) / len(strict)
    print(f"{args.set}: {len(items)} queries, {len(wanted)} candidate papers (depth {args.depth}), "
          f"target among the candidates for {contains:.3f}. MRR@10 strict / lenient: "
          f"BM25 {cell(baseline)}, lexical {cell(lexical)}, hybrid (shipped) {cell(hybrid)}\n")
    print("| document vectors | semantic alone | " + " | ".join(f"fusion w={w}" for w in WEIGHTS)
          + " | oracle (lenient) |\n|---|" + "---:|" * (len(WEIGHTS) + 2))
    shipped = VectorIndex.open(vector_dir)
    recipes = [("shipped (" + shipped.params.text_budget + ")", None)] + [(r, r) for r in args.text.split(",") if r]
    for label, recipe in recipes:
        if recipe is None:
            def cosine(qid, row, index=shipped):
                v = index.vector(backend.key_of(row))
                return float(v @ qvecs[qid]) if v is not None else None
        else:
            vectors = embed_candidates(wanted, docs, recipe, args.cache, embedder)

            def cosine(qid, row, vectors=vectors):
                v = vectors.get(backend.key_of(row))
                return float((v @ qvecs[qid]).max()) if v is not None else None
        alone = sim.run(cosine, None)
        cells = [cell(alone)] + [cell(sim.run(cosine, w)) for w in WEIGHTS]
        oracle = sum(max(reciprocal_rank(lexical[q], lenient[q]), reciprocal_rank(alone[q], lenient[q]))
                     for q in lenient) / len(lenient)
        print(f"| {label} | " + " | ".join(cells) + f" | {oracle:.3f} |", flush=True)


if __name__ == "__main__":
    main()
