"""Reading the store: the data behind every page and API route, and the streams indexes build from.

Every page and its JSON twin call the same function here, so the UI and the API cannot disagree.
"""

from __future__ import annotations

import json
import math
import sqlite3
from collections import Counter, defaultdict
from datetime import datetime
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Iterator

from paperfind.catalog.decisions import shown_status
from paperfind.catalog.venues import full_name
from paperfind.cards import best_first, fold_works, paper_card, standing
from paperfind.model import AuthorEntry, IndexDoc
from paperfind.store.reviews import card_reviews, distribution, review_details, reviews_of

_CARD_SQL = ("SELECT id, key, title, abstract, venue, year, status, track, area, citations, links, "
             "authors_ordered, work_id, keywords, tldr, bibtex, forum_id FROM papers")
# what a list of works (a person's, an institution's, a venue's) needs of each version
_LIST_SQL = "SELECT p.key, p.venue, p.year, p.status, p.track, p.citations, COALESCE(p.work_id, p.id)"
LIST_SORTS = ("date", "newest", "citations", "rating")
# stored statuses of no acceptance (paperfind.cards.standing 1 or 2, whatever the day: the
# derived "Decision not in the data" comes from the undecided ones), for SQL filters
_NOT_ACCEPTED = ("reject", "rejected", "desk reject", "desk rejected", "withdraw", "withdrawn",
                 "under review", "submitted", "pending", "active")


@dataclass(frozen=True)
class Listing:
    """Which page of a list of works, in which order, of which works.

    `sort` is "date" (or "newest": year, then key) or "citations": the papers' standing, the
    order of search's sort=citations (paperfind.search.pool.Pool.sort), which `standing` gives
    per key (the searcher's; without one, the citation count alone), or "rating": the mean
    review score, which `standing` gives then (`ReadMixin.ratings_of`; works without last). `accepted` keeps the works
    whose shown version was accepted (paperfind.cards.standing 0, by the status true today);
    `since` the works of that year on (what the list's feed holds, "new since")."""

    limit: int = 50
    offset: int = 0
    sort: str = "date"
    accepted: bool = False
    since: int | None = None
    standing: Callable[[list[str]], dict[str, float]] | None = None


# a year whose papers have affiliations in the data less often than this is "thin": an
# institution's fewer works there may be the data's gap, not a decline (ICLR 2020: 0 of 2,594)
THIN_AFFILIATIONS = 0.5
_COVERAGE_SQL = ("SELECT p.venue, p.year, COUNT(*), SUM(p.abstract != ''), "
                 "SUM(EXISTS(SELECT 1 FROM paper_authors pa WHERE pa.paper_id = p.id)), "
                 "SUM(EXISTS(SELECT 1 FROM paper_affiliations af WHERE af.paper_id = p.id)), "
                 "SUM(p.citations IS NOT NULL) FROM papers p GROUP BY p.venue, p.year")
COVERAGE_FIELDS = ("papers", "with_abstract", "with_authors", "with_affiliations", "with_citations")
BUSY_TIMEOUT_MS = 30_000  # how long a store's connection waits for a writer (paperfind.store.db)
COVERAGE_META = "coverage"  # the meta key the counts are stored under, with their data version


def coverage_of(counts: list[dict[str, int]]) -> dict[str, int]:
    """Venue-years' counts (`ReadMixin.coverage`) summed: papers, and how many have an abstract,
    authors and affiliations in the data."""
    return {name: sum(c[name] for c in counts) for name in COVERAGE_FIELDS[:4]}


