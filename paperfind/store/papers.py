"""Derive a paper's rows (papers, paper_authors, affiliations, keywords) from its records.

The records table is the record of what each source said; a paper is recomputed from all its
records whenever one of them changes, so the result never depends on ingest order.
"""

from __future__ import annotations

import json
import sqlite3

from paperfind.ingest.institutions import institution_display
from paperfind.ingest.names import fold_name
from paperfind.ingest.text import normalize_title
from paperfind.ingest.venues import display_name
from paperfind.model import Record
from paperfind.store import merge as merge_policy
from paperfind.store.merge import merge_records

_CHILD_TABLES = ("paper_affiliations", "paper_authors", "keywords")


def load_records(conn: sqlite3.Connection, key: str) -> list[Record]:
    """The records of one paper, highest-priority source first."""
    rows = conn.execute("SELECT data FROM records WHERE paper_key = ? "
                        "ORDER BY priority DESC, source_id, id", (key,)).fetchall()
    return [Record.from_json(json.loads(row[0])) for row in rows]


def rebuild_paper(conn: sqlite3.Connection, key: str, known: Record | None = None) -> None:
    """Bring the paper `key` in line with its records (insert, update in place, or delete).

    `known` is a record of this paper already in memory: when it is the paper's only record,
    it is used as is instead of being read back.
    """
    existing = conn.execute("SELECT id, content_hash FROM papers WHERE key = ?", (key,)).fetchone()
    count = conn.execute("SELECT COUNT(*) FROM records WHERE paper_key = ?", (key,)).fetchone()[0]
    records = [known] if known is not None and count == 1 else load_records(conn, key)
    if not records:
        if existing:
            _delete_children(conn, existing[0])
            conn.execute("DELETE FROM papers WHERE id = ?", (existing[0],))
        return
    paper = merge_records(records)
    chash = paper.content_hash()
    if existing and existing[1] == chash:
        return
    conn.execute("INSERT OR IGNORE INTO venues(slug, name) VALUES (?, ?)",
                 (paper.venue, display_name(paper.venue)))
    values = (paper.venue, paper.year, paper.title, normalize_title(paper.title), paper.abstract,
              paper.tldr, paper.status, paper.track, paper.area,
              json.dumps(paper.keywords, ensure_ascii=False),
              json.dumps(paper.links, ensure_ascii=False, sort_keys=True), paper.bibtex,
              paper.citations, int(paper.authors_ordered), paper.forum_id, chash)
    if existing:
        paper_id = existing[0]
        kept = _author_ids_by_slot(conn, paper_id)
        _delete_children(conn, paper_id)
        conn.execute("UPDATE papers SET venue=?, year=?, title=?, title_norm=?, abstract=?, tldr=?, "
                     "status=?, track=?, area=?, keywords=?, links=?, bibtex=?, citations=?, "
                     "authors_ordered=?, forum_id=?, content_hash=? WHERE id = ?",
                     values + (paper_id,))
    else:
        kept = {}
        cur = conn.execute("INSERT INTO papers(venue, year, title, title_norm, abstract, tldr, "
                           "status, track, area, keywords, links, bibtex, citations, "
                           "authors_ordered, forum_id, content_hash, key) "
                           "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", values + (key,))
        paper_id = cur.lastrowid
    _write_children(conn, paper_id, paper, kept)


def _author_ids_by_slot(conn: sqlite3.Connection, paper_id: int) -> dict[tuple[int, str], int]:
    """Resolved people of a paper's slots, kept across an update while the name is unchanged."""
    return {(pos, fold): aid for pos, fold, aid in conn.execute(
        "SELECT position, name_fold, author_id FROM paper_authors "
        "WHERE paper_id = ? AND author_id IS NOT NULL", (paper_id,))}


def _delete_children(conn: sqlite3.Connection, paper_id: int) -> None:
    for table in _CHILD_TABLES:
        conn.execute(f"DELETE FROM {table} WHERE paper_id = ?", (paper_id,))


def _write_children(conn: sqlite3.Connection, paper_id: int, paper: Record,
                    kept: dict[tuple[int, str], int]) -> None:
    author_rows, aff_rows = [], []
    for pos, slot in enumerate(paper.authors):
        fold = fold_name(slot.name)
        author_rows.append((paper_id, pos, slot.name, fold, slot.profile_id,
                            slot.alias_profile_id, kept.get((pos, fold))))
        for seq, aff in enumerate(slot.affiliations):
            if aff.slug:
                conn.execute("INSERT OR IGNORE INTO institutions(slug, name, country) VALUES (?,?,?)",
                             (aff.slug, aff.name or institution_display(aff.slug), aff.country))
            aff_rows.append((paper_id, pos, seq, aff.raw, aff.slug or None))
    for seq, aff in enumerate(paper.paper_affiliations):
        # institutions given for the paper as a whole sit at position -1
        if aff.slug:
            conn.execute("INSERT OR IGNORE INTO institutions(slug, name, country) VALUES (?,?,?)",
                         (aff.slug, aff.name or institution_display(aff.slug), aff.country))
        aff_rows.append((paper_id, -1, seq, aff.raw, aff.slug or None))
    conn.executemany("INSERT INTO paper_authors(paper_id, position, name, name_fold, profile_id, "
                     "alias_profile_id, author_id) VALUES (?,?,?,?,?,?,?)", author_rows)
    conn.executemany("INSERT INTO paper_affiliations(paper_id, position, seq, raw, institution) "
                     "VALUES (?,?,?,?,?)", aff_rows)
    conn.executemany("INSERT OR IGNORE INTO keywords(paper_id, keyword) VALUES (?, ?)",
                     [(paper_id, kw) for kw in paper.keywords])


def match_title(conn: sqlite3.Connection, record: Record, notes: list[str]) -> str | None:
    """The key of the one paper of the same venue-year and title, for sources without ids."""
    rows = conn.execute("SELECT key FROM papers WHERE venue = ? AND year = ? AND title_norm = ? "
                        "ORDER BY key", (record.venue, record.year,
                                         normalize_title(record.title))).fetchall()
    if not rows:
        return None
    candidates = [(key, merge_records(load_records(conn, key))) for (key,) in rows]
    result = merge_policy.match_by_title(record, candidates)
    if isinstance(result, merge_policy.Ambiguous):
        notes.append(f"record {record.source_index} ('{record.title[:60]}'): not merged, {result}")
        return None
    return result
