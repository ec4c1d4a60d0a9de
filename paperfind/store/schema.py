"""The database schema, as an ordered list of migrations recorded in the database itself.

A migration is never edited once released: a change to the schema is a new entry at the end,
so an old database file is brought up to date by running the entries it has not seen.
"""

from __future__ import annotations

import sqlite3
from datetime import datetime, timezone

from paperfind.store.transaction import immediate

MIGRATIONS: list[tuple[str, str]] = [
    ("0001_initial", """
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE sources (
        id INTEGER PRIMARY KEY,
        path TEXT NOT NULL UNIQUE,
        sha256 TEXT NOT NULL,
        size INTEGER NOT NULL,
        reader TEXT NOT NULL,
        records INTEGER NOT NULL,
        skipped INTEGER NOT NULL,
        ingested_at TEXT NOT NULL
    );
    -- One row per record of a source file: the record as that source gave it, normalised.
    CREATE TABLE records (
        id INTEGER PRIMARY KEY,
        source_id INTEGER NOT NULL REFERENCES sources(id),
        ident TEXT NOT NULL,
        paper_key TEXT NOT NULL,
        priority INTEGER NOT NULL,
        content_hash TEXT NOT NULL,
        data TEXT NOT NULL,
        UNIQUE (source_id, ident)
    );
    CREATE INDEX records_paper ON records(paper_key);
    CREATE TABLE venues (slug TEXT PRIMARY KEY, name TEXT NOT NULL);
    -- The paper as its records merged describe it, derived from `records`.
    CREATE TABLE papers (
        id INTEGER PRIMARY KEY,
        key TEXT NOT NULL UNIQUE,
        venue TEXT NOT NULL REFERENCES venues(slug),
        year INTEGER NOT NULL,
        title TEXT NOT NULL,
        title_norm TEXT NOT NULL,
        abstract TEXT NOT NULL,
        tldr TEXT NOT NULL,
        status TEXT NOT NULL,
        track TEXT NOT NULL,
        area TEXT NOT NULL,
        keywords TEXT NOT NULL,
        links TEXT NOT NULL,
        bibtex TEXT NOT NULL,
        citations INTEGER,
        authors_ordered INTEGER NOT NULL,
        forum_id TEXT NOT NULL,
        work_id INTEGER,
        content_hash TEXT NOT NULL
    );
    CREATE INDEX papers_venue_year ON papers(venue, year);
    CREATE INDEX papers_title_norm ON papers(title_norm);
    CREATE INDEX papers_work ON papers(work_id);
    CREATE TABLE institutions (slug TEXT PRIMARY KEY, name TEXT NOT NULL, country TEXT NOT NULL);
    CREATE TABLE authors (
        id INTEGER PRIMARY KEY,
        slug TEXT NOT NULL UNIQUE,
        name TEXT NOT NULL,
        name_fold TEXT NOT NULL,
        profile_id TEXT NOT NULL,
        paper_count INTEGER NOT NULL
    );
    CREATE INDEX authors_name_fold ON authors(name_fold);
    CREATE TABLE author_aliases (
        author_id INTEGER NOT NULL REFERENCES authors(id),
        alias TEXT NOT NULL,
        PRIMARY KEY (author_id, alias)
    );
    CREATE TABLE paper_authors (
        paper_id INTEGER NOT NULL REFERENCES papers(id),
        position INTEGER NOT NULL,
        name TEXT NOT NULL,
        name_fold TEXT NOT NULL,
        profile_id TEXT NOT NULL,
        alias_profile_id TEXT NOT NULL,
        author_id INTEGER REFERENCES authors(id),
        PRIMARY KEY (paper_id, position)
    );
    CREATE INDEX paper_authors_author ON paper_authors(author_id);
    CREATE INDEX paper_authors_fold ON paper_authors(name_fold);
    CREATE TABLE paper_affiliations (
        paper_id INTEGER NOT NULL REFERENCES papers(id),
        position INTEGER NOT NULL,
        seq INTEGER NOT NULL,
        raw TEXT NOT NULL,
        institution TEXT REFERENCES institutions(slug),
        PRIMARY KEY (paper_id, position, seq)
    );
    CREATE INDEX paper_affiliations_inst ON paper_affiliations(institution);
    CREATE TABLE keywords (
        paper_id INTEGER NOT NULL REFERENCES papers(id),
        keyword TEXT NOT NULL,
        PRIMARY KEY (paper_id, keyword)
    );
    CREATE INDEX keywords_keyword ON keywords(keyword);
    """),
    # title-only sources look papers up by venue, year and title: without this the planner
    # took the (venue, year) index and scanned a whole venue-year per record
    ("0002_title_lookup", """
    CREATE INDEX papers_venue_year_title ON papers(venue, year, title_norm);
    """),
    # review scores (paperfind.store.reviews): a paper's merged records' (origin 'records')
    # and the bundled corpus's side file's ('bundled'), keyed by paper key, since the bundled
    # rows are written before and apart from the papers; ratings and confidences as JSON lists
    ("0003_reviews", """
    CREATE TABLE reviews (
        paper_key TEXT NOT NULL,
        origin TEXT NOT NULL,
        mean REAL NOT NULL,
        count INTEGER NOT NULL,
        ratings TEXT NOT NULL,
        confidences TEXT NOT NULL,
        decision TEXT NOT NULL,
        scale TEXT NOT NULL,
        initial INTEGER NOT NULL,
        PRIMARY KEY (paper_key, origin)
    ) WITHOUT ROWID;
    """),
]


def migrate(conn: sqlite3.Connection) -> list[str]:
    """Apply the migrations this database has not seen; returns their names."""
    conn.execute("CREATE TABLE IF NOT EXISTS migrations ("
                 "id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, applied_at TEXT NOT NULL)")
    done = {row[0] for row in conn.execute("SELECT name FROM migrations")}
    applied = []
    for name, sql in MIGRATIONS:
        if name in done:
            continue
        with immediate(conn):
            for statement in sql.split(";"):
                if statement.strip():
                    conn.execute(statement)
            conn.execute("INSERT INTO migrations(name, applied_at) VALUES (?, ?)",
                         (name, datetime.now(timezone.utc).isoformat(timespec="seconds")))
        applied.append(name)
    return applied