def work_list(rows: list[tuple], listing: Listing) -> tuple[int, list[str], list[str]]:
    """(versions, every work's key newest first, the listed works' keys in order, before
    paging) of a list's `rows` (`_LIST_SQL` columns): one key per work, its best version's
    (paperfind.cards.best_first). Every work is what a page's charts and panels describe, the
    listed ones what `listing` filters and orders.

    A list counts works, and says how many versions they have: the product folds a paper's
    versions (a rejected ICLR submission and its later NeurIPS paper) into one work, and a
    person's page that said "46 papers" over a list of 43 told two numbers for one thing."""
    heads = [{"key": k, "year": y, "status": shown_status(v, y, s), "track": t,
              "citations": -1 if c is None else c} for k, v, y, s, t, c, _ in rows]
    heads.sort(key=lambda h: (-h["year"], h["key"]))
    shown = fold_works(heads, {r[0]: r[6] for r in rows})
    every = [h["key"] for h in shown]
    if listing.accepted:
        shown = [h for h in shown if standing(h["status"]) == 0]
    if listing.since is not None:
        shown = [h for h in shown if h["year"] >= listing.since]
    if listing.sort == "citations":
        score = listing.standing([h["key"] for h in shown]) if listing.standing else {}
        shown.sort(key=lambda h: (-score.get(h["key"], 0.0), -h["citations"]))  # stable: newest next
    elif listing.sort == "rating":
        score = listing.standing([h["key"] for h in shown]) if listing.standing else {}
        shown.sort(key=lambda h: -score.get(h["key"], -math.inf))  # stable: newest next
    return len(heads), every, [h["key"] for h in shown]


