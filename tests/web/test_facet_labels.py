"""A search's facets and trend name their venues and institutions from the names the store has
read when those hold every slug shown, and read them anew when one is missing (a venue ingested
since): the same labels either way (issue 33, web35)."""

from __future__ import annotations

from pathlib import Path

from paperfind.core import Paperfind
from paperfind.settings import Settings
from paperfind.web.params import SearchParams
from paperfind.web.searching import named_parts, search_view
from tests.realdata import load_paperlist, write_slice


def test_a_venue_ingested_after_the_names_were_read_is_named(tmp_path: Path) -> None:
    pf = Paperfind(Settings(db_path=tmp_path / "p.db", semantic=False))
    pf.ingest([write_slice(tmp_path / "a", "colt", 2019, load_paperlist("colt", 2019)[:20])], progress=False)
    first = search_view(pf, SearchParams(q="learning", mode="lexical"))
    assert [v["label"] for v in first["facets"]["venue"]] == [pf.store().venue_names()["colt"]]
    statements: list[str] = []
    pf.store().conn.set_trace_callback(statements.append)
    search_view(pf, SearchParams(q="learning theory", mode="lexical"))
    assert not [s for s in statements if "FROM venues" in s]  # every slug known: no names read
    pf.ingest([write_slice(tmp_path / "b", "corl", 2022, load_paperlist("corl", 2022)[:20])], progress=False)
    del statements[:]
    after = search_view(pf, SearchParams(q="learning", mode="lexical"))
    assert [s for s in statements if "FROM venues" in s]  # corl was missing: read anew
    names = pf.store().venue_names()
    assert {v["value"]: v["label"] for v in after["facets"]["venue"]} == {"colt": names["colt"],
                                                                          "corl": names["corl"]}
    assert {v["venue"]: v["venue_name"] for v in after["trend"]["venues"]} == \
        {s: names[s] for s in ("colt", "corl") if s in {v["venue"] for v in after["trend"]["venues"]}}


def test_named_parts_label_by_name_or_slug() -> None:
    facets = {"venue": [["iclr", 3]], "year": [[2024, 3]], "institution": [["mit", 2]]}
    trend = {"venues": [{"venue": "iclr", "works": 3}]}
    venues, institutions = {"iclr": "ICLR"}, {"mit": "MIT"}
    labelled, named = named_parts(facets, trend, venues, institutions)
    assert labelled == {"venue": [{"value": "iclr", "count": 3, "label": "ICLR", "param": "venue"}],
                        "year": [{"value": "2024", "count": 3, "label": "2024", "param": "year"}],
                        "institution": [{"value": "mit", "count": 2, "label": "MIT", "param": "inst"}]}
    assert named == {"venues": [{"venue": "iclr", "works": 3, "venue_name": "ICLR"}]}
    assert named_parts(facets, trend, venues, {})[0]["institution"][0]["label"] == "mit"  # its slug
    assert named_parts(facets, trend, {}, institutions)[1]["venues"][0]["venue_name"] == "iclr"
