"""Index versions on disk: build a new one beside the old, switch atomically, open the current.

Layout: `root/v1/`, `root/v2/`, ... and `root/CURRENT` naming the live one, written and switched
as `paperfind.index.generations` does for every derived directory: a reader sees the old index
or the new one, never half of one, and the previous version stays for readers that open it
between our read of CURRENT and theirs.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from paperfind.index.analysis import TextTerms
from paperfind.index.builder import FORMAT_VERSION, build_into
from paperfind.index.docs import IndexSource
from paperfind.index.doctable import DocTable, load_params
from paperfind.index.generations import Generations
from paperfind.index.lexical import LexicalIndex
from paperfind.index.names import NameIndex
from paperfind.index.paper_name_table import PaperNameTable
from paperfind.index.spelling import SpellIndex
from paperfind.ingest.readahead import gc_paused


@dataclass
class IndexVersion:
    """One opened index version: everything a searcher reads."""

    path: Path
    params: dict
    lexical: LexicalIndex
    docs: DocTable
    names: NameIndex
    spelling: SpellIndex
    paper_names: PaperNameTable

    @property
    def data_version(self) -> int:
        return int(self.params.get("data_version", 0))


def generations(root: Path) -> Generations:
    """The index versions under `root`: `v1/`, `v2/`, ..."""
    return Generations(Path(root), "v")


def current_name(root: Path) -> str | None:
    """The directory name CURRENT points at, or None when there is no index yet."""
    current = generations(root).current()
    return current.name if current is not None else None


def build_index(store: IndexSource, root: Path, prepared: TextTerms | None = None,
                jobs: int | None = None) -> Path:
    """Build a new index version of `store` under `root` and make it current; returns its path.

    `prepared`: texts analysed beforehand (see `build_into`); `jobs`: the most processes the
    build may use (`Settings.index_jobs`; None: as the cores allow)."""
    with generations(root).write() as target:
        with gc_paused():  # a build allocates millions of lists and makes no cycles
            build_into(store, target, prepared, jobs=jobs)
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
                            DocTable(path, params), NameIndex.load(path), SpellIndex.load(path),
                            PaperNameTable(path, params["n_docs"]))
    except FileNotFoundError:
        return None  # removed under us by a newer build: the caller retries with the new CURRENT
