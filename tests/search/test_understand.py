"""An institution named in a query becomes its filter (issue 28), on the bundled corpus (the
session's `bundled_db`, lexical search)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from paperfind.core import Paperfind
from paperfind.search.backend import matching_labels
from paperfind.search.response import SearchRequest
from paperfind.settings import Settings


@pytest.fixture(scope="module")
def app(bundled_db):
    return Paperfind(Settings(db_path=bundled_db, semantic=False))


@pytest.fixture(scope="module")
def search(app):
    searcher = app.searcher()
    return lambda q, **kw: searcher.search(SearchRequest(q=q, mode="lexical", **kw))


@pytest.fixture(scope="module")
def search_as_words(bundled_db):
    settings = Settings(db_path=bundled_db, semantic=False)
    app = Paperfind(replace(settings, search=replace(settings.search, understand_institutions=False)))
    searcher = app.searcher()
    return lambda q: searcher.search(SearchRequest(q=q, mode="lexical"))


def slugs(response) -> list[str]:
    return [i["slug"] for i in (response.understood or {}).get("institutions", [])]


def on_topic(response, *words: str) -> int:
    return sum(any(w in (r["title"] + " " + r["highlights"]["abstract"]).lower() for w in words)
               for r in response.results)


@pytest.mark.parametrize("query,slug,topic", [
    ("清华 具身智能", "tsinghua", ("embodied", "robot")),
    ("北大 智能体", "pku", ("agent",)),
    ("上交 检索增强生成", "sjtu", ("retrieval",)),
    ("THU world models", "tsinghua", ("world model",)),
    ("world models THU", "tsinghua", ("world model",)),
    ("清华大学世界模型", "tsinghua", ("world model",)),
    ("reinforcement learning from Stanford", "stanford", ("reinforcement",)),
])
def test_an_institution_in_the_query_becomes_its_filter(search, query, slug, topic):
    response = search(query)
    assert slugs(response) == [slug]
    assert len(response.results) == 10
    assert all(slug in r["institutions"] for r in response.results)
    assert on_topic(response, *topic) >= 7, [r["title"] for r in response.results]


def test_read_as_words_the_same_query_finds_other_institutions(search_as_words):
    """The baseline issue 28 measured: 清华 dropped, the top 10 mostly not Tsinghua's."""
    response = search_as_words("北大 智能体")
    assert response.understood is None
    assert sum("pku" in r["institutions"] for r in response.results) < 5


def test_what_was_understood_is_in_the_response(search):
    understood = search("清华 具身智能").understood
    assert understood["text"] == "具身智能" and understood["without"] == "具身智能"
    [inst] = understood["institutions"]
    assert inst == {"slug": "tsinghua", "name": "Tsinghua University", "name_zh": "清华大学", "written": "清华"}


def test_a_lower_case_acronym_is_the_institution_unless_it_is_a_word(search):
    assert slugs(search("pku multi-agent")) == ["pku"]
    assert slugs(search("fair classification")) == []  # "fair" is a word; FAIR is Meta's lab
    assert slugs(search("FAIR self-supervised")) == ["meta"]


def test_a_chinese_form_inside_a_longer_word_is_not_the_institution(search):
    assert "pku" not in slugs(search("东北大学 强化学习"))  # 北大 inside 东北大学


def test_a_quoted_name_is_a_literal_word(search):
    assert slugs(search('"Stanford" cars')) == []


def test_a_name_that_is_also_a_topic_word_keeps_the_reading_that_finds_more(search):
    """"meta learning" is meta-learning, offered as Meta's learning papers; the offer works."""
    response = search("meta learning")
    assert slugs(response) == [] and response.total > 500
    alternative = response.understood["alternative"]
    assert alternative["reading"] == "institution" and alternative["q"] == "inst:meta learning"
    offered = search(alternative["q"])
    assert offered.results and all("meta" in r["institutions"] for r in offered.results)


def test_a_person_whose_name_holds_an_institution_word_is_that_person(search, app):
    """A full name of the corpus with an alias as one of its words is not broken."""
    store = app.store()
    from paperfind.catalog.aliases import alias_table

    table = alias_table()
    person = next(name for (name,) in store.conn.execute("SELECT name FROM authors ORDER BY id")
                  if len(name.split()) == 2 and any(table.lookup(w) for w in name.split())
                  and all(w.isalpha() for w in name.split()))
    response = search(person)
    assert slugs(response) == [], person
    assert response.authors and response.authors[0]["name"] == person


def test_switched_off_the_name_is_read_as_words(search_as_words):
    assert search_as_words("THU world models").understood is None


def test_a_filter_value_that_is_a_slug_is_that_institution_alone():
    labels = ["mit", "mitre", "mitsubishi-electric", "carnegie-mellon"]
    assert matching_labels(("mit",), labels) == [0]
    assert matching_labels(("carneg",), labels) == [3]
    assert matching_labels(("MIT",), labels, {"mit": "Massachusetts Institute of Technology"}) == [0]
