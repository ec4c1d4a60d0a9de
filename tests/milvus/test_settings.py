"""The Milvus settings: env twins of the CLI options, and one-line messages for bad ones."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from paperfind.settings import Settings


def test_env_twins_and_the_collection_name():
    s = Settings.from_env({"PAPERFIND_BACKEND": "Milvus", "PAPERFIND_MILVUS_URI": "http://m:19530",
                           "PAPERFIND_MILVUS_TOKEN": "root:secret", "PAPERFIND_DB": "/x/my-papers.db"})
    assert (s.backend, s.milvus_uri, s.milvus_token) == ("milvus", "http://m:19530", "root:secret")
    assert s.collection == "paperfind_my_papers"
    assert "secret" not in repr(s)  # the token is never printed with the settings
    assert Settings.from_env({}).backend == "local"
    assert Settings.from_env({"PAPERFIND_MILVUS_COLLECTION": "papers_v2"}).collection == "papers_v2"


@pytest.mark.parametrize("env, message", [
    ({"PAPERFIND_BACKEND": "elastic"}, "must be one of local, milvus"),
    ({"PAPERFIND_BACKEND": "milvus"}, "needs a URI"),
])
def test_bad_settings_say_what_is_wrong(env, message):
    with pytest.raises(ValueError, match=message):
        Settings.from_env(env)


def test_a_bad_collection_name_is_refused():
    with pytest.raises(ValueError, match="letters, digits and underscores"):
        Settings(milvus_collection='x"] or ["y').collection


def test_serve_with_milvus_and_no_uri_is_a_usage_error(tmp_path: Path):
    result = subprocess.run([sys.executable, "-m", "paperfind.cli", "serve", "--db", str(tmp_path / "x.db"),
                             "--backend", "milvus"], capture_output=True, text=True, timeout=120,
                            env={"PATH": "/usr/bin:/bin"})
    assert result.returncode == 2
    assert "needs a URI" in result.stderr and "Traceback" not in result.stderr
