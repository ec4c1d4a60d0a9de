"""`paperfind sync --milvus`: a real store pushed into a real Milvus, then kept in step."""

from __future__ import annotations

import gzip
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

from paperfind.core import Paperfind
from paperfind.milvus.client import MilvusConnection, MilvusError
from paperfind.milvus.sync import sync_store
from paperfind.settings import Settings
from paperfind.store import Store
from tests.milvus.conftest import SLICE
from tests.realdata import PAPERLISTS


def _count(conn: MilvusConnection, name: str) -> int:
    return int(conn.call("query", name, filter="", output_fields=["count(*)"])[0]["count(*)"])


def _hashes(conn: MilvusConnection, name: str) -> dict[str, str]:
    from paperfind.milvus.sync import _existing_hashes

    return _existing_hashes(conn, name, 1000)


def test_sync_writes_every_paper_with_its_fields(synced, slice_db):
    store = Store(slice_db)
    assert _count(synced, "paperfind_slice") == store.paper_count()
    key = "iclr2017:Sks9_ajex"  # "Paying More Attention to Attention: ..."
    row = synced.call("query", "paperfind_slice", filter=f'key == "{key}"',
                      output_fields=["title", "venue", "year", "stored", "author_ids", "text"])[0]
    assert row["venue"] == "iclr" and row["year"] == 2017
    assert row["title"].split(" | ")[0] == "pay attent attent improv perform convolut neural network attent transfer"
    assert row["stored"]["title"].startswith("Paying More Attention to Attention")
    assert len(row["author_ids"]) == len(row["stored"]["authors"]) > 0
    # the first stage's field repeats the title three times (paperfind's BM25F title weight)
    assert row["text"].count("convolut neural network attent transfer") >= 3


def test_a_second_sync_reads_nothing(synced, slice_db):
    report = sync_store(Store(slice_db), synced, "paperfind_slice")
    assert report.up_to_date and report.upserted == 0 and report.deleted == 0


def _slice_copy(root: Path) -> Path:
    data = root / "data"
    for venue, year in SLICE:
        target = data / venue / f"{venue}{year}.json.gz"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(PAPERLISTS / venue / f"{venue}{year}.json.gz", target)
    return data


def test_incremental_sync_writes_the_changed_the_new_and_deletes_the_removed(tmp_path, milvus_server):
    data = _slice_copy(tmp_path)
    app = Paperfind(Settings(db_path=tmp_path / "inc.db", semantic=False, milvus_uri=milvus_server.uri,
                             milvus_collection="incremental"))
    app.ingest([data], progress=False, build_index=False)
    first = app.sync_milvus(progress=False)
    assert first.rebuilt and first.upserted == first.papers
    before = _hashes(app.milvus(), "incremental")

    path = data / "colt" / "colt2019.json.gz"
    records = json.loads(gzip.decompress(path.read_bytes()))
    # papers whose authors have no other paper: removing one changes no one else's row (a
    # shared author's person, and so the ids on their other papers, may be resolved anew)
    authors = Counter(a.strip() for v, y in SLICE for r in json.loads(gzip.decompress(
        (data / v / f"{v}{y}.json.gz").read_bytes())) for a in (r.get("author") or "").split(";"))
    alone = [i for i, r in enumerate(records)
             if all(authors[a.strip()] == 1 for a in (r.get("author") or "").split(";"))]
    changed, removed, template = (records[i] for i in alone[:3])
    changed["title"] = changed["title"] + " (revised)"
    new = dict(template, id="brand-new-paper", title="An Entirely New Paper About Bandits",
               author="Nobody Elsewhere")
    records = [r for r in records if r is not removed] + [new]
    path.write_bytes(gzip.compress(json.dumps(records).encode()))
    app.ingest([data], progress=False, build_index=False)

    second = app.sync_milvus(progress=False)
    assert (second.upserted, second.deleted) == (2, 1), second.line()
    assert second.unchanged == second.papers - 2
    after = _hashes(app.milvus(), "incremental")
    assert len(after) == second.papers == app.store().paper_count()
    differ = {k for k in after if before.get(k) != after[k]}
    assert len(differ) == 2 and len(set(before) - set(after)) == 1
    titles = {r["stored"]["title"] for r in app.milvus().call(
        "query", "incremental", filter=f"key in {json.dumps(sorted(differ))}", output_fields=["stored"])}
    assert titles == {changed["title"], new["title"]}
    assert app.sync_milvus(progress=False).up_to_date
    app.milvus().call("drop_collection", "incremental")


def _has_collection_yet(conn: MilvusConnection, name: str) -> bool:
    """Whether the sync has made its collection. Milvus Lite refuses the standalone server's
    `whitespace` tokenizer but leaves the refused collection behind until the sync drops it and
    makes it with `standard` (paperfind.milvus.schema.create_collection); a look in that window
    is answered with the refusal (seen once in CI on a loaded machine): not made yet."""
    try:
        return conn.call("has_collection", name)
    except MilvusError as exc:
        if "tokenizer" in str(exc):
            return False
        raise


