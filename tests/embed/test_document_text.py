"""Text budgets: what part of a real paper is embedded."""

from __future__ import annotations

import pytest

from paperfind.embed.text import BUDGETS, document_text, split_sentences, text_hash
from tests.realdata import load_paperlist


@pytest.fixture(scope="module")
def paper() -> dict:
    return next(r for r in load_paperlist("iclr", 2017) if len(r.get("abstract", "").split()) > 120)


def test_budgets_grow_with_their_word_counts(paper):
    lengths = [len(document_text(paper["title"], paper["abstract"], b).split())
               for b in ("title", "words24", "words48", "words96", "full")]
    assert lengths == sorted(lengths) and lengths[0] < lengths[-1]
    title_words = len(paper["title"].split())
    assert lengths[1] == title_words + 24


def test_title_budget_is_the_normalised_title(paper):
    assert document_text("  A  title\nwith breaks ", paper["abstract"], "title") == "A title with breaks"


def test_missing_abstract_or_title_still_gives_text():
    assert document_text("Only a title", "", "words48") == "Only a title"
    assert document_text("", "Just an abstract here.", "full") == "Just an abstract here."


def test_unknown_budget_is_named_in_the_error():
    with pytest.raises(ValueError, match="unknown text budget 'words7'"):
        document_text("t", "a", "words7")
    assert set(BUDGETS) >= {"title", "full"}


def test_text_hash_is_stable_and_sensitive():
    assert text_hash("abc") == text_hash("abc") != text_hash("abd")


def test_sentences_keep_abbreviations_inside():
    assert split_sentences("We use e.g. SGD. Then more. Last one") == ["We use e.g. SGD.", "Then more.", "Last one"]
