"""Text budgets: what part of a real paper is embedded."""

from __future__ import annotations

import pytest

from paperfind.embed.text import BUDGETS, _CONTRIBUTION, document_text, text_hash
from paperfind.text.sentences import first_sentence, split_sentences
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


def test_sentence_budget_stops_at_the_first_sentence(paper):
    text = document_text(paper["title"], paper["abstract"], "sentence")
    assert text.startswith(paper["title"].strip())
    assert first_sentence(" ".join(paper["abstract"].split())) in text
    assert first_sentence("We use e.g. SGD. Then more.") == "We use e.g. SGD."


def test_missing_abstract_or_title_still_gives_text():
    assert document_text("Only a title", "", "words48") == "Only a title"
    assert document_text("", "Just an abstract here.", "full") == "Just an abstract here."


def test_unknown_budget_is_named_in_the_error():
    with pytest.raises(ValueError, match="unknown text budget 'words7'"):
        document_text("t", "a", "words7")
    assert set(BUDGETS) >= {"title", "full"}


def test_text_hash_is_stable_and_sensitive():
    assert text_hash("abc") == text_hash("abc") != text_hash("abd")


def test_contribution_budget_starts_at_what_the_paper_does():
    records = [r for r in load_paperlist("iclr", 2017) if len(r.get("abstract", "").split()) > 60]
    background_first = next(r for r in records
                            if not _CONTRIBUTION.search(split_sentences(" ".join(r["abstract"].split()))[0])
                            and _CONTRIBUTION.search(r["abstract"]))
    text = document_text(background_first["title"], background_first["abstract"], "contrib24")
    lead = text[len(background_first["title"].strip()):].lstrip(". ")
    assert _CONTRIBUTION.search(" ".join(lead.split()[:12]))  # the lead opens on the contribution
    assert text != document_text(background_first["title"], background_first["abstract"], "words24")
    # same cost as words24: the title and 24 words of the abstract
    assert len(text.split()) == len(background_first["title"].split()) + 24


def test_contribution_budget_is_words24_when_nothing_else_is_found():
    # an abstract opening on its contribution, or naming none, embeds the words24 text: its stored
    # vector (same text hash) is reused when the budget changes
    opening = next(r for r in load_paperlist("iclr", 2017)
                   if _CONTRIBUTION.search(split_sentences(" ".join(r.get("abstract", "").split()) or "x")[0]))
    for r in (opening, {"title": "A title", "abstract": "Graphs are everywhere. Nothing is claimed here."}):
        assert document_text(r["title"], r["abstract"], "contrib24") == document_text(r["title"], r["abstract"], "words24")


def test_sentences_keep_abbreviations_inside():
    assert split_sentences("We use e.g. SGD. Then more. Last one") == ["We use e.g. SGD.", "Then more.", "Last one"]
