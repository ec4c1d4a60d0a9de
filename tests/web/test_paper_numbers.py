"""A paper page writes its citation count with separators (issue 29's second walk-through:
"Attention is All you Need" showed "Citations: 184033"), in both languages, on a real portal over
the bundled corpus's record of it."""

from __future__ import annotations

import gzip
import json

import pytest

from paperfind.core import Paperfind
from paperfind.settings import BUNDLED_CORPUS, Settings

from tests.web.conftest import portal_settings, serve

KEY = "nips2017:9372"


@pytest.fixture(scope="module")
def attention_portal(tmp_path_factory, web_milvus):
    root = tmp_path_factory.mktemp("attention")
    with gzip.open(BUNDLED_CORPUS / "nips-2017.jsonl.gz", "rt", encoding="utf-8") as fh:
        lines = [line for line in fh if json.loads(line)["key"] == KEY]
    (root / "attention.jsonl").write_text("".join(lines), "utf-8")
    settings = Settings(db_path=root / "p.db", semantic=False)
    assert not Paperfind(settings).ingest([root / "attention.jsonl"], progress=False).failed
    with serve(Paperfind(portal_settings(settings.db_path, web_milvus))) as running:
        yield running


def test_a_paper_page_writes_its_citation_count_with_separators(attention_portal):
    citations = attention_portal.get(f"/api/papers/{KEY}").json()["citations"]
    assert citations >= 1000
    for lang, word in (("en", "Citations"), ("zh", "引用")):
        page = attention_portal.get(f"/papers/{KEY}", params={"lang": lang}).text
        assert f"{word}: {citations:,}<" in page and f"{word}: {citations}<" not in page
