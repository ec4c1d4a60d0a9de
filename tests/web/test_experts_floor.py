"""Who works on this lists people with a track record (issue 30, exp33a): by default only people
with at least 3 works that may count (before `before`, within the filters; a work's versions
once, the `works` each person shows), `min_works=1` lists everyone, and the page says so in
both languages, with a link, never an empty list in silence.

Real slice: "#Exploration" is an ICLR 2017 submission and a NeurIPS 2017 paper (one work in two
versions). Of its people, John Schulman also wrote RL^2 (ICLR 2017): three rows, two works; Yan
Duan wrote RL^2 and SNN4HRL (ICLR 2017): three works; Xi Chen wrote RL^2 and SNAIL (ICLR 2018):
three works, two of them before 2018. The others wrote it alone."""

from __future__ import annotations

import re
from collections.abc import Iterator
from html import unescape

import httpx
import pytest

from paperfind.core import Paperfind
from paperfind.web import schemas
from tests.realdata import load_paperlist, pick, write_slice
from tests.web.conftest import Portal, portal_settings, serve
from tests.web.test_api import assert_error
from tests.web.test_experts import PLANT, people_of

PAPERS = {("iclr", 2017): {"SyOvg6jxx", "HkLXCE9lx", "B1oK8aoxe"}, ("nips", 2017): {"9061"},
          ("iclr", 2018): {"B1DmUzWAW"}}
QUERY = "count-based exploration reinforcement learning"
TWO_VERSIONS = "john-schulman"  # #Exploration (2 versions) and RL^2: 3 rows, 2 works
THREE_WORKS = "yan-duan"
TWO_BEFORE_2018 = "xi-chen"  # RL^2, #Exploration, and SNAIL of 2018


@pytest.fixture(scope="module")
def floor_portal(tmp_path_factory: pytest.TempPathFactory, web_milvus) -> Iterator[Portal]:
    root = tmp_path_factory.mktemp("experts-floor")
    for (venue, year), ids in PAPERS.items():
        write_slice(root / "data", venue, year, pick(load_paperlist(venue, year), ids, extra=0))
    db = root / "floor.db"
    report = Paperfind(portal_settings(db, None)).ingest([root / "data"], progress=False)
    assert not report.failed, report.failed
    with serve(Paperfind(portal_settings(db, web_milvus))) as running:
        yield running


def experts(portal: Portal, **params) -> dict:
    response = portal.get("/api/experts", params={"q": QUERY, "size": 50, **params})
    assert response.status_code == 200, response.text
    data = response.json()
    schemas.ExpertsResponse.model_validate(data)
    return data


def works(data: dict) -> dict[str, int]:
    return {p["id"]: p["works"] for p in data["results"]}


def test_the_default_lists_people_with_three_works_a_works_versions_once(floor_portal):
    everyone = works(experts(floor_portal, min_works=1))
    # the slice is what the test needs: three rows of Schulman's, two of them one work
    local = floor_portal.paperfind.searcher().backend()
    local = getattr(local, "local", local)
    names = local.index.names
    schulman = next(int(names.ids[i]) for i in range(len(names.ids)) if names.card(i)["slug"] == TWO_VERSIONS)
    assert len(local.profiles().rows_of(schulman)) == 3
    assert everyone[TWO_VERSIONS] == 2 and everyone[THREE_WORKS] == 3
    default = experts(floor_portal)
    assert default["min_works"] == 3
    listed = works(default)
    assert THREE_WORKS in listed and TWO_VERSIONS not in listed
    assert listed == {p: n for p, n in everyone.items() if n >= 3}  # the number each one shows
    assert default["total"] == len(listed)
    assert default["fewer_works"] == len(everyone) - len(listed) > 0
    # everyone listed, as before the floor: 1 and 0 alike
    assert experts(floor_portal, min_works=1)["fewer_works"] == 0
    assert works(experts(floor_portal, min_works=0)) == everyone
    assert experts(floor_portal, min_works=0)["min_works"] == 0
    two = works(experts(floor_portal, min_works=2))
    assert two == {p: n for p, n in everyone.items() if n >= 2} and TWO_VERSIONS in two


def test_a_paper_of_the_before_year_does_not_count_toward_the_floor(floor_portal):
    assert TWO_BEFORE_2018 in works(experts(floor_portal))  # SNAIL (2018) counts without `before`
    earlier = works(experts(floor_portal, min_works=1, before=2018))
    assert earlier[TWO_BEFORE_2018] == 2
    before = experts(floor_portal, before=2018)
    assert TWO_BEFORE_2018 not in works(before) and THREE_WORKS in works(before)
    assert works(before) == {p: n for p, n in earlier.items() if n >= 3}


