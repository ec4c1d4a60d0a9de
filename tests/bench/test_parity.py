"""bench.parity's worker: one tree's paperfind in its own process, driven over stdin/stdout.

The worker of the working tree ingests a real slice with its own code, builds its index and
answers searches; the parent checks it imported the tree it was given."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from bench import corpus, parity
from tests.realdata import PAPERLISTS


def test_a_side_ingests_with_its_own_tree_and_finds_a_title(tmp_path):
    path = PAPERLISTS / "iclr" / "iclr2017.json.gz"
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        records = json.load(fh)
    wanted = next(r for r in records if len(str(r.get("title", "")).split()) >= 5)
    side = parity.Side("head", corpus.REPO, "slice", semantic=False, cache=tmp_path)
    try:
        side.dir.mkdir(parents=True)
        assert side.ask("ingest", files=[str(path)])["seconds"] > 0
        opened = side.ask("open")
        assert Path(opened["paperfind"]) == corpus.REPO / "paperfind"
        assert opened["cache_off"]  # else the timed rounds would time cache hits
        assert opened["papers"] == len({r["id"] for r in records if str(r.get("title", "")).strip()})
        found = side.ask("rank", queries=[["q1", wanted["title"]]], mode="lexical", limit=5)
        assert found["ranked"]["q1"][0] == f"iclr2017:{wanted['id']}"
        assert found["modes"] == {"lexical": 1}
        timed = side.ask("time", queries=[wanted["title"], "venue:iclr"], mode="lexical", limit=10)
        assert len(timed["ms"]) == 2 and all(ms > 0 for ms in timed["ms"])
    finally:
        side.close()
    assert side.proc.returncode == 0


def test_the_code_hash_follows_the_sources_not_the_bundled_corpus(tmp_path):
    (tmp_path / "paperfind" / "data").mkdir(parents=True)
    (tmp_path / "paperfind" / "core.py").write_text("A = 1\n")
    (tmp_path / "paperfind" / "data" / "default-corpus.jsonl.gz").write_bytes(b"one")
    before = parity.code_hash(tmp_path)
    (tmp_path / "paperfind" / "data" / "default-corpus.jsonl.gz").write_bytes(b"two")
    assert parity.code_hash(tmp_path) == before
    (tmp_path / "paperfind" / "core.py").write_text("A = 2\n")
    assert parity.code_hash(tmp_path) != before
