"""A famous paper first for its name, and its names and standing on its card and page, through
the real server on the bundled corpus (the session's `bundled_db`, lexical only)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from paperfind.core import Paperfind
from paperfind.settings import Settings
from tests.web.conftest import serve

BIGGAN = "iclr2019:B1xsqj09Fm"  # Large Scale GAN Training for High Fidelity Natural Image Synthesis
NAMED = [("BigGAN", BIGGAN), ("mixup", "iclr2018:r1Ddp1-Rb"), ("ELECTRA", "iclr2020:r1xMH1BtvB"),
         ("DDPM", "nips2020:4c5bcfec8584af0d967f1ab10179ca4b"), ("NeRF", "eccv2020:e7b98a9588")]


@pytest.fixture(scope="module")
def portal(bundled_db):
    with serve(Paperfind(Settings(db_path=bundled_db, semantic=False))) as client:
        yield client


@pytest.fixture(scope="module")
def portal_without_names(bundled_db):
    settings = Settings(db_path=bundled_db, semantic=False)
    with serve(Paperfind(replace(settings, search=replace(settings.search, paper_names=False)))) as client:
        yield client


@pytest.mark.parametrize("name,key", NAMED)
def test_the_paper_a_name_means_comes_first(portal, name, key):
    first = portal.get("/api/search", params={"q": name}).json()["results"][0]
    assert first["key"] == key, first["title"]
    assert first["also_known_as"]  # the card says why


def test_without_the_names_follow_ups_come_first(portal_without_names):
    """The baseline the names fix (issue 27's table): BigGAN's own paper is not first."""
    first = portal_without_names.get("/api/search", params={"q": "BigGAN"}).json()["results"][0]
    assert first["key"] != BIGGAN


def test_a_name_no_title_word_holds_still_finds_its_paper(portal):
    """"BigGAN" is in no word of its title: it is a candidate because the index names it."""
    data = portal.get("/api/search", params={"q": "BigGANs"}).json()
    assert data["results"][0]["key"] == BIGGAN


def test_names_and_standing_on_the_paper_page_and_its_json(portal):
    paper = portal.get(f"/api/papers/{BIGGAN}").json()
    assert "BigGANs" in paper["also_known_as"]
    assert paper["standing"]["mentions"] > 10 and 0.5 < paper["standing"]["score"] <= 1
    page = portal.get(f"/papers/{BIGGAN}")
    assert 'id="also-known-as"' in page.text and "BigGANs" in page.text and 'id="standing"' in page.text
    zh = portal.get(f"/papers/{BIGGAN}", params={"lang": "zh"})
    assert "又称" in zh.text


def test_longer_queries_and_people_are_not_read_as_names(portal):
    data = portal.get("/api/search", params={"q": "BigGAN truncation trick for class-conditional image "
                                                   "synthesis at scale"}).json()
    assert data["results"]  # ranked by its words: still the paper, by its abstract
    person = portal.get("/api/search", params={"q": "Andrew Brock"}).json()
    assert person["authors"] and person["authors"][0]["name"] == "Andrew Brock"


def test_influence_orders_by_standing(portal):
    data = portal.get("/api/search", params={"q": "weight decay", "sort": "influence", "size": 5}).json()
    assert data["results"]
    standings = [portal.get(f"/api/papers/{r['key']}").json()["standing"]["score"] for r in data["results"]]
    assert standings == sorted(standings, reverse=True)
    assert portal.get("/api/search", params={"q": "x", "sort": "fame"}).status_code == 422


def test_a_chinese_name_reaches_the_paper_it_names(portal):
    """权重归一化 is read as "weight normalization", the name of the paper that introduced it
    (its title's lead): the name tier puts it first, where a Chinese query used to get none."""
    first = portal.get("/api/search", params={"q": "权重归一化"}).json()["results"][0]
    assert first["key"] == "nips2016:7412", first["title"]
