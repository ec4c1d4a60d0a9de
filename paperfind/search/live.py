"""The index a process answers from now: the current lexical version and the vectors beside it.

A build switches the index's CURRENT and the background embedder writes new vector
generations; `LiveIndex` notices both (one stat per query) and hands the searcher the backend
of what is current, and the generation its answers are computed from (so a cached answer of
another generation is never served). The searcher itself only answers queries.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from paperfind.index.docs import IndexSource
from paperfind.index.manager import IndexVersion, build_index, current_name, open_index
from paperfind.index.resident import make_resident
from paperfind.search.backend import IndexBackend, SearchBackend
from paperfind.search.settings import SearchSettings

if TYPE_CHECKING:
    from paperfind.text.translate import ZhEnTranslator

StoreSource = Callable[[], IndexSource]  # returns the calling thread's store


class LiveIndex:
    """The `IndexBackend` of the current index version under `index_root`, with the vectors of
    `vector_dir` attached once they exist (None: lexical only).

    `store` (optional) returns the calling thread's store; with it the first index is built
    when none exists yet, and an index of an older format is rebuilt rather than answering
    nothing. `translator` is the process's one zh→en translator (the query encoder uses it).
    """

    def __init__(self, index_root: Path | str, *, store: StoreSource | None = None,
                 vector_dir: Path | str | None = None, settings: SearchSettings | None = None,
                 translator: "ZhEnTranslator | None" = None) -> None:
        self.root = Path(index_root)
        self.store = store
        self.vector_dir = Path(vector_dir) if vector_dir else None
        self.settings = settings or SearchSettings()
        self.translator = translator
        self._backend: IndexBackend | None = None
        self._loaded_name: str | None = None
        self._current_stamp: tuple[int, int] | None = None
        self._semantic = None
        self._embedder = None  # the query model, when loaded before the vectors (`load_encoder`)
        self._lock = threading.Lock()
        self._kernel = False  # `load_kernel` ran: every index opened scores with the compiled kernel
        self._serving = False  # `load_for_serving` ran: every index opened has its lazy tables read

    def backend(self, vectors: bool = True) -> SearchBackend | None:
        """The backend of the current index version, reopened when CURRENT has moved.

        `vectors=False` (a lexical search) leaves the vectors and the query model unopened
        when they are not yet: opening them was 2-4 s of a CLI search's 3-8."""
        try:  # CURRENT is replaced (new inode) on every build: a stat tells us, no read needed
            st = (self.root / "CURRENT").stat()
            stamp = (st.st_ino, st.st_mtime_ns)
        except FileNotFoundError:
            stamp = None
        if stamp is not None and stamp == self._current_stamp and self._backend is not None:
            if vectors:
                self._attach_vectors(self._backend)
            return self._backend
        self._current_stamp = stamp
        name = current_name(self.root)
        if name is None and self.store is not None and self._backend is None:
            build_index(self.store(), self.root)
            name = current_name(self.root)
        if name is not None and name != self._loaded_name:
            index = open_index(self.root)
            if index is None and self._backend is None and self.store is not None:
                # written by an older paperfind (another format): rebuild rather than answer nothing
                build_index(self.store(), self.root)
                index = open_index(self.root)
                self._current_stamp = None
            if index is not None:
                if self._kernel:
                    _load_kernels(index)
                self._backend = IndexBackend(index)
                if self._serving:
                    self._serve(self._backend)
                self._loaded_name = index.path.name
                self._semantic = None  # rows changed: the vectors are aligned again
        if self._backend is not None and vectors:
            self._attach_vectors(self._backend)
        return self._backend

    def _attach_vectors(self, backend: IndexBackend) -> None:
        """Give the backend the semantic route once vectors exist beside the database."""
        if not self.settings.use_vectors or self.vector_dir is None:
            return
        if self._semantic is None:
            if not (self.vector_dir / "CURRENT").exists():
                return
            from paperfind.embed.retriever import SemanticRetriever  # heavy: only with vectors
            from paperfind.embed.runtime import make_embedder

            with self._lock:  # two first queries at once open the vectors once
                if self._semantic is None:
                    keys = [backend.key_of(r) for r in range(backend.n_docs)]
                    embedder = self._embedder or make_embedder(self.settings.embed_runtime,
                                                               self.settings.embed_threads,
                                                               self.settings.query_form,
                                                               self.settings.query_max_tokens)
                    self._semantic = SemanticRetriever(self.vector_dir, keys, embedder=embedder,
                                                       translator=self.translator)
        else:
            self._semantic.reload()  # a newer generation written by the background embedder
        backend.semantic = self._semantic

    def load_kernel(self) -> None:
        """Score with the compiled column kernel (paperfind.index.kernels), in this index and
        every one opened later; a process that answers many queries pays its import once."""
        if not self.settings.compiled_kernel:
            return
        self._kernel = True
        backend = self._backend
        if backend is not None:
            _load_kernels(backend.index)

    def load_for_serving(self) -> None:
        """What a process that answers many queries (a server) loads once, at its start, rather
        than during some early request: the compiled kernel and the tables an index reads
        lazily for a short-lived CLI search (every row's paper names, the works' counter and
        groups), in this index and every one opened later."""
        self.load_kernel()
        self._serving = True
        backend = self._backend
        if backend is not None:
            self._serve(backend)

    def _serve(self, backend: IndexBackend) -> None:
        """`backend`'s lazy tables read, and its index's files made resident up to the budget."""
        backend.load_for_serving()
        make_resident(backend.index.path, self.settings.resident_index_mb * 2**20)

    def load_experts(self) -> None:
        """Make the expert finder's people, rare word pairs and code links now (3-5 s at the
        bundled corpus), not in the first /api/experts request; a later index makes its own on
        first use."""
        backend = self.backend(vectors=False)
        if backend is not None:
            backend.profiles()
            backend.rare_pairs(self.settings.experts.pairs_max_df)
            backend.code_links()

    def load_encoder(self) -> None:
        """Load the query model now, before the index exists (a first start loads it while the
        index is written); the vectors, once attached, are searched with it."""
        if not self.settings.use_vectors or self.vector_dir is None:
            return
        from paperfind.embed.runtime import make_embedder

        with self._lock:
            if self._embedder is None and self._semantic is None:
                embedder = make_embedder(self.settings.embed_runtime, self.settings.embed_threads,
                                         self.settings.query_form, self.settings.query_max_tokens)
                embedder.embed(["paperfind"], query=True)  # loads the model
                self._embedder = embedder

    def generation(self) -> tuple:
        """What the current answers are computed from: the index version and the vectors'
        generation."""
        return (self._loaded_name, self._semantic.generation if self._semantic is not None else None)

    def warm_state(self) -> dict[str, bool]:
        """Which of its parts are loaded: the index (and whether every row's paper names are
        parsed), the expert finder's parts and, with vectors, the vectors, their graph and the
        query encoder's model."""
        backend = self._backend
        state = {"index": backend is not None}
        if backend is not None:
            state["paper_names"] = backend.index.paper_names.parsed
            state["experts"] = backend.experts_ready(self.settings.experts.pairs_max_df)
        semantic = self._semantic
        if self.settings.use_vectors and semantic is not None:
            state.update(vectors=semantic.coverage > 0, vector_graph=semantic.graph_loaded,
                         encoder=semantic.encoder_loaded)
        return state


def _load_kernels(index: IndexVersion) -> None:
    """The compiled parts an index answers with: the lexical scorer's column kernel
    (paperfind.index.kernels) and the facets' gather (paperfind.index.facet_counts)."""
    index.lexical.load_kernel()
    index.docs.load_kernel()
