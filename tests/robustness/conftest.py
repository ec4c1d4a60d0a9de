"""Helpers of the robustness tests: real slices, the real CLI in a subprocess, database snapshots."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
# Tables a source file's ingest writes (people resolution is checked separately).
PAPER_TABLES = ("sources", "records", "papers", "paper_authors", "paper_affiliations", "keywords",
                "venues", "institutions")


@dataclass
class CliResult:
    code: int
    stdout: str
    stderr: str

    @property
    def lines(self) -> list[str]:
        return self.stderr.splitlines()


def run_cli(*args: str | Path, env: dict[str, str] | None = None) -> CliResult:
    """`paperfind ARGS` in a fresh interpreter, as a user would run it."""
    full_env = {**os.environ, "PAPERFIND_SEMANTIC": "0", **(env or {})}
    done = subprocess.run([sys.executable, "-m", "paperfind.cli", *map(str, args)],
                          capture_output=True, text=True, cwd=REPO, env=full_env)
    return CliResult(done.returncode, done.stdout, done.stderr)


def snapshot(db: Path, where_source: str | None = None) -> dict[str, list[tuple]]:
    """Every row of the paper tables (or only the rows of one source file), sorted, to compare states."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        if where_source is not None:
            rows = conn.execute("SELECT r.ident, r.paper_key, r.content_hash, r.data FROM records r "
                                "JOIN sources s ON s.id = r.source_id WHERE s.path = ?",
                                (where_source,)).fetchall()
            source = conn.execute("SELECT path, sha256, records, skipped FROM sources WHERE path = ?",
                                  (where_source,)).fetchall()
            return {"records": sorted(rows), "sources": source}
        return {t: sorted(conn.execute(f"SELECT * FROM {t}").fetchall(), key=repr)
                for t in PAPER_TABLES}
    finally:
        conn.close()
