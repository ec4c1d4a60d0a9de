"""Review scores (issue 31): their coverage per venue-year, and what they cost a database build.

Coverage: the side files made again from the sources (`paperfind.ingest.review_sides`, into a
temporary folder; they must equal the shipped `paperfind/data/corpus.reviews/` byte for byte),
papers with scores per venue-year against the papers the source records give scores for.

Build cost, in process (`time.perf_counter` around each step, one process, CPU-bound): the
corpus shards of the venue-years with scores are ingested into a new database without their
side files (the baseline: the build as it was); then the side files are written straight into
the reviews table (what a first start now does after each shard); then, for comparison, the
same scores are ingested as a second JSON-lines record per paper (the lost branch's way: every
scored paper merged again from two records, and people resolved again).

    flock /tmp/paperfind-heavy.lock nice .venv/bin/python -m bench.review_scores [--data ../shared/data]
"""

from __future__ import annotations

import argparse
import filecmp
import gzip
import json
import shutil
import tempfile
import time
from pathlib import Path

from bench.results import append_results
from paperfind.ingest.review_sides import build_sides, coverage_table
from paperfind.ingest.run import ingest_paths
from paperfind.settings import BUNDLED_CORPUS
from paperfind.store import Store
from paperfind.store.reviews import write_bundled

SIDES = BUNDLED_CORPUS.with_name("corpus.reviews")


def coverage(data: Path, scratch: Path) -> tuple[str, bool]:
    out = scratch / "sides"
    table = coverage_table(build_sides(data, BUNDLED_CORPUS, out))
    shipped = sorted(p.name for p in SIDES.glob("*.jsonl.gz"))
    same = shipped == sorted(p.name for p in out.glob("*.jsonl.gz")) and all(
        filecmp.cmp(SIDES / name, out / name, shallow=False) for name in shipped)
    return table, same


def as_records(shards: list[Path], target: Path) -> int:
    """The side files as paperfind's own JSON lines records, one per scored paper (the key,
    venue, year and title of its corpus record, and its scores)."""
    lines = []
    for shard in shards:
        with gzip.open(shard, "rt", encoding="utf-8") as fh:
            papers = {p["key"]: p for p in map(json.loads, fh)}
        with gzip.open(SIDES / shard.name, "rt", encoding="utf-8") as fh:
            for item in map(json.loads, fh):
                paper = papers[item.pop("key")]
                lines.append(json.dumps({"key": paper["key"], "venue": paper["venue"],
                                         "year": paper["year"], "title": paper["title"],
                                         "source_id": paper["source_id"], "reviews": item},
                                        ensure_ascii=False))
    target.write_text("\n".join(lines) + "\n", "utf-8")
    return len(lines)


def build_cost(scratch: Path) -> str:
    shards = sorted(BUNDLED_CORPUS / p.name for p in SIDES.glob("*.jsonl.gz"))
    plain = scratch / "corpus"  # no corpus.reviews beside it: the build as it was
    plain.mkdir()
    for shard in shards:
        shutil.copy(shard, plain)
    store = Store(scratch / "cost.db", building=True)
    store.use_large_cache()
    started = time.perf_counter()
    report = ingest_paths(store, sorted(plain.iterdir()), progress=False, jobs=1)
    baseline = time.perf_counter() - started
    papers = store.paper_count()
    started = time.perf_counter()
    scored = sum(write_bundled(store.conn, SIDES / shard.name) for shard in shards)
    straight = time.perf_counter() - started
    records = scratch / "reviews-as-records.jsonl"
    as_records(shards, records)
    started = time.perf_counter()
    second = ingest_paths(store, [records], progress=False, jobs=1)
    as_second = time.perf_counter() - started
    added = sum(s.records for s in second.sources)
    assert not second.failed and added == scored, (second.failed, added, scored)
    store.close()
    steps = ", ".join(f"{k} {v:.1f} s" for k, v in second.timings.items())
    base_steps = ", ".join(f"{k} {v:.1f} s" for k, v in report.timings.items())
    return "\n".join([
        f"{len(shards)} shards with scores, {papers:,} papers, {scored:,} with scores; one process.",
        "",
        "| step | seconds | what |",
        "|---|---:|---|",
        f"| build the shards, no scores (baseline) | {baseline:.1f} | {base_steps} |",
        f"| + scores straight into the table (now) | {straight:.2f} | 18 side files, executemany |",
        f"| + scores as a second record per paper (lost branch) | {as_second:.1f} | {steps} |",
    ])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--no-record", action="store_true", help="print, do not write RESULTS.md")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        table, same = coverage(args.data, scratch)
        cost = build_cost(scratch)
    stamp = time.strftime("%Y-%m-%d %H:%M")
    text = (f"Papers with review scores per venue-year (bundled side files), against the papers "
            f"the source records give scores for. Side files made again from the sources equal "
            f"the shipped ones: {'yes' if same else 'NO'}.\n\n{table}\n\n"
            f"Build cost (in-process timing, {stamp}):\n\n{cost}\n")
    print(text)
    if not args.no_record:
        append_results("Review scores: coverage and build cost (issue 31, bench/review_scores.py)", text)


if __name__ == "__main__":
    main()
