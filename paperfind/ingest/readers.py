"""The one registry of source readers: which reader reads a file, and how its records rank.

Adding a source is adding one row to `READERS`; the first row whose `matches` says yes reads it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

from paperfind.ingest import jsonl, paperlists
from paperfind.ingest.errors import SourceError
from paperfind.ingest.extra import (airas, anthology, changxinhai, evanzd, history, iclr2020_site,
                                    iclr2026, iclr_lists, mlanthology, openreview_csv, papercopilot,
                                    proceedings, sitelists, tables)
from paperfind.ingest.extra import abstract_books, scholar
from paperfind.model import BadRecord, Record

ReadFn = Callable[[Path], Iterator[Record | BadRecord]]


@dataclass(frozen=True)
class Reader:
    """A source format. `priority` orders a paper's records for the merge (higher is the better
    source when the per-field rules tie); `title_only` marks sources without OpenReview forum ids,
    which the store matches to papers by title after the id-bearing sources are in."""

    name: str
    matches: Callable[[Path], bool]
    read: ReadFn
    priority: int
    title_only: bool
    # raises `SourceError` when the file's name alone rules it out, before the file is hashed
    check_name: Callable[[Path], object] | None = None
    # reading makes no reference cycles (JSON to records, no parser objects): the cyclic
    # collector can stay off, which walked every record read so far (4 of 15 s at the bundled
    # corpus) for nothing to find
    acyclic: bool = False
    # title-only sources that only add to papers of other sources (abstract books, citation
    # counts): a record whose title pairs with no stored paper is reported and left out,
    # since as a paper of its own it would be one without id or status, or a duplicate
    join_only: bool = False

    def __post_init__(self) -> None:
        if self.join_only and not self.title_only:
            raise ValueError(f"reader {self.name}: join_only applies to title-only sources")


READERS: tuple[Reader, ...] = (
    # OpenReview forum ids: joined on the key `{venue}{year}:{forum_id}`.
    Reader("papercopilot-authors", papercopilot.matches_authors, papercopilot.read_authors, 90, False),
    Reader("iclr2026-zhuanxv-g", iclr2026.matches_zhuanxv, iclr2026.read_zhuanxv, 88, False),
    Reader("papercopilot-venues", papercopilot.matches_venues, papercopilot.read_venues, 85, False),
    Reader("dotd-table-ids", tables.matches_with_id, tables.read_with_id, 80, False),
    Reader("neurips-openreviewdata", openreview_csv.matches, openreview_csv.read, 80, False),
    Reader("iclr2026-imczxx", iclr2026.matches_imczxx, iclr2026.read_imczxx, 75, False),
    Reader("iclr2026-alickzhu", iclr2026.matches_alickzhu, iclr2026.read_alickzhu, 70, False),
    Reader("neurips-openreviewdata-ratings", openreview_csv.is_ratings, openreview_csv.read_ratings,
           60, False),
    Reader("papercopilot-init", papercopilot.matches_init, papercopilot.read_init, 50, False),
    Reader("iclr2020-virtual-site", iclr2020_site.matches_papers, iclr2020_site.read_papers, 78, False),
    Reader("iclr2020-oral-schedule", iclr2020_site.matches_schedule, iclr2020_site.read_schedule,
           55, False),
    Reader("evanzd-papers", evanzd.matches_papers, evanzd.read_papers, 76, False),
    Reader("evanzd-ratings", evanzd.matches_ratings, evanzd.read_ratings, 52, False),
    Reader("paperlists-history-forum", history.matches_forum_lists, history.read_forum_lists, 54, False),
    # Below the lists of their venue-years, whose titles the title-only sources are matched to:
    # OpenReview's title for ICLR 2025 (the ids file), camera-ready ones otherwise.
    Reader("chang-xinhai-openreview-ids", changxinhai.matches_authorids, changxinhai.read_authorids,
           49, False),
    Reader("mlanthology", mlanthology.matches, mlanthology.read, 48, False),
    # No forum ids, but an id of their own that no other venue-year's paper has: the key.
    Reader("neurips-proceedings", proceedings.matches_keyed, proceedings.read_proceedings, 74, False),
    Reader("airas-papers-db", airas.matches_keyed, airas.read, 72, False),
    # New venue-years (CVPR 2020, ACL and EMNLP): the Anthology id or the list's own slug is the key.
    Reader("chang-xinhai-lists", changxinhai.matches_lists, changxinhai.read_lists, 62, False),
    Reader("acl-emnlp-kostikova", anthology.matches_kostikova, anthology.read_kostikova, 62, False),
    # No forum ids: matched to the papers above by title (and authors).
    Reader("dotd-table-titles", tables.matches_without_id, tables.read_without_id, 45, True),
    Reader("icml2024-events-lukasmosser", sitelists.matches_events, sitelists.read_events, 40, True),
    Reader("neurips2024-jingshi-yang", sitelists.matches_jingshi, sitelists.read_jingshi, 38, True),
    Reader("paperlists-history", history.matches_site_lists, history.read_site_lists, 36, True),
    Reader("neurips-proceedings-titles", proceedings.matches_titled, proceedings.read_proceedings,
           35, True),
    Reader("airas-papers-db-titles", airas.matches_titled, airas.read, 33, True),
    Reader("neurips2019-msalvaris", proceedings.matches_msalvaris, proceedings.read_msalvaris, 31, True),
    Reader("vlm-paper-search-euisuk", iclr_lists.matches_euisuk, iclr_lists.read_euisuk, 34, True),
    Reader("neurips2025-bsantraigi", sitelists.matches_bsantraigi, sitelists.read_bsantraigi, 32, True),
    Reader("iclr2025-whitney-house", iclr_lists.matches_whitney, iclr_lists.read_whitney, 30, True),
    # Join-only, below the title-only sources above: abstracts (ICLR 2019, 2020, 2023) and
    # Scholar counts (ICLR 2019, 2020) for the papers of the Paper Copilot history lists.
    Reader("rajatmodi62-abstract-generator", abstract_books.matches, abstract_books.read, 29, True,
           join_only=True),
    Reader("iclr-citations-isingmodel", scholar.matches, scholar.read, 28, True, acyclic=True,
           join_only=True),
    # By format: paperfind's own export, then the paper lists (named <venue><year>.json[.gz]).
    Reader("paperfind-jsonl", jsonl.matches, jsonl.read_export, 50, False, acyclic=True),
    Reader("paperlists", paperlists.matches, paperlists.read_file, 40, False,
           check_name=paperlists.venue_year_from_path),
)


def find_reader(path: Path) -> Reader | None:
    """The reader of a file, by its folder and file name; None for files no reader knows."""
    path = Path(path)
    for reader in READERS:
        if reader.matches(path):
            return reader
    return None


def choose_reader(path: Path) -> Reader:
    """The reader of a file; a `SourceError` when none reads it or its name rules it out."""
    reader = find_reader(path)
    if reader is None:
        raise SourceError(str(path), "not a format paperfind reads "
                          "(.json/.json.gz paper lists, .jsonl/.jsonl.gz exports, or a known source)")
    if reader.check_name is not None:
        reader.check_name(Path(path))
    return reader
