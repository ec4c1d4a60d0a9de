"""Through /api/search, a page's order does not depend on its length: pages of 10 read one after
another are the first page of 100, the portal's page of 20 opens with the page of 10, and every
page says one total and the same facets (SearchSettings.relax_below). Served from the slice's
database (COLT 2019, CoRL 2022, ICLR 2017), by Milvus too under PAPERFIND_TEST_BACKEND=milvus."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from paperfind.core import Paperfind
from paperfind.settings import Settings
from tests.realdata import PAPERLISTS
from tests.web.conftest import Portal, portal_settings, serve

SLICE = [("colt", 2019), ("corl", 2022), ("iclr", 2017)]
# a long question whose words' share fewer than 100 of the slice's papers hold (more than 20)
QUESTION = ("what is the sample complexity of learning a linear predictor with noisy labels "
            "under adversarial corruption")


@pytest.fixture(scope="module")
def slice_portal(tmp_path_factory, web_milvus) -> Iterator[Portal]:
    root = tmp_path_factory.mktemp("page-order")
    settings = Settings(db_path=root / "slice.db", semantic=False)
    report = Paperfind(settings).ingest([PAPERLISTS / v / f"{v}{y}.json.gz" for v, y in SLICE],
                                        progress=False)
    assert not report.failed, report.failed
    with serve(Paperfind(portal_settings(settings.db_path, web_milvus))) as running:
        yield running


def test_pages_of_ten_are_one_page_of_a_hundred_with_one_count(slice_portal):
    def ask(page: int, size: int) -> dict:
        answer = slice_portal.get("/api/search", params={"q": QUESTION, "page": page, "size": size,
                                                         "mode": "lexical"})
        assert answer.status_code == 200
        return answer.json()

    whole = ask(1, 100)
    tens = [ask(page, 10) for page in range(1, 11)]
    keys = [r["key"] for r in whole["results"]]
    assert len(set(keys)) == 100
    assert [r["key"] for t in tens for r in t["results"]] == keys
    assert [r["key"] for r in ask(1, 20)["results"]] == keys[:20]
    assert {t["total"] for t in tens} == {whole["total"]}
    assert all(t["facets"] == whole["facets"] for t in tens)
