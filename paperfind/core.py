"""The application object: one `Paperfind` built from explicit settings, used by the CLI and the web.

It wires the pipeline stages together (ingest → store → index → search) and owns nothing global:
two `Paperfind` objects with different settings can live in one process.
"""

from __future__ import annotations

import contextlib
import copy
import json
import os
import shutil
import sys
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from paperfind.catalog.venues import display_name
from paperfind.ingest.corpus import PENDING_META, corpus_files, first_and_rest, shard_venue_year
from paperfind.settings import Settings
from paperfind.store import Store
from paperfind.store import reviews as review_rows

if TYPE_CHECKING:  # the readers and the resolver load on the first ingest, not for a CLI search
    from paperfind.ingest.run import IngestReport


# beside the vectors: the store's data version `update_vectors` last completed for
VECTORS_SYNCED_FILE = "SYNCED"
# One query of each kind the search tells apart (a title, a name, Chinese, a question, a
# filter alone), each on a route of its own: the warm-up runs them all (`Paperfind.warm_up`).
WARM_UP_QUERIES = ("attention is all you need", "Geoffrey Hinton", "大语言模型的推理能力",
                   "why does batch normalization make training faster?", "venue:icml year:2020",
                   "author:bengio year:2019 graph")


class Paperfind:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._local = threading.local()
        self._searcher_lock = threading.Lock()
        self._searcher: Any = None
        self._milvus: Any = None
        self._milvus_lock = threading.Lock()
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
               build_index: bool = True, vectors: bool = True,
               texts_ahead: Any = None) -> IngestReport:
        """Ingest files, then bring the search index (and existing vectors) in step.

        `texts_ahead`: a `paperfind.index.ahead.TextsAhead` of these files, for the index."""
        from paperfind.ingest.run import ingest_paths
        report = ingest_paths(self.store(), paths, force=force, progress=progress,
                              jobs=self.settings.ingest_jobs)
        if build_index:
            started = time.perf_counter()
            self.refresh_index(progress=progress, texts_ahead=texts_ahead)
            report.timings["index"] = time.perf_counter() - started
        if vectors and self.settings.semantic and (self.settings.vector_dir / "CURRENT").exists() \
                and report.changed:
            self.update_vectors(progress=progress)
        return report

    def ensure_database(self, progress: bool | None = None, vectors: bool = True) -> bool:
        """Build the database from the bundled corpus when there is none; True if it was built.

        The bundled corpus ships with its vectors, which are copied beside the new database so
        semantic search works at once; `update_vectors` later embeds only what changed. With
        `vectors=False` they are left to `update_vectors_in_background` (`serve`: the port opens
        seconds sooner, and lexical search answers until they are in).
        """
        db = self.settings.db_path
        if db.exists():
            with Store(db) as existing:
                papers = existing.paper_count()
            if papers > 0:
                self.add_bundled_reviews()
                self.refresh_index(progress=progress)
                return False
        corpus = self.settings.corpus_path
        if not corpus.exists():
            raise FileNotFoundError(f"no database at {db} and no bundled corpus at {corpus}")
        first, rest = first_and_rest(corpus_files(corpus))
        if not first:
            raise FileNotFoundError(f"no database at {db} and no corpus files in {corpus}")
        print(f"paperfind: building {db} from {corpus.name} (first start only"
              + (f"; {len(rest)} of its {len(first) + len(rest)} files follow in the background"
                 if rest else "") + ")...", file=sys.stderr, flush=True)
        started = time.perf_counter()
        ahead = None
        if self.settings.ingest_jobs > 1 and all(p.name.endswith((".jsonl", ".jsonl.gz")) for p in first):
            from paperfind.index.ahead import TextsAhead

            # the index's text analysis, on the other core; the papers' names wait for the
            # index of the whole corpus when part of it follows in the background
            ahead = TextsAhead(first, names=not rest)
        try:
            report = self._build_database(first, progress, ahead, pending=rest)
        finally:
            if ahead is not None:
                ahead.close()
        if vectors:
            copied = time.perf_counter()
            self.copy_bundled_vectors()
            report.timings["vector copy"] = time.perf_counter() - copied
        papers = self.store().paper_count()
        # one line a person (or bench/first_minute.py) can read the first start's time from
        print(f"paperfind: built {papers} papers in {time.perf_counter() - started:.1f} s ("
              + ", ".join(f"{name} {seconds:.1f} s" for name, seconds in report.timings.items())
              + ")", file=sys.stderr, flush=True)
        return True

    def add_bundled_reviews(self) -> int:
        """The bundled corpus's review scores for a database built before they shipped: each
        side file whose shard is one of its sources (the file beside it, or this corpus's shard
        of the same name and content, for a database built in another clone), written into the
        reviews table once (a database with bundled scores, or built from another corpus, is
        left as it is); the index sees a new data version. Returns how many papers gained scores."""
        from paperfind.ingest.run import file_sha256

        store = self.store()
        if store.conn.execute("SELECT 1 FROM reviews WHERE origin = ? LIMIT 1",
                              (review_rows.BUNDLED,)).fetchone():
            return 0
        corpus = self.settings.corpus_path
        sides = []
        for path, sha in store.conn.execute("SELECT path, sha256 FROM sources"):
            side = review_rows.side_file_of(Path(path))
            here = corpus / Path(path).name if corpus.is_dir() else None
            if side is None and here is not None and review_rows.side_file_of(here) is not None \
                    and file_sha256(here) == sha:
                side = review_rows.side_file_of(here)
            if side is not None:
                sides.append(side)
        if not sides:
            return 0
        added = sum(review_rows.write_bundled(store.conn, side) for side in sides)
        version = str(store.data_version())
        store.set_meta("data_version", str(int(version) + 1))
        if store.meta("people_version") == version:  # no person changed: not resolved again
            store.set_meta("people_version", str(int(version) + 1))
        return added

    def copy_bundled_vectors(self) -> bool:
        """The vectors shipped with the corpus, beside a database that has none: a generation
        folder copied as it is, or a shard folder assembled into one (`index.vector_shards`),
        made aside and moved into place, so a search never sees half of them. True if copied."""
        target = self.settings.vector_dir
        bundled = self.settings.bundled_vector_dir
        if not self.settings.semantic or target.exists() or not bundled.is_dir():
            return False
        partial = target.with_name(target.name + ".partial")
        shutil.rmtree(partial, ignore_errors=True)
        if (bundled / "CURRENT").exists():
            shutil.copytree(bundled, partial)
        else:
            from paperfind.index.vector_shards import assemble, base_of

            assemble(bundled, base_of(bundled), partial)
        os.replace(partial, target)
        return True

    def pending_corpus(self) -> list[Path]:
        """The corpus files a first start left to the background, not yet ingested."""
        raw = self.store().meta(PENDING_META)
        return [Path(p) for p in json.loads(raw)["pending"]] if raw else []

    def indexing_status(self) -> dict[str, Any] | None:
        """What of the corpus is still being indexed in the background, for /stats and the
        home page ("CVPR 2013-2025: indexing, 40%"); None once everything is in."""
        raw = self.store().meta(PENDING_META)
        if not raw:
            return None
        state = json.loads(raw)
        pending = state["pending"]
        spans: dict[str, list[int]] = {}  # what the background adds, until its index is current
        for venue, year in (vy for vy in map(shard_venue_year, map(Path, state.get("deferred", pending)))
                            if vy is not None):
            spans.setdefault(venue, []).append(year)
        total = max(int(state.get("total", len(pending))), 1)
        names = self.store().venue_names()
        return {"files_pending": len(pending), "files_total": total,
                "done_percent": round(100 * (total - len(pending)) / total),
                "venues": [{"venue": v, "venue_name": names.get(v) or display_name(v),
                            "years": [min(ys), max(ys)]} for v, ys in sorted(spans.items())]}

    def complete_corpus(self, progress: bool | None = False) -> int:
        """Ingest the corpus files a first start deferred (`ingest.corpus`), telling /stats how
        far it is after each, then build the index's next generation; returns how many files
        were left. A restart resumes: files already in are unchanged and skipped."""
        store = self.store()
        raw = store.meta(PENDING_META)
        if not raw:
            return 0
        state = json.loads(raw)
        pending = [Path(p) for p in state["pending"]]  # empty after a stop between files and index
        left = [str(p) for p in pending]

        def ingested(path: Path) -> None:  # one shard is in: /stats can say how far it is
            name = str(Path(path).resolve())
            if name in left:
                left.remove(name)
            store.set_meta(PENDING_META, json.dumps({**state, "pending": left}))

        # one ingest for all: people are resolved once at its end, not once a shard; one
        # process, since the other core answers queries meanwhile
        from paperfind.ingest.run import ingest_paths
        ingest_paths(store, [p for p in pending if p.exists()], progress=progress, jobs=1,
                     on_file=ingested)
        self.refresh_index(progress=progress)
        store.set_meta(PENDING_META, "")  # the next generation of the index is current
        return len(pending)

    def _build_database(self, corpus: list[Path], progress: bool | None, ahead: Any,
                        pending: list[Path] = ()) -> IngestReport:
        """Ingest `corpus` (and resolve its people) into a new file beside the database, put it
        in place, and index it: until the file is in place there is no database, so a kill or a
        failure leaves none half-built, and the next start builds again.

        With `ahead` (a `TextsAhead` of the corpus), its worker writes the index's text files
        while this process resolves people, then writes the others."""
        from paperfind.index.ahead import PeopleFilesAhead
        from paperfind.index.builder import build_into
        from paperfind.index.manager import generations
        from paperfind.ingest.readahead import gc_paused

        db = self.settings.db_path
        building = db.with_name(db.name + ".building")
        for stale in (building, Path(f"{building}-journal"), Path(f"{building}-wal"),
                      Path(f"{building}-shm")):
            stale.unlink(missing_ok=True)  # a build that was killed
        old = getattr(self._local, "store", None)
        if old is not None:  # a database without papers, replaced below
            old.close()
            self._local.store = None
        store = Store(building, building=True)
        with contextlib.ExitStack() as index_build:
            target: Path | None = None

            def written() -> None:  # the corpus is in the store; its people are not yet
                nonlocal target
                if ahead is None:
                    return
                store.conn.execute("PRAGMA journal_mode=WAL")  # the worker reads meanwhile
                target = index_build.enter_context(generations(self.settings.index_dir).write())
                ahead.build_text_files(building, target)

            try:
                from paperfind.ingest.run import ingest_paths
                report = ingest_paths(store, list(corpus), progress=progress,
                                      jobs=self.settings.ingest_jobs, on_written=written)
                if pending:  # in the file, before it is put in place: a start killed later resumes
                    store.set_meta(PENDING_META, json.dumps(
                        {"total": len(pending), "deferred": [p.name for p in pending],
                         "pending": [str(p.resolve()) for p in pending]}))
                started = time.perf_counter()
                if ahead is not None:
                    ahead.store_read()  # its connection is closed before the file moves
                store.finish_building(db)
                report.timings["store writes"] = (report.timings.get("store writes", 0.0)
                                                  + time.perf_counter() - started)
            except BaseException:
                store.close()
                building.unlink(missing_ok=True)
                raise
            started = time.perf_counter()
            if target is None:
                self.refresh_index(progress=progress)
            else:
                # people are resolved: a second worker writes the index's files that name them
                # (the texts' worker is still writing its own) while this process loads what
                # the first queries need besides the index, which it would otherwise load
                # after the build (`warm_up`)
                people = PeopleFilesAhead(db, target)
                try:
                    if self.settings.backend == "local":
                        loading = time.perf_counter()
                        self.searcher().load_parts()
                        report.timings["search parts"] = time.perf_counter() - loading
                    with gc_paused():  # as `build_index`
                        build_into(self.store(), target, text_files_written=ahead.text_files,
                                   people_files_written=people.result,
                                   jobs=self.settings.index_jobs)
                finally:
                    people.close()
                report.timings["index waited"] = ahead.waited + people.waited
        report.timings["index"] = time.perf_counter() - started  # with the index made current
        return report

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
        result = copy.deepcopy(memo[1])
        result["indexing"] = self.indexing_status()
        return result

    # -- vectors ---------------------------------------------------------------------------

    def update_vectors(self, progress: bool | None = None) -> Any:
        """Embed the papers that are new or changed since the vectors were computed."""
        from paperfind.embed.build import build_vectors, tqdm_progress
        from paperfind.embed.runtime import make_embedder

        show = sys.stderr.isatty() if progress is None else progress
        version = self.store().data_version()
        stats = build_vectors(self.settings.db_path, self.settings.vector_dir,
                              embedder=make_embedder(self.settings.embed_runtime, self.settings.embed_threads),
                              progress=tqdm_progress("embedding") if show else None,
                              ann_threads=self.settings.ann_threads)
        (self.settings.vector_dir / VECTORS_SYNCED_FILE).write_text(
            f"{version} {self._vector_generation()}\n", encoding="utf-8")
        return stats

    def update_vectors_in_background(self) -> threading.Thread | None:
        """Run `update_vectors` in a thread, so search answers meanwhile (exactly, until the
        HNSW graph is built); skipped when the vectors were brought up to date with this very
        data before, as on every restart without an ingest between."""
        if not self.settings.semantic:
            return None

        def work() -> None:
            try:
                if self.copy_bundled_vectors() and self._searcher is not None:
                    self._searcher.backend()  # semantic search from now on
                self._complete_corpus_reporting()
                if self.vectors_are_synced():
                    return
                started = time.perf_counter()
                stats = self.update_vectors(progress=False)
                if self._searcher is not None:
                    self._searcher.backend()  # load the new vectors and graph here, not in a request
                print(f"paperfind: vectors up to date in {time.perf_counter() - started:.1f} s "
                      f"({stats.embedded} embedded, {stats.reused} unchanged, with their graph "
                      "where there are enough)", file=sys.stderr, flush=True)
            except Exception as exc:  # semantic search is optional: say why, keep serving
                print(f"paperfind: vectors not updated: {exc}", file=sys.stderr)

        thread = threading.Thread(target=work, name="paperfind-vectors", daemon=True)
        thread.start()
        return thread

    def _complete_corpus_reporting(self) -> None:
        """`complete_corpus`, saying on stderr what it did (the background of `serve`)."""
        if not self.store().meta(PENDING_META):
            return
        started = time.perf_counter()
        try:
            done = self.complete_corpus()
        except Exception as exc:  # the portal keeps serving what is in; the next start retries
            print(f"paperfind: the rest of the corpus was not indexed: {exc}", file=sys.stderr, flush=True)
            return
        if self._searcher is not None:
            self._searcher.backend()  # switch to the new index generation here, not in a request
        print(f"paperfind: the rest of the corpus indexed in {time.perf_counter() - started:.1f} s "
              f"({done} files, {self.store().paper_count()} papers in all)", file=sys.stderr, flush=True)

    def vectors_are_synced(self) -> bool:
        """Whether `update_vectors` last completed for the store's current data and left the
        vector generation that is current now (with its graph, when it built one)."""
        try:
            synced = (self.settings.vector_dir / VECTORS_SYNCED_FILE).read_text(encoding="utf-8").split()
        except FileNotFoundError:
            return False
        return synced == [str(self.store().data_version()), self._vector_generation()]

    def _vector_generation(self) -> str:
        try:
            return (self.settings.vector_dir / "CURRENT").read_text(encoding="utf-8").strip()
        except FileNotFoundError:
            return "-"

    # -- Milvus ----------------------------------------------------------------------------

    def milvus(self) -> Any:
        """The connection to the Milvus of the settings (made once; connects on first use)."""
        from paperfind.milvus.client import MilvusConnection

        with self._milvus_lock:
            if self._milvus is None:
                self._milvus = MilvusConnection(self.settings.milvus_uri, self.settings.milvus_token)
            return self._milvus

    def sync_milvus(self, progress: bool | None = None, force: bool = False,
                    batch_rows: int = 1000) -> Any:
        """Push the store and its vectors into this database's Milvus collection (new, changed
        and removed papers only; see paperfind.milvus.sync)."""
        from paperfind.embed.build import tqdm_progress
        from paperfind.milvus.sync import sync_store

        show = sys.stderr.isatty() if progress is None else progress
        vectors = self.settings.vector_dir if self.settings.semantic else None
        return sync_store(self.store(), self.milvus(), self.settings.collection, vectors,
                          batch_rows=batch_rows, progress=tqdm_progress("milvus sync") if show else None,
                          force=force)

    def backend_status(self) -> dict[str, Any]:
        """Which engine answers searches and whether it answers now (for /api/stats)."""
        if self.settings.backend != "milvus":
            return {"search": "local-index", "healthy": True}
        # not its URI: the address of an internal service is not the public's to read
        return {"search": "milvus", "healthy": self.milvus().healthy(),
                "collection": self.settings.collection}

    # -- the index and search ------------------------------------------------------------

    def refresh_index(self, progress: bool | None = None, texts_ahead: Any = None) -> bool:
        """Rebuild the lexical index if it is older than the data; True if it was rebuilt."""
        from paperfind.index.manager import build_index, index_is_current

        store = self.store()
        if index_is_current(self.settings.index_dir, store.data_version()):
            return False
        build_index(store, self.settings.index_dir,
                    texts_ahead.result() if texts_ahead is not None else None,
                    jobs=self.settings.index_jobs)
        store.store_coverage()  # what venue pages and /stats say the data holds, counted once
        return True

    def warm_up(self) -> dict[str, bool]:
        """Load and run once what the first query of each kind would otherwise wait for, so
        that "serving" means ready: the index, jieba's dictionary, the zh→en translator and,
        with vectors, the vectors, their HNSW graph and the query model (a first Chinese query
        took 1.5-4 s without this, a first title 0.2-0.5 s). The expert finder's parts are not
        among them: `warm_experts_in_background`. Returns `warm_state()`."""
        from paperfind.search.response import SearchRequest

        searcher = self.searcher()
        searcher.warm_for_serving()  # a server answers many queries: the compiled kernel pays
        try:
            for query in WARM_UP_QUERIES:
                searcher.search(SearchRequest(q=query, limit=10))
        except Exception as exc:
            from paperfind.milvus.client import MilvusUnavailable

            if not isinstance(exc, MilvusUnavailable):
                raise
            # the portal still starts: its pages say search is unavailable (503) until Milvus is back
            print(f"paperfind: {exc}; searches answer 503 until it is reachable", file=sys.stderr, flush=True)
        store = self.store()
        store.paper_count()
        store.venue_names()
        return self.warm_state()

    def warm_experts_in_background(self) -> threading.Thread:
        """Make the expert finder's people and rare word pairs on a thread (3-5 s at the bundled
        corpus's size): a server starts it as its port opens, so that neither its readiness nor
        a search waits for parts only /api/experts reads, and the first /api/experts does not
        make them itself (one that comes before they are done makes them too)."""

        def work() -> None:
            try:
                self.searcher().load_experts()
            except Exception as exc:  # the expert finder makes them on first use instead
                print(f"paperfind: the expert finder's parts were not made at start-up: {exc}",
                      file=sys.stderr, flush=True)

        thread = threading.Thread(target=work, name="paperfind-experts", daemon=True)
        thread.start()
        return thread

    def warm_state(self) -> dict[str, bool]:
        """Which parts the first queries need are loaded (see `Searcher.warm_state`)."""
        searcher = self._searcher
        return searcher.warm_state() if searcher is not None else {"index": False}

    def searcher(self) -> Any:
        """The shared searcher; it reloads the index by itself when a newer one appears. Once
        made it is returned without the lock and the imports that make it (~10 µs of every
        request: issue 33, http33); it is never replaced."""
        searcher = self._searcher
        if searcher is not None:
            return searcher
        from paperfind.text.translate import ZhEnTranslator
        from paperfind.search.engine import Searcher
        from paperfind.search.live import LiveIndex

        with self._searcher_lock:
            if self._searcher is None:
                settings = self.settings.searcher_settings()
                translator = ZhEnTranslator()  # the process's one: both query routes share it
                if self.settings.backend == "milvus":
                    from paperfind.milvus.live import MilvusLive

                    # the local index gives the vocabulary and people tables; papers, vectors
                    # and counts come from the collection (paperfind.milvus.backend)
                    lookups = LiveIndex(self.settings.index_dir, store=self.store, vector_dir=None,
                                        settings=settings, translator=translator)
                    live: Any = MilvusLive(self.milvus(), self.settings.collection, lookups,
                                           use_vectors=self.settings.semantic,
                                           embed_runtime=self.settings.embed_runtime,
                                           embed_threads=self.settings.embed_threads,
                                           query_form=settings.query_form,
                                           query_max_tokens=settings.query_max_tokens,
                                           translator=translator,
                                           first_stage=self.settings.milvus_first_stage)
                else:
                    live = LiveIndex(self.settings.index_dir, store=self.store,
                                     vector_dir=self.settings.vector_dir, settings=settings, translator=translator)
                self._searcher = Searcher(live, translator, settings)
            return self._searcher
