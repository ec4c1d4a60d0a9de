"""Where the tests find real data: slices kept in the repository, and the full files beside it.

`PAPERLISTS` and `EXTRA` are the slices in tests/data/slices/ (cut by scripts/cut-test-slices,
sources and selection rules in tests/data/PROVENANCE.md): the real files' formats and folder
layout with fewer records, so a fresh clone runs the suite. `REAL_PAPERLISTS` and `REAL_EXTRA`
are the full files in ../shared/data; only tests marked `realdata` read them, and those are
skipped when the folder is not there (tests/conftest.py).
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SLICES = REPO / "tests" / "data" / "slices"
PAPERLISTS = SLICES / "paperlists"
EXTRA = SLICES / "extra"
REAL_DATA = REPO.parent / "shared" / "data"
REAL_PAPERLISTS = REAL_DATA / "paperlists"
REAL_EXTRA = REAL_DATA / "extra"


def real_data_missing() -> str | None:
    """Why the full real files cannot be read here, or None when they can."""
    missing = [p for p in (REAL_PAPERLISTS, REAL_EXTRA) if not p.is_dir()]
    if not missing:
        return None
    return f"the real data is not at {REAL_DATA} (../shared/data beside the repo)"


def load_paperlist(venue: str, year: int, root: Path = PAPERLISTS) -> list[dict]:
    """The records of `root/venue/venueYEAR.json.gz` (by default the slice kept in the repo)."""
    with gzip.open(root / venue / f"{venue}{year}.json.gz", "rt", encoding="utf-8") as fh:
        return json.load(fh)


def write_slice(root: Path, venue: str, year: int, records: list[dict]) -> Path:
    """Write records as `root/venue/venueYEAR.json.gz`, the shape of the real data folder."""
    path = root / venue / f"{venue}{year}.json.gz"
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        json.dump(records, fh)
    return path


def pick(records: list[dict], ids: set[str], extra: int = 0) -> list[dict]:
    """The records with these ids, plus the first `extra` others (a realistic slice)."""
    chosen = [r for r in records if r.get("id") in ids]
    others = [r for r in records if r.get("id") not in ids][:extra]
    return chosen + others
