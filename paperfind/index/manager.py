"""Index versions on disk: build a new one beside the old, switch atomically, open the current.

Layout: `root/v1/`, `root/v2/`, ... and `root/CURRENT` naming the live one. A build writes a
whole new version, fsyncs it, then replaces CURRENT with `os.replace`, so a reader sees the old
index or the new one, never half of one. Readers map files; removing an old version's files
does not disturb a process still mapping them (POSIX keeps unlinked inodes alive), but we keep
the previous version anyway for readers that open it between our read of CURRENT and theirs.
"""

from __future__ import annotations

import fcntl
import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from paperfind.index.analysis import TextTerms
from paperfind.index.builder import FORMAT_VERSION, build_into
from paperfind.index.docs import IndexSource
from paperfind.index.doctable import DocTable, load_params
from paperfind.index.lexical import LexicalIndex
from paperfind.index.names import NameIndex
from paperfind.index.spelling import SpellIndex
from paperfind.ingest.readahead import gc_paused

_VERSION_DIR = re.compile(r"^v(\d+)$")


def default_index_root(db_path: Path | str) -> Path:
    """`paperfind.db` → `paperfind.db.index/`: the index lives next to the database it derives from."""
    return Path(str(db_path) + ".index")


@dataclass
class IndexVersion:
    """One opened index version: everything a searcher reads."""

    path: Path
    params: dict
    lexical: LexicalIndex
    docs: DocTable
    names: NameIndex
    spelling: SpellIndex

    @property
    def data_version(self) -> int:
        return int(self.params.get("data_version", 0))


def _versions(root: Path) -> list[int]:
    if not root.is_dir():
        return []
    return sorted(int(m.group(1)) for p in root.iterdir() if (m := _VERSION_DIR.match(p.name)))


def current_name(root: Path) -> str | None:
    """The directory name CURRENT points at, or None when there is no index yet."""
    try:
        name = (root / "CURRENT").read_text("utf-8").strip()
    except FileNotFoundError:
        return None
    return name if _VERSION_DIR.match(name) and (root / name).is_dir() else None


def _fsync_tree(path: Path) -> None:
    for p in sorted(path.iterdir()):
        with open(p, "rb") as f:
            os.fsync(f.fileno())
    _fsync_dir(path)


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def build_index(store: IndexSource, root: Path, prepared: TextTerms | None = None) -> Path:
    """Build a new index version of `store` under `root` and make it current; returns its path.

    `prepared`: texts analysed beforehand (see `build_into`)."""
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    with open(root / ".build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one builder at a time; readers never wait
        n = (max(_versions(root)) + 1) if _versions(root) else 1
        target = root / f"v{n}"
        target.mkdir()
        try:
            with gc_paused():  # a build allocates millions of lists and makes no cycles
                build_into(store, target, prepared)
            _fsync_tree(target)
        except BaseException:
            shutil.rmtree(target, ignore_errors=True)
            raise
        tmp = root / "CURRENT.tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(target.name + "\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, root / "CURRENT")
        _fsync_dir(root)
        for old in _versions(root):
            unfinished = not (root / f"v{old}" / "params.json").exists()  # a build that died
            if old < n - 1 or (old != n and unfinished):
                shutil.rmtree(root / f"v{old}", ignore_errors=True)
    return target


def index_is_current(root: Path, data_version: int) -> bool:
    """Whether the current index was built from this data version of the store."""
    name = current_name(Path(root))
    if name is None:
        return False
    try:
        params = load_params(Path(root) / name)
    except (FileNotFoundError, ValueError):
        return False
    return params.get("format") == FORMAT_VERSION and params.get("data_version") == int(data_version)


def open_index(root: Path) -> IndexVersion | None:
    """Open the current version under `root`; None when none was built (or it is unreadable)."""
    root = Path(root)
    name = current_name(root)
    if name is None:
        return None
    path = root / name
    try:
        params = load_params(path)
        if params.get("format") != FORMAT_VERSION:
            return None
        return IndexVersion(path, params, LexicalIndex.load(path, params["n_docs"]),
                            DocTable(path, params), NameIndex.load(path), SpellIndex.load(path))
    except FileNotFoundError:
        return None  # removed under us by a newer build: the caller retries with the new CURRENT
