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


def indexed_slice(root: Path, ids_by_file: dict[tuple[str, int], set[str]], extra: int = 20):
    """A store and index at `root` of these papers of the real data, each venue-year file with its
    first `extra` other records (the slices that a search test reads through the product's own
    ingest and index build)."""
    from paperfind.index.manager import build_index
    from paperfind.ingest.run import ingest_paths
    from paperfind.store import Store

    paths = [write_slice(root / "data", venue, year, pick(load_paperlist(venue, year), ids, extra=extra))
             for (venue, year), ids in ids_by_file.items()]
    store = Store(root / "slice.db")
    ingest_paths(store, paths, progress=False)
    build_index(store, root / "slice.db.index")
    return store
