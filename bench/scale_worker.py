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


class MemorySampler:
    """Resident memory of this process (and its children) every 0.2 s, its peak per step:
    `step` names what runs now (the builder's wrappers set it), so a peak has an owner."""

    def __init__(self) -> None:
        import threading

        self.step = "ingest"
        self.peaks: dict[str, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    @staticmethod
    def rss_mb() -> float:
        import os

        pids = [os.getpid()]
        for task in Path(f"/proc/{os.getpid()}/task").iterdir():
            try:
                pids += [int(c) for c in (task / "children").read_text().split()]
            except OSError:
                pass
        total = 0.0
        for pid in pids:
            try:
                for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1]) / 1024
            except OSError:
                pass
        return total

    def _run(self) -> None:
        while not self._stop.wait(0.2):
            rss, step = self.rss_mb(), self.step
            if rss > self.peaks.get(step, 0.0):
                self.peaks[step] = rss

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


def build(db: Path, shards: Path, origins_file: Path, bundled: Path | None, seed: int) -> dict:
    from paperfind.core import Paperfind
    from paperfind.settings import Settings

    timings: dict[str, float] = {}
    sampler = MemorySampler()
    time_builder(timings, sampler)
    app = Paperfind(Settings(db_path=db))
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
        memory["per step (sampled, with children)"] = sampler.stop()
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
    memory["per step (sampled, with children)"] = sampler.stop()
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
    args = ap.parse_args()
    out = sys.stdout
    sys.stdout = sys.stderr  # whatever paperfind prints must not reach the result line
    if args.op == "build":
        result = build(args.db, args.shards, args.origins, args.bundled_vectors, args.seed)
    else:
        result = embed_rate(args.db, args.texts, args.threads)
    import paperfind

    result["paperfind"] = str(Path(paperfind.__file__).resolve().parent)  # whose code this was
    out.write(json.dumps(result) + "\n")


if __name__ == "__main__":
    main()
