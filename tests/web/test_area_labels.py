"""Subject areas in the page's language: a Chinese page showed ICLR's English primary areas on
every card, facet and area page (paperfind.web.area_labels)."""

from __future__ import annotations

from urllib.parse import quote

import httpx

from paperfind.web.api_examples import EXAMPLES
from paperfind.web.area_labels import AREA_LABELS_ZH
from paperfind.web.i18n import Translator, folded_label


def test_every_area_of_the_bundled_corpus_has_its_chinese(bundled_slice):
    """The areas of the corpus's stable venue-years (the slice's scan reads every record)."""
    areas = {a for a in bundled_slice[1]["area"] if a}
    assert areas
    assert sorted(a for a in areas if folded_label(a) not in AREA_LABELS_ZH) == []


def test_an_area_reads_in_chinese_on_chinese_pages_and_as_written_on_english_ones(bundled_portal):
    area = EXAMPLES["area"]
    chinese = AREA_LABELS_ZH[folded_label(area)]
    url = f"{bundled_portal.url}/areas/{quote(area)}"
    zh = httpx.get(url, params={"lang": "zh"}).text
    en = httpx.get(url, params={"lang": "en"}).text
    assert f"<h1>{chinese}</h1>" in zh and f"<h1>{area}</h1>" in en
    search = httpx.get(f"{bundled_portal.url}/", params={"area": area, "lang": "zh"}).text
    assert f">{chinese}</a></div>" in search  # a card's kicker, linked to the area's page
    assert f">{chinese}</span><span class=\"count\">" in search  # the facet
    assert f'href="/areas/{quote(area)}' in search or f"href=\"/areas/{area}" in search


def test_an_area_no_label_lists_stays_as_the_source_wrote_it():
    assert Translator("zh").area("Computer Vision I") == "Computer Vision I"
    assert Translator("zh").area("Reinforcement  Learning") == "强化学习"  # folded
    assert Translator("en").area("reinforcement learning") == "reinforcement learning"
