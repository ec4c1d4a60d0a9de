"""The rows that use a mined name of several words (paperfind.index.paper_names._Uses), over a
real slice's texts: the same answers as reading every candidate's text, while a "more than k?"
reads texts only until the k+1-th use (at a million papers, reading every candidate of every
phrase was most of the name mining's first pass)."""

from __future__ import annotations

import numpy as np
import pytest

from paperfind.index.paper_names import _phrase_of, _plain, _Uses
from paperfind.store import Store


@pytest.fixture(scope="module")
def texts(colt_store: Store) -> list[str]:
    return [_plain(f"{d.title} . {d.abstract}") for d in sorted(colt_store.iter_index_docs(), key=lambda d: d.key)]


class Reader:
    """The texts by row, counting the reads."""

    def __init__(self, texts: list[str]) -> None:
        self.texts, self.reads = texts, 0

    def __call__(self, row: int) -> str:
        self.reads += 1
        return self.texts[row]


def _candidates(texts: list[str], words: list[str]) -> np.ndarray:
    return np.asarray([r for r, t in enumerate(texts) if all(f" {w} " in t for w in words)], dtype=np.int64)


@pytest.mark.parametrize("name", ["online learning", "lower bound", "Multi-Armed Bandits", "convex optimization"])
def test_the_uses_are_the_candidates_writing_the_phrase(texts, name):
    phrase = _phrase_of(name)
    words = phrase.split()
    candidates = _candidates(texts, words[:-1])
    expected = [int(r) for r in candidates if phrase in texts[r]]
    assert len(expected) > 1 and len(candidates) > len(expected)  # words apart in some texts
    uses = _Uses(candidates, phrase, Reader(texts))
    for limit in (0, 1, len(expected) - 1, len(expected), len(candidates)):
        assert uses.more_than(limit) == (len(expected) > limit)
    early = np.asarray([r < len(texts) // 2 for r in candidates.tolist()])
    assert uses.more_than(0, early) == any(r < len(texts) // 2 for r in expected)
    assert uses.rows().tolist() == expected
    assert uses.more_than(len(expected) - 1) and not uses.more_than(len(expected))


def test_a_question_reads_texts_only_until_it_is_answered(texts):
    phrase = _phrase_of("online learning")
    candidates = _candidates(texts, ["online"])
    reader = Reader(texts)
    uses = _Uses(candidates, phrase, reader)
    n_uses = sum(phrase in texts[r] for r in candidates.tolist())
    assert n_uses > 3
    assert uses.more_than(2)
    assert reader.reads < len(candidates) and reader.reads <= 3 + (len(candidates) - n_uses)
    read = reader.reads
    assert uses.more_than(1) and reader.reads == read  # known already: nothing read again
    uses.rows()
    assert reader.reads == len(candidates)  # every text once, over both questions
    assert not uses.more_than(n_uses) and reader.reads == len(candidates)


def test_a_name_of_one_word_is_its_candidates_unread(texts):
    assert _phrase_of("Bandits") is None and _phrase_of("Grad-CAM") == " grad cam"
    reader = Reader(texts)
    uses = _Uses(np.arange(10, dtype=np.int64), None, reader)
    assert uses.more_than(10) is False and uses.more_than(9.5) and uses.rows().tolist() == list(range(10))
    assert uses.more_than(2, np.arange(10) < 2) is False and uses.more_than(1, np.arange(10) < 2)
    assert reader.reads == 0


def test_a_capitalised_word_sharing_a_phrases_uses_is_judged_by_who_writes_it_so() -> None:
    """"Auto Encoders" and "Autoencoders" are one name (one folded form, so one `_Uses`, made by
    the phrase seen first); the capitalised word is new where earlier papers wrote only the
    lower-case phrase, which the phrase's count alone would not tell."""
    from tests.index.test_paper_names import _mine

    earlier = [(f"Study {i}", f"We train auto encoders on task {i}.", 2015 + i % 3, -1) for i in range(4)]
    found = _mine(earlier + [
        ("Auto Encoders: A Review", "A review of auto encoders.", 2018, -1),
        ("Autoencoders: Learning Codes", "We introduce Autoencoders for codes.", 2019, -1),
    ])
    assert found.names[5] == ["Autoencoders"]
    assert found.names[4] == []  # the phrase itself: four earlier papers wrote it


def test_unread_candidates_are_held_in_half_the_bytes_and_the_uses_given_as_int64(texts):
    """A phrase's candidates wait, unread, for every phrase the mining meets (at a million papers
    ~10^8 rows, where main held only the uses): int32 while held, the rows int64 as before."""
    phrase = _phrase_of("online learning")
    candidates = _candidates(texts, ["online"])
    uses = _Uses(candidates, phrase, Reader(texts))
    assert uses.candidates.dtype == np.int32 and uses.candidates.tolist() == candidates.tolist()
    rows = uses.rows()
    assert rows.dtype == np.int64 and rows.tolist() == [r for r in candidates.tolist() if phrase in texts[r]]


@pytest.mark.parametrize("limit", [0, 1, 2, 4])
def test_a_question_reads_up_to_the_text_that_answers_it_and_no_further(texts, limit):
    """The candidates are read in row order and the reading stops at the use that answers "more
    than `limit`?": what is read (and so the texts made) is the same whatever the batching."""
    phrase = _phrase_of("online learning")
    candidates = _candidates(texts, ["online"])
    writes = [phrase in texts[r] for r in candidates.tolist()]
    answering = [i for i, w in enumerate(writes) if w][limit]  # the (limit + 1)-th use
    reader = Reader(texts)
    uses = _Uses(candidates, phrase, reader)
    assert uses.more_than(limit) and reader.reads == answering + 1
    assert uses.marks[:answering + 1].tolist() == [int(w) for w in writes[:answering + 1]]
    assert (uses.marks[answering + 1:] == -1).all()
    early = np.arange(len(candidates)) < answering  # the answering text left out: all of the rest read
    assert not uses.more_than(limit, early) and reader.reads == answering + 1
    assert uses.more_than(limit - 1, early) and reader.reads == answering + 1  # its `limit` uses known
