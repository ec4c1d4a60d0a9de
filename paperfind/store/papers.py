"""Derive a paper's rows (papers, paper_authors, affiliations, keywords) from its records.

The records table is the record of what each source said; a paper is recomputed from all its
records whenever one of them changes, so the result never depends on ingest order.
"""

from __future__ import annotations

import json
import sqlite3

from paperfind.catalog.institutions import institution_display, institution_info
from paperfind.catalog.venues import display_name
from paperfind.model import Affiliation, Record
from paperfind.store import merge as merge_policy
from paperfind.store import reviews as review_rows
from paperfind.store.merge import merge_records
from paperfind.text.clean import normalize_title
from paperfind.text.names import name_key

_CHILD_TABLES = ("paper_affiliations", "paper_authors", "keywords")


def load_records(conn: sqlite3.Connection, key: str) -> list[Record]:
    """The records of one paper, highest-priority source first."""
    rows = conn.execute("SELECT r.data, s.path FROM records r JOIN sources s ON s.id = r.source_id "
                        "WHERE r.paper_key = ? ORDER BY r.priority DESC, r.source_id, r.id",
                        (key,)).fetchall()
    records = []
    for data, source in rows:
        # provenance is not part of the stored content (databases before 2026-11 kept it too)
        record = Record.from_json(json.loads(data))
        record.key, record.source = key, source
        records.append(record)
    return records


def rebuild_papers(conn: sqlite3.Connection, keys: list[str],
                   known: dict[str, tuple[Record, str]] | None = None) -> None:
    """Bring the papers `keys` in line with their records (insert, update in place, or delete).

    `known` holds records already in memory, with their content hash: a paper whose only record
    is there is merged from it instead of reading it back. Lookups go by chunks of keys and new
    rows by batch, since a source file adds thousands of papers at once.
    """
    known = known or {}
    existing: dict[str, tuple[int, str]] = {}
    counts: dict[str, int] = {}
    for chunk in _chunks(keys):
        marks = ",".join("?" * len(chunk))
        existing.update((k, (i, h)) for k, i, h in conn.execute(
            f"SELECT key, id, content_hash FROM papers WHERE key IN ({marks})", chunk))
        counts.update(conn.execute(f"SELECT paper_key, COUNT(*) FROM records "
                                   f"WHERE paper_key IN ({marks}) GROUP BY paper_key", chunk))
    rows = _Rows()
    # new papers get the ids SQLite would give them one by one, so their rows can go in a batch
    next_id = conn.execute("SELECT COALESCE(MAX(id), 0) + 1 FROM papers").fetchone()[0]
    for key in keys:
        count = counts.get(key, 0)
        before = existing.get(key)
        if count == 0:
            if before:
                _delete_children(conn, before[0])
                conn.execute("DELETE FROM papers WHERE id = ?", (before[0],))
                review_rows.write_merged(conn, key, None)
            continue
        if count == 1 and key in known:
            record, record_hash = known[key]
            paper = merge_records([record])
            # merging one record nearly always leaves it as it was, and so its hash too
            chash = record_hash if paper == record else paper.content_hash()
        else:
            paper = merge_records(load_records(conn, key))
            chash = paper.content_hash()
        if before and before[1] == chash:
            continue
        if paper.reviews is not None or before is not None:
            review_rows.write_merged(conn, key, paper.reviews)
        if before is None:
            paper_id, next_id = next_id, next_id + 1
            rows.papers.append(_paper_values(paper, chash) + (key, paper_id))
            kept = {}
        else:
            paper_id = before[0]
            kept = _author_ids_by_slot(conn, paper_id)
            _delete_children(conn, paper_id)
            conn.execute("UPDATE papers SET venue=?, year=?, title=?, title_norm=?, abstract=?, "
                         "tldr=?, status=?, track=?, area=?, keywords=?, links=?, bibtex=?, "
                         "citations=?, authors_ordered=?, forum_id=?, content_hash=? WHERE id = ?",
                         _paper_values(paper, chash) + (paper_id,))
        rows.add_children(paper_id, paper, kept)
    rows.write(conn)


def _chunks(keys: list[str], size: int = 500) -> list[list[str]]:
    return [keys[i:i + size] for i in range(0, len(keys), size)]


