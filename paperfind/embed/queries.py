"""Query vectors: for Chinese, the English rendering; the query as typed otherwise; with a cache.

On the development subset the multilingual model matched a Chinese query to its English paper
far less often than the same model given the word-by-word English rendering of the query
(R@10 .55 vs .92 at the words24 budget, bench/RESULTS.md, retired semantic_quality), and adding the Chinese
vector to the English one did not help (.88). So a fully translated query is embedded in English
only, which also halves its cost (~30 instead of ~64 ms on one core); when some Han segment has
no translation, the Chinese text is embedded too and the two vectors are summed. Repeated queries
(paging, facet clicks) are served from an LRU cache owned by the encoder object.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor

import numpy as np

from paperfind.embed.base import Embedder
from paperfind.text.fold import has_han
from paperfind.text.translate import ZhEnTranslator


class QueryEncoder:
    """Turns a query string into one unit query vector for the semantic route."""

    def __init__(self, embedder: Embedder, translator: ZhEnTranslator | None = None,
                 cache_size: int = 512) -> None:
        self.embedder = embedder
        self.translator = translator
        self.cache_size = cache_size
        self._cache: OrderedDict[str | tuple[str, int], np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    @property
    def has_run(self) -> bool:
        """Whether the model has embedded a query yet (its first run loads it)."""
        return bool(self._cache)

    def texts(self, query: str) -> list[str]:
        """What is embedded for `query` (see the module docstring)."""
        if self.translator is None or not has_han(query):
            return [query]
        translation = self.translator.translate(query)
        if not translation.english.strip():
            return [query]
        if translation.untranslated:
            return [query, translation.english]
        return [translation.english]

    def vector(self, query: str, max_tokens: int | None = None) -> np.ndarray:
        return self.job(query, max_tokens)()

    def job(self, query: str, max_tokens: int | None = None) -> Callable[[], np.ndarray]:
        """`query`'s vector as a call to make later, its Python part done now: the cache, the
        texts (a Chinese query's rendering) and, where the embedder can prepare them ahead
        (`prepare` / `embed_prepared`), their tokens. What is left runs without the GIL for the
        most part (the model run), so a worker thread given the job does not wait for the
        caller's thread to let go of it (`QueryPrefetch`).

        `max_tokens` overrides the embedder's own cap on a query's tokens for this query (0:
        every token; None: the embedder's), where the embedder has one (`prepare`'s); the
        vector is cached apart from the capped one of the same text."""
        query = " ".join(query.split())
        key: str | tuple[str, int] = query if max_tokens is None else (query, max_tokens)
        with self._lock:
            cached = self._cache.get(key)
            if cached is not None:
                self._cache.move_to_end(key)
                return lambda: cached
        texts = self.texts(query)
        prepare = getattr(self.embedder, "prepare", None)
        if prepare is None:
            return lambda: self._keep(key, self.embedder.embed(texts, query=True))
        prepared = prepare(texts, query=True) if max_tokens is None else \
            prepare(texts, query=True, max_tokens=max_tokens)
        return lambda: self._keep(key, self.embedder.embed_prepared(prepared))  # type: ignore[attr-defined]

    def _keep(self, query: str | tuple[str, int], rows: np.ndarray) -> np.ndarray:
        """The query's vector from its texts' rows (summed, unit length), kept in the cache."""
        vector = rows.sum(axis=0)
        norm = float(np.linalg.norm(vector))
        vector = (vector / norm if norm > 0 else vector).astype(np.float32)
        vector.setflags(write=False)
        with self._lock:
            self._cache[query] = vector
            while len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)
        return vector


class QueryPrefetch:
    """Query vectors started on a worker thread, to overlap the lexical route.

    The query embedding is most of a hybrid query's time (bench/RESULTS.md, retired vector_index); both
    runtimes run it in native code without the GIL, so the lexical route proceeds on the other
    core meanwhile. `take` then claims the result; unclaimed results are dropped after a few
    newer prefetches (and stay in the encoder's cache). Both backends' vector routes use it.
    """

    keep = 16
    # The most a `start` waits for an idle worker to take the job (seconds). On a free core the
    # worker takes it in ~0.1 ms; on a loaded machine it may not run for a while, and the
    # caller then goes on (a certain title never takes its vector, so its wait is all loss).
    handoff_s = 0.003

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pending: OrderedDict[str, Future] = OrderedDict()
        # text -> (what the follow-up was asked with, its future): `start_after`
        self._after: dict[str, tuple[object, Future]] = {}
        self._worker: ThreadPoolExecutor | None = None

    def start(self, text: str, encode: Callable[[str], np.ndarray]) -> None:
        """Submit `text`'s encoding (`start_job` of `encode(text)`)."""
        self.start_job(text, lambda: encode(text))

    def start_job(self, text: str, job: Callable[[], np.ndarray]) -> None:
        """Submit `job`, the making of `text`'s vector, and, when the worker is idle, wait until
        it has taken it.

        The worker needs the GIL to take the job, and to run whatever Python the job holds,
        before the model runs without it. The caller goes on with the lexical route, in
        Python too, and would keep the GIL for the interpreter's switch interval (5 ms) before
        the worker got it: profiled on the bundled corpus, the job waited 2-4 ms at p50 and
        6-12 ms at p90 before it began (bench/RESULTS.md, issue 33, fast33d). Waiting here
        (without the GIL) lets it begin at once; the caller then resumes when the model run
        releases the GIL, which is at once for a job whose Python part was done ahead
        (`QueryEncoder.job`). A busy worker (another query's embedding) is not waited for."""
        with self._lock:
            if text in self._pending:
                return
            if self._worker is None:
                self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="paperfind-embed")
            idle = all(f.done() for f in self._pending.values())
            taken = threading.Event()
            self._pending[text] = self._worker.submit(_signalled, taken, job)
            while len(self._pending) > self.keep:
                self._after.pop(self._pending.popitem(last=False)[0], None)
        if idle:
            taken.wait(self.handoff_s)

    def start_prepared(self, text: str, encoder: QueryEncoder) -> None:
        """Start `text`'s vector with its Python part done here, on the caller's thread
        (`QueryEncoder.job`: the cache, a Chinese rendering, the tokens), so that the worker
        has only the model run; nothing when it was started already (its tokens are not made
        again)."""
        if not self.started(text):
            self.start_job(text, encoder.job(text))

    def started(self, text: str) -> bool:
        """Whether `text`'s vector was started and not yet taken (a second start is a no-op)."""
        with self._lock:
            return text in self._pending

    def pending(self, text: str) -> bool:
        """Whether `text`'s vector was started and is not made yet (what the caller could do
        meanwhile without delaying its answer; its follow-up, `start_after`, is short)."""
        with self._lock:
            future = self._pending.get(text)
        return future is not None and not future.done()

    def start_after(self, text: str, asked: object, follow: Callable[[np.ndarray], object]) -> None:
        """Run `follow(vector)` on the worker as soon as `text`'s started vector is made,
        remembered with `asked` (what the follow-up was asked with, for `take_after`); nothing
        when `text` was not started.

        Why: the vector's nearest papers (an HNSW search, ~2.5 ms at 156k papers, native code
        without the GIL) were searched by the caller after it took the vector, while the worker's
        core idled; a caller still drafting cards when the vector is made now finds its
        neighbours searched meanwhile. The worker runs one job at a time, in order, so the
        follow-up begins when the vector is made."""
        with self._lock:
            future = self._pending.get(text)
            if future is None or self._worker is None or text in self._after:
                return
            self._after[text] = (asked, self._worker.submit(lambda: follow(future.result())))

    def take_after(self, text: str, same: Callable[[object], bool]) -> object | None:
        """The result of `text`'s follow-up (waited for) when it was asked with what `same`
        accepts, its vector then taken too; None otherwise (the vector is left to `take`)."""
        with self._lock:
            asked, future = self._after.pop(text, (None, None))
            if future is None or not same(asked):
                return None
            self._pending.pop(text, None)
        return future.result()

    def take(self, text: str, encode: Callable[[str], np.ndarray]) -> np.ndarray:
        """The vector of `text`: the prefetched one if it was started, else encoded now."""
        with self._lock:
            future = self._pending.pop(text, None)
            self._after.pop(text, None)
        return future.result() if future is not None else encode(text)


def _signalled(taken: threading.Event, job: Callable[[], np.ndarray]) -> np.ndarray:
    """`job()`, saying first that the worker has taken it (`QueryPrefetch.start_job`)."""
    taken.set()
    return job()
