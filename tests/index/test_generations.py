"""Generations: a writer that dies or fails mid-write leaves the previous generation readable.

The failures are real: a child process writes the real files under a file-size limit
(RLIMIT_FSIZE), so the kernel either kills it mid-write (SIGXFSZ, as a crash would) or refuses
the write (EFBIG, an exception inside the write, as a full disk would).
"""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys

import numpy as np
import pytest

from paperfind.index.generations import Generations
from paperfind.index.manager import build_index, current_name, index_is_current, open_index
from paperfind.index.vectors import VectorIndex, VectorParams, write_index

LIMIT = 16 * 1024  # bytes a child may write to one file: less than any generation below

# the child: its own imports first, then the limit, then one real write
_VECTORS_CHILD = """
import resource, signal, sys
import numpy as np
from paperfind.index.vectors import VectorParams, write_index
root, limit, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3]
rows = np.random.default_rng(1).normal(size=(400, 384)).astype(np.float32)
rows /= np.linalg.norm(rows, axis=1, keepdims=True)
# Python ignores SIGXFSZ, so that a write past the limit raises; "kill" restores the kernel's
# default (the process dies there, as in a crash)
signal.signal(signal.SIGXFSZ, signal.SIG_DFL if mode == "kill" else signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))
try:
    write_index(root, VectorParams("m", 384, "float32", "title", 400), [f"new{i}" for i in range(400)],
                ["h"] * 400, rows)
except OSError as exc:  # numpy reports a short write without an errno
    print(f"write failed: {exc}")
    sys.exit(3)
"""

_INDEX_CHILD = """
import resource, signal, sys
from paperfind.index.docs import DocsSource
from paperfind.index.manager import build_index
from paperfind.store import Store
db, root, limit, mode = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
with Store(db, readonly=True) as store:
    source = DocsSource(list(store.iter_index_docs()), list(store.iter_author_entries()),
                        version=store.data_version() + 1, institutions=store.institution_names())
signal.signal(signal.SIGXFSZ, signal.SIG_DFL if mode == "kill" else signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))
try:
    build_index(source, root)
except OSError as exc:
    print(f"write failed: errno {exc.errno}")
    sys.exit(3)
"""


def _child(script: str, *args: object) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")  # no .pyc writes under the limit
    return subprocess.run([sys.executable, "-c", script, *map(str, args)], env=env,
                          capture_output=True, text=True)


@pytest.fixture()
def vectors_root(tmp_path):
    rows = np.random.default_rng(0).normal(size=(50, 384)).astype(np.float32)
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    root = tmp_path / "p.db.vectors"
    write_index(root, VectorParams("m", 384, "float32", "title", 50), [f"k{i:02d}" for i in range(50)],
                ["h"] * 50, rows)
    return root, rows


def _assert_first_vectors_live(root, rows):
    index = VectorIndex.open(root)
    assert index.generation.name == "gen-000001" and index.keys == [f"k{i:02d}" for i in range(50)]
    assert index.search(rows[7], k=1)[0][0] == "k07"


def test_a_vector_writer_killed_mid_write_leaves_the_previous_generation(vectors_root):
    root, rows = vectors_root
    done = _child(_VECTORS_CHILD, root, LIMIT, "kill")
    assert done.returncode == -signal.SIGXFSZ, done.stderr
    dead = root / "gen-000002"
    assert (dead / "vectors.npy").stat().st_size == LIMIT  # it died inside the matrix
    _assert_first_vectors_live(root, rows)
    # the next write goes past the dead one and clears it; the one it replaces stays for readers
    write_index(root, VectorParams("m", 384, "float32", "title", 2), ["a", "b"], ["h", "h"], rows[:2])
    assert VectorIndex.open(root).keys == ["a", "b"]
    assert sorted(p.name for p in root.glob("gen-*")) == ["gen-000001", "gen-000003"]


def test_a_vector_write_that_fails_leaves_the_previous_generation_and_no_debris(vectors_root):
    root, rows = vectors_root
    done = _child(_VECTORS_CHILD, root, LIMIT, "fail")
    assert done.returncode == 3 and "write failed" in done.stdout, done.stderr
    _assert_first_vectors_live(root, rows)
    assert sorted(p.name for p in root.glob("gen-*")) == ["gen-000001"]


@pytest.mark.parametrize("mode", ["kill", "fail"])
def test_an_index_build_that_dies_or_fails_keeps_the_previous_version(colt_store, tmp_path, mode):
    root = tmp_path / "colt.db.index"
    build_index(colt_store, root)
    version = colt_store.data_version()
    first = open_index(root).docs.stored_doc(0)
    done = _child(_INDEX_CHILD, colt_store.path, root, LIMIT, mode)
    if mode == "kill":
        assert done.returncode == -signal.SIGXFSZ, done.stderr
        assert (root / "v2").is_dir()  # what the killed build left
    else:
        assert done.returncode == 3 and f"errno {errno.EFBIG}" in done.stdout, done.stderr
        assert not (root / "v2").exists()  # removed by the failed build itself
    assert current_name(root) == "v1" and index_is_current(root, version)
    assert open_index(root).docs.stored_doc(0) == first
    # the next build goes past (and clears) what a killed one left; the one it replaces stays
    after = "v3" if mode == "kill" else "v2"
    assert build_index(colt_store, root).name == after
    assert sorted(p.name for p in root.iterdir() if p.is_dir()) == ["v1", after]


def test_current_names_only_a_generation_directory(tmp_path):
    found = Generations(tmp_path, "gen-", 6)
    assert found.current() is None and found.pointer() is None and found.numbers() == []
    with found.write() as target:
        (target / "data").write_text("one")
    assert found.current() == tmp_path / "gen-000001" and found.pointer() == "gen-000001"
    (tmp_path / "CURRENT").write_text("../elsewhere\n")
    assert found.current() is None and found.pointer() == "../elsewhere"
    assert found.number_of("gen-000012") == 12 and found.number_of("v12") is None
