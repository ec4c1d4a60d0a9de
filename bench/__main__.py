"""`python -m bench`: the benches, the figure each guards, how long it takes and how to run it.

`python -m bench NAME [args]` runs one, as `python -m bench.NAME [args]` does. The list is
bench/__init__.py's BENCHES.
"""

from __future__ import annotations

import runpy
import sys
import textwrap

from bench import BENCHES, GROUPS

COLUMNS = (("bench", 22), ("what it measures (the figure it guards)", 52), ("how long", 30))


def _row(cells: tuple[str, ...]) -> list[str]:
    wrapped = [textwrap.wrap(cell, width) or [""] for cell, (_, width) in zip(cells, COLUMNS)]
    height = max(len(lines) for lines in wrapped)
    return ["  ".join(f"{(lines[i] if i < len(lines) else ''):<{width}}"
                      for lines, (_, width) in zip(wrapped, COLUMNS)).rstrip() for i in range(height)]


def listing() -> str:
    lines = [f"paperfind's benches ({len(BENCHES)}): each records its table in bench/RESULTS.md. "
             "Run one with the command under it,",
             "or `python -m bench NAME [args]`. Times are on the 2-core machine: (RESULTS) measured "
             "there, (est.) not.", ""]
    lines += _row(tuple(title for title, _ in COLUMNS))
    lines.append("  ".join("-" * width for _, width in COLUMNS))
    for title, group in GROUPS:
        lines += ["", f"[{title}]"]
        for bench in group:
            lines += _row((bench.name, bench.promise, bench.takes))
            lines.append(f"{'':<{COLUMNS[0][1]}}  $ {bench.command}")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help", "--list"):
        print(listing())
        return 0
    names = {bench.name for bench in BENCHES}
    if argv[0] not in names:
        print(f"bench: no bench named {argv[0]!r}; one of: {', '.join(sorted(names))}", file=sys.stderr)
        return 2
    sys.argv = [sys.argv[0], *argv[1:]]
    runpy.run_module(f"bench.{argv[0]}", run_name="__main__", alter_sys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
