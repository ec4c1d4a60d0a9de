"""The corpora the benches search, as databases built by paperfind's own ingest and cached.

One reading of the data for every bench: the product's readers and store, so a bench measures
what a user's database holds. Databases live under the cache directory (bench/out/, or
$PAPERFIND_BENCH_CACHE), are built once, atomically, and are named by corpus:

- `default` (alias `16k`): paperlists, venues icml, nips, iclr, colm, aistats, colt, uai, corl
  from 2013 (16,563 records): every key of the dev sets, as ../shared/eval-dev/README.md defines;
- `full` (alias `88k`): every paperlists file (87,885 records);
- `bundled`: the bundled corpus, paperfind/data/default-corpus.jsonl.gz (105k papers).

Any other name is a database someone put at `<cache>/<name>.db`.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# ../shared beside the repository; PAPERFIND_SHARED names it for a checkout elsewhere (a worktree)
SHARED = Path(os.environ.get("PAPERFIND_SHARED") or REPO.parent / "shared")
DATA = SHARED / "data"
# the dev sets; PAPERFIND_EVAL_DEV names them where they are not in the shared folder
EVAL = Path(os.environ.get("PAPERFIND_EVAL_DEV") or SHARED / "eval-dev")
CACHE = Path(os.environ.get("PAPERFIND_BENCH_CACHE") or REPO / "bench" / "out")
BUNDLED = REPO / "paperfind" / "data" / "corpus"  # venue-year shards
BUNDLED_VECTORS = REPO / "paperfind" / "data" / "corpus.vectors"  # shards over default-corpus.vectors
DEFAULT_VENUES = ("icml", "nips", "iclr", "colm", "aistats", "colt", "uai", "corl")
ALIASES = {"16k": "default", "88k": "full"}
BUILT = ("default", "full", "bundled")  # corpora this module can build from the data
# the five sets of known-item and keyword queries, each with its own kind of query
SETS = ("tldr_dev", "title_typo_dev", "author_dev", "topical_dev", "zh_dev")


def canonical(name: str) -> str:
    return ALIASES.get(name, name)


def files(name: str) -> list[Path]:
    """The data files a built corpus is ingested from, in manifest order."""
    name = canonical(name)
    if name == "bundled":
        return [BUNDLED]
    if name not in ("default", "full"):
        raise ValueError(f"corpus {name!r} is not built from the data (known: {', '.join(BUILT)})")
    out = []
    with open(DATA / "paperlists" / "MANIFEST.tsv", encoding="utf-8") as fh:
        for row in csv.DictReader(fh, delimiter="\t"):
            if name == "full" or (row["venue"] in DEFAULT_VENUES and int(row["year"]) >= 2013):
                out.append(DATA / "paperlists" / row["file"])
    return out


def copy_database(db: Path, into: Path) -> Path:
    """A copy of `db` with its index and vectors beside it (`<db>*`) in the new folder `into`:
    a bench's side that may write (a server's start-up work, a sync) never touches the source.
    A `db` that is not there is refused: its "copy" would be an empty database, whose searches
    find nothing, and a bench would score every set 0 for both trees instead of failing."""
    if not db.is_file():
        raise SystemExit(f"{db}: no such database (give its path, e.g. the bench cache's "
                         f"{CACHE / db.name})")
    into.mkdir(parents=True)
    for src in db.parent.glob(db.name + "*"):
        (shutil.copytree if src.is_dir() else shutil.copy2)(src, into / src.name)
    return into / db.name


def db_path(name: str, cache: Path = CACHE) -> Path:
    return cache / f"{canonical(name)}.db"


def database(name: str, cache: Path = CACHE) -> Path:
    """The corpus's database, ingested by this tree's paperfind the first time it is asked for
    (under another name, renamed when complete: an interrupted build leaves no half database)."""
    from paperfind.core import Paperfind
    from paperfind.settings import Settings

    db = db_path(name, cache)
    if db.exists():
        return db
    if canonical(name) not in BUILT:
        raise SystemExit(f"{db}: no such database (corpora this bench builds: {', '.join(BUILT)})")
    db.parent.mkdir(parents=True, exist_ok=True)
    partial = db.with_name(db.name + ".partial")
    for stale in db.parent.glob(partial.name + "*"):
        stale.unlink()
    app = Paperfind(Settings(db_path=partial))
    app.ingest(files(name), progress=False, build_index=False, vectors=False)
    app.store().close()
    os.replace(partial, db)
    return db


def open_store(name: str, cache: Path = CACHE):
    """A read-only `Store` of the corpus."""
    from paperfind.store import Store

    return Store(database(name, cache), readonly=True)


def index_dir(db: Path) -> Path:
    """Where paperfind keeps the lexical index of a database (its settings decide, not the bench)."""
    from paperfind.settings import Settings

    return Settings(db_path=Path(db)).index_dir


def vector_dir(db: Path) -> Path:
    """Where paperfind keeps the vectors of a database."""
    from paperfind.settings import Settings

    settings = Settings(db_path=Path(db))
    if hasattr(settings, "vector_dir"):
        return settings.vector_dir
    from paperfind.core import Paperfind  # before the settings named it

    return Paperfind(settings).vector_dir


def index_root(name: str, cache: Path = CACHE) -> Path:
    """Where the corpus's lexical index lives."""
    return index_dir(db_path(name, cache))


