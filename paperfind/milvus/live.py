"""The Milvus backend a process answers from now (what `LiveIndex` is for the local index).

The searcher asks its holder for `backend()`, `generation()` and `warm_state()`; this holder
gives it a `MilvusBackend` over the database's collection, with the vocabulary and people
tables of the local index (kept current from the store by `LiveIndex`, without vectors: those
are in Milvus). The collection's versions are read again at most every `RECHECK_S` seconds, so
a `paperfind sync` from another process is picked up without a restart.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from paperfind.embed.runtime import DEFAULT_QUERY_FORM, DEFAULT_QUERY_MAX_TOKENS
from paperfind.milvus.backend import MilvusBackend
from paperfind.milvus.client import MilvusConnection
from paperfind.milvus.schema import PROP_DATA_VERSION, PROP_VECTORS

RECHECK_S = 5.0


class MilvusLive:
    def __init__(self, conn: MilvusConnection, collection: str, local: Any, *,
                 use_vectors: bool = True, embed_runtime: str = "onnx", embed_threads: int = 1,
                 query_form: str = DEFAULT_QUERY_FORM, query_max_tokens: int = DEFAULT_QUERY_MAX_TOKENS,
                 translator: Any = None, first_stage: int = 0) -> None:
        self.conn = conn
        self.collection = collection
        self.local = local  # a LiveIndex without vectors: vocabulary, spelling, people
        self.use_vectors = use_vectors
        self.embed_runtime, self.embed_threads = embed_runtime, embed_threads
        self.query_form = query_form  # the local index's query encoder's form (SearchSettings.query_form)
        self.query_max_tokens = query_max_tokens  # ... and its cap (SearchSettings.query_max_tokens)
        self.translator = translator
        self.first_stage = first_stage
        self._backend: MilvusBackend | None = None
        self._checked = 0.0
        self._encoder: Any = None
        self._lock = threading.Lock()

    def store(self) -> Any:
        return self.local.store()

    def _query_encoder(self) -> Any:
        if self._encoder is None and self.use_vectors:
            from paperfind.embed.queries import QueryEncoder
            from paperfind.embed.runtime import make_embedder

            self._encoder = QueryEncoder(make_embedder(self.embed_runtime, self.embed_threads, self.query_form,
                                                       self.query_max_tokens),
                                         self.translator)
        return self._encoder

    def backend(self, vectors: bool = True) -> MilvusBackend | None:
        """The backend over the collection as it is now; raises `MilvusUnavailable` when
        Milvus cannot be reached. (`vectors` is the local index's: the collection holds them.)"""
        lookups = self.local.backend()
        if lookups is None:
            return None
        with self._lock:
            backend = self._backend
            now = time.monotonic()
            if backend is not None and backend.lookups is lookups and now - self._checked < RECHECK_S:
                return backend
            if backend is not None and backend.lookups is lookups:
                described = self.conn.call("describe_collection", self.collection)
                props = {str(k): str(v) for k, v in (described.get("properties") or {}).items()}
                self._checked = now
                if (props.get(PROP_DATA_VERSION, "0") == str(backend.data_version)
                        and props.get(PROP_VECTORS, "-") == backend.vector_generation):
                    return backend
            if not self.conn.call("has_collection", self.collection):
                from paperfind.milvus.client import MilvusError

                raise MilvusError(f"Milvus at {self.conn.uri} has no collection {self.collection!r}: "
                                  "run `paperfind sync --milvus URI` first")
            self._backend = MilvusBackend(self.conn, self.collection, lookups,
                                          encoder=self._query_encoder(), first_stage=self.first_stage)
            self._checked = time.monotonic()
            return self._backend

    def load_kernel(self) -> None:
        """The local index's lookups score with the compiled kernel (`LiveIndex.load_kernel`)."""
        self.local.load_kernel()

    def load_for_serving(self) -> None:
        """The local index's lookups, loaded as a server's are (`LiveIndex.load_for_serving`)."""
        self.local.load_for_serving()

    def load_experts(self) -> None:
        """The expert finder reads the local index's people and pairs (`LiveIndex.load_experts`)."""
        self.local.load_experts()

    def generation(self) -> tuple:
        backend = self._backend
        local = self.local.generation()
        if backend is None:
            return ("milvus", self.collection, None, local)
        return ("milvus", self.collection, backend.data_version, backend.vector_generation, local)

    def warm_state(self) -> dict[str, bool]:
        backend = self._backend
        state = {"index": backend is not None}
        if backend is not None:
            state.update({k: v for k, v in self.local.warm_state().items() if k == "experts"})
        if self.use_vectors and backend is not None and backend.vector_generation != "-":
            encoder = self._encoder
            state.update(vectors=True, encoder=encoder is not None and encoder.has_run)
        return state