def _paper_values(paper: Record, chash: str) -> tuple:
    return (paper.venue, paper.year, paper.title, normalize_title(paper.title), paper.abstract,
            paper.tldr, paper.status, paper.track, paper.area,
            json.dumps(paper.keywords, ensure_ascii=False),
            json.dumps(paper.links, ensure_ascii=False, sort_keys=True), paper.bibtex,
            paper.citations, int(paper.authors_ordered), paper.forum_id, chash)


def _author_ids_by_slot(conn: sqlite3.Connection, paper_id: int) -> dict[tuple[int, str], int]:
    """Resolved people of a paper's slots, kept across an update while the name is unchanged."""
    return {(pos, fold): aid for pos, fold, aid in conn.execute(
        "SELECT position, name_fold, author_id FROM paper_authors "
        "WHERE paper_id = ? AND author_id IS NOT NULL", (paper_id,))}


def _delete_children(conn: sqlite3.Connection, paper_id: int) -> None:
    for table in _CHILD_TABLES:
        conn.execute(f"DELETE FROM {table} WHERE paper_id = ?", (paper_id,))


class _Rows:
    """The rows a batch of papers adds, written with one statement a table.

    Venues and institutions are inserted once each, with the values of their first mention,
    as inserting them paper by paper with INSERT OR IGNORE did.
    """

    def __init__(self) -> None:
        self.venues: dict[str, tuple[str, str]] = {}
        self.institutions: dict[str, tuple[str, str, str]] = {}
        self.papers: list[tuple] = []
        self.authors: list[tuple] = []
        self.affiliations: list[tuple] = []
        self.keywords: list[tuple[int, str]] = []

    def add_children(self, paper_id: int, paper: Record, kept: dict[tuple[int, str], int]) -> None:
        if paper.venue not in self.venues:
            self.venues[paper.venue] = (paper.venue, display_name(paper.venue))
        for pos, slot in enumerate(paper.authors):
            fold = name_key(slot.name)
            self.authors.append((paper_id, pos, slot.name, fold, slot.profile_id,
                                 slot.alias_profile_id, kept.get((pos, fold))))
            for seq, aff in enumerate(slot.affiliations):
                self._affiliation(paper_id, pos, seq, aff)
        for seq, aff in enumerate(paper.paper_affiliations):
            # institutions given for the paper as a whole sit at position -1
            self._affiliation(paper_id, -1, seq, aff)
        self.keywords.extend((paper_id, kw) for kw in paper.keywords)

    def _affiliation(self, paper_id: int, pos: int, seq: int, aff: Affiliation) -> None:
        if aff.slug and aff.slug not in self.institutions:
            # a curated institution is what the catalog says, not what its first slot said:
            # the first Microsoft Research slot of the corpus was its India lab
            known = institution_info(aff.slug)
            self.institutions[aff.slug] = ((known.slug, known.name, known.country or aff.country) if known else
                                           (aff.slug, aff.name or institution_display(aff.slug),
                                            aff.country))
        self.affiliations.append((paper_id, pos, seq, aff.raw, aff.slug or None))

    def write(self, conn: sqlite3.Connection) -> None:
        conn.executemany("INSERT OR IGNORE INTO venues(slug, name) VALUES (?, ?)",
                         self.venues.values())
        conn.executemany("INSERT OR IGNORE INTO institutions(slug, name, country) VALUES (?,?,?)",
                         self.institutions.values())
        conn.executemany("INSERT INTO papers(venue, year, title, title_norm, abstract, tldr, "
                         "status, track, area, keywords, links, bibtex, citations, "
                         "authors_ordered, forum_id, content_hash, key, id) "
                         "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", self.papers)
        conn.executemany("INSERT INTO paper_authors(paper_id, position, name, name_fold, "
                         "profile_id, alias_profile_id, author_id) VALUES (?,?,?,?,?,?,?)",
                         self.authors)
        conn.executemany("INSERT INTO paper_affiliations(paper_id, position, seq, raw, "
                         "institution) VALUES (?,?,?,?,?)", self.affiliations)
        conn.executemany("INSERT OR IGNORE INTO keywords(paper_id, keyword) VALUES (?, ?)",
                         self.keywords)