def ensure_index(name: str, rebuild: bool = False, cache: Path = CACHE):
    """(store, index root) of a corpus, (re)building the index when it is older than the data."""
    from paperfind.index.manager import build_index, index_is_current

    store = open_store(name, cache)
    root = index_root(name, cache)
    if rebuild or not index_is_current(root, store.data_version()):
        build_index(store, root)
    return store, root


def vectors(name: str, cache: Path = CACHE) -> Path:
    """The corpus's vector directory; the bundled corpus's vectors are copied there the first time
    (vectors are found by key and text hash, so they serve every corpus whose papers they hold)."""
    db = database(name, cache)
    out = vector_dir(db)
    if not out.exists():
        partial = out.with_name(out.name + ".partial")
        shutil.rmtree(partial, ignore_errors=True)
        copy_bundled_vectors(partial)
        os.replace(partial, out)
    complete_vectors(db)
    return out


def complete_vectors(db: Path) -> None:
    """Embed the papers the bundled vectors lack (or hold for older text), build the graph and mark
    the vectors synced with the store, as a served database's first start does once.

    Without it every fresh server of the HTTP benches (each serving a copy of the cache) spent its
    first ~3 minutes doing that on both cores, and its timed searches came after that work and the
    page cache's reclaim of what it had pushed out: a first start's cost, not a restart's.
    """
    from paperfind.core import Paperfind
    from paperfind.settings import Settings

    app = Paperfind(Settings(db_path=Path(db)))
    if hasattr(app, "vectors_are_synced") and not app.vectors_are_synced():
        app.update_vectors(progress=False)


def copy_bundled_vectors(out: Path) -> None:
    """The bundled vectors as one generation in `out` (their shards assembled, as `serve` does)."""
    from paperfind.index.vector_shards import assemble, base_of

    assemble(BUNDLED_VECTORS, base_of(BUNDLED_VECTORS), out)


def set_file(name: str) -> Path:
    """A dev set's file: the project's own (bench/NAME.jsonl, e.g. zh_dev2) when there is one,
    else ../shared/eval-dev's, so one name serves the loaders and score.py alike."""
    own = Path(__file__).with_name(f"{name}.jsonl")
    return own if own.exists() else EVAL / f"{name}.jsonl"


def load_set(name: str) -> list[dict]:
    """The items of a dev set (`set_file`)."""
    with open(set_file(name), encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def open_searcher(index_root: Path, store=None, settings=None, vector_dir: Path | None = None):
    """A searcher over an index (with the store, for stale checks; vectors when `vector_dir` has
    them), made the way paperfind's own scripts make one: the one place the benches follow the
    search package's construction."""
    from paperfind.search.engine import open_searcher as open_engine_searcher

    return open_engine_searcher(index_root, store=store, settings=settings, vector_dir=vector_dir)
