"""The query encoder's weight forms against "q4" (the document vectors' own form): fidelity and time.

    .venv/bin/python -m bench.query_form --db DB [--texts 400] [--forms int8mix,int8q4,fp32] [--no-write]

Issue 33: a faster query encoder is chosen by how faithfully it reproduces q4's query vectors, not
by dev-set scores. Texts are query-like but no dev query: titles and abstract sentences of DB's
papers (a seeded sample, half each, ≤ 20 words). Per form: cosine to q4's vector (mean / min),
top-10 agreement against DB's stored document vectors (exact search over all of them: share of
q4's top 10 that the form's vector also ranks top 10; its minimum; share of texts under 8 of 10),
the same first paper, and the time of one query's embedding (one text a call, one thread, the forms
taking turns text by text, p50 / p95 and the ratio to q4). The dev sets are checked separately
with `bench.modes_quality --base-tree`.
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import time
from pathlib import Path

import numpy as np

from bench.metrics import p50_p95
from bench.results import append_results


def _texts(db: Path, count: int, seed: int = 23) -> list[str]:
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    rows = con.execute("SELECT title, abstract FROM papers WHERE length(abstract) > 200 ORDER BY id").fetchall()
    con.close()
    sample = random.Random(seed).sample(rows, count // 2)
    second = [a.split(". ")[1] if a.count(". ") > 1 else a for _, a in sample]  # not the calibration's first
    return [t for t, _ in sample] + [" ".join(s.split()[:20]) for s in second]


def _stored_vectors(db: Path) -> np.ndarray:
    from paperfind.index.vectors import vector_dir_of

    directory = vector_dir_of(db)
    generation = directory / (directory / "CURRENT").read_text().strip()
    vectors = np.load(generation / "vectors.npy").astype(np.float32) * np.load(generation / "scales.npy")
    return (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)


def main() -> None:
    from paperfind.embed.onnx_backend import OnnxE5Embedder

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", type=Path, required=True, help="a paperfind database with its vectors")
    ap.add_argument("--texts", type=int, default=400)
    ap.add_argument("--forms", default="int8mix,int8q4,fp32")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    forms = ["q4", *[f for f in args.forms.split(",") if f != "q4"]]
    texts = _texts(args.db, args.texts)
    embedders = {form: OnnxE5Embedder(form=form) for form in forms}
    for embedder in embedders.values():
        embedder.embed(["warm up"], query=True)
    vectors: dict[str, list[np.ndarray]] = {f: [] for f in forms}
    times: dict[str, list[float]] = {f: [] for f in forms}
    for i, text in enumerate(texts):
        for form in forms if i % 2 == 0 else forms[::-1]:
            start = time.perf_counter()
            vectors[form].append(embedders[form].embed([text], query=True)[0])
            times[form].append((time.perf_counter() - start) * 1000)
    stored = _stored_vectors(args.db)
    ranked = {f: np.argsort(-(np.vstack(v) @ stored.T), axis=1)[:, :10] for f, v in vectors.items()}
    reference = np.vstack(vectors["q4"])
    q4_p50 = p50_p95(times["q4"])[0]
    lines = ["| form | cosine to q4, mean / min | top-10 agreement (min; share < 8 of 10) | same first | "
             "query p50 / p95 ms | p50 ratio to q4 |", "|---|---|---|---:|---|---:|"]
    for form in forms:
        cosine = np.sum(np.vstack(vectors[form]) * reference, axis=1)
        agree = np.array([len(set(a) & set(b)) / 10 for a, b in zip(ranked[form], ranked["q4"])])
        first = float(np.mean(ranked[form][:, 0] == ranked["q4"][:, 0]))
        p50, p95 = p50_p95(times[form])
        lines.append(f"| {form} | {cosine.mean():.5f} / {cosine.min():.5f} | {agree.mean():.3f} ({agree.min():.1f}; "
                     f"{np.mean(agree < 0.8):.3f}) | {first:.3f} | {p50:.1f} / {p95:.1f} | {p50 / q4_p50:.2f} |")
    table = (f"{len(texts)} texts of {args.db.name} ({len(stored):,} stored vectors), "
             f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}\n\n" + "\n".join(lines) + "\n")
    print(table)
    if not args.no_write:
        append_results("Query encoder forms against q4: fidelity and time (bench.query_form, issue 33)", table)


if __name__ == "__main__":
    main()
