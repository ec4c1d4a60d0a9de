"""Which abstracts the "our X software" and "our novel X" patterns are run on (paperfind.index.
paper_names): only those holding what each of their matches holds, found by a scan several
times cheaper (the patterns try their leading word at every letter; at a million papers every
abstract's scan was minutes of the index build's name mining), and no abstract either pattern
finds a name in is left out."""

from __future__ import annotations

from paperfind.index.paper_names import _OUR_NEW, _SOFTWARE, may_name_code, may_say_our_new, own_names
from paperfind.store import Store

# shapes each pattern reads, and near misses
CODE = ["We release our AdamW-and-SGDW implementation.", "Our\u00a0Pix2Pix\ncode is public.",
        "See the pix2pix software associated with this paper.", "the FooBar codebase for this work"]
NOT_CODE = ["An encoder and a decoder (our SuperNet).", "We propose a new library-free method.",
            "Our method packages the data."]
OUR_NEW = ["Our novel Focal Loss focuses training on hard examples.", "our  proposed\tDeep Ensembles work",
           "Unlike prior work, our new Performer attends linearly."]
NOT_OUR_NEW = ["Our newest Model is here.", "A novel Dataset of ours.", "our novel approach is simple"]


def test_an_abstract_is_scanned_for_code_names_only_where_it_may_hold_one(colt_store: Store) -> None:
    abstracts = [d.abstract for d in colt_store.iter_index_docs()] + CODE + NOT_CODE
    skipped = [a for a in abstracts if not may_name_code(a)]
    assert all(not list(_SOFTWARE.finditer(a)) for a in skipped)  # nothing the full scan would find
    assert all(may_name_code(a) and list(_SOFTWARE.finditer(a)) for a in CODE)
    assert not any(list(_SOFTWARE.finditer(a)) for a in NOT_CODE)
    assert len(skipped) > len(abstracts) // 2


def test_an_abstract_is_scanned_for_our_new_names_only_where_it_may_hold_one(colt_store: Store) -> None:
    abstracts = [d.abstract for d in colt_store.iter_index_docs()] + OUR_NEW + NOT_OUR_NEW
    skipped = [a for a in abstracts if not may_say_our_new(a)]
    assert all(not list(_OUR_NEW.finditer(a)) for a in skipped)
    assert all(may_say_our_new(a) and list(_OUR_NEW.finditer(a)) for a in OUR_NEW)
    assert not any(may_say_our_new(a) for a in NOT_OUR_NEW[:2])
    assert len(skipped) > len(abstracts) * 9 // 10


def test_the_names_found_are_the_patterns_own() -> None:
    assert own_names("A Title", OUR_NEW[0]) == ["Focal Loss"]
    assert own_names("A Title", CODE[2]) == ["pix2pix"]
    assert own_names("A Title", NOT_CODE[0] + " " + NOT_OUR_NEW[2]) == []


def test_a_capitalised_word_is_found_where_the_word_bounded_pattern_finds_it(colt_store: Store) -> None:
    """`capitalised_pattern` opens with the word (searched for it, not tried at every letter) and
    matches where "\\bStems?\\b" does, on real abstracts and at the edges of words."""
    import re

    from paperfind.index.paper_names import capitalised_pattern

    abstracts = [d.abstract for d in colt_store.iter_index_docs()] + [
        "xBandit Bandits", "the Bandit_x Bandit.", "A. Bandit", "é Bandits, de", "Banditss Bandit s", "Bandit",
        "Regret regret. Regrets", "(Regret)"]
    for name in ("Bandit", "Bandits", "Regret", "Learning", "Algorithm", "Online"):
        pattern = capitalised_pattern(name)
        assert pattern.startswith(re.escape(name.rstrip("s")))
        reference = r"\b" + re.escape(name[:-1] if name.endswith("s") else name) + r"s?\b"
        for text in abstracts:
            assert [m.span() for m in re.finditer(pattern, text)] == \
                [m.span() for m in re.finditer(reference, text)]


# "We" / "This paper" at a word's start and inside a word, for the two patterns that open with it
WE_OPENS = ["We propose BigGAN, a model.", "In short, we present Foo (a tool).", "This paper introduces ResNet: deep.",
            "this work develops Bar - a system.", "Awe present Foo, a thing.", "Sweet: Thiswork presents Baz, a.",
            "X.We train Qux, a net.", "We propose a simple method, mixup, that works.",
            "Awe propose a new approach, prototypical networks, that learns."]


def test_the_we_patterns_match_where_their_word_boundary_forms_do(colt_store: Store) -> None:
    """`_PRESENTS` and `_APPOSITIVE` open with their first letters (`_WE_OPENS`, a scan for four
    letters) where they opened with `\\b`: the same matches, spans and groups as the `\\b` form."""
    import re

    from paperfind.index.paper_names import _APPOSITIVE, _PRESENTS, _WE_OPENS

    boundary = r"\b(?:[Ww]e|[Tt]his (?:paper|work))"
    texts = [d.abstract for d in colt_store.iter_index_docs()] + WE_OPENS
    for pattern in (_PRESENTS, _APPOSITIVE):
        assert pattern.pattern.startswith(_WE_OPENS)
        reference = re.compile(boundary + pattern.pattern[len(_WE_OPENS):])
        found = 0
        for text in texts:
            mine = [(m.span(), m.groups()) for m in pattern.finditer(text)]
            assert mine == [(m.span(), m.groups()) for m in reference.finditer(text)], text
            found += len(mine)
        assert found > 0
    presents = [m.group(1) for t in WE_OPENS for m in _PRESENTS.finditer(t)]
    assert presents == ["BigGAN", "Foo", "ResNet", "Bar", "Qux"]  # not after "Awe" nor "Thiswork"
    assert [m.group(1) for t in WE_OPENS for m in _APPOSITIVE.finditer(t)] == ["mixup"]