def test_a_killed_sync_resumes_where_it_stopped(tmp_path, milvus_server, slice_db):
    db = tmp_path / "resume.db"
    shutil.copy(slice_db, db)
    env = dict(os.environ, PAPERFIND_SEMANTIC="0")
    command = [sys.executable, "-m", "paperfind.cli", "sync", "--db", str(db), "--milvus",
               milvus_server.uri, "--collection", "resume", "--batch", "25"]
    proc = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    conn = MilvusConnection(milvus_server.uri)
    written = 0
    while proc.poll() is None:  # kill it for real once some batches are in, before the end
        if _has_collection_yet(conn, "resume"):
            written = _count(conn, "resume")
            if written >= 100:
                os.kill(proc.pid, signal.SIGKILL)
                break
        time.sleep(0.05)
    _, err = proc.communicate(timeout=60)
    # a sync that ended on its own says why (once, on a loaded machine, it exited 1 unexplained)
    assert proc.returncode == -signal.SIGKILL, (
        f"the sync ended before it could be killed (exit {proc.returncode}): {err.decode()[-2000:]}")
    papers = Store(db).paper_count()
    written = _count(conn, "resume")
    assert 100 <= written < papers

    report = sync_store(Store(db), conn, "resume", batch_rows=25)
    assert not report.rebuilt and not report.up_to_date
    assert report.unchanged >= written - 25  # a batch in flight when killed may be written again
    assert report.upserted + report.unchanged == papers and report.deleted == 0
    assert _count(conn, "resume") == papers
    assert sync_store(Store(db), conn, "resume").up_to_date
    conn.call("drop_collection", "resume")


def test_sync_to_a_milvus_that_is_down_is_one_line(tmp_path, slice_db):
    from tests.milvus_server import free_port

    result = subprocess.run([sys.executable, "-m", "paperfind.cli", "sync", "--db", str(slice_db),
                             "--milvus", f"http://127.0.0.1:{free_port()}"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 1
    assert "unreachable" in result.stderr and "Traceback" not in result.stderr


def test_each_row_lists_its_works_versions_and_its_authors_as_words(slice_db, milvus_server):
    """What a search reads by key instead of by a filtered query: the keys of a work's versions
    (a version added or removed rewrites its siblings' rows: their hashes change) and the
    author ids as `author_tokens` words."""
    from dataclasses import replace

    from paperfind.index.docs import DocsSource
    from paperfind.milvus.schema import author_token

    store = Store(slice_db)
    docs = list(store.iter_index_docs())[:6]
    authors = list(store.iter_author_entries())
    a, b = docs[0], replace(docs[1], work_id=docs[0].work_id)  # b: another version of a's work
    conn = MilvusConnection(milvus_server.uri)

    def rows(version: int, papers) -> dict[str, dict]:
        report = sync_store(DocsSource(papers, authors, version=version), conn, "paperfind_versions")
        got = conn.call("query", "paperfind_versions", filter="", limit=100,
                        output_fields=["versions", "author_ids", "author_tokens"])
        return report, {r["key"]: r for r in got}

    _, first = rows(1, [a, b, *docs[2:]])
    assert first[a.key]["versions"] == first[b.key]["versions"] == sorted([a.key, b.key])
    assert first[docs[2].key]["versions"] == [docs[2].key]
    for row in first.values():
        assert row["author_tokens"].split() == list(dict.fromkeys(author_token(x) for x in row["author_ids"]))
    report, second = rows(2, [a, *docs[2:]])  # b is gone: a is a work of one again
    assert second[a.key]["versions"] == [a.key] and b.key not in second
    assert (report.upserted, report.deleted) == (1, 1)


class _RefusingLite:
    """Stands in for the moment Milvus Lite answers a look at a just-refused collection with the
    refusal (seen once in CI, not reproducible on demand): the first `refusals` looks raise it."""

    def __init__(self, refusals: int, message: str = "unknown tokenizer type: 'whitespace'"):
        self.refusals, self.message, self.looks, self.dropped = refusals, message, 0, []

    def has_collection(self, name):
        self.looks += 1
        if self.looks <= self.refusals:
            raise RuntimeError(self.message)
        return True

    def drop_collection(self, name):
        self.dropped.append(name)


def test_what_a_refused_tokenizer_left_is_dropped_once_milvus_answers():
    from paperfind.milvus.schema import _drop_refused

    client = _RefusingLite(refusals=3)
    _drop_refused(client, "resume")
    assert client.looks == 4 and client.dropped == ["resume"]
    other = _RefusingLite(refusals=1, message="connection refused")
    try:
        _drop_refused(other, "resume")
    except RuntimeError as exc:
        assert "connection refused" in str(exc) and other.dropped == []
    else:
        raise AssertionError("an error that is not the refusal must not be waited out")
