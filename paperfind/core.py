"""The application object: one `Paperfind` built from explicit settings, used by the CLI and the web.

It wires the pipeline stages together (ingest → store → index → search) and owns nothing global:
two `Paperfind` objects with different settings can live in one process.
"""

from __future__ import annotations

import copy
import shutil
import sys
import threading
from pathlib import Path
from typing import Any

from paperfind.ingest.run import IngestReport, ingest_paths
from paperfind.settings import Settings
from paperfind.store import Store


class Paperfind:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._local = threading.local()
        self._searcher_lock = threading.Lock()
        self._searcher: Any = None
        self._stats: tuple[tuple, dict[str, Any]] | None = None  # (data versions, counts)

    # -- the database --------------------------------------------------------------------

    def store(self) -> Store:
        """This thread's connection to the database (SQLite connections stay in one thread)."""
        store = getattr(self._local, "store", None)
        if store is None:
            store = Store(self.settings.db_path)
            self._local.store = store
        return store

    def ingest(self, paths: list[Path], force: bool = False, progress: bool | None = None,
               build_index: bool = True, vectors: bool = True) -> IngestReport:
        """Ingest files, then bring the search index (and existing vectors) in step."""
        report = ingest_paths(self.store(), paths, force=force, progress=progress,
                              jobs=self.settings.ingest_jobs)
        if build_index:
            self.refresh_index(progress=progress)
        if vectors and self.settings.semantic and (self.vector_dir / "CURRENT").exists() \
                and report.changed:
            self.update_vectors(progress=progress)
        return report

    def ensure_database(self, progress: bool | None = None) -> bool:
        """Build the database from the bundled corpus when there is none; True if it was built.

        The bundled corpus ships with its vectors, which are copied beside the new database so
        semantic search works at once; `update_vectors` later embeds only what changed.
        """
        db = self.settings.db_path
        if db.exists() and Store(db).paper_count() > 0:
            self.refresh_index(progress=progress)
            return False
        corpus = self.settings.corpus_path
        if not corpus.exists():
            raise FileNotFoundError(f"no database at {db} and no bundled corpus at {corpus}")
        print(f"paperfind: building {db} from {corpus.name} (first start only)...",
              file=sys.stderr)
        self.ingest([corpus], progress=progress, vectors=False)
        bundled = bundled_vectors(corpus)
        if self.settings.semantic and bundled.is_dir() and not self.vector_dir.exists():
            shutil.copytree(bundled, self.vector_dir)
        return True

    def stats(self) -> dict[str, Any]:
        """The database's counts, recomputed only when the data or the people changed.

        Counting every venue-year takes most of a second on a large database, and every visit of
        /stats or /api/stats would pay it; the counts only move when an ingest commits.
        """
        store = self.store()
        version = (store.data_version(), store.meta("people_version"))
        memo = self._stats
        if memo is None or memo[0] != version:
            memo = (version, store.stats())
            self._stats = memo
        return copy.deepcopy(memo[1])

    # -- vectors ---------------------------------------------------------------------------

    @property
    def vector_dir(self) -> Path:
        return self.settings.db_path.with_name(self.settings.db_path.name + ".vectors")

    def update_vectors(self, progress: bool | None = None) -> Any:
        """Embed the papers that are new or changed since the vectors were computed."""
        from paperfind.embed.build import build_vectors, tqdm_progress
        from paperfind.embed.runtime import make_embedder

        show = sys.stderr.isatty() if progress is None else progress
        return build_vectors(self.settings.db_path, self.vector_dir,
                             embedder=make_embedder(self.settings.embed_runtime, self.settings.embed_threads),
                             progress=tqdm_progress("embedding") if show else None)

    def update_vectors_in_background(self) -> threading.Thread | None:
        """Run `update_vectors` in a thread, so lexical search answers meanwhile."""
        if not self.settings.semantic:
            return None

        def work() -> None:
            try:
                stats = self.update_vectors(progress=False)
                print(f"paperfind: vectors up to date ({stats.embedded} embedded, "
                      f"{stats.reused} unchanged)", file=sys.stderr)
            except Exception as exc:  # semantic search is optional: say why, keep serving
                print(f"paperfind: vectors not updated: {exc}", file=sys.stderr)

        thread = threading.Thread(target=work, name="paperfind-vectors", daemon=True)
        thread.start()
        return thread

    # -- the index and search ------------------------------------------------------------

    def refresh_index(self, progress: bool | None = None) -> bool:
        """Rebuild the lexical index if it is older than the data; True if it was rebuilt."""
        from paperfind.index.manager import build_index, index_is_current

        store = self.store()
        if index_is_current(self.settings.index_dir, store.data_version()):
            return False
        build_index(store, self.settings.index_dir)
        return True

    def warm_up(self) -> None:
        """Load what the first queries would otherwise wait for: the index, the Chinese
        segmenter's dictionary (2 s) and, with vectors, the query model."""
        from paperfind.search.response import SearchRequest

        self.searcher().search(SearchRequest(q="模型 model", limit=1))

    def searcher(self) -> Any:
        """The shared searcher; it reloads the index by itself when a newer one appears."""
        from paperfind.search.engine import Searcher
        from paperfind.search.settings import SearchSettings

        with self._searcher_lock:
            if self._searcher is None:
                self._searcher = Searcher(self.store, self.settings.index_dir,
                                          SearchSettings(use_vectors=self.settings.semantic,
                                                         embed_runtime=self.settings.embed_runtime,
                                                         embed_threads=self.settings.embed_threads,
                                                         learned_ranking=self.settings.learned_ranking),
                                          vector_dir=self.vector_dir)
            return self._searcher


def bundled_vectors(corpus: Path) -> Path:
    """The vector directory shipped beside a bundled corpus file."""
    return corpus.with_name(corpus.name.split(".")[0] + ".vectors")
