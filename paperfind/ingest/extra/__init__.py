"""Adapters for the recent-venue sources in ../shared/data/extra, and the registry of them.

Each source publishes its own shape; an adapter recognises its files by folder and file
name and yields the normalised `Record`s (or `BadRecord`s) the paperlists reader yields.
Adding a source is adding one entry to `ADAPTERS`.

`priority` orders a paper's records for the merge (higher is the better source when the
per-field rules tie); `title_only` marks sources without OpenReview forum ids, which the
store matches to papers by title after the id-bearing sources are in.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

from paperfind.ingest.errors import BadRecord
from paperfind.ingest.extra import (iclr2026, iclr_lists, openreview_csv, papercopilot,
                                    sitelists, tables)
from paperfind.model import Record


@dataclass(frozen=True)
class Adapter:
    name: str
    matches: Callable[[Path], bool]
    read: Callable[[Path], Iterator[Record | BadRecord]]
    priority: int
    title_only: bool


ADAPTERS: list[Adapter] = [
    # OpenReview forum ids: joined on the key `{venue}{year}:{forum_id}`.
    Adapter("papercopilot-authors", papercopilot.matches_authors, papercopilot.read_authors, 90, False),
    Adapter("iclr2026-zhuanxv-g", iclr2026.matches_zhuanxv, iclr2026.read_zhuanxv, 88, False),
    Adapter("papercopilot-venues", papercopilot.matches_venues, papercopilot.read_venues, 85, False),
    Adapter("dotd-table-ids", tables.matches_with_id, tables.read_with_id, 80, False),
    Adapter("neurips-openreviewdata", openreview_csv.matches, openreview_csv.read, 80, False),
    Adapter("iclr2026-imczxx", iclr2026.matches_imczxx, iclr2026.read_imczxx, 75, False),
    Adapter("iclr2026-alickzhu", iclr2026.matches_alickzhu, iclr2026.read_alickzhu, 70, False),
    Adapter("neurips-openreviewdata-ratings", openreview_csv.is_ratings, openreview_csv.read_ratings,
            60, False),
    Adapter("papercopilot-init", papercopilot.matches_init, papercopilot.read_init, 50, False),
    # No forum ids: matched to the papers above by title (and authors).
    Adapter("dotd-table-titles", tables.matches_without_id, tables.read_without_id, 45, True),
    Adapter("icml2024-events-lukasmosser", sitelists.matches_events, sitelists.read_events, 40, True),
    Adapter("neurips2024-jingshi-yang", sitelists.matches_jingshi, sitelists.read_jingshi, 38, True),
    Adapter("paperlists-history", sitelists.matches_history, sitelists.read_history, 36, True),
    Adapter("vlm-paper-search-euisuk", iclr_lists.matches_euisuk, iclr_lists.read_euisuk, 34, True),
    Adapter("neurips2025-bsantraigi", sitelists.matches_bsantraigi, sitelists.read_bsantraigi, 32, True),
    Adapter("iclr2025-whitney-house", iclr_lists.matches_whitney, iclr_lists.read_whitney, 30, True),
]


def find_adapter(path: Path) -> Adapter | None:
    """The adapter of a file, by its folder and file name; None for files of no known source."""
    path = Path(path)
    for adapter in ADAPTERS:
        if adapter.matches(path):
            return adapter
    return None
