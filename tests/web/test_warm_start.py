""""Serving" means ready: the port opens only once everything the first queries need is loaded.

A real uvicorn server over a real database slice with vectors and an HNSW graph. What is
loaded is read from the components themselves (`Paperfind.warm_state`), and whether the port
accepts is asked of the socket, at the moment the app's start-up hands over to uvicorn.
"""

from __future__ import annotations

import gc
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest
import uvicorn

from paperfind.core import Paperfind
from paperfind.index.vectors import ensure_ann
from paperfind.settings import CollectorSettings, Settings
from paperfind.web.app import create_app
from tests.realdata import load_paperlist, write_slice
from bench.server import free_port

EVERYTHING_WARM = {"index": True, "paper_names": True, "experts": True, "segmenter": True,
                   "translator": True, "vectors": True, "vector_graph": True, "encoder": True}


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("warm")
    source = write_slice(root / "src", "colt", 2019, load_paperlist("colt", 2019)[:20])
    app = Paperfind(Settings(db_path=root / "p.db"))
    app.ingest([source], progress=False)
    app.update_vectors(progress=False)
    assert ensure_ann(app.settings.vector_dir, min_vectors=5) is not None  # a graph, as a large corpus has
    return app.settings.db_path


def _accepts(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False


def test_the_port_opens_only_after_everything_is_warm(db: Path) -> None:
    port = free_port()
    pf = Paperfind(Settings(db_path=db, port=port))
    assert pf.warm_state() == {"index": False}  # a new app has loaded nothing
    at_ready: dict[str, object] = {}

    def ready(seconds: float) -> None:
        at_ready.update(state=pf.warm_state(), accepting=_accepts(port))

    app = create_app(pf, on_ready=ready)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 120
        while not server.started:
            assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
            time.sleep(0.02)
        # the expert finder's parts are made on a thread from then on, not waited for
        assert {**at_ready["state"], "experts": True} == EVERYTHING_WARM and not at_ready["accepting"]
        # the web's own path was run too, through the app: pages and API answered
        assert set(app.state.warm_requests.values()) == {200}, app.state.warm_requests
        assert gc.get_freeze_count() > 0  # and what it loaded is out of the collector's way
        assert gc.get_threshold()[0] == CollectorSettings().young_threshold  # a search's garbage collected in bulk
        # the first queries load nothing more: Chinese (segmenter, translator, model), a question
        for q in ("小样本学习的泛化界", "why do bandit algorithms need exploration?", "venue:colt"):
            response = httpx.get(f"http://127.0.0.1:{port}/api/search", params={"q": q}, timeout=60)
            assert response.status_code == 200
        app.state.experts_warming.join(timeout=60)  # made with no /api/experts asked
        assert pf.warm_state() == EVERYTHING_WARM
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def test_a_restart_without_new_data_does_not_redo_the_vectors(db: Path, tmp_path: Path) -> None:
    pf = Paperfind(Settings(db_path=db))
    assert pf.vectors_are_synced()  # the fixture's update_vectors completed for this data
    more = write_slice(tmp_path / "src", "colt", 2018, load_paperlist("colt", 2018)[:3])
    pf.ingest([more], progress=False, vectors=False)
    assert not pf.vectors_are_synced()  # new papers: the background update has work to do
    thread = pf.update_vectors_in_background()
    assert thread is not None
    thread.join(timeout=120)
    assert pf.vectors_are_synced()


def test_the_warm_up_loads_pinyin_which_no_warm_up_query_needs(db: Path) -> None:
    """A Chinese query with a short run of characters (a name, maybe) reads pypinyin's tables:
    0.4-0.5 s of some early request of a fresh server unless its warm-up loaded them. In a
    process of its own: another test's Chinese search would have imported it already."""
    script = ("import sys; from pathlib import Path; from paperfind.core import Paperfind; "
              "from paperfind.settings import Settings; "
              "Paperfind(Settings(db_path=Path(sys.argv[1]))).warm_up(); "
              "print('pypinyin' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", script, str(db)], capture_output=True, text=True,
                          check=True, cwd=Path(__file__).resolve().parents[2])
    assert done.stdout.strip().splitlines()[-1] == "True"
