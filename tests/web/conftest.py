"""One real portal for the web tests: a database built from slices of the real paper lists,
served by uvicorn on a free port in a background thread for the whole session."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
import uvicorn

from paperfind.core import Paperfind
from paperfind.settings import Settings
from paperfind.web.app import create_app
from paperfind.web.server import UVICORN_OPTIONS
from tests.realdata import load_paperlist, pick, write_slice
from tests.web.bundled import bundled_portal, bundled_slice  # noqa: F401 - fixtures: a bundled-corpus slice
from bench.server import free_port

GEIGER_PAPERS = {"3dv2025:1xLfRYErqk", "colm2024:dkpeWQRmlc", "corl2022:80vpxjt3vq"}
GPQA = "colm2024:Ti67584b98"  # "GPQA: A Graduate-Level Google-Proof Q&A Benchmark": an & to escape
MINICPM = "colm2024:3X2L2TFr0f"  # 24 authors: the Chinese card cuts after ten with 等
SLICES = [("3dv", 2025, {"1xLfRYErqk"}), ("colm", 2024, {"dkpeWQRmlc", "Ti67584b98", "3X2L2TFr0f"}),
          ("corl", 2022, {"80vpxjt3vq"}), ("ijcai", 2021, set())]  # ijcai has areas
# One address of each kind of page the portal serves, over the slices above (for the layout
# tests at phone and desktop widths and the retired desktop_layout bench, bench/RESULTS.md).
PAGE_KINDS = {
    "home": "/",
    "search": "/?q=learning",  # results from all four venues: every facet has several values
    "paper": f"/papers/{MINICPM}",  # 24 authors with affiliations
    "author": "/authors/andreas-geiger",
    "institution": "/institutions/google",
    "venue": "/venues/colm?year=2024",
    "area": "/areas/Knowledge%20Representation%20and%20Reasoning",
    "stats": "/stats",
    "docs": "/docs",
    "experts": "/experts?q=planning+transformers",  # who works on this (issue 30)
}
CHROMIUM = Path("/usr/bin/chromium")
BROWSER_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run"]


@dataclass
class Portal:
    url: str
    paperfind: Paperfind
    client: httpx.Client

    def get(self, path: str, **kwargs) -> httpx.Response:
        return self.client.get(path, **kwargs)


@pytest.fixture(scope="session")
def portal_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("portal")
    for venue, year, ids in SLICES:
        write_slice(root / "data", venue, year, pick(load_paperlist(venue, year), ids, extra=15))
    settings = Settings(db_path=root / "portal.db", semantic=False)
    report = Paperfind(settings).ingest([root / "data"], progress=False)
    assert not report.failed, report.failed
    return settings.db_path


@pytest.fixture(autouse=True)
def _no_language_cookie(request: pytest.FixtureRequest) -> None:
    """Each test on `portal` starts without cookies: a page asked for in a language (`?lang=zh`)
    leaves that cookie in the session's shared client, and a later test in the same worker
    got its pages in that language whatever its Accept-Language said."""
    for name in ("portal", "corpus_portal"):  # the session portals, each with one client
        if name in request.fixturenames:
            request.getfixturevalue(name).client.cookies.clear()


@contextmanager
def serve(pf: Paperfind) -> Iterator[Portal]:
    """The portal of `pf` served by uvicorn on a free port in a background thread."""
    port = free_port()
    config = uvicorn.Config(create_app(pf), host="127.0.0.1", port=port, log_level="warning",
                            lifespan="off", **UVICORN_OPTIONS)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            pytest.fail("the portal did not start")
        time.sleep(0.02)
    url = f"http://127.0.0.1:{port}"
    try:
        with httpx.Client(base_url=url, timeout=30) as client:
            yield Portal(url, pf, client)
    finally:
        server.should_exit = True
        thread.join(timeout=10)


# PAPERFIND_TEST_BACKEND=milvus runs the web and browser tests against the Milvus backend: the
# portals' databases are synced into a real Milvus Lite server process and served from it
TEST_BACKEND = os.environ.get("PAPERFIND_TEST_BACKEND", "local")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under PAPERFIND_TEST_BACKEND=milvus only the tests that switch serves from Milvus run:
    those that use `web_milvus` (through `portal`, `bundled_portal` or by name). The others
    serve a database of their own (the bundled corpus's, the start-up tests', the capped
    Milvus of test_approximate_counts) or nothing (pure functions): the switch changes nothing
    in them, and the run without it (.ci/run's first) has run them."""
    if TEST_BACKEND != "milvus":
        return
    served = ["web_milvus" in getattr(item, "fixturenames", ()) for item in items]
    if not all(served):
        config.hook.pytest_deselected(items=[item for item, s in zip(items, served) if not s])
        items[:] = [item for item, s in zip(items, served) if s]


