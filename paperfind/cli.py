"""The `paperfind` command: a thin shell over `Paperfind`. Parse, call one method, print.

Known errors become one line on stderr and exit code 1 or 2; a traceback means a bug.
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
from pathlib import Path

# Before anything imports numpy: no transparent huge pages for numpy's large arrays (numpy asks
# for them with madvise from 4 MB). Where the host backs a VM's memory lazily, as on this
# project's 2-core machine, a huge-page fault cost ~15 ms a MB against ~0.4 ms for 4 KB pages
# (bench/RESULTS.md, issue 13), most of a first start's system time; the build's arrays are written
# once and the index is memory-mapped, so little is lost elsewhere. NUMPY_MADVISE_HUGEPAGE=1 in
# the environment keeps numpy's default.
os.environ.setdefault("NUMPY_MADVISE_HUGEPAGE", "0")

import click  # noqa: E402 (after the line above)

from paperfind.core import Paperfind  # noqa: E402
from paperfind.limits import MAX_MIN_WORKS, MAX_OFFSET, MAX_PAGE_SIZE  # noqa: E402
from paperfind.search.aspects import ASPECTS as ASPECT_CHOICES  # noqa: E402
from paperfind.search.settings import ExpertSettings  # noqa: E402
from paperfind.settings import Settings, env_help  # noqa: E402

DB_OPTION = click.option("--db", "db_path", type=click.Path(dir_okay=False, path_type=Path),
                         default=None, help="Database file (default ./paperfind.db, or $PAPERFIND_DB).")


def _app(db_path: Path | None, **overrides: object) -> Paperfind:
    try:
        return Paperfind(Settings.from_env(db_path=db_path, **overrides))
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None


def _reading(app: Paperfind) -> Paperfind:
    """The app of a command that reads a database: says which one on stderr, and refuses one
    that is not there instead of building it. Only `serve` (from the bundled corpus) and
    `ingest` build one: a search in another folder built a 1 GB database there, unasked."""
    db = app.settings.db_path.absolute()
    click.echo(f"paperfind: database {db}", err=True)
    if not db.is_file() or not _has_papers(app):
        raise click.ClickException(
            f"no database at {db}. `paperfind serve` builds one from the bundled corpus, "
            "`paperfind ingest FILES` from your files; --db or PAPERFIND_DB names another")
    return app


def _has_papers(app: Paperfind) -> bool:
    try:
        return app.store().paper_count() > 0
    except sqlite3.DatabaseError:  # not a paperfind database (another SQLite file, or not SQLite)
        return False


@click.group(context_settings={"help_option_names": ["-h", "--help"]},
             epilog="Environment (a flag, where there is one, wins over its variable):\n\n\b\n"
                    + env_help())
@click.version_option(package_name="paperfind")
def main() -> None:
    """paperfind: search academic papers by title, author, keyword or question (中文 / English)."""


@main.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@DB_OPTION
@click.option("--force", is_flag=True, help="Re-read files even when they are unchanged.")
@click.option("--no-index", is_flag=True, help="Do not rebuild the search index afterwards.")
@click.option("--jobs", type=click.IntRange(1, 64), default=None,
              help="Processes: one writes, the others read files ahead (default 2 on 2+ cores, "
                   "or $PAPERFIND_INGEST_JOBS; 1 reads and writes in one process).")
@click.option("--index-jobs", type=click.IntRange(1, 64), default=None,
              help="Processes of the index rebuilt afterwards, as `paperfind index --jobs` "
                   "(default 2 on 2+ cores, or $PAPERFIND_INDEX_JOBS).")
def ingest(paths: tuple[Path, ...], db_path: Path | None, force: bool, no_index: bool,
           jobs: int | None, index_jobs: int | None) -> None:
    """Ingest paper lists (.json/.json.gz paperlists, .jsonl exports, known sources).

    Example: paperfind ingest ../shared/data/paperlists/iclr
    """
    app = _app(db_path, ingest_jobs=jobs, index_jobs=index_jobs)
    report = app.ingest(list(paths), force=force, build_index=not no_index)
    for failure in report.failed:
        click.echo(f"error: {failure}", err=True)
    skipped = report.skipped
    for bad in skipped[:20]:
        click.echo(f"skipped: {bad}", err=True)
    if len(skipped) > 20:
        click.echo(f"skipped: ... and {len(skipped) - 20} more records", err=True)
    for source in report.sources:
        for note in source.notes:
            click.echo(f"note: {source.path}: {note}", err=True)
    stats = app.store().stats()
    added = sum(s.added for s in report.sources)
    updated = sum(s.updated for s in report.sources)
    click.echo(f"files: {report.files} read, {report.unchanged_files} unchanged, "
               f"{len(report.failed)} failed; records: {added} added, {updated} updated, "
               f"{len(skipped)} skipped")
    click.echo(f"database: {stats['papers']} papers, {stats['works']} works, "
               f"{stats['authors']} authors, {stats['institutions']} institutions, "
               f"{stats['venues']} venues")
    if report.failed:
        sys.exit(1)


@main.command()
@DB_OPTION
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def stats(db_path: Path | None, as_json: bool) -> None:
    """Counts of papers, authors, institutions, and papers per venue and year."""
    app = _reading(_app(db_path))
    data = app.store().stats()
    if as_json:
        click.echo(json.dumps(data, indent=2, ensure_ascii=False))
        return
    click.echo(f"papers {data['papers']}  works {data['works']}  authors {data['authors']}  "
               f"institutions {data['institutions']}  venues {data['venues']}")
    click.echo(f"{'venue':<10}{'year':>6}{'papers':>8}{'abstract':>10}{'authors':>9}{'affil.':>8}"
               f"{'cited':>7}")
    for row in data["venue_years"]:
        click.echo(f"{row['venue_name']:<10}{row['year']:>6}{row['papers']:>8}"
                   f"{row['with_abstract']:>10}{row['with_authors']:>9}{row['with_affiliations']:>8}"
                   f"{row['with_citations']:>7}")


@main.command()
@DB_OPTION
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Output file (.jsonl or .jsonl.gz); standard output when omitted.")
@click.option("--venue", "venues", multiple=True, help="Only these venues (repeatable).")
@click.option("--min-year", type=int, default=None)
@click.option("--max-year", type=int, default=None)
@click.option("--shards", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Write one .jsonl.gz file per venue-year into this folder instead "
                   "(unchanged files are left as they are).")
def export(db_path: Path | None, output: Path | None, venues: tuple[str, ...],
           min_year: int | None, max_year: int | None, shards: Path | None) -> None:
    """Export papers as paperfind JSON Lines, which `paperfind ingest` reads back.

    Example: paperfind export --venue iclr --min-year 2017 -o iclr.jsonl.gz
    """
    from paperfind.store.export import iter_export, write_export, write_shards

    app = _reading(_app(db_path))
    if shards is not None:
        if output or venues or min_year is not None or max_year is not None:
            raise click.UsageError("--shards exports every venue-year: it takes no -o, --venue or years")
        counts, written = write_shards(app.store().conn, shards)
        click.echo(f"exported {sum(counts.values())} papers in {len(counts)} shards to {shards} "
                   f"({len(written)} written or removed, the others unchanged)", err=True)
        return
    records = iter_export(app.store().conn, list(venues) or None, min_year, max_year)
    count = write_export(records, output if output else sys.stdout)
    click.echo(f"exported {count} papers", err=True)


@main.command()
@click.argument("query")
@DB_OPTION
@click.option("--limit", type=click.IntRange(1, MAX_PAGE_SIZE), default=10, show_default=True)
@click.option("--offset", type=click.IntRange(0, MAX_OFFSET), default=0)
@click.option("--sort", type=click.Choice(["relevance", "date", "newest", "citations", "influence",
                                          "rating"]),
              default="relevance", help="date: newest venue-year first (newest: its older name).")
@click.option("--since", type=click.IntRange(1900, 2100), default=None, metavar="YEAR",
              help="New since: only papers of YEAR or later.")
@click.option("--rating", default=None, metavar="RANGE",
              help="Mean review score: 6.. (at least 6), 5..7, ..4; papers without scores are left out.")
@click.option("--mode", type=click.Choice(["lexical", "semantic", "hybrid"]), default=None,
              help="Retrieval mode (default: hybrid where vectors exist).")
@click.option("--json", "as_json", is_flag=True, help="Print the JSON response.")
@click.option("--explain", is_flag=True,
              help="Name the features that placed each result the learned model ordered.")
def search(query: str, db_path: Path | None, limit: int, offset: int, sort: str, since: int | None,
           rating: str | None, mode: str | None, as_json: bool, explain: bool) -> None:
    """Search papers and people. Example: paperfind search "author:hinton year:2017..2019" """
    from paperfind.search.engine import SearchRequest
    from paperfind.search.filters import Filters, rating_range
    from paperfind.search.format import format_results_text

    try:
        rating_from, rating_to = rating_range(rating)
    except ValueError as problem:
        raise click.BadParameter(str(problem), param_hint="--rating") from None
    app = _reading(_app(db_path))
    app.refresh_index()  # derived from the database: brought up to date, as `serve` does
    request = SearchRequest(q=query, limit=limit, offset=offset, sort=sort, explain=explain,
                            filters=Filters(since=since, rating_from=rating_from, rating_to=rating_to),
                            **({"mode": mode} if mode else {}))
    response = app.searcher().search(request)
    if as_json:
        click.echo(json.dumps(response.to_json(), indent=2, ensure_ascii=False))
    else:
        from paperfind.web.institution_labels import InstitutionLabels

        labels = InstitutionLabels("en", app.store().institution_name)  # named as the pages name them
        click.echo(format_results_text(response, label=labels.label))


@main.command()
@DB_OPTION
@click.option("--jobs", type=click.IntRange(1, 64), default=None,
              help="Processes: from 50,000 papers a second one mines the papers' names, ~0.6x "
                   "the time for ~1.5x the memory (default 2 on 2+ cores, or "
                   "$PAPERFIND_INDEX_JOBS; 1 builds in one process).")
def index(db_path: Path | None, jobs: int | None) -> None:
    """Rebuild the search index from the database (it is derived and can always be rebuilt)."""
    from paperfind.index.manager import build_index

    app = _reading(_app(db_path, index_jobs=jobs))
    path = build_index(app.store(), app.settings.index_dir, jobs=app.settings.index_jobs)
    click.echo(f"index written to {path}")


@main.command()
@DB_OPTION
@click.option("--host", default=None, help="Address to bind (default 127.0.0.1, or $PAPERFIND_HOST).")
@click.option("--port", type=click.IntRange(1, 65535), default=None,
              help="Port (default 8000, or $PAPERFIND_PORT).")
@click.option("--workers", type=click.IntRange(1, 64), default=None,
              help="Server processes (default 1, or $PAPERFIND_WORKERS); one per core serves most.")
@click.option("--backend", type=click.Choice(["local", "milvus"]), default=None,
              help="What answers searches: the index beside the database (default, or "
                   "$PAPERFIND_BACKEND) or a Milvus collection synced by `paperfind sync`.")
@click.option("--milvus-uri", default=None, metavar="URI",
              help="With --backend milvus: http://host:19530, or a Milvus Lite directory ending "
                   "in .db (default $PAPERFIND_MILVUS_URI).")
def serve(db_path: Path | None, host: str | None, port: int | None, workers: int | None,
          backend: str | None, milvus_uri: str | None) -> None:
    """Serve the portal and its JSON API; builds the database from the bundled corpus if needed.

    Example: paperfind serve --port 8000 --workers 2
    Example: paperfind serve --backend milvus --milvus-uri http://127.0.0.1:19530
    """
    from paperfind.web.server import run

    from paperfind.milvus.client import MilvusError

    app = _app(db_path, host=host, port=port, workers=workers, backend=backend, milvus_uri=milvus_uri)
    app.ensure_database(vectors=False)  # the bundled vectors are put in place once it serves
    try:
        run(app)
    except MilvusError as exc:  # reachable, but not usable as asked (no collection, ...)
        raise click.ClickException(str(exc)) from None  # warms up before it serves, then brings the vectors up to date in the background


@main.command()
@DB_OPTION
@click.option("--milvus", "milvus_uri", default=None, metavar="URI",
              help="Milvus to push to: http://host:19530, or a Milvus Lite directory ending in .db "
                   "(default $PAPERFIND_MILVUS_URI).")
@click.option("--collection", default=None,
              help="Collection name (default paperfind_<database file stem>, or $PAPERFIND_MILVUS_COLLECTION).")
@click.option("--force", is_flag=True, help="Compare every paper even when the data version says nothing changed.")
@click.option("--batch", type=click.IntRange(1, 10_000), default=1000, show_default=True,
              help="Rows per upsert.")
def sync(db_path: Path | None, milvus_uri: str | None, collection: str | None, force: bool,
         batch: int) -> None:
    """Push the papers and their vectors into Milvus: new, changed and removed papers only.

    Resumable: a sync stopped halfway carries on from where it was when run again.

    Example: paperfind sync --milvus http://127.0.0.1:19530
    """
    from paperfind.milvus.client import MilvusError, MilvusUnavailable

    app = _app(db_path, milvus_uri=milvus_uri, milvus_collection=collection)
    if not app.settings.milvus_uri:
        raise click.UsageError("say where Milvus is: --milvus URI or PAPERFIND_MILVUS_URI")
    try:
        app.settings.collection
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    _reading(app)
    try:
        report = app.sync_milvus(force=force, batch_rows=batch)
    except (MilvusUnavailable, MilvusError) as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(report.line())


@main.command()
@DB_OPTION
def embed(db_path: Path | None) -> None:
    """Compute the vectors for semantic search: only papers new or changed since the last run.

    Slow on a CPU (about 30 papers a second); an interrupted run resumes where it stopped.
    """
    app = _reading(_app(db_path))
    stats = app.update_vectors()
    click.echo(f"{stats.total} papers: {stats.embedded} embedded, {stats.reused} unchanged, "
               f"{stats.removed} removed")



@main.command()
@click.argument("key")
@DB_OPTION
@click.option("--limit", type=click.IntRange(1, MAX_PAGE_SIZE), default=10, show_default=True)
@click.option("--aspect", type=click.Choice(ASPECT_CHOICES),
              help="Similar in this respect only (the paper's sentences of that aspect).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def similar(key: str, db_path: Path | None, limit: int, aspect: str | None, as_json: bool) -> None:
    """Papers similar to one paper (its other versions are never listed).

    Example: paperfind similar nips2017:9372 --aspect method
    """
    from paperfind.search.similar import UnknownPaper

    app = _reading(_app(db_path))
    app.refresh_index()
    try:
        found = app.searcher().similar(key, limit=limit, aspect=aspect)
    except UnknownPaper:
        raise click.ClickException(f"no paper with key {key!r} (keys look like iclr2018:B11bwYgfM)")
    if as_json:
        click.echo(json.dumps({"key": key, "aspect": aspect, "results": found}, indent=2, ensure_ascii=False))
        return
    for n, paper in enumerate(found, 1):
        click.echo(f"{n:>2}. {paper['title']}")
        click.echo(f"    {paper['venue_name']} {paper['year']}  ({paper['key']})  "
                   f"score {paper['score']:.3f}  {', '.join(paper['reasons'])}")


@main.command()
@click.argument("query", required=False, default="")
@DB_OPTION
@click.option("--paper", default="", help="A paper key: its title and abstract are the query.")
@click.option("--before", type=click.IntRange(1900, 2100), help="Only papers before this year count.")
@click.option("--exclude", default="", help="A paper key: leave out its people and their co-authors "
                                            "from 3 years before its year on.")
@click.option("--venue", multiple=True, help="Only papers of this venue count (repeatable).")
@click.option("--inst", multiple=True, help="Only papers of this institution count (repeatable).")
@click.option("--min-works", type=click.IntRange(0, MAX_MIN_WORKS), default=None,
              help=f"Only people with at least this many works that may count (default "
                   f"{ExpertSettings().min_works}; 1 lists everyone with a matching paper).")
@click.option("--size", type=click.IntRange(1, MAX_PAGE_SIZE), default=10, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print JSON (the shape of /api/experts).")
def experts(query: str, db_path: Path | None, paper: str, before: int | None, exclude: str,
            venue: tuple[str, ...], inst: tuple[str, ...], min_works: int | None, size: int,
            as_json: bool) -> None:
    """Who works on this: people by their papers' match to a topic, an abstract or a paper.

    Example: paperfind experts "diffusion models for protein design" --before 2024
    """
    from paperfind.limits import MAX_EXPERT_QUERY_CHARS
    from paperfind.search.expert_results import ExpertsRequest
    from paperfind.search.filters import Filters
    from paperfind.search.similar import UnknownPaper

    if not query.strip() and not paper.strip():
        raise click.UsageError("give a topic or an abstract (QUERY), or a paper key (--paper)")
    app = _reading(_app(db_path))
    app.refresh_index()
    request = ExpertsRequest(q=query[:MAX_EXPERT_QUERY_CHARS], paper=paper, before=before,
                             exclude=exclude, filters=Filters(venues=venue, insts=inst),
                             min_works=min_works, size=size)
    try:
        found = app.searcher().experts(request)
    except UnknownPaper as exc:
        raise click.ClickException(f"no paper with key {exc.key!r} (keys look like iclr2018:B11bwYgfM)")
    if as_json:
        click.echo(json.dumps(found, indent=2, ensure_ascii=False))
        return
    if found["fewer_works"] and found["min_works"] > 1:  # never an empty list in silence
        some = "No one" if not found["results"] else f"{found['total']} people"
        click.echo(f"{some} with at least {found['min_works']} works; {found['fewer_works']} with "
                   f"fewer (--min-works 1 lists them).")
    for n, person in enumerate(found["results"], 1):
        where = f"  ({', '.join(person['institutions'][:2])})" if person["institutions"] else ""
        click.echo(f"{n:>2}. {person['name']}{where}  {person['works']} works  score {person['score']:.3f}"
                   f"  /authors/{person['id']}")
        for paper_card in person["evidence"]:
            click.echo(f"      {paper_card['title']}  ({paper_card['venue_name']} {paper_card['year']}, "
                       f"{paper_card['key']})")


if __name__ == "__main__":
    main()
