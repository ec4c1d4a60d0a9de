"""While a first start indexes the vision and language venues in the background, the home page,
/stats and /api/stats say what is still coming; once it is in, they say nothing of it."""

from __future__ import annotations

from pathlib import Path

from paperfind.core import Paperfind
from paperfind.settings import Settings
from paperfind.store.export import write_shards
from tests.realdata import load_paperlist, write_slice
from tests.web.conftest import serve


def test_pages_tell_what_is_being_indexed_in_the_background(tmp_path: Path) -> None:
    maker = Paperfind(Settings(db_path=tmp_path / "maker" / "p.db", semantic=False))
    for venue, year, n in (("colt", 2019, 8), ("cvpr", 2019, 6), ("acl", 2022, 4)):
        maker.ingest([write_slice(tmp_path / "src", venue, year, load_paperlist(venue, year)[:n])],
                     progress=False)
    write_shards(maker.store().conn, tmp_path / "corpus")
    pf = Paperfind(Settings(db_path=tmp_path / "fresh" / "p.db", corpus_path=tmp_path / "corpus",
                            semantic=False))
    assert pf.ensure_database(progress=False) is True
    with serve(pf) as portal:
        stats = portal.client.get("/api/stats").json()
        assert stats["papers"] == 8
        assert stats["indexing"]["files_pending"] == 2 and stats["indexing"]["done_percent"] == 0
        assert [(v["venue_name"], v["years"]) for v in stats["indexing"]["venues"]] == [
            ("ACL", [2022, 2022]), ("CVPR", [2019, 2019])]
        home = portal.client.get("/?lang=en").text
        assert 'id="indexing"' in home and "Indexing in the background (0%): ACL 2022, CVPR 2019" in home
        assert "正在后台建立索引（0%）：" in portal.client.get("/?lang=zh").text
        assert 'id="indexing"' in portal.client.get("/stats").text

        assert pf.complete_corpus() == 2
        stats = portal.client.get("/api/stats").json()
        assert stats["papers"] == 18 and stats["indexing"] is None
        assert 'id="indexing"' not in portal.client.get("/?lang=en").text
        venue = portal.client.get("/api/venues/cvpr").json()
        assert venue["name"] == "CVPR" and venue["total"] == 6
        assert venue["full_name"] == "IEEE/CVF Conference on Computer Vision and Pattern Recognition"
        assert "IEEE/CVF 计算机视觉与模式识别会议" in portal.client.get("/venues/cvpr?lang=zh").text
