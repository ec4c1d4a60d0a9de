"""bench/RESULTS.md, where every bench records its table."""

from __future__ import annotations

import os
from pathlib import Path

RESULTS = Path(__file__).resolve().with_name("RESULTS.md")


def append_results(heading: str, table: str) -> None:
    """Replace the section `## heading` of bench/RESULTS.md where it stands, or add it at the end.

    In place, so a re-run does not reorder the file and a diff shows only the figures that moved.
    """
    text = RESULTS.read_text("utf-8") if RESULTS.exists() else "# Benchmark results\n"
    section = f"## {heading}\n"
    body = section + "\n" + table.rstrip("\n") + "\n"
    start = text.find(section)
    if start < 0:
        RESULTS.write_text(text.rstrip("\n") + "\n\n" + body, "utf-8")
        return
    end = text.find("\n## ", start + len(section))
    rest = text[end + 1:] if end >= 0 else ""
    RESULTS.write_text(text[:start] + body + ("\n" + rest if rest else ""), "utf-8")


def load_average() -> str:
    """The machine's 1, 5 and 15 minute load averages as the tables print them ("2.10 / 3.05 /
    3.40"): a figure timed on the shared machine is read with the load it was timed under."""
    return " / ".join(f"{x:.2f}" for x in os.getloadavg())
