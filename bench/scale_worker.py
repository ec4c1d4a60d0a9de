"""One build of `bench.scale`: paperfind of one source tree builds a scale corpus's database,
index and vectors, and prints what each step cost as one JSON line.

Run as a file (`python -P bench/scale_worker.py ARGS`) with the tree under test first on
PYTHONPATH, so `import paperfind` is that tree's code; standard library, numpy and paperfind
only. The steps are the product's: `Paperfind.ingest` (read, store writes, people, index), then
the vectors as `serve` would find them (a generation whose text hashes are current) and
`Paperfind.update_vectors`, which embeds nothing and builds the ANN graph. The index build's
own parts are timed by wrapping `paperfind.index.builder`'s functions where the tree has them
(timing only: they run unchanged).

Vectors: the corpus's real papers take their bundled vector; a copy takes its original's,
moved by Gaussian noise of norm ~`NOISE` and normalised again (cosine ~0.93 to the original,
about what a rewritten abstract of the same paper gives), drawn from one generator seeded by
`--seed` in the store's key order: deterministic.
"""

from __future__ import annotations

import argparse
import functools
import json
import resource
import sys
import tempfile
import time
from pathlib import Path

NOISE = 0.4
BUILDER_STEPS = ("index_docs", "build_people_files", "build_text_files", "build_paper_name_files")


def peak_mb() -> dict[str, float]:
    """Peak resident memory so far of this process and of its finished children (MB)."""
    return {"self": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "children": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024}


# the key of the sampled peaks per step in a build's result: the memory of the process tree,
# shared pages once (`tree_pss_mb`). Beside it, as before it, "per step (sampled, with
# children)": the VmRSS of the process and its children added (`tree_rss_mb`), which counts
# the pages a forked child shares with its parent twice (the 1M name mining: 16.8 GB said,
# 13.7 GB in use)
SAMPLED_PEAKS = "per step (sampled PSS, process tree)"
OLD_SAMPLED_PEAKS = "per step (sampled, with children)"


def process_tree(root: int) -> list[int]:
    """`root` and every process below it (children of any of its threads, their children...)."""
    pids, i = [root], 0
    while i < len(pids):
        try:
            for task in Path(f"/proc/{pids[i]}/task").iterdir():
                try:
                    pids += [int(c) for c in (task / "children").read_text().split()]
                except OSError:
                    pass
        except OSError:  # ended meanwhile
            pass
        i += 1
    return pids


def tree_pss_mb(root: int) -> float:
    """The memory process `root` and its descendants hold, each page counted once (MB): the sum
    of their PSS (/proc/PID/smaps_rollup), where a page mapped by k processes counts 1/k in each.

    Why PSS and not the VmRSS of each added: a forked child (the name mining's, the ingest's
    readers) maps its parent's pages until it writes them, and adding RSS counts those twice.
    Summed over the tree, a page only the tree maps counts once, as the machine holds it; one
    shared with processes outside the tree (a library, a file another process maps) counts by
    the tree's share. A kernel without smaps_rollup (before 4.14) reads as VmRSS added."""
    total = 0.0
    for pid in process_tree(root):
        try:
            total += _proc_mb(Path(f"/proc/{pid}/smaps_rollup"), "Pss:")
        except FileNotFoundError:
            try:
                total += _proc_mb(Path(f"/proc/{pid}/status"), "VmRSS:")
            except OSError:
                continue
        except OSError:  # ended meanwhile
            continue
    return total


def tree_rss_mb(root: int) -> float:
    """The VmRSS of process `root` and its descendants added (MB): what the sampler said before
    `tree_pss_mb`, a page a forked child shares with its parent counted in both."""
    total = 0.0
    for pid in process_tree(root):
        try:
            total += _proc_mb(Path(f"/proc/{pid}/status"), "VmRSS:")
        except OSError:
            pass
    return total


def _proc_mb(path: Path, key: str) -> float:
    """The first `key` line's kB of a /proc file, in MB (0 without one); OSError if unreadable."""
    for line in path.read_text().splitlines():
        if line.startswith(key):
            return int(line.split()[1]) / 1024
    return 0.0


