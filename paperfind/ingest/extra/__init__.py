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
from paperfind.ingest.extra import (airas, evanzd, history, iclr2020_site, iclr2026, iclr_lists,
                                    openreview_csv, papercopilot, proceedings, sitelists, tables)
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
    Adapter("iclr2020-virtual-site", iclr2020_site.matches_papers, iclr2020_site.read_papers, 78, False),
    Adapter("iclr2020-oral-schedule", iclr2020_site.matches_schedule, iclr2020_site.read_schedule,
            55, False),
    Adapter("evanzd-papers", evanzd.matches_papers, evanzd.read_papers, 76, False),
    Adapter("evanzd-ratings", evanzd.matches_ratings, evanzd.read_ratings, 52, False),
    Adapter("paperlists-history-forum", history.matches_forum_lists, history.read_forum_lists, 54, False),
    # No forum ids, but an id of their own that no other venue-year's paper has: the key.
    Adapter("neurips-proceedings", proceedings.matches_keyed, proceedings.read_proceedings, 74, False),
    Adapter("airas-papers-db", airas.matches_keyed, airas.read, 72, False),
    # No forum ids: matched to the papers above by title (and authors).
    Adapter("dotd-table-titles", tables.matches_without_id, tables.read_without_id, 45, True),
    Adapter("icml2024-events-lukasmosser", sitelists.matches_events, sitelists.read_events, 40, True),
    Adapter("neurips2024-jingshi-yang", sitelists.matches_jingshi, sitelists.read_jingshi, 38, True),
    Adapter("paperlists-history", history.matches_site_lists, history.read_site_lists, 36, True),
    Adapter("neurips-proceedings-titles", proceedings.matches_titled, proceedings.read_proceedings,
            35, True),
    Adapter("airas-papers-db-titles", airas.matches_titled, airas.read, 33, True),
    Adapter("neurips2019-msalvaris", proceedings.matches_msalvaris, proceedings.read_msalvaris, 31, True),
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
