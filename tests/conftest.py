"""Shared test fixtures, and the `realdata` marker: tests that need the full files of
../shared/data run when it is there and are skipped (with one summary line) when it is not.
With PAPERFIND_REQUIRE_REALDATA=1 (set by .ci/run) a skipped real-data test is a failure."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from typing import Any, Callable, Generator

import pytest

from tests.realdata import REAL_DATA, load_paperlist, real_data_missing

REQUIRE_ENV = "PAPERFIND_REQUIRE_REALDATA"


def _required() -> bool:
    return os.environ.get(REQUIRE_ENV, "") not in ("", "0")


def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.register(RealdataSkips(), "realdata-skips")
    if _required() and (why := real_data_missing()):
        raise pytest.UsageError(f"{REQUIRE_ENV}=1 but {why}")


def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.get_closest_marker("realdata") and (why := real_data_missing()):
        pytest.skip(why)


def _skip_reason(report: pytest.TestReport) -> str:
    longrepr = report.longrepr
    return (longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)).removeprefix("Skipped: ")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    if report.skipped and item.get_closest_marker("realdata") and _required():
        report.outcome = "failed"
        report.longrepr = f"a real-data test was skipped although {REQUIRE_ENV}=1: {_skip_reason(report)}"
    return report


class RealdataSkips:
    """The reasons of the skipped real-data tests, counted where reports arrive (under xdist the
    controller, which prints the summary, not the workers that ran the tests)."""

    def __init__(self) -> None:
        self.reasons: list[str] = []

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.skipped and "realdata" in report.keywords:
            self.reasons.append(_skip_reason(report))


@pytest.hookimpl(tryfirst=True)  # before xdist's, which reads the groups off the marks
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under `scripts/test`'s workers (pytest-xdist, --dist loadgroup) a file's tests run in one
    worker, so a module's fixtures are built once. The bundled-corpus database is built once for
    the run whichever workers use it (`bundled_db`), so its files spread over the workers too."""
    for item in items:
        item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::", 1)[0]))


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> Generator[None, None, None]:
    yield  # after pytest's own summaries, so this is the last line before the totals
    reasons = config.pluginmanager.get_plugin("realdata-skips").reasons
    if reasons:
        n = len(reasons)
        why = "; ".join(sorted(set(reasons)))
        where = "; they run where that folder exists (.ci/run requires them)" if real_data_missing() else ""
        terminalreporter.write_line(
            f"realdata: {n} real-data test{'s' if n != 1 else ''} skipped: {why}{where}")


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """The full real data folder (../shared/data); skips the test when it is not there."""
    if why := real_data_missing():
        pytest.skip(why)
    return REAL_DATA


@pytest.fixture(scope="session")
def bundled_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The database a fresh `scripts/serve` builds from the bundled corpus, with its vectors and
    index: the first start's ML venues, then the rest as `serve` indexes them in the background
    (about three minutes on 2 cores). Built once for the run: under pytest-xdist in the run's
    temporary folder (every worker's is inside it) by the first worker that asks, while any
    other that asks waits on the lock; then they all read it."""
    from paperfind.core import Paperfind
    from paperfind.settings import Settings

    run_root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        run_root = run_root.parent  # xdist gives each worker <the run's basetemp>/<worker id>
    folder = run_root / "bundled"
    folder.mkdir(exist_ok=True)
    with open(run_root / "bundled.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file is closed
        app = Paperfind(Settings(db_path=folder / "paperfind.db"))
        if not (folder / "built").exists():
            assert app.ensure_database(progress=False) is True
            assert app.complete_corpus() > 0  # the vision and language venues
            app.refresh_index(progress=False)
            (folder / "built").touch()
    return app.settings.db_path


@pytest.fixture(scope="session")
def colt_two_years(tmp_path_factory: pytest.TempPathFactory):
    """A lexical Paperfind over every COLT 2018 and 2019 paper (the repo's slices): the expert
    finder's tests need a year of earlier work before the year a query is asked from."""
    from paperfind.core import Paperfind
    from paperfind.settings import Settings
    from tests.realdata import write_slice

    root = tmp_path_factory.mktemp("colt-two-years")
    for year in (2018, 2019):
        write_slice(root / "data", "colt", year, load_paperlist("colt", year))
    app = Paperfind(Settings(db_path=root / "p.db", semantic=False))
    app.ingest([root / "data"], progress=False)
    return app


@pytest.fixture(scope="session")
def raw_record() -> Callable[..., dict[str, Any]]:
    """`raw_record("3dv", 2025, "05T81ScPFb")`: the raw JSON object of a paperlists slice with
    that id (or other field)."""
    cache: dict[tuple[str, int], list[dict[str, Any]]] = {}

    def find(venue: str, year: int, ident: str, field: str = "id") -> dict[str, Any]:
        if (venue, year) not in cache:
            cache[venue, year] = load_paperlist(venue, year)
        return next(r for r in cache[venue, year] if r.get(field) == ident)

    return find
