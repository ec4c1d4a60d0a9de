"""Crash safety: kill -9 `paperfind ingest` at random points of a full ingest, check, resume.

First one uninterrupted ingest of all of ../shared/data (paperlists and extra) into a reference
database gives the full counts. Then, into a second database, `paperfind ingest` is started and
SIGKILLed after a random delay, at least `--kills` times (some kills are aimed at the end of the
run, once every file is written: people resolution and the index build). After every kill:

- the database opens and `PRAGMA integrity_check` is ok, `PRAGMA foreign_key_check` is empty;
- every paper present is complete: it has its record rows and every record its paper (one
  transaction per file), a paper whose records name authors has its author rows, a random
  sample of papers equals the merge of its records (same content hash, same author count);
- a load into the empty database drops four indexes until its end (paperfind.store.bulk): the
  next writer's open must create them again, so that the database then holds every index the
  reference holds, with the same definitions;
- the index directory holds a CURRENT that opens, or none; after `paperfind index` the index
  holds exactly the papers of the database.

Finally the ingest is re-run to its end and must reach the reference's counts and the same
papers (keys and content hashes). Figures go to bench/RESULTS.md. CPU-heavy: run it alone.

    nice .venv/bin/python -m bench.crash_ingest --kills 20
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

from bench.corpus import DATA, REPO, index_dir
from paperfind.index.manager import current_name
from paperfind.model import Record
from paperfind.store import Store
from paperfind.store.merge import merge_records

COUNTED = ("sources", "records", "papers", "paper_authors", "paper_affiliations", "keywords",
           "authors", "institutions", "venues")


DEFAULT_PATHS = [DATA / "paperlists", DATA / "extra"]


def ingest(db: Path, paths: list[Path] = DEFAULT_PATHS) -> subprocess.Popen:
    cmd = ["nice", "-n", "5", sys.executable, "-m", "paperfind.cli", "ingest", "--db", str(db),
           *map(str, paths)]
    return subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PAPERFIND_SEMANTIC": "0"})


def counts(db: Path) -> dict[str, int]:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return {t: conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in COUNTED}
    finally:
        conn.close()


def papers_of(db: Path) -> dict[str, str]:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return dict(conn.execute("SELECT key, content_hash FROM papers"))
    finally:
        conn.close()


def check_database(db: Path, rng: random.Random, sample: int = 300) -> list[str]:
    """Everything that must hold after a kill; an empty list when it all does."""
    problems = []
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, isolation_level=None)
        conn.execute("PRAGMA busy_timeout=60000")
        integrity = conn.execute("PRAGMA integrity_check").fetchall()
    except sqlite3.Error as exc:
        return [f"database does not open: {exc}"]
    if integrity != [("ok",)]:
        problems.append(f"integrity_check: {integrity[:5]}")
    foreign = conn.execute("PRAGMA foreign_key_check").fetchall()
    if foreign:
        problems.append(f"foreign_key_check: {len(foreign)} rows, e.g. {foreign[:3]}")
    conn.execute("BEGIN")
    papers = conn.execute("SELECT COUNT(*) FROM papers").fetchone()[0]
    keyed = conn.execute("SELECT COUNT(DISTINCT paper_key) FROM records").fetchone()[0]
    if papers != keyed:
        problems.append(f"{papers} papers but {keyed} paper keys in records")
    orphans = conn.execute("SELECT COUNT(*) FROM records r WHERE NOT EXISTS "
                           "(SELECT 1 FROM papers p WHERE p.key = r.paper_key)").fetchone()[0]
    if orphans:
        problems.append(f"{orphans} records without their paper")
    authorless = conn.execute(
        "SELECT p.key FROM papers p WHERE NOT EXISTS (SELECT 1 FROM paper_authors a WHERE "
        "a.paper_id = p.id) AND EXISTS (SELECT 1 FROM records r WHERE r.paper_key = p.key AND "
        "r.data LIKE '%\"authors\": [{%')").fetchall()
    if authorless:
        problems.append(f"{len(authorless)} papers lost their authors, e.g. {authorless[:3]}")
    keys = [k for (k,) in conn.execute("SELECT key FROM papers")]
    for key in rng.sample(keys, min(sample, len(keys))):
        rows = conn.execute("SELECT data FROM records WHERE paper_key = ? "
                            "ORDER BY priority DESC, source_id, id", (key,)).fetchall()
        merged = merge_records([Record.from_json(json.loads(d)) for (d,) in rows])
        pid, chash = conn.execute("SELECT id, content_hash FROM papers WHERE key = ?", (key,)).fetchone()
        slots = conn.execute("SELECT COUNT(*) FROM paper_authors WHERE paper_id = ?", (pid,)).fetchone()[0]
        if chash != merged.content_hash() or slots != len(merged.authors):
            problems.append(f"paper {key} differs from the merge of its records")
    conn.execute("COMMIT")
    conn.close()
    root = index_dir(db)
    if root.exists() and current_name(root) is not None and index_keys(db) is None:
        problems.append(f"index CURRENT {current_name(root)} does not open")
    return problems


def schema_indexes(db: Path) -> dict[str, str]:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return dict(conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'index' "
                                 "AND sql IS NOT NULL"))
    finally:
        conn.close()


def check_schema_indexes(db: Path, expected: dict[str, str]) -> tuple[bool, list[str]]:
    """Whether the kill left indexes deferred, and what is wrong once a writer has opened the
    database (the open that re-creates them, as the next `paperfind ingest` or `serve` does)."""
    deferred = bool(set(expected) - set(schema_indexes(db)))
    try:
        Store(db).close()
    except sqlite3.Error as exc:
        return deferred, [f"a writer's open failed: {exc}"]
    found = schema_indexes(db)
    problems = [f"index {name} missing after a writer's open" for name in sorted(set(expected) - set(found))]
    problems += [f"index {name} defined otherwise: {found[name]}" for name in sorted(set(expected) & set(found))
                 if found[name] != expected[name]]
    return deferred, problems


_INDEX_KEYS = """
import json, sys
from pathlib import Path
from paperfind.index.manager import open_index
index = open_index(Path(sys.argv[1]))
print(json.dumps(None if index is None else
                 [index.docs.key(i) for i in range(index.params["n_docs"])]))