@pytest.fixture(scope="session")
def web_milvus(tmp_path_factory):
    """The Milvus the portals are served from under PAPERFIND_TEST_BACKEND=milvus (else None)."""
    if TEST_BACKEND != "milvus":
        yield None
        return
    from tests.milvus_server import start_server

    server = start_server(tmp_path_factory.mktemp("web-milvus"))
    yield server
    server.kill()


def portal_settings(db_path: Path, milvus) -> Settings:
    """The settings a test portal serves `db_path` with: the local index, or (with `milvus`, a
    running server) the database synced into it and served from there."""
    if milvus is None:
        return Settings(db_path=db_path, semantic=False)
    settings = Settings(db_path=db_path, semantic=False, backend="milvus", milvus_uri=milvus.uri)
    Paperfind(settings).sync_milvus(progress=False)
    return settings


@pytest.fixture(scope="session")
def portal(portal_db: Path, web_milvus) -> Iterator[Portal]:
    with serve(Paperfind(portal_settings(portal_db, web_milvus))) as running:
        yield running


@pytest.fixture(scope="session")
def corpus_portal(bundled_db: Path) -> Iterator[Portal]:
    """The whole bundled corpus (the session's `bundled_db`, lexical only), served once: the pages
    a new user sees, with real venue sizes and ICLR 2026's anonymous submissions."""
    with serve(Paperfind(Settings(db_path=bundled_db, semantic=False))) as running:
        yield running


def open_context(browser, portal: Portal, lang: str, width: int = 1280, height: int = 800,
                 phone: bool = False, **options):
    """A browser context on `portal` in `lang` (its cookie) at `width` x `height` (a touch phone
    with `phone`), its page, and the page's script errors and console errors, which a test
    asserts empty."""
    context = browser.new_context(base_url=portal.url, locale="en-US", is_mobile=phone,
                                  has_touch=phone, viewport={"width": width, "height": height},
                                  **options)
    context.add_cookies([{"name": "lang", "value": lang, "url": portal.url}])
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    return context, page, errors


TYPED_MS = 8000  # search as you type waits 180 ms; the rest is a shared machine (or Milvus)


def type_query(page, text: str, timeout_ms: float = TYPED_MS) -> None:
    """Types `text` into the search box a key at a time, as a user does, and returns once the
    page shows the answer to the whole box.

    The script shows an answer that is the newest asked when it arrives, so on a loaded machine
    a keystroke's pause longer than the debounce puts a prefix's results ("l" for "learning") on
    screen first; the address follows only the answer shown, so the page is the box's own once the
    address's q is the box's text (the box must not already hold that text before typing)."""
    page.locator("#q").press_sequentially(text, delay=20)
    page.wait_for_function(
        "() => new URLSearchParams(location.search).get('q') === document.getElementById('q').value",
        timeout=timeout_ms)


def browsing(browser, portal: Portal, lang: str, width: int = 1280, **options):
    """A fixture's body: a page of `open_context` in `lang` (as `page.lang`), yielded, then its
    context closed and its script and console errors asserted empty."""
    context, page, errors = open_context(browser, portal, lang, width, **options)
    page.lang = lang
    yield page
    context.close()
    assert not errors, errors


@pytest.fixture(scope="session")
def browser():
    """Debian's Chromium, headless, driven by Playwright (one for the whole session)."""
    sync_api = pytest.importorskip("playwright.sync_api")
    if not CHROMIUM.exists():
        pytest.skip("Debian's chromium is not installed (apt-get install chromium)")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=BROWSER_ARGS)
        yield browser
        browser.close()


@pytest.fixture(scope="session")
def shoot(tmp_path_factory: pytest.TempPathFactory):
    """`shoot(page, name)`: the page's screenshot as name.png, in a temporary folder of the run, or
    in the folder PAPERFIND_SCREENSHOTS names (`PAPERFIND_SCREENSHOTS=bench/screenshots` refreshes
    the committed ones): a test run writes nothing into the checkout."""
    named = os.environ.get("PAPERFIND_SCREENSHOTS")
    folder = Path(named) if named else tmp_path_factory.mktemp("screenshots")

    def take(page, name: str) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(folder / f"{name}.png"), full_page=False)

    return take
