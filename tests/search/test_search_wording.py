"""Wording a paper differently from how it is written, on the real slice (COLT 2019, CoRL 2022,
ICLR 2017): hyphenated and joined spellings of one word, and quotes inside a description."""

from __future__ import annotations

from paperfind.search.engine import SearchRequest
from paperfind.text.analyze import Analyzer


def keys(searcher, q, limit=5):
    return [h["key"] for h in searcher.search(SearchRequest(q=q, mode="lexical", limit=limit)).results]


def test_compounds_keep_parts_and_join_them():
    an = Analyzer()
    assert an.compounds("Visuo-Tactile Transformers") == [(["visuo", "tactile"], "visuotactil")]
    assert an.compounds("state-of-the-art, 3-D and -x") == [(["state", "of", "the", "art"], "stateoftheart")]
    assert an.compounds("no hyphen here") == []


def test_a_joined_spelling_finds_the_hyphenated_title(searcher):
    # "Multi-armed Bandit Problems with Strategic Arms"; the query writes the word joined
    assert keys(searcher, "multiarmed bandits strategic arms")[0] == "colt2019:afb2c8e66a"
    # "Visuo-Tactile Transformers for Manipulation"
    assert keys(searcher, "visuotactile transformers")[0] == "corl2022:JqqSTgdQ85F"


def test_a_hyphenated_spelling_finds_the_joined_word(searcher):
    # corl2022:s6NEzqZKaP- writes "visuotactile" as one word
    assert "corl2022:s6NEzqZKaP-" in keys(searcher, "Visuo-Tactile")


def test_quotes_inside_a_description_do_not_empty_the_results(searcher):
    # scare quotes in a sentence: the quoted words are in no paper, the rest of it is
    text = 'We show that "cheap and cheerful" exploration gives improved regret bounds for bandits'
    r = searcher.search(SearchRequest(q=text, mode="lexical", limit=5))
    top = r.results[0]
    assert r.total > 0 and "regret" in (top["title"] + top["highlights"]["abstract"]).lower()
    # a short query's quotes are an operator: a phrase in no paper matches nothing
    assert searcher.search(SearchRequest(q='"cheap and cheerful" bandits', mode="lexical")).total == 0
