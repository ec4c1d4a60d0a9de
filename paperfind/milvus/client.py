"""Talking to a Milvus server: one connection per URI, errors turned into ours, a health probe.

`uri` is what pymilvus takes: `http://host:19530` (Milvus Standalone or Distributed, or a
`milvus-lite server`), or a local path ending in `.db`, which starts Milvus Lite in this process
on that directory. Every call has a timeout: a server that is down answers `MilvusUnavailable`
within it instead of hanging a request, and a server that timed out once is taken as down:
later calls fail at once while a probe in the background waits for it to answer again (a hung
server cost every request, and /api/stats, seconds of waiting).
"""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")
CALL_TIMEOUT_S = 10.0  # one search, query or upsert batch
HEALTH_TIMEOUT_S = 2.0
PROBE_INTERVAL_S = 1.0  # how often a server taken as down is tried again, in the background
# loading a collection builds its indexes in memory: 88k papers took Milvus Lite over 10 s after
# a sync's flush (bench/milvus.py), a cluster loading millions of rows takes minutes
LOAD_TIMEOUT_S = 600.0


class MilvusUnavailable(RuntimeError):
    """The Milvus server cannot be reached (down, refused, timed out). The web answers 503."""


class MilvusError(RuntimeError):
    """Milvus answered, but refused what we asked (a schema it does not support, ...)."""


def _is_unreachable(exc: BaseException) -> bool:
    code = getattr(exc, "code", None)
    text = str(exc).lower()
    return code in (2, 1) or any(w in text for w in (
        "unavailable", "connect", "deadline", "timed out", "timeout", "refused", "closed channel"))


def _is_timeout(exc: BaseException) -> bool:
    """A call that waited its whole timeout: the server is there but does not answer (hung,
    overloaded). A refused connection fails at once and needs no fast path."""
    text = str(exc).lower()
    return getattr(exc, "code", None) == 4 or any(w in text for w in ("deadline", "timed out", "timeout"))


def describe(uri: str) -> str:
    """The URI as it may be shown (a token in it is not)."""
    head, sep, tail = uri.partition("@")
    return tail if sep and "//" in head else uri


class CallLog:
    """Engine calls made through one connection: how many of each method, and their seconds
    (wall, as the client waits for them). Read by bench/milvus.py's profile and by the tests
    that keep the calls per search bounded."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        self.seconds: Counter[str] = Counter()
        self._lock = threading.Lock()

    def add(self, method: str, seconds: float) -> None:
        with self._lock:
            self.counts[method] += 1
            self.seconds[method] += seconds

    def snapshot(self) -> tuple[Counter, Counter]:
        with self._lock:
            return Counter(self.counts), Counter(self.seconds)


class MilvusConnection:
    """A pymilvus client for one URI, made on first use, with our error types and timeouts."""

    def __init__(self, uri: str, token: str = "") -> None:
        self.uri = uri
        self._token = token
        self._client: Any = None
        self.last_error = ""
        self.log = CallLog()
        self._down = threading.Event()  # set from a timeout until a probe is answered
        self._probe_lock = threading.Lock()

    def client(self) -> Any:
        if self._client is None:
            try:
                from pymilvus import MilvusClient
            except ImportError:  # the extra is not installed
                raise MilvusError("pymilvus is not installed: pip install 'paperfind[milvus]'") from None
            # pymilvus logs every failed call with its traceback (and query iterators warn about
            # timestamps); the failures reach the caller as our errors, said once
            logging.getLogger("pymilvus").setLevel(logging.CRITICAL)
            kwargs = {"token": self._token} if self._token else {}
            for attempt in (1, 2):
                try:
                    self._client = MilvusClient(uri=self.uri, timeout=HEALTH_TIMEOUT_S, **kwargs)
                    break
                except Exception as exc:
                    # gRPC shares a subchannel between clients of one address: one the server
                    # sent a GOAWAY on (too_many_pings from an idle client) fails a new connect
                    # once, and the next connect is clean
                    if attempt == 2 or not _is_unreachable(exc):
                        raise self._error(exc) from None
                    time.sleep(0.2)
        return self._client

    def call(self, method: str, *args: Any, **kwargs: Any) -> Any:
        """`client.method(*args, **kwargs)` with a timeout; failures as our two error types."""
        kwargs.setdefault("timeout", CALL_TIMEOUT_S)
        if self._down.is_set():
            raise MilvusUnavailable(self.last_error or f"Milvus at {describe(self.uri)} does not answer")
        client = self.client()
        started = time.perf_counter()
        try:
            return getattr(client, method)(*args, **kwargs)
        except Exception as exc:
            released = "load()" in str(exc) or "not loaded" in str(exc).lower()
            if not (released and args and method != "load_collection"):
                raise self._error(exc) from None
        finally:
            self.log.add(method, time.perf_counter() - started)
        # a server that restarted holds the collection released (Milvus Lite does): load, retry
        self.load(args[0])
        started = time.perf_counter()
        try:
            return getattr(client, method)(*args, **kwargs)
        except Exception as exc:
            raise self._error(exc) from None
        finally:
            self.log.add(method, time.perf_counter() - started)

    def retrying(self, fn: Callable[[], T], attempts: int = 3, pause_s: float = 1.0) -> T:
        """`fn()`, tried again after a pause when the server was unreachable (sync batches)."""
        for attempt in range(attempts):
            try:
                return fn()
            except MilvusUnavailable:
                if attempt == attempts - 1:
                    raise
                time.sleep(pause_s * (attempt + 1))
        raise AssertionError("unreachable")

    def load(self, collection: str) -> None:
        """Load `collection` for search (a server keeps it loaded; a new Milvus Lite process
        starts with it released)."""
        self.call("load_collection", collection, timeout=LOAD_TIMEOUT_S)

    def healthy(self) -> bool:
        """Whether the server answers now (one cheap call, `HEALTH_TIMEOUT_S` at most; none
        while it is taken as down)."""
        if self._down.is_set():
            return False
        try:
            self.call("list_collections", timeout=HEALTH_TIMEOUT_S)
        except (MilvusUnavailable, MilvusError) as exc:
            self.last_error = str(exc)
            return False
        self.last_error = ""
        return True

    def _error(self, exc: BaseException) -> RuntimeError:
        message = getattr(exc, "message", "") or str(exc)
        if _is_unreachable(exc):
            self.last_error = f"Milvus at {describe(self.uri)} is unreachable: {message}"
            if _is_timeout(exc):
                self._taken_down()
            return MilvusUnavailable(self.last_error)
        return MilvusError(f"Milvus at {describe(self.uri)}: {message}")

    def _taken_down(self) -> None:
        """From now on calls fail at once; a daemon thread tries the server every
        `PROBE_INTERVAL_S` and lets calls through again when it answers."""
        with self._probe_lock:
            if self._down.is_set():
                return
            self._down.set()
        threading.Thread(target=self._probe_until_up, name="milvus-probe", daemon=True).start()

    def _probe_until_up(self) -> None:
        while self._down.is_set():
            time.sleep(PROBE_INTERVAL_S)
            try:
                self.client().list_collections(timeout=HEALTH_TIMEOUT_S)
            except Exception:
                continue
            self.last_error = ""
            self._down.clear()

    def close(self) -> None:
        if self._client is not None:
            try:
                self._client.close()
            except Exception:
                pass
            self._client = None