def test_a_bad_floor_is_a_422_naming_the_parameter(floor_portal):
    for value in ("-1", "three", "1.5", "10001"):
        assert_error(floor_portal.get("/api/experts", params={"q": QUERY, "min_works": value}), 422,
                     "invalid_parameter", "min_works")
        page = floor_portal.get("/experts", params={"q": QUERY, "min_works": value})
        assert page.status_code == 422 and "min_works" in page.text


def test_the_schema_documents_the_floor(floor_portal):
    op = floor_portal.get("/openapi.json").json()["paths"]["/api/experts"]["get"]
    param = next(p for p in op["parameters"] if p["name"] == "min_works")
    assert "3" in param["description"] and param["schema"]["anyOf"][0]["minimum"] == 0
    assert {"min_works", "fewer_works"} <= set(schemas.ExpertsResponse.model_fields)


def _page(portal: Portal, lang: str, **params) -> str:
    # a client of its own: `lang` leaves a cookie, which the session's shared client must not keep
    page = httpx.get(f"{portal.url}/experts", params={"q": QUERY, "lang": lang, **params})
    assert page.status_code == 200, page.text
    return page.text


def _floor_line(html: str) -> tuple[str, str]:
    """The floor's line (its text) and its link (the href), inside the list the paper page takes."""
    listing = html[html.index('id="experts-list"'):]
    line = re.search(r'<p class="[^"]*experts-floor[^"]*" id="experts-floor">(.*?)</p>', listing, re.S)
    assert line, listing[:500]
    href = re.search(r'<a href="([^"]+)">', line.group(1)).group(1)
    return unescape(re.sub(r"<[^>]+>", "", line.group(1))), unescape(href)


@pytest.mark.parametrize("lang, says, everyone", [
    ("en", "People with at least 3 works that count", "show everyone"),
    ("zh", "只列出至少有 3 篇可计入论文的研究者", "显示所有人")])
def test_the_page_says_who_it_lists_and_links_everyone(floor_portal, lang, says, everyone):
    text, href = _floor_line(_page(floor_portal, lang))
    assert says in text and everyone in text
    assert "min_works=1" in href and href.startswith("/experts?")
    shown = re.findall(r'<article class="expert" data-id="([^"]+)"', httpx.get(floor_portal.url + href).text)
    assert TWO_VERSIONS in shown
    # and back: the list of everyone links the default
    text, back = _floor_line(_page(floor_portal, lang, min_works=1))
    assert "min_works" not in back and ("3" in text)


@pytest.mark.parametrize("lang, says", [("en", "No one with at least 5 works that count"),
                                        ("zh", "没有至少有 5 篇可计入论文的研究者")])
def test_an_empty_list_says_why_and_links_a_lower_floor(floor_portal, lang, says):
    html = _page(floor_portal, lang, min_works=5)
    assert '<article class="expert"' not in html
    text, href = _floor_line(html)
    assert says in text and "min_works=1" in href
    assert "No one found." not in html and "没有找到研究者。" not in html
    # a floor no one below it either: the plain "no one"
    assert "experts-floor" not in _page(floor_portal, lang, q="zzqx unknown words", min_works=5)


@pytest.mark.parametrize("lang, says", [("en", "No one with at least 3 works that count"),
                                        ("zh", "没有至少有 3 篇可计入论文的研究者")])
def test_the_paper_pages_section_says_why_it_lists_no_one(portal, lang, says):
    """The paper page's section is the /experts list it fetches (portal.js), with the default
    floor: on the shared portal's slice (people of one to three papers, the paper's own people
    and their recent co-authors left out) no one has three, and the section says so and links
    the people with fewer."""
    paper = httpx.get(f"{portal.url}/papers/{PLANT}", params={"lang": lang}).text
    src = unescape(re.search(r'data-experts-src="([^"]+)"', paper).group(1))
    assert "min_works" not in src  # the section asks for the default
    fragment = httpx.get(f"{portal.url}{src}&lang={lang}").text
    text, href = _floor_line(fragment)
    assert says in text and "min_works=1" in href
    shown = re.findall(r'<article class="expert" data-id="([^"]+)"', httpx.get(portal.url + href).text)
    assert shown and not set(shown) & people_of(portal, PLANT)