class MemorySampler:
    """The memory of a process tree (`tree_pss_mb`) every `period` s or more, its peak per step:
    `step` names what runs now (the builder's wrappers set it), so a peak has an owner.

    A sample waits at least 20 times what the last one took: reading a process's PSS walks its
    page tables in the kernel (62 ms for a 4.5 GB process of 4 KB pages here, so ~0.2 s for the
    1M mining's two), CPU that a build on both cores of this machine would lose; this way the
    sampler takes under 5% of one core, and a peak that matters (the mining's) lasts minutes."""

    def __init__(self, root: int | None = None, period: float = 0.5) -> None:
        import os
        import threading

        self.root = os.getpid() if root is None else root
        self.period = period
        self.step = "ingest"
        self.peaks: dict[str, float] = {}
        self.rss_peaks: dict[str, float] = {}  # by `tree_rss_mb`, the old measure, beside
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        wait = self.period
        while not self._stop.wait(wait):
            started = time.perf_counter()
            mb, rss, step = tree_pss_mb(self.root), tree_rss_mb(self.root), self.step
            self.peaks[step] = max(mb, self.peaks.get(step, 0.0))
            self.rss_peaks[step] = max(rss, self.rss_peaks.get(step, 0.0))
            wait = max(self.period, 20 * (time.perf_counter() - started))

    def stop(self) -> dict[str, float]:
        self._stop.set()
        self._thread.join()
        return self.peaks


def time_builder(timings: dict[str, float], memory: MemorySampler) -> None:
    """Wrap the index builder's steps so each adds its seconds to `timings` (nested calls: the
    outer step's own time is what remains after the inner's) and names itself to `memory`."""
    from paperfind.index import builder

    for name in BUILDER_STEPS:
        fn = getattr(builder, name, None)
        if fn is None:
            continue

        def timed(*args, _fn=fn, _name=name, **kwargs):
            started = time.perf_counter()
            outer, memory.step = memory.step, f"index: {_name}"
            try:
                return _fn(*args, **kwargs)
            finally:
                memory.step = outer
                timings[f"index: {_name}"] = timings.get(f"index: {_name}", 0.0) + time.perf_counter() - started

        setattr(builder, name, functools.wraps(fn)(timed))


def du(path: Path) -> int:
    if not path.exists():
        return 0
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def write_vectors(app, origins: dict[str, str], bundled: Path, seed: int) -> dict:
    """A vector generation of every paper of the store, its text hash current (see the docs)."""
    import numpy as np

    from paperfind.embed.build import DEFAULT_STORAGE, DEFAULT_TEXT_BUDGET
    from paperfind.embed.text import document_text, text_hash
    from paperfind.index.vector_shards import assemble, base_of
    from paperfind.index.vectors import VectorIndex, VectorParams, write_index

    with tempfile.TemporaryDirectory() as tmp:
        assemble(bundled, base_of(bundled), Path(tmp))
        real = VectorIndex.open(Path(tmp), use_ann=False)
        row = {k: i for i, k in enumerate(real.keys)}
        source = np.array(real.matrix, dtype=np.float32)
        params = real.params
    docs = sorted(app.store().iter_index_docs(), key=lambda d: d.key)
    keys = [d.key for d in docs]
    hashes = [text_hash(document_text(d.title, d.abstract, DEFAULT_TEXT_BUDGET)) for d in docs]
    del docs
    rng = np.random.default_rng(seed)
    matrix = np.empty((len(keys), params.dim), dtype=np.float32)
    missing = 0
    for i, key in enumerate(keys):
        original = origins.get(key, key)
        r = row.get(original)
        if r is None:  # no bundled vector: a random direction (counted)
            missing += 1
            v = rng.standard_normal(params.dim).astype(np.float32)
        else:
            v = source[r].copy()
            if original != key:
                v += rng.standard_normal(params.dim).astype(np.float32) * (NOISE / np.sqrt(params.dim))
        matrix[i] = v / np.linalg.norm(v)
    write_index(app.settings.vector_dir, VectorParams(params.model, params.dim, DEFAULT_STORAGE,
                                                      DEFAULT_TEXT_BUDGET, len(keys)),
                keys, hashes, matrix)
    return {"vectors": len(keys), "without_bundled_vector": missing}