"""


def index_keys(db: Path) -> set[str] | None:
    """The keys of the current index, read by a fresh interpreter: the code of the tree as it is
    now (the team edits it while this runs; an index format bump must not look like damage)."""
    done = subprocess.run([sys.executable, "-c", _INDEX_KEYS, str(index_dir(db))], cwd=REPO,
                          capture_output=True, text=True)
    keys = json.loads(done.stdout) if done.returncode == 0 else None
    return None if keys is None else set(keys)


def check_index(db: Path) -> list[str]:
    """Rebuild the index with the real command; it must hold exactly the database's papers."""
    done = subprocess.run(["nice", "-n", "5", sys.executable, "-m", "paperfind.cli", "index", "--db",
                           str(db)], cwd=REPO, capture_output=True, text=True)
    if done.returncode != 0:
        return [f"paperfind index failed: {done.stderr.strip().splitlines()[-1:]}"]
    indexed = index_keys(db)
    if indexed is None:
        return ["the rebuilt index does not open"]
    stored = set(papers_of(db))
    if indexed != stored:
        return [f"index has {len(indexed - stored)} papers not in the database and misses "
                f"{len(stored - indexed)}"]
    return []


def wait_all_files_written(db: Path, files: int, proc: subprocess.Popen) -> bool:
    """Until the writer has committed every file (then it resolves people and builds the index)."""
    while proc.poll() is None:
        try:
            conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
            done = conn.execute("SELECT COUNT(*) FROM sources").fetchone()[0]
            conn.close()
        except sqlite3.Error:
            done = 0
        if done >= files:
            return True
        time.sleep(0.2)
    return False


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, default=Path("/tmp/paperfind-crash"))
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument("--late-kills", type=int, default=5, help="Of those, aimed at the end.")
    parser.add_argument("--max-delay", type=float, default=25.0)
    parser.add_argument("--index-every", type=int, default=5, help="Rebuild and check the index "
                        "after every n-th kill (and after the last).")
    parser.add_argument("--fresh-every", type=int, default=0, help="Start every n-th run from an "
                        "empty database (0: only the first), so that more kills land in a bulk "
                        "load's deferred indexes.")
    parser.add_argument("--seed", type=int, default=6)
    parser.add_argument("--reuse-reference", action="store_true")
    parser.add_argument("--paths", type=Path, nargs="*", default=DEFAULT_PATHS,
                        help="What to ingest (default: all of ../shared/data).")
    parser.add_argument("--no-write", action="store_true", help="Print only; leave RESULTS.md.")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    args.work.mkdir(parents=True, exist_ok=True)
    ref, db = args.work / "reference.db", args.work / "crash.db"

    if not (args.reuse_reference and ref.exists()):
        for path in (ref, Path(str(ref) + "-wal"), Path(str(ref) + "-shm")):
            path.unlink(missing_ok=True)
        shutil.rmtree(index_dir(ref), ignore_errors=True)
        started = time.perf_counter()
        out, err = ingest(ref, args.paths).communicate()
        ref_s = time.perf_counter() - started
        print(f"reference ingest: {ref_s:.0f} s; {out.strip().splitlines()[-1]}", flush=True)
    else:
        ref_s = float("nan")
    reference = counts(ref)
    reference_indexes = schema_indexes(ref)
    for path in (db, Path(str(db) + "-wal"), Path(str(db) + "-shm")):
        path.unlink(missing_ok=True)
    shutil.rmtree(index_dir(db), ignore_errors=True)

    log, problems, kills, late, finished_early, deferred_at_kill, emptied = [], [], 0, 0, 0, 0, 0
    started = time.perf_counter()
    while kills < args.kills:
        if args.fresh_every and kills and kills % args.fresh_every == 0 and emptied != kills:
            emptied = kills
            for path in (db, Path(str(db) + "-wal"), Path(str(db) + "-shm")):
                path.unlink(missing_ok=True)
            shutil.rmtree(index_dir(db), ignore_errors=True)
        proc = ingest(db, args.paths)
        aim_late = kills >= args.kills - args.late_kills
        if aim_late and not wait_all_files_written(db, reference["sources"], proc):
            pass  # finished before every file was seen: counted below
        time.sleep(rng.uniform(0.05, 4.0) if aim_late else rng.uniform(0.3, args.max_delay))
        if proc.poll() is not None:
            finished_early += 1
            print(f"  run ended by itself (code {proc.returncode}) before the kill", flush=True)
            if finished_early > 3 * args.kills:
                break
            # nothing left to do: drop the index, so the next run has a build to be killed in
            shutil.rmtree(index_dir(db), ignore_errors=True)
            continue
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        kills += 1
        late += aim_late
        state = counts(db)
        found = check_database(db, rng)
        deferred, wrong = check_schema_indexes(db, reference_indexes)
        deferred_at_kill += deferred
        found += wrong
        if kills % args.index_every == 0 or kills == args.kills:
            found += check_index(db)
        problems += [f"kill {kills}: {p}" for p in found]
        log.append((kills, "late" if aim_late else "random", state["sources"], state["papers"], found))
        print(f"kill {kills:>2} ({'late' if aim_late else 'random'}): {state['sources']} files, "
              f"{state['papers']} papers, indexes deferred {deferred}, {len(found)} problems "
              f"{found[:2]}", flush=True)

    resume = time.perf_counter()
    out, err = ingest(db, args.paths).communicate()
    resume_s = time.perf_counter() - resume
    final = counts(db)
    same_papers = papers_of(db) == papers_of(ref)
    problems += [f"final: {p}" for p in check_database(db, rng, sample=2000) + check_index(db)
                 + check_schema_indexes(db, reference_indexes)[1]]
    if final != reference:
        problems.append(f"final counts {final} differ from the reference {reference}")
    if not same_papers:
        problems.append("final papers (keys and content hashes) differ from the reference")
    versions = sorted(p.name for p in index_dir(db).glob("v*"))

    when = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines = ["| kill | aimed | files written | papers | problems |", "|---:|---|---:|---:|---:|"]
    lines += [f"| {k} | {kind} | {files} | {papers:,} | {len(found)} |"
              for k, kind, files, papers, found in log]
    lines += [
        "",
        f"Measured {when}. Data: {', '.join(str(p.relative_to(DATA.parent)) for p in args.paths)}. Reference "
        f"(uninterrupted) ingest: {'reused' if ref_s != ref_s else f'{ref_s:.0f} s'} → {reference['papers']:,} papers, "
        f"{reference['records']:,} records, {reference['sources']} files, {reference['authors']:,} "
        f"people. {kills} SIGKILLs ({late} aimed after the last file, i.e. at people resolution "
        f"or the index build), {finished_early} runs ended before their kill; "
        f"{time.perf_counter() - started:.0f} s in all. After every kill: integrity_check ok, "
        f"foreign keys, papers ⇔ records, authors present, a sample of 300 papers equal to the "
        f"merge of their records; every index of the reference's schema present once a writer had opened "
        f"the database (a load's deferred indexes were missing at {deferred_at_kill} kills); the index rebuilt and compared every {args.index_every} kills. "
        f"Final re-run: {resume_s:.0f} s, counts equal to the reference: "
        f"**{final == reference}**, same papers and content hashes: **{same_papers}**; index "
        f"versions left: {', '.join(versions)}. Problems: **{len(problems)}**"
        + ("" if not problems else " — " + "; ".join(problems[:5])),
    ]
    text = "\n".join(lines)
    print(text)
    if not args.no_write:
        from bench.results import append_results
        append_results("Robustness: kill -9 during ingest (bench/crash_ingest.py)", text)
    if problems:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