class ReadMixin:
    conn: sqlite3.Connection
    readonly: bool
    data_version: Callable[[], int]
    meta: Callable[..., str]
    set_meta: Callable[[str, str], None]

    # -- papers --------------------------------------------------------------------------

    def ratings_of(self, keys: list[str]) -> dict[str, float]:
        """The mean review score of each of `keys` that has scores (the lists' sort=rating)."""
        return {key: reviews.mean for key, reviews in reviews_of(self.conn, keys).items()}

    def paper_cards(self, keys: list[str]) -> list[dict[str, Any]]:
        """The cards of `keys` (paperfind.cards), in the order given (unknown keys are left
        out), each with its work's other versions best first."""
        return self._cards(self.paper_records(keys))

    def _cards(self, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        versions = self._versions_of(records)
        return [card_of(record, versions.get(record["work_id"], [])) for record in records]

    def paper_records(self, keys: list[str]) -> list[dict[str, Any]]:
        """Every stored field of the papers `keys`, in the order given (unknown keys are left
        out): what the paper page and the exports need beyond the card. Authors carry their
        affiliations on that paper; `work_id` is the paper's own id when it has no work."""
        if not keys:
            return []
        rows = {}
        for chunk in _chunks(keys, 500):
            marks = ",".join("?" * len(chunk))
            for row in self.conn.execute(f"{_CARD_SQL} WHERE key IN ({marks})", chunk):
                rows[row[1]] = row
        found = [rows[k] for k in keys if k in rows]
        people, paper_affs = self._authors_of([r[0] for r in found])
        venues = self.venue_names()
        scores = reviews_of(self.conn, [row[1] for row in found])
        return [{**_record(row, people.get(row[0], []), paper_affs.get(row[0], []), venues),
                 "reviews": review_details(scores.get(row[1]))} for row in found]

    def paper(self, key: str) -> dict[str, Any] | None:
        """Everything the paper page shows (its card's fields and the paper's own), or None."""
        records = self.paper_records([key])
        if not records:
            return None
        record = records[0]
        card = card_of(record, self._versions_of(records).get(record["work_id"], []))
        paper = {**record, **card, "authors": record["authors"]}  # authors with affiliations
        paper["sources"] = [{"path": p, "reader": r} for p, r in self.conn.execute(
            "SELECT DISTINCT s.path, s.reader FROM records r JOIN sources s ON s.id = r.source_id "
            "WHERE r.paper_key = ? ORDER BY s.path", (key,))]
        return paper

    def _versions_of(self, records: list[dict[str, Any]]) -> dict[int, list[dict[str, Any]]]:
        """Per work of `records`, the version entries of all its papers."""
        works = sorted({r["work_id"] for r in records})
        venues = self.venue_names()
        out: dict[int, list[dict[str, Any]]] = defaultdict(list)
        for chunk in _chunks(works, 400):
            marks = ",".join("?" * len(chunk))
            for key, venue, year, status, track, work in self.conn.execute(
                    f"SELECT key, venue, year, status, track, COALESCE(work_id, id) FROM papers "
                    f"WHERE work_id IN ({marks}) OR (work_id IS NULL AND id IN ({marks})) "
                    f"ORDER BY key", chunk + chunk):
                out[work].append({"key": key, "venue": venue, "venue_name": venues.get(venue, venue),
                                  "year": year, "status": shown_status(venue, year, status),
                                  "track": track})
        return out

    def works_of(self, keys: list[str]) -> dict[str, int]:
        """The work of each known key (papers of one work are versions of each other)."""
        out: dict[str, int] = {}
        for chunk in _chunks(keys, 500):
            marks = ",".join("?" * len(chunk))
            out.update(self.conn.execute(f"SELECT key, COALESCE(work_id, id) FROM papers "
                                         f"WHERE key IN ({marks})", chunk))
        return out

    def _authors_of(self, paper_ids: list[int]) -> tuple[dict[int, list[dict[str, Any]]],
                                                         dict[int, list[dict[str, str]]]]:
        """Per paper, its authors in order with their institutions on that paper, and the
        institutions a source gave for the paper as a whole."""
        result: dict[int, list[dict[str, Any]]] = defaultdict(list)
        affs: dict[tuple[int, int], list[dict[str, str]]] = defaultdict(list)
        for chunk in _chunks(paper_ids, 500):
            marks = ",".join("?" * len(chunk))
            for pid, pos, raw, slug, name in self.conn.execute(
                    f"SELECT pa.paper_id, pa.position, pa.raw, pa.institution, i.name "
                    f"FROM paper_affiliations pa LEFT JOIN institutions i ON i.slug = pa.institution "
                    f"WHERE pa.paper_id IN ({marks}) ORDER BY pa.paper_id, pa.position, pa.seq",
                    chunk):
                affs[(pid, pos)].append({"raw": raw, "slug": slug or "", "name": name or raw})
            for pid, pos, name, slug in self.conn.execute(
                    f"SELECT pa.paper_id, pa.position, pa.name, a.slug FROM paper_authors pa "
                    f"LEFT JOIN authors a ON a.id = pa.author_id WHERE pa.paper_id IN ({marks}) "
                    f"ORDER BY pa.paper_id, pa.position", chunk):
                result[pid].append({"id": slug or "", "name": name,
                                    "affiliations": affs.get((pid, pos), [])})
        whole = {pid: affs[(pid, -1)] for pid in paper_ids if (pid, -1) in affs}
        return result, whole

    def coverage(self) -> dict[tuple[str, int], dict[str, int]]:
        """Per venue-year: papers, and how many have an abstract, authors, affiliations and a
        citation count in the data. A page without a source for something says so (a
        venue-year's line, an institution's thin years, /stats).

        Counted with the index build (`store_coverage`) and read from the store: counting is a
        pass over every paper (0.6-1 s for the bundled corpus), which the first venue page of
        each connection paid after every data change. A store whose counts are missing or older
        than its data (built before they were stored) counts once and stores them."""
        version = self.data_version()
        memo = getattr(self, "_coverage", None)
        if memo is not None and memo[0] == version:
            return memo[1]
        counts = _stored_coverage(self.meta(COVERAGE_META), version)
        if counts is None:
            counts = self.store_coverage(wait=False)
        self._coverage = (version, counts)
        return counts

    def store_coverage(self, wait: bool = True) -> dict[tuple[str, int], dict[str, int]]:
        """Count `coverage` now and store it with the data version it counts (a read-only
        store only counts). Without `wait` it is not stored while a writer holds the database:
        a page request does not queue behind an ingest for its lock."""
        version = self.data_version()
        rows = [[v, y, *(int(x or 0) for x in rest)] for v, y, *rest in self.conn.execute(_COVERAGE_SQL)]
        if not self.readonly:
            if not wait:
                self.conn.execute("PRAGMA busy_timeout=0")
            try:
                self.set_meta(COVERAGE_META, json.dumps({"data_version": version, "rows": rows}))
            except sqlite3.OperationalError:  # locked by a writer: the next reader counts again
                pass
            finally:
                if not wait:
                    self.conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        return _coverage_by_venue_year(rows)

    def thin_affiliation_years(self, years: list[int]) -> list[int]:
        """Those of `years` in which under THIN_AFFILIATIONS of the corpus's papers have an
        affiliation in the data."""
        per_year: dict[int, list[dict[str, int]]] = defaultdict(list)
        for (_, year), counts in self.coverage().items():
            per_year[year].append(counts)
        thin = {y for y, rows in per_year.items()
                if (c := coverage_of(rows))["with_affiliations"] < THIN_AFFILIATIONS * c["papers"]}
        return [y for y in years if y in thin]

    def venue_names(self) -> dict[str, str]:
        return dict(self.conn.execute("SELECT slug, name FROM venues"))

    def institution_names(self) -> dict[str, str]:
        """Display names by slug, so `inst:` matches "Peking University" as well as `pku`."""
        return dict(self.conn.execute("SELECT slug, name FROM institutions"))

    def facet_names(self, venues: Iterable[str] | None = None,
                    institutions: Iterable[str] | None = None) -> tuple[dict[str, str], dict[str, str]]:
        """(venue names, institution names) by slug, from a memo of this connection: a search's
        facets and trend name their venues and institutions on every request, and the two
        queries were ~0.12 ms of the HTTP layer's ~1 ms (issue 33). Both tables only grow and a
        name is never rewritten (written with the papers, `INSERT OR IGNORE`), so a name in the
        memo is the stored one: the memo is checked against the data version (a query, 20-50 µs
        in a served request after its search: issue 33, http33) only when a slug of `venues` or
        `institutions` (those the caller will name) is missing from it, and re-read when that
        version has moved. The slugs may be any iterable, read lazily and at most once (a
        search's answer passes generators over its facets: building their sets was ~15 µs of a
        request, web35). Without slugs (both None), it is checked on every call."""
        memo = getattr(self, "_facet_names", None)
        if memo is not None and (venues is not None or institutions is not None) \
                and all(v in memo[1] for v in venues or ()) and all(i in memo[2] for i in institutions or ()):
            return memo[1], memo[2]
        version = self.data_version()
        if memo is None or memo[0] != version:
            memo = self._facet_names = (version, self.venue_names(), self.institution_names())
        return memo[1], memo[2]

    def institution_names_of(self, slugs: list[str]) -> dict[str, str]:
        """Display names of these institutions, in one query (a page's facet names 20)."""
        slugs = list(dict.fromkeys(slugs))[:500]  # within SQLite's bound parameters
        if not slugs:
            return {}
        marks = ",".join("?" * len(slugs))
        return dict(self.conn.execute(f"SELECT slug, name FROM institutions WHERE slug IN ({marks})", slugs))

    def institution_name(self, slug: str) -> str | None:
        """One institution's display name (a page names the few on its cards, not all)."""
        row = self.conn.execute("SELECT name FROM institutions WHERE slug = ?", (slug,)).fetchone()
        return row[0] if row else None

    # -- people --------------------------------------------------------------------------

    def author_slugs(self) -> dict[int, str]:
        """Every person's public slug by number."""
        return dict(self.conn.execute("SELECT id, slug FROM authors"))

    def author_slug(self, number: int) -> str | None:
        """The public id (slug) of the person whose internal number is `number`, or None:
        links that once carried the number are sent on to the slug."""
        row = self.conn.execute("SELECT slug FROM authors WHERE id = ?", (number,)).fetchone()
        return row[0] if row else None

    def people_institutions(self, author_ids: list[int], before: int | None = None
                            ) -> dict[int, list[str]]:
        """Each person's institutions (slugs) as their papers name them, latest first (by the
        last year each was named, then how often); only papers before `before` when given,
        so a list of experts "as of" a year does not show where they went later."""
        out: dict[int, list[str]] = {}
        for chunk in _chunks(list(dict.fromkeys(author_ids)), 400):
            marks = ",".join("?" * len(chunk))
            rows = self.conn.execute(
                "SELECT pa.author_id, af.institution, MAX(p.year) AS last, COUNT(*) AS n "
                "FROM paper_authors pa JOIN paper_affiliations af ON af.paper_id = pa.paper_id "
                "AND af.position = pa.position JOIN papers p ON p.id = pa.paper_id "
                f"WHERE pa.author_id IN ({marks}) AND af.institution IS NOT NULL AND p.year < ? "
                "GROUP BY pa.author_id, af.institution", [*chunk, before if before is not None else 10_000])
            for aid, slug, last, n in sorted(rows, key=lambda r: (r[0], -r[2], -r[3], r[1])):
                out.setdefault(aid, []).append(slug)
        return out

    def author(self, slug: str, listing: Listing = Listing()) -> dict[str, Any] | None:
        """The author page: who, a page of their works (each by its best version; `listing`),
        co-authors, institutions by year, and the counts of the whole list."""
        row = self.conn.execute("SELECT id, slug, name, profile_id, paper_count FROM authors "
                                "WHERE slug = ?", (slug,)).fetchone()
        if row is None:
            return None
        author_id = row[0]
        aliases = [a for (a,) in self.conn.execute(
            "SELECT alias FROM author_aliases WHERE author_id = ? ORDER BY alias", (author_id,))]
        rows = self.conn.execute(f"{_LIST_SQL} FROM paper_authors pa JOIN papers p "
                                 f"ON p.id = pa.paper_id WHERE pa.author_id = ?", (author_id,)).fetchall()
        versions, every, listed = work_list(rows, listing)  # charts and panels: every work
        works = len(every)
        records = self.paper_records([r[0] for r in sorted(rows, key=lambda r: (-r[2], r[0]))])
        by_key = {r["key"]: r for r in records}
        page = listed[listing.offset:listing.offset + listing.limit]
        papers = self._cards([by_key[k] for k in page])
        coauthors: Counter[tuple[str, str]] = Counter()
        per_year: Counter[int] = Counter()
        venues: Counter[str] = Counter()
        inst_years: dict[str, set[int]] = defaultdict(set)
        inst_names: dict[str, str] = {}
        for record in records:  # where they were, from every version's affiliations
            for person in record["authors"]:
                if person["id"] == slug:
                    for aff in person["affiliations"]:
                        if aff["slug"]:
                            inst_years[aff["slug"]].add(record["year"])
                            inst_names[aff["slug"]] = aff["name"]
        for key in every:
            paper = by_key[key]
            per_year[paper["year"]] += 1
            venues[paper["venue_name"]] += 1
            for person in paper["authors"]:
                if person["id"] and person["id"] != slug:
                    coauthors[(person["id"], person["name"])] += 1
        return {
            "id": row[1], "name": row[2], "profile_id": row[3], "paper_count": versions,
            "versions": versions, "works": works, "total": len(listed),
            "aliases": aliases, "papers": papers,
            "coauthors": [{"id": s, "name": n, "papers": c} for (s, n), c in
                          sorted(coauthors.items(), key=lambda kv: (-kv[1], kv[0][1]))[:30]],
            "institutions": [{"slug": s, "name": inst_names[s], "first_year": min(ys),
                              "last_year": max(ys)} for s, ys in
                             sorted(inst_years.items(), key=lambda kv: (-max(kv[1]), kv[0]))],
            "venues": [{"name": v, "papers": c} for v, c in venues.most_common()],
            "per_year": sorted(per_year.items()),
        }

    # -- institutions, venues, areas -------------------------------------------------------

    def institution(self, slug: str, listing: Listing = Listing()) -> dict[str, Any] | None:
        row = self.conn.execute("SELECT slug, name, country FROM institutions WHERE slug = ?",
                                (slug,)).fetchone()
        if row is None:
            return None
        rows = self.conn.execute(
            f"{_LIST_SQL} FROM papers p WHERE p.id IN (SELECT paper_id FROM paper_affiliations "
            f"WHERE institution = ?)", (slug,)).fetchall()
        versions, every, listed = work_list(rows, listing)
        works = len(every)
        year_of = {r[0]: r[2] for r in rows}
        per_year = sorted(Counter(year_of[k] for k in every).items())
        top = self.conn.execute(
            "SELECT a.slug, a.name, COUNT(DISTINCT pa.paper_id) AS n FROM paper_affiliations af "
            "JOIN paper_authors pa ON pa.paper_id = af.paper_id AND pa.position = af.position "
            "JOIN authors a ON a.id = pa.author_id WHERE af.institution = ? "
            "GROUP BY a.id ORDER BY n DESC, a.name LIMIT 20", (slug,)).fetchall()
        thin = self.thin_affiliation_years([y for y, _ in per_year])
        return {"slug": row[0], "name": row[1], "country": row[2], "paper_count": works,
                "thin_affiliation_years": thin,
                "versions": versions, "works": works, "total": len(listed),
                "papers": self.paper_cards(listed[listing.offset:listing.offset + listing.limit]),
                "per_year": [tuple(r) for r in per_year],
                "top_authors": [{"id": s, "name": n, "papers": c} for s, n, c in top]}

    def papers_where(self, where: str, params: tuple, limit: int, offset: int) -> tuple[int, list]:
        total = self.conn.execute(f"SELECT COUNT(*) FROM papers WHERE {where}", params).fetchone()[0]
        keys = [k for (k,) in self.conn.execute(
            f"SELECT key FROM papers WHERE {where} ORDER BY year DESC, key LIMIT ? OFFSET ?",
            params + (limit, offset))]
        return total, self.paper_cards(keys)

    def venue(self, slug: str, year: int | None = None,
              listing: Listing = Listing()) -> dict[str, Any] | None:
        """A venue (or one of its years) and a page of its papers. Every version is a paper of
        the venue it was submitted to (an ICLR 2023 rejection and its ICLR 2024 acceptance are
        two), so the list is of versions, and the counts say of how many works."""
        row = self.conn.execute("SELECT slug, name FROM venues WHERE slug = ?", (slug,)).fetchone()
        if row is None:
            return None
        years = self.conn.execute("SELECT year, COUNT(*) FROM papers WHERE venue = ? "
                                  "GROUP BY year ORDER BY year", (slug,)).fetchall()
        where, params = ("venue = ? AND year = ?", (slug, year)) if year else ("venue = ?", (slug,))
        versions, works = self.conn.execute(f"SELECT COUNT(*), COUNT(DISTINCT COALESCE(work_id, id)) "
                                            f"FROM papers WHERE {where}", params).fetchone()
        if listing.accepted:
            marks = ",".join("?" * len(_NOT_ACCEPTED))
            where, params = f"{where} AND lower(status) NOT IN ({marks})", params + _NOT_ACCEPTED
        total = self.conn.execute(f"SELECT COUNT(*) FROM papers WHERE {where}", params).fetchone()[0]
        if listing.sort in ("citations", "rating"):
            rows = self.conn.execute(f"SELECT key, year, COALESCE(citations, -1) FROM papers "
                                     f"WHERE {where} ORDER BY year DESC, key", params).fetchall()
            score = listing.standing([k for k, _, _ in rows]) if listing.standing else {}
            if listing.sort == "rating":  # the highest mean first, papers without scores last
                rows.sort(key=lambda r: -score.get(r[0], -math.inf))
            else:
                rows.sort(key=lambda r: (-score.get(r[0], 0.0), -r[2]))
            keys = [k for k, _, _ in rows[listing.offset:listing.offset + listing.limit]]
        else:
            keys = [k for (k,) in self.conn.execute(
                f"SELECT key FROM papers WHERE {where} ORDER BY year DESC, key LIMIT ? OFFSET ?",
                params + (listing.limit, listing.offset))]
        return {"slug": row[0], "name": row[1], "full_name": full_name(row[0]),
                "full_name_zh": full_name(row[0], "zh"), "year": year, "years": [tuple(y) for y in years],
                "versions": versions, "works": works, "total": total,
                "coverage": coverage_of([c for (v, y), c in self.coverage().items()
                                         if v == slug and (year is None or y == year)]),
                "papers": self.paper_cards(keys),
                "ratings": distribution(self.conn, slug, year) if year else None}

    def area(self, name: str, limit: int = 50, offset: int = 0) -> dict[str, Any] | None:
        total, papers = self.papers_where("area = ?", (name,), limit, offset)
        if not total:
            return None
        per_year = self.conn.execute("SELECT year, COUNT(*) FROM papers WHERE area = ? "
                                     "GROUP BY year ORDER BY year", (name,)).fetchall()
        return {"name": name, "total": total, "papers": papers,
                "per_year": [list(y) for y in per_year]}

    # -- statistics and streams ------------------------------------------------------------

    def last_ingested(self) -> "datetime | None":
        """When papers were last written (the newest source file's ingest, to the second; a
        file ingested unchanged is skipped and keeps its time), or None for an empty store."""
        row = self.conn.execute("SELECT MAX(ingested_at) FROM sources").fetchone()
        return datetime.fromisoformat(row[0]) if row and row[0] else None

    def stats(self) -> dict[str, Any]:
        one = lambda sql: self.conn.execute(sql).fetchone()[0]  # noqa: E731
        names = self.venue_names()
        return {
            "papers": one("SELECT COUNT(*) FROM papers"),
            "works": one("SELECT COUNT(DISTINCT COALESCE(work_id, id)) FROM papers"),
            "authors": one("SELECT COUNT(*) FROM authors"),
            "institutions": one("SELECT COUNT(*) FROM institutions"),
            "venues": one("SELECT COUNT(*) FROM venues"),
            "records": one("SELECT COUNT(*) FROM records"),
            "sources": one("SELECT COUNT(*) FROM sources"),
            "venue_years": [{"venue": v, "venue_name": names[v], "year": y, **counts}
                            for (v, y), counts in sorted(self.coverage().items()) if v in names],
        }

    def iter_index_docs(self) -> Iterator[IndexDoc]:
        """Every paper as the index builder wants it, in key order."""
        authors: dict[int, list[tuple[str, int]]] = defaultdict(list)
        for pid, name, aid in self.conn.execute(
                "SELECT paper_id, name, COALESCE(author_id, 0) FROM paper_authors "
                "ORDER BY paper_id, position"):
            authors[pid].append((name, aid))
        insts: dict[int, list[str]] = defaultdict(list)
        for pid, slug in self.conn.execute(
                "SELECT paper_id, institution FROM paper_affiliations WHERE institution IS NOT NULL "
                "ORDER BY paper_id, position < 0, position, seq"):  # as on its card: authors' first
            if slug not in insts[pid]:
                insts[pid].append(slug)
        venues = self.venue_names()
        scores = reviews_of(self.conn)
        for (pid, key, title, abstract, venue, year, status, track, area, citations, links,
             _ordered, work_id, keywords, *_rest) in self.conn.execute(f"{_CARD_SQL} ORDER BY key"):
            names = authors.get(pid, [])
            yield IndexDoc(key=key, title=title, abstract=abstract, authors=[n for n, _ in names],
                           author_ids=[a for _, a in names], keywords=json.loads(keywords),
                           venue=venue, venue_name=venues.get(venue, venue), year=year,
                           status=shown_status(venue, year, status), source_status=status,
                           area=area, institutions=insts.get(pid, []),
                           citations=citations, work_id=work_id or pid, track=track,
                           links=json.loads(links), reviews=card_reviews(scores.get(key)))

    def iter_author_entries(self) -> Iterator[AuthorEntry]:
        """Every resolved person with what author cards and name lookups need."""
        aliases: dict[int, list[str]] = defaultdict(list)
        for aid, alias in self.conn.execute("SELECT author_id, alias FROM author_aliases "
                                            "ORDER BY author_id, alias"):
            aliases[aid].append(alias)
        insts: dict[int, Counter[str]] = defaultdict(Counter)
        for aid, slug in self.conn.execute(
                "SELECT pa.author_id, af.institution FROM paper_affiliations af JOIN paper_authors pa "
                "ON pa.paper_id = af.paper_id AND pa.position = af.position "
                "WHERE af.institution IS NOT NULL AND pa.author_id IS NOT NULL"):
            insts[aid][slug] += 1
        # each person's first and last year, joined here: SQLite's join looked every slot's
        # paper up in the papers table (abstracts and all: 1.4-1.9 s of a first start's index)
        year_of, work_of = {}, {}
        for pid, year, work in self.conn.execute("SELECT id, year, COALESCE(work_id, id) FROM papers"):
            year_of[pid], work_of[pid] = year, work
        years: dict[int, tuple[int, int]] = {}
        works: dict[int, set[int]] = defaultdict(set)
        for pid, aid in self.conn.execute(
                "SELECT paper_id, author_id FROM paper_authors WHERE author_id IS NOT NULL"):
            year = year_of.get(pid)
            if year is None:
                continue
            works[aid].add(work_of[pid])
            span = years.get(aid)
            if span is None:
                years[aid] = (year, year)
            elif year < span[0] or year > span[1]:
                years[aid] = (min(span[0], year), max(span[1], year))
        for aid, slug, name, count in self.conn.execute(
                "SELECT id, slug, name, paper_count FROM authors ORDER BY id"):
            ranked = sorted(insts.get(aid, Counter()).items(), key=lambda kv: (-kv[1], kv[0]))
            yield AuthorEntry(id=aid, slug=slug, name=name, aliases=aliases.get(aid, []),
                              paper_count=count, work_count=len(works.get(aid, ())) or count,
                              institutions=[s for s, _ in ranked[:5]],
                              years=years.get(aid, (0, 0)))


def _record(row: tuple, authors: list[dict[str, Any]], paper_affs: list[dict[str, str]],
            venues: dict[str, str]) -> dict[str, Any]:
    (pid, key, title, abstract, venue, year, status, track, area, citations, links, ordered,
     work_id, keywords, tldr, bibtex, forum_id) = row
    institutions: list[str] = []
    for aff in [a for person in authors for a in person["affiliations"]] + paper_affs:
        if aff["slug"] and aff["slug"] not in institutions:
            institutions.append(aff["slug"])
    return {"key": key, "title": title, "abstract": abstract, "tldr": tldr,
            "authors": authors, "authors_ordered": bool(ordered), "institutions": institutions,
            "paper_affiliations": paper_affs,
            "venue": venue, "venue_name": venues.get(venue, venue), "year": year,
            "status": shown_status(venue, year, status), "source_status": status,
            "track": track, "area": area, "citations": citations,
            "links": json.loads(links), "keywords": json.loads(keywords), "bibtex": bibtex,
            "forum_id": forum_id, "work_id": work_id or pid}


def card_of(record: dict[str, Any], work_versions: list[dict[str, Any]]) -> dict[str, Any]:
    """The card of a stored paper, given the version entries of every paper of its work."""
    others = best_first(v for v in work_versions if v["key"] != record["key"])
    return paper_card(key=record["key"], title=record["title"],
                      authors=[(a["id"], a["name"]) for a in record["authors"]],
                      institutions=record["institutions"], venue=record["venue"],
                      venue_name=record["venue_name"], year=record["year"],
                      status=record["status"], source_status=record["source_status"],
                      track=record["track"], area=record["area"],
                      citations=record["citations"], links=record["links"], versions=others,
                      abstract=record["abstract"], reviews=record.get("reviews"))


def _stored_coverage(text: str, version: int) -> dict[tuple[str, int], dict[str, int]] | None:
    """The counts `store_coverage` stored, if they count this data version."""
    try:
        stored = json.loads(text) if text else None
    except ValueError:
        return None
    if not isinstance(stored, dict) or stored.get("data_version") != version:
        return None
    return _coverage_by_venue_year(stored["rows"])


def _coverage_by_venue_year(rows: list[list]) -> dict[tuple[str, int], dict[str, int]]:
    return {(v, y): dict(zip(COVERAGE_FIELDS, rest)) for v, y, *rest in rows}


def _chunks(items: list, size: int) -> Iterator[list]:
    for i in range(0, len(items), size):
        yield items[i:i + size]