def embed_rate(db: Path, texts: int, threads: int) -> dict:
    """Documents a second the CPU model embeds here (title + 24 abstract words, as the product)."""
    from paperfind.embed.build import DEFAULT_TEXT_BUDGET
    from paperfind.embed.runtime import make_embedder
    from paperfind.embed.text import document_text
    from paperfind.store import Store

    with Store(db, readonly=True) as store:
        docs = []
        for d in store.iter_index_docs():
            docs.append(document_text(d.title, d.abstract, DEFAULT_TEXT_BUDGET))
            if len(docs) >= texts:
                break
    embedder = make_embedder(threads=threads)
    embedder.embed(docs[:8])  # loads the model
    started = time.perf_counter()
    for i in range(0, len(docs), 32):
        embedder.embed(docs[i:i + 32])
    seconds = time.perf_counter() - started
    return {"texts": len(docs), "threads": threads, "seconds": seconds, "docs_per_s": len(docs) / seconds}


def build(db: Path, shards: Path, origins_file: Path, bundled: Path | None, seed: int,
          index_jobs: int | None = None) -> dict:
    from paperfind.core import Paperfind
    from paperfind.settings import Settings

    timings: dict[str, float] = {}
    sampler = MemorySampler()
    time_builder(timings, sampler)
    # the index build's processes as a user's PAPERFIND_INDEX_JOBS sets them (a tree that has it)
    app = Paperfind(Settings(db_path=db, **({"index_jobs": index_jobs} if index_jobs else {})))
    started = time.perf_counter()
    report = app.ingest([shards], progress=False, build_index=False, vectors=False)
    ingested = time.perf_counter()
    sampler.step = "index"
    app.refresh_index(progress=False)  # what `Paperfind.ingest` runs next, timed apart
    total = time.perf_counter() - started
    timings.update({k: v for k, v in report.timings.items()})
    timings["ingest (all)"] = ingested - started
    timings["index"] = total - (ingested - started)
    memory = {"after index": peak_mb()}
    if bundled is None:  # the index alone (a base tree's build, for the build's before/after)
        memory[SAMPLED_PEAKS] = sampler.stop()
        memory[OLD_SAMPLED_PEAKS] = sampler.rss_peaks
        return {"papers": app.store().paper_count(), "ingest_and_index_s": total, "timings": timings,
                "peak_mb": memory, "failed": [str(f) for f in report.failed][:5],
                "skipped": len(report.skipped),
                "disk": {"database": du(db) + du(Path(f"{db}-wal")), "index": du(app.settings.index_dir),
                         "vectors": 0}}
    with open(origins_file, encoding="utf-8") as fh:
        origins = dict(line.rstrip("\n").split("\t") for line in fh if line.strip())
    sampler.step = "vectors (bench)"
    started = time.perf_counter()
    written = write_vectors(app, origins, bundled, seed)
    timings["vectors written (bench)"] = time.perf_counter() - started
    del origins
    sampler.step = "vectors: update + ANN graph"
    started = time.perf_counter()
    stats = app.update_vectors(progress=False)
    timings["vectors: update + ANN graph"] = time.perf_counter() - started
    memory["after vectors"] = peak_mb()
    memory[SAMPLED_PEAKS] = sampler.stop()
    memory[OLD_SAMPLED_PEAKS] = sampler.rss_peaks
    papers = app.store().paper_count()
    return {"papers": papers, "ingest_and_index_s": total, "timings": timings, "peak_mb": memory,
            "embedded": int(stats.embedded), "reused": int(stats.reused), **written,
            "failed": [str(f) for f in report.failed][:5], "skipped": len(report.skipped),
            "disk": {"database": du(db) + du(Path(f"{db}-wal")), "index": du(app.settings.index_dir),
                     "vectors": du(app.settings.vector_dir)}}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("op", choices=("build", "embed-rate"))
    ap.add_argument("--db", type=Path, required=True)
    ap.add_argument("--shards", type=Path)
    ap.add_argument("--origins", type=Path)
    ap.add_argument("--bundled-vectors", type=Path, help="without it: no vectors, the index alone")
    ap.add_argument("--seed", type=int, default=33)
    ap.add_argument("--texts", type=int, default=256)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--index-jobs", type=int, help="Settings.index_jobs of the build (default: the tree's)")
    args = ap.parse_args()
    out = sys.stdout
    sys.stdout = sys.stderr  # whatever paperfind prints must not reach the result line
    if args.op == "build":
        result = build(args.db, args.shards, args.origins, args.bundled_vectors, args.seed, args.index_jobs)
    else:
        result = embed_rate(args.db, args.texts, args.threads)
    import paperfind

    result["paperfind"] = str(Path(paperfind.__file__).resolve().parent)  # whose code this was
    out.write(json.dumps(result) + "\n")


if __name__ == "__main__":
    main()
