"""One side of `bench.parity`: paperfind of one source tree, answering the parent over stdin/stdout.

Run as a file (`python -P bench/parity_worker.py`) with the tree under test first on PYTHONPATH, so
`import paperfind` is that tree's code. It uses only the entry points that every layout of
paperfind has kept (the `PAPERFIND_*` environment, `Settings.from_env`, `Paperfind`,
`Paperfind.ingest`/`refresh_index`/`searcher`, `searcher.search(SearchRequest)` and its JSON
contract); `_compat` is the one place that knows where a name moved. Standard library and
paperfind only: nothing of the bench package is imported here.

Protocol: one JSON object a line each way. Requests: {"op": "ingest", "files": [...]},
{"op": "open"}, {"op": "rank", "queries": [[qid, text], ...], "mode", "limit"},
{"op": "time", "queries": [text, ...], "mode", "limit"}, {"op": "embed"},
{"op": "similar", "items": [[qid, key, aspect or null], ...], "limit", "timed"}, {"op": "quit"}. The database is
$PAPERFIND_DB; every reply is {"ok": true, ...} or {"ok": false, "error": "..."}.
"""

from __future__ import annotations

import json
import os
import sys
import time
import traceback
from pathlib import Path


def _compat_request():
    """`SearchRequest`, wherever this tree defines it."""
    for module in ("paperfind.search.response", "paperfind.search.engine", "paperfind.search"):
        try:
            return getattr(__import__(module, fromlist=["SearchRequest"]), "SearchRequest")
        except (ImportError, AttributeError):
            continue
    raise ImportError("no SearchRequest in paperfind.search")


class Side:
    def __init__(self) -> None:
        from paperfind.core import Paperfind
        from paperfind.settings import Settings

        self.app = Paperfind(Settings.from_env())
        self.request = _compat_request()
        self.searcher = None

    def ingest(self, files: list[str]) -> dict:
        started = time.perf_counter()
        report = self.app.ingest([Path(f) for f in files], progress=False, vectors=False)
        return {"seconds": time.perf_counter() - started, "changed": bool(getattr(report, "changed", True))}

    def open(self) -> dict:
        import paperfind

        started = time.perf_counter()
        self.app.refresh_index(progress=False)
        indexed = time.perf_counter() - started
        self.searcher = self.app.searcher()
        cache = getattr(self.searcher, "cache", None)
        cache_off = cache is not None and hasattr(cache, "size")
        if cache_off:
            cache.size = 0  # time the search, not the response cache
        warm = self.app.warm_up() if hasattr(self.app, "warm_up") else {}
        return {"paperfind": str(Path(paperfind.__file__).resolve().parent),
                "papers": self.app.store().paper_count(), "index_seconds": indexed, "cache_off": cache_off,
                "warm": {k: bool(v) for k, v in warm.items()}}

    def _search(self, text: str, mode: str, limit: int) -> dict:
        return self.searcher.search(self.request(q=text, limit=limit, mode=mode)).to_json()

    def rank(self, queries: list[list[str]], mode: str, limit: int) -> dict:
        ranked, modes = {}, {}
        for qid, text in queries:
            found = self._search(text, mode, limit)
            ranked[qid] = [r["key"] for r in found["results"]]
            modes[found.get("mode", mode)] = modes.get(found.get("mode", mode), 0) + 1
        return {"ranked": ranked, "modes": modes}

    def time(self, queries: list[str], mode: str, limit: int) -> dict:
        out = []
        for text in queries:
            started = time.perf_counter()
            self._search(text, mode, limit)
            out.append((time.perf_counter() - started) * 1000)
        return {"ms": out}


    def embed(self) -> dict:
        stats = self.app.update_vectors(progress=False)
        return {"embedded": int(getattr(stats, "embedded", -1)), "reused": int(getattr(stats, "reused", -1))}

    def similar(self, items: list[list], limit: int, timed: bool = False) -> dict:
        ranked, ms = {}, []
        for qid, key, aspect in items:
            started = time.perf_counter()
            found = self.searcher.similar(key, limit=limit, aspect=aspect)
            ms.append((time.perf_counter() - started) * 1000)
            ranked[qid] = [paper["key"] for paper in found]
        return {"ranked": ranked, "ms": ms if timed else []}


def main() -> None:
    protocol = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
    sys.stdout = sys.stderr  # whatever paperfind prints must not reach the protocol
    side = None
    for line in sys.stdin:
        message = json.loads(line)
        op = message.pop("op")
        if op == "quit":
            break
        try:
            side = side or Side()
            reply = {"ok": True, **getattr(side, op)(**message)}
        except Exception as exc:  # the parent prints it and stops both sides
            reply = {"ok": False, "error": f"{type(exc).__name__}: {exc}\n{traceback.format_exc()}"}
        protocol.write(json.dumps(reply) + "\n")
    protocol.close()


if __name__ == "__main__":
    main()
