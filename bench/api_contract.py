"""The API against its own OpenAPI schema: `schemathesis run .../openapi.json --checks all` on a
server over the bundled corpus (issue 18), its summary recorded in bench/RESULTS.md.

The suite runs a short version of this on a slice (tests/web/test_contract.py); this is the full
run, every check and schemathesis's default number of cases.

    .venv/bin/python -m bench.api_contract --db /tmp/bundled.db   # built by `paperfind ingest
                                                                  #  paperfind/data/corpus`
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.results import append_results
from bench.server import free_port, start_server, stop_server

BIN = Path(sys.executable).parent


def summary_of(output: str) -> dict[str, str]:
    """The figures of schemathesis's closing summary."""
    found = {name: re.search(pattern, output) for name, pattern in {
        "operations": r"Selected: (\d+/\d+)", "tested": r"Tested: (\d+)",
        "cases": r"(\d+) generated", "links": r"API Links:\s+(\d+ covered / \d+ selected)",
        "seconds": r"in ([\d.]+)s ="}.items()}
    out = {k: (m.group(1) if m else "?") for k, m in found.items()}
    failures = re.findall(r"❌ (ST\d+ [^:\n]+): (\d+)", output[output.rfind("SUMMARY"):])
    out["failures"] = "; ".join(f"{name} ×{n}" for name, n in failures) or "none"
    phases = re.findall(r"([✅❌⏭🚫]+)\s+(Examples|Coverage|Fuzzing|Stateful)\n",
                        output[output.rfind("Test Phases"):])
    out["phases"] = ", ".join(f"{p} {'ok' if mark == '✅' else 'FAILED' if mark == '❌' else 'skipped'}"
                              for mark, p in phases)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, required=True, help="database built from the bundled corpus")
    parser.add_argument("--no-record", action="store_true", help="print only, leave RESULTS.md")
    args = parser.parse_args()
    port = free_port()
    server = start_server(args.db, port, semantic=False)  # the contract does not depend on vectors
    try:
        run = subprocess.run([str(BIN / "schemathesis"), "run", f"http://127.0.0.1:{port}/openapi.json",
                              "--checks", "all"], capture_output=True, text=True,
                             env={**os.environ, "NO_COLOR": "1"},
                             cwd=tempfile.mkdtemp(prefix="schemathesis-"))  # its .schemathesis/ cache
    finally:
        stop_server(server)
    figures = summary_of(run.stdout)
    table = (f"`schemathesis run http://127.0.0.1:PORT/openapi.json --checks all` (schemathesis "
             f"4.32.5, its default cases per operation), against `paperfind serve` on a database "
             f"built from the bundled corpus (`{args.db.name}`), lexical search; exit code "
             f"{run.returncode}.\n\n"
             "| operations selected | tested | test cases | API links | phases | failures | seconds |\n"
             "|---|---:|---:|---|---|---|---:|\n"
             f"| {figures['operations']} | {figures['tested']} | {figures['cases']} | "
             f"{figures['links']} | {figures['phases']} | {figures['failures']} | {figures['seconds']} |\n")
    print(table)
    print(run.stdout[run.stdout.rfind("SUMMARY") - 40:])
    if not args.no_record:
        append_results("API contract: schemathesis on the bundled corpus (issue 18)", table)


if __name__ == "__main__":
    main()
