"""Compute or refresh the document vectors of a database: the step `serve` runs in the background.

    python -m paperfind.embed.build --db paperfind.db [--budget title] [--threads 1] [--runtime onnx]

Only new or changed papers are embedded (see `update_vectors`), with a progress bar whose ETA
comes from the measured rate; an interrupted run resumes from its last checkpoint.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from paperfind.embed.base import Embedder, Progress
from paperfind.embed.runtime import DEFAULT_RUNTIME, RUNTIMES, make_embedder
from paperfind.embed.text import BUDGETS
from paperfind.index.vectors import UpdateStats, update_vectors
from paperfind.settings import Settings

# The title and the first 24 words of the abstract: against titles alone, Chinese queries found
# their paper in the top 10 for 58 of 60 dev queries instead of 55 (zh R@10 .917 -> .967) and
# descriptions gained a little (bench/RESULTS.md, "Experiment: document vectors of title + 24
# abstract words"). It costs ~2.5x a title per paper: with the onnx runtime about 23 texts/s on
# one core, 43 on two, so the 47k abstracts of the bundled corpus take ~18 minutes on two cores.
# 24 words from the abstract's contribution sentence (same cost, measured as `contrib24`) was
# better on its own (semantic tldr MRR .558 -> .651, zh .538 -> .628) but put hybrid tldr below
# lexical (.859 vs .864; words24 .866), so it is not a budget (bench/RESULTS.md, "the TL;DR ceiling").
DEFAULT_TEXT_BUDGET = "words24"
# int8 with per-row scales: recall@10 vs float32 .977, a quarter of the disk; the bundled
# corpus ships its vectors, so size counts. Widened to float32 at open.
DEFAULT_STORAGE = "int8"


def build_vectors(db_path: Path, vector_dir: Path | None = None, *, embedder: Embedder | None = None,
                  text_budget: str = DEFAULT_TEXT_BUDGET, dtype: str = DEFAULT_STORAGE,
                  progress: Progress | None = None) -> UpdateStats:
    """Bring the vectors of `db_path` up to date with its papers (in `Settings.vector_dir` unless
    `vector_dir` says otherwise)."""
    from paperfind.store.db import Store

    with Store(db_path, readonly=True) as store:
        docs = list(store.iter_index_docs())
    directory = vector_dir or Settings(db_path=Path(db_path)).vector_dir
    return update_vectors(directory, docs, embedder or make_embedder(), text_budget=text_budget,
                          dtype=dtype, progress=progress)


def tqdm_progress(description: str) -> Progress:
    """A progress callback drawing a tqdm bar (rate and ETA from the papers done so far)."""
    from tqdm import tqdm

    bar = None

    def report(done: int, total: int) -> None:
        nonlocal bar
        if bar is None:
            bar = tqdm(total=total, desc=description, unit="paper", smoothing=0.05)
        bar.update(done - bar.n)
        if done >= total:
            bar.close()

    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m paperfind.embed.build", description=__doc__.split("\n")[0])
    parser.add_argument("--db", type=Path, required=True, help="the paperfind database")
    parser.add_argument("--out", type=Path, help="vector directory (default: DB.vectors)")
    parser.add_argument("--budget", default=DEFAULT_TEXT_BUDGET, choices=list(BUDGETS),
                        help="how much of each paper is embedded (default: %(default)s)")
    parser.add_argument("--threads", type=int, default=1, help="CPU threads for the model (default: 1)")
    parser.add_argument("--runtime", default=DEFAULT_RUNTIME, choices=RUNTIMES,
                        help="engine running the model (default: %(default)s)")
    args = parser.parse_args(argv)
    if not args.db.exists():
        print(f"error: no database at {args.db}", file=sys.stderr)
        return 2
    start = time.perf_counter()
    stats = build_vectors(args.db, args.out, embedder=make_embedder(args.runtime, args.threads),
                          text_budget=args.budget, dtype=DEFAULT_STORAGE,
                          progress=tqdm_progress("embedding"))
    print(f"{stats.total} papers: {stats.embedded} embedded, {stats.reused} unchanged, "
          f"{stats.removed} removed, in {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
