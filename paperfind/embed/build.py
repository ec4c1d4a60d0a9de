"""Compute or refresh the document vectors of a database: the step `serve` runs in the background.

    python -m paperfind.embed.build --db paperfind.db [--budget title] [--threads 1] [--runtime onnx]

Only new or changed papers are embedded (see `update_vectors`), with a progress bar whose ETA
comes from the measured rate; an interrupted run resumes from its last checkpoint. The files
are `paperfind.index.vectors`' format.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np

from paperfind.embed.base import Embedder, Progress
from paperfind.embed.runtime import DEFAULT_RUNTIME, RUNTIMES, make_embedder
from paperfind.embed.text import BUDGETS, document_text, text_hash
from paperfind.index.ann import ANN_MIN_VECTORS
from paperfind.index.vectors import (DTYPES, VectorIndex, VectorIndexError, VectorParams, ensure_ann,
                                     vector_dir_of, write_index)

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


class PaperText(Protocol):
    """What is embedded of one paper (the store's `IndexDoc` has these, and more)."""

    key: str
    title: str
    abstract: str


@dataclass(frozen=True)
class DocText:
    """A plain `PaperText`."""

    key: str
    title: str
    abstract: str


@dataclass(frozen=True)
class UpdateStats:
    total: int
    embedded: int  # new or changed papers
    reused: int
    removed: int


def build_vectors(db_path: Path, vector_dir: Path | None = None, *, embedder: Embedder | None = None,
                  text_budget: str = DEFAULT_TEXT_BUDGET, dtype: str = DEFAULT_STORAGE,
                  progress: Progress | None = None, ann_threads: int = 1) -> UpdateStats:
    """Bring the vectors of `db_path` up to date with its papers (beside it, `Settings.vector_dir`,
    unless `vector_dir` says otherwise); `ann_threads` build their ANN graph."""
    from paperfind.store.db import Store

    with Store(db_path, readonly=True) as store:
        docs = list(store.iter_index_docs())
    directory = vector_dir or vector_dir_of(db_path)
    return update_vectors(directory, docs, embedder or make_embedder(), text_budget=text_budget,
                          dtype=dtype, progress=progress, ann_threads=ann_threads)


def update_vectors(directory: Path, docs: Iterable[PaperText], embedder: Embedder, *, text_budget: str,
                   dtype: str = "float32", batch_size: int = 32, checkpoint_every: int = 2048,
                   progress: Progress | None = None, ann_min_vectors: int = ANN_MIN_VECTORS,
                   ann_threads: int = 1) -> UpdateStats:
    """Bring the vectors in `directory` in line with `docs`, embedding only new or changed texts.

    Vectors are reused when model and embedded text (by hash) are unchanged; papers no longer in
    `docs` are dropped. Every `checkpoint_every` new vectors a generation is written with what
    is done so far, so an interrupted run resumes where it stopped and search can use the
    partial index meanwhile. `progress(done, total)` counts the papers that need embedding.
    At the end the ANN graph is built, by `ann_threads` OpenMP threads, when the index has
    `ann_min_vectors` or more (not at checkpoints: a partial index is searched exactly).
    """
    if dtype not in DTYPES:
        raise ValueError(f"unknown vector storage type {dtype!r}; expected one of {', '.join(DTYPES)}")
    directory = Path(directory)
    docs = list(docs)
    keys = [d.key for d in docs]
    if len(set(keys)) != len(keys):
        dup = next(k for k, n in Counter(keys).items() if n > 1)
        raise ValueError(f"paper key {dup!r} occurs twice in the documents to embed")
    texts = [document_text(d.title, d.abstract, text_budget) for d in docs]
    hashes = [text_hash(t) for t in texts]
    old: dict[str, tuple[str, int]] = {}  # key -> (text hash, row)
    old_index = _open_compatible(directory, embedder, text_budget)
    if old_index is not None:
        old = {k: (h, i) for i, (k, h) in enumerate(zip(old_index.keys, old_index.hashes))}
    vectors = np.zeros((len(docs), embedder.dim), dtype=np.float32)
    done = np.zeros(len(docs), dtype=bool)
    todo = []
    for i, (key, digest) in enumerate(zip(keys, hashes)):
        previous = old.get(key)
        if previous is not None and previous[0] == digest:
            vectors[i] = old_index.matrix[previous[1]]
            done[i] = True
        else:
            todo.append(i)
    reused = int(done.sum())
    removed = len(set(old) - set(keys))

    def save() -> None:
        rows = np.flatnonzero(done)
        params = VectorParams(embedder.name, embedder.dim, dtype, text_budget, len(rows))
        write_index(directory, params, [keys[i] for i in rows], [hashes[i] for i in rows], vectors[rows])

    since_save = 0
    for start in range(0, len(todo), batch_size):
        rows = todo[start:start + batch_size]
        vectors[rows] = embedder.embed([texts[i] for i in rows])
        done[rows] = True
        since_save += len(rows)
        if progress is not None:
            progress(start + len(rows), len(todo))
        if since_save >= checkpoint_every:
            save()
            since_save = 0
    if (todo or removed or old_index is None or len(old_index) != len(docs)
            or old_index.params.dtype != dtype or old_index.params.text_budget != text_budget):
        save()
    if len(docs) >= ann_min_vectors:
        try:
            ensure_ann(directory, min_vectors=ann_min_vectors, threads=ann_threads)
        except RuntimeError as exc:  # faiss missing: the vectors are fine, search stays exact
            warnings.warn(f"no ANN graph built: {exc}", RuntimeWarning, stacklevel=2)
    return UpdateStats(total=len(docs), embedded=len(todo), reused=reused, removed=removed)


def _open_compatible(directory: Path, embedder: Embedder, text_budget: str) -> VectorIndex | None:
    """The existing index if its vectors can be reused (same model and dim), else None.

    The budget may differ: a row is reused only when the hash of its embedded text matches,
    and the same text gives the same vector under any budget. So moving from titles to
    title + abstract words re-embeds only the papers that have an abstract."""
    try:
        index = VectorIndex.open(directory, use_ann=False)  # only its vectors are reused
    except VectorIndexError:
        return None
    p = index.params
    if p.model != embedder.name or p.dim != embedder.dim:
        return None
    return index


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
