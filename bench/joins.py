"""How every source file of the bundled corpus joins: records read, left out (and why), paired
with a paper, and paired with none, per file (issue 26's "join misses per source").

    flock /tmp/paperfind-heavy.lock .venv/bin/python -m bench.joins [--no-write]

Ingests what scripts/build-corpus ingests (paperlists 2013+ of the corpus's venues, and all of
extra/) into a temporary database with this tree's code, and reads each file's summary: records
kept, records a reader left out (by reason: workshop volumes, front matter, a Scholar hit for
another title, ...), and for the sources matched by title the records that paired with no paper
(stored as papers of their own, or, for join-only sources, not stored), and those that joined a
paper renamed for the proceedings.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from bench.corpus import DATA, REPO
from bench.results import append_results

# what differs between records that were left out for the same reason
_NOISE = ((re.compile(r"\('.*?'\)"), "('…')"), (re.compile(r"\b\d{4}\.[a-z0-9-]+"), "<volume>"),
          (re.compile(r"forum id \S+"), "forum id …"), (re.compile(r"\d+"), "N"))


def build_corpus_files() -> list[Path]:
    """The paperlists files scripts/build-corpus names (its own selection, run as it runs it)."""
    script = (REPO / "scripts" / "build-corpus").read_text(encoding="utf-8")
    program = script.split("<<'PY'\n", 1)[1].split("\nPY\n", 1)[0]
    out = subprocess.run([sys.executable, "-", str(DATA)], input=program, capture_output=True,
                         text=True, check=True).stdout.split()
    return [Path(p) for p in out] + [DATA / "extra"]


def reason(message: str) -> str:
    """A skip reason without its numbers, ids and quoted titles, so equal reasons count together."""
    text = message.split(": ", 2)[-1]
    for pattern, placeholder in _NOISE:
        text = pattern.sub(placeholder, text)
    return " ".join(text.split())[:90]


def main(argv: list[str] | None = None) -> int:
    from paperfind.ingest.run import ingest_paths
    from paperfind.store import Store

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args(argv)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / "joins.db")
        report = ingest_paths(store, build_corpus_files(), progress=False, jobs=2)
        papers = store.paper_count()
        store.close()
    lines = ["| file | records kept | left out by the reader | paired with no paper | joined a renamed paper |",
             "|---|---:|---:|---:|---:|"]
    left_out: Counter = Counter()
    for summary in sorted(report.sources, key=lambda s: s.path):
        rel = summary.path.split("/shared/data/", 1)[-1]
        unpaired = sum("paired with no paper" in n for n in summary.notes)
        renamed = sum("under a revised title" in n for n in summary.notes)
        if not (summary.skipped or unpaired or renamed or "/extra/" in summary.path):
            continue  # a paper list read whole, joined by its own ids
        for bad in summary.skipped:
            left_out[(rel.split("/")[1] if rel.startswith("extra/") else "paperlists", reason(str(bad)))] += 1
        lines.append(f"| `{rel}` | {summary.records:,} | {len(summary.skipped):,} | {unpaired:,} | {renamed:,} |")
    reasons = ["| source | why a record is left out | records |", "|---|---|---:|"] + [
        f"| {src} | {why} | {n:,} |" for (src, why), n in left_out.most_common(25)]
    intro = (f"{time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC, `python -m bench.joins`: "
             f"scripts/build-corpus's {report.files} files ingested by the working tree "
             f"({papers:,} papers, {time.perf_counter() - started:.0f} s). Files of the paper lists "
             "that are read whole and keyed by their own ids are not listed. \"Paired with no paper\": "
             "a title-only record that matched no paper of its venue-year (a paper of its own; "
             "for the join-only abstract books and Scholar counts, not stored).\n\n")
    table = "\n".join(lines) + "\n\n" + "\n".join(reasons)
    print(table)
    if not args.no_write:
        append_results("Joins of the bundled corpus's sources, per file (bench/joins.py, issue 26)",
                       intro + table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
