"""The application object: one `Paperfind` built from explicit settings, used by the CLI and the web.

It wires the pipeline stages together (ingest → store → index → search) and owns nothing global:
two `Paperfind` objects with different settings can live in one process.
"""

from __future__ import annotations

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

    # -- the database --------------------------------------------------------------------

    def store(self) -> Store:
        """This thread's connection to the database (SQLite connections stay in one thread)."""
        store = getattr(self._local, "store", None)
        if store is None:
            store = Store(self.settings.db_path)
            self._local.store = store
        return store

    def ingest(self, paths: list[Path], force: bool = False, progress: bool | None = None,
               build_index: bool = True) -> IngestReport:
        """Ingest files, then bring the search index in step with the database."""
        report = ingest_paths(self.store(), paths, force=force, progress=progress)
        if build_index:
            self.refresh_index(progress=progress)
        return report

    def ensure_database(self, progress: bool | None = None) -> bool:
        """Build the database from the bundled corpus when there is none; True if it was built."""
        db = self.settings.db_path
        if db.exists() and Store(db).paper_count() > 0:
            self.refresh_index(progress=progress)
            return False
        corpus = self.settings.corpus_path
        if not corpus.exists():
            raise FileNotFoundError(f"no database at {db} and no bundled corpus at {corpus}")
        print(f"paperfind: building {db} from {corpus.name} (first start only)...",
              file=sys.stderr)
        self.ingest([corpus], progress=progress)
        return True

    # -- the index and search ------------------------------------------------------------

    def refresh_index(self, progress: bool | None = None) -> bool:
        """Rebuild the lexical index if it is older than the data; True if it was rebuilt."""
        from paperfind.index.manager import build_index, index_is_current

        store = self.store()
        if index_is_current(self.settings.index_dir, store.data_version()):
            return False
        build_index(store, self.settings.index_dir)
        return True

    def searcher(self) -> Any:
        """The shared searcher; it reloads the index by itself when a newer one appears."""
        from paperfind.search.engine import Searcher

        with self._searcher_lock:
            if self._searcher is None:
                self._searcher = Searcher(self.store, self.settings.index_dir)
            return self._searcher
