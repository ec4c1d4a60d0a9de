"""Slices of the real data files, written as small source files for tests."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"
PAPERLISTS = DATA / "paperlists"
EXTRA = DATA / "extra"


def load_paperlist(venue: str, year: int) -> list[dict]:
    with gzip.open(PAPERLISTS / venue / f"{venue}{year}.json.gz", "rt", encoding="utf-8") as fh:
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