def match_title(conn: sqlite3.Connection, record: Record, notes: list[str],
                join_only: bool = False) -> str | None:
    """The key of the one paper of the same venue-year and title, for sources without ids.

    When the normalised title finds nothing, the title's letters and digits alone are tried
    ("Schrödinger's" vs "Schrodingers"); a record that still pairs with nothing in a
    venue-year that has papers is reported, since it becomes a paper of its own. A record of
    a `join_only` source (an abstract book, citation counts) is never a paper of its own: when
    it pairs with nothing it is reported as not stored, whatever the venue-year holds.
    """
    title = normalize_title(record.title)
    rows = conn.execute("SELECT key FROM papers WHERE venue = ? AND year = ? AND title_norm = ? "
                        "ORDER BY key", (record.venue, record.year, title)).fetchall()
    if not rows:
        rows = conn.execute("SELECT key FROM papers WHERE venue = ? AND year = ? AND "
                            "replace(title_norm, ' ', '') = ? ORDER BY key",
                            (record.venue, record.year, title.replace(" ", ""))).fetchall()
    result = None
    if rows:
        candidates = [(key, merge_records(load_records(conn, key))) for (key,) in rows]
        result = merge_policy.match_by_title(record, candidates)
    else:
        result = _renamed_paper(conn, record, title)
        if result is not None:
            notes.append(f"record {record.source_index} ('{record.title[:60]}'): merged with "
                         f"{result}, the same authors under a revised title")
    if isinstance(result, merge_policy.Ambiguous):
        notes.append(f"record {record.source_index} ('{record.title[:60]}'): not merged, {result}"
                     + ("; not stored" if join_only else ""))
        return None
    if result is None and join_only:
        reason = ("its authors differ from those of the paper with this title" if rows
                  else "none has this title")
        notes.append(f"record {record.source_index} ('{record.title[:60]}'): paired with no paper "
                     f"of {record.venue} {record.year} ({reason}); not stored")
    elif result is None and conn.execute("SELECT 1 FROM papers WHERE venue = ? AND year = ? LIMIT 1",
                                       (record.venue, record.year)).fetchone():
        reason = ("its authors differ from those of the paper with this title" if rows
                  else "no paper of its venue-year has this title")
        notes.append(f"record {record.source_index} ('{record.title[:60]}'): paired with no paper "
                     f"({reason}); stored as a paper of its own")
    return result


# words that say nothing about which paper a title names
_TITLE_STOP = frozenset("a an and as at by for from in into is of on or the to towards via with".split())


def _renamed_paper(conn: sqlite3.Connection, record: Record, title: str) -> str | None:
    """The one paper of the venue-year with the record's whole author list and a title that
    shares most of its words: the same paper, renamed between review and camera-ready (10-15 %
    of NeurIPS 2024/2025 and ICML 2025 titles: "... Capability Gaps" for "... Capacity Gaps").

    Two different papers must never merge, and the same people often submit two papers to one
    venue-year (a rejected one beside an accepted one), so: the same number of authors, each
    on the other list (by name, or initials and last name); half of the title's words shared
    (three in five for a single author), not counting words like "of" and "via", or one title
    the start of the other; and exactly one such paper. Renamings that keep less of the title
    ("CoRT: Code-integrated Reasoning within Thinking" for "Teaching Language Models to Reason
    with Tools") stay apart: telling them from a second paper takes more than the title.
    """
    if not record.authors:
        return None
    first = name_key(record.authors[0].name)
    rows = conn.execute("SELECT p.key, p.title_norm FROM paper_authors pa JOIN papers p "
                        "ON p.id = pa.paper_id WHERE pa.name_fold = ? AND pa.position = 0 "
                        "AND p.venue = ? AND p.year = ? ORDER BY p.key",
                        (first, record.venue, record.year)).fetchall()
    n = len(record.authors)
    needed = 0.6 if n == 1 else 0.5
    words = set(title.split()) - _TITLE_STOP
    fitting = []
    for key, other in rows:
        theirs = set(other.split()) - _TITLE_STOP
        shared = len(words & theirs) / len(words | theirs) if words | theirs else 0.0
        prefix = bool(title and other) and (title.startswith(other) or other.startswith(title))
        if shared < needed and not prefix:
            continue
        paper = merge_records(load_records(conn, key))
        same_authors = (len(paper.authors) == n
                        and merge_policy.author_overlap(record.authors, paper.authors) == n)
        if same_authors and not (record.forum_id and paper.forum_id and record.forum_id != paper.forum_id):
            fitting.append(key)
    return fitting[0] if len(fitting) == 1 else None
