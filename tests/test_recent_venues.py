"""2022-2026 venues as a new user checks them: ingest real source slices, then search and browse."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from paperfind.core import Paperfind
from paperfind.search.response import SearchRequest
from paperfind.settings import Settings
from tests.realdata import EXTRA

PC = "papercopilot-openreview"
DRIESS = "~Danny_Driess1"  # at ICML 2024 (051jaf8MQy) and NeurIPS 2023 (JCCi58IUsh)


def _json_array(path: Path) -> list[dict]:
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        return json.load(fh)


def _json_lines(path: Path) -> list[dict]:
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def _write(path: Path, rows: list[dict], lines: bool = False) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        if lines:
            fh.writelines(json.dumps(r) + "\n" for r in rows)
        else:
            json.dump(rows, fh)


@pytest.fixture(scope="module")
def portal(tmp_path_factory) -> Paperfind:
    root = tmp_path_factory.mktemp("recent")
    extra = root / "extra"
    iclr26 = _json_lines(EXTRA / "iclr2026-imczxx-reviewtracker" / "iclr2026_submissions.jsonl.gz")
    _write(extra / "iclr2026-imczxx-reviewtracker" / "iclr2026_submissions.jsonl.gz",
           iclr26[:40], lines=True)
    icml25 = _json_array(EXTRA / "papercopilot-paperlists-history" / "icml2025.json.gz")
    _write(extra / "papercopilot-paperlists-history" / "icml2025.json.gz", icml25[:40])
    icml24 = _json_array(EXTRA / PC / "venues_icml_icml2024.json.gz")
    _write(extra / PC / "venues_icml_icml2024.json.gz",
           [r for r in icml24 if r["id"] == "051jaf8MQy"] + icml24[:10])
    for name, lines in [("authors_nips_nips2023.jsonl.gz", True),
                        ("venues_nips_nips2023.json.gz", False)]:
        rows = (_json_lines if lines else _json_array)(EXTRA / PC / name)
        _write(extra / PC / name, [r for r in rows if r["id"] == "JCCi58IUsh"] + rows[:10],
               lines=lines)
    app = Paperfind(Settings(db_path=root / "p.db", semantic=False))
    report = app.ingest([extra], progress=False)
    assert not report.failed
    app.iclr26 = iclr26[:40]  # type: ignore[attr-defined]
    app.icml25 = icml25[:40]  # type: ignore[attr-defined]
    return app


def test_words_from_an_iclr_2026_abstract_find_that_submission(portal):
    target = portal.iclr26[7]
    words = " ".join(target["content"]["abstract"].split()[10:22])
    response = portal.searcher().search(SearchRequest(q=words, limit=5, mode="lexical"))
    assert response.results[0]["key"] == f"iclr2026:{target['id']}"
    assert response.results[0]["year"] == 2026
    card = portal.store().paper(f"iclr2026:{target['id']}")
    assert card["authors"] == []  # anonymous at crawl time: no invented authors


def test_an_icml_2025_author_lists_that_paper_with_venue_year_and_coauthors(portal):
    target = next(r for r in portal.icml25 if len(r["author"].split(", ")) >= 3)
    name = target["author"].split(", ")[1]
    response = portal.searcher().search(SearchRequest(q=name, limit=10, mode="lexical"))
    hit = next(r for r in response.results if r["title"] == target["title"])
    assert (hit["venue_name"], hit["year"]) == ("ICML", 2025)
    assert len(hit["authors"]) == len(target["author"].split(", "))
    assert response.authors and response.authors[0]["name"] == name


def test_author_page_shows_icml_2024_and_neurips_2023(portal):
    store = portal.store()
    (slug,) = [a for (a,) in store.conn.execute(
        "SELECT slug FROM authors WHERE profile_id = ?", (DRIESS,))]
    page = store.author(slug)
    shown = {(p["venue_name"], p["year"], p["key"]) for p in page["papers"]}
    assert ("ICML", 2024, "icml2024:051jaf8MQy") in shown
    assert ("NeurIPS", 2023, "nips2023:JCCi58IUsh") in shown
    nips = store.paper("nips2023:JCCi58IUsh")
    assert nips["title"] and any(a["affiliations"] for a in nips["authors"])
