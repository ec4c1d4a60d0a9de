"""The institution alias table: every form names one institution, and the institutions people
name are in it."""

from __future__ import annotations

import sqlite3

import pytest

from paperfind.catalog.aliases import alias_index, alias_key, alias_table, is_acronym, read_aliases
from paperfind.catalog.institutions import read_table

GREATER_CHINA = {"China", "Hong Kong", "Taiwan", "Singapore", "Macau"}


def test_every_form_names_exactly_one_institution():
    rows = read_aliases()
    index = alias_index(rows)  # raises on a form two institutions share
    assert len({r.slug for r in rows}) == len(rows), "a slug has two rows"
    table = alias_table()
    for row in rows:
        for form in row.forms():
            assert table.lookup(form).slug == row.slug, form


def test_the_forms_people_type_resolve():
    table = alias_table()
    for form, slug in [("清华", "tsinghua"), ("清华大学", "tsinghua"), ("THU", "tsinghua"),
                       ("北大", "pku"), ("PKU", "pku"), ("上交", "sjtu"), ("SJTU", "sjtu"),
                       ("浙大", "zju"), ("复旦", "fudan"), ("中科大", "ustc"), ("港科大", "hkust"),
                       ("港中文", "cuhk"), ("MSRA", "microsoft-research"), ("stanford", "stanford"),
                       ("Carnegie Mellon University", "cmu"), ("斯坦福", "stanford")]:
        names = table.lookup(form)
        assert names is not None and names.slug == slug, form


def test_every_catalogue_institution_has_its_names():
    have = {r.slug for r in read_aliases()}
    assert {row[0] for row in read_table()} <= have


def test_names_for_the_institutions_with_most_works_in_the_bundled_corpus(bundled_db):
    """Issue 28: the 100 with most works, and every one of mainland China, Hong Kong, Taiwan,
    Singapore and Macau among the first 300, with a Chinese name for the latter."""
    conn = sqlite3.connect(f"file:{bundled_db}?mode=ro", uri=True)
    ranked = conn.execute(
        "SELECT a.institution, i.country FROM paper_affiliations a JOIN papers p ON p.id = a.paper_id "
        "JOIN institutions i ON i.slug = a.institution GROUP BY 1 ORDER BY COUNT(DISTINCT p.work_id) DESC, 1 "
        "LIMIT 300").fetchall()
    conn.close()
    table = alias_table()
    assert [s for s, _ in ranked[:100] if s not in table.by_slug] == []
    chinese = [s for s, country in ranked if country in GREATER_CHINA]
    assert len(chinese) > 40
    assert [s for s in chinese if not table.by_slug.get(s) or not table.by_slug[s].name_zh] == []


def test_a_form_of_two_institutions_is_refused_with_both_named():
    rows = read_aliases("a-uni\tA University\t\t\tAU\nb-uni\tB University\t\t\tAU\n")
    with pytest.raises(ValueError, match="'AU' names both a-uni and b-uni"):
        alias_index(rows)


def test_a_malformed_line_names_its_line():
    with pytest.raises(ValueError, match=r"institution_aliases.tsv:2: expected 5"):
        read_aliases("ok\tOK University\t\t\t\nbroken\tonly two\n")


def test_acronyms_are_kept_as_written_and_names_folded():
    assert is_acronym("THU") and is_acronym("MSRA") and is_acronym("HKUST")
    assert not is_acronym("Tsinghua") and not is_acronym("UofT") and not is_acronym("A")
    assert alias_key("FAIR") == "FAIR" and alias_key("fair") == "fair"
    assert alias_key("Zürich  ETH") == "zurich eth" and alias_key("清华") == "清华"


def _acronym_by_letters(form: str) -> bool:
    """`is_acronym`'s rule a character at a time, as it was written before it counted by bytes."""
    letters = [c for c in form if c.isalpha()]
    return form.isascii() and len(letters) >= 2 and sum(c.isupper() for c in letters) >= len(letters) - 1 \
        and not form[1:].islower()


def test_is_acronym_counts_letters_as_the_per_character_rule_does():
    import itertools
    import random

    forms = [f for row in read_aliases() for f in row.forms()]
    forms += [f.upper() for f in forms] + [f.lower() for f in forms] + [f.title() for f in forms]
    alphabet = "aAbZ1 .-_é中ǅ"  # lower, upper, digit, space, punctuation, non-ASCII, title case
    forms += ["".join(p) for n in range(4) for p in itertools.product(alphabet, repeat=n)]
    rng = random.Random(33)
    ascii_chars = [chr(c) for c in range(128)]
    forms += ["".join(rng.choices(ascii_chars, k=rng.randrange(1, 30))) for _ in range(20_000)]
    forms += ["Graph Neural Networks for MIT", "attention is all you need", "THU MSRA", "iPhone", "ETHz"]
    for form in forms:
        assert is_acronym(form) == _acronym_by_letters(form), form


def test_a_run_is_skipped_only_when_no_alias_can_begin_with_its_word():
    """`may_open` lets the query understander skip the runs of words no Latin alias begins with
    (issue 33); it must never skip one a form the table resolves begins with: every Latin form,
    as written, in lower and upper case, with a possessive or punctuation at its edges."""
    table = alias_table()
    from paperfind.text.fold import has_han

    forms = [f for row in read_aliases() for f in row.forms() if not has_han(f)]
    assert len(forms) > 300
    for form in forms:
        for typed in (form, form.lower(), form.upper(), form.title()):
            first = typed.split()[0]
            if table.lookup(typed) is not None or is_acronym(typed.upper()) and table.lookup(typed.upper()):
                assert table.may_open(first), typed
    # words no alias begins with, in any case or folding
    for word in ("graph", "Attention", "transformers", "über", "ZZQX"):
        assert not table.may_open(word), word
    # nothing to compare: the next word comes first
    assert table.may_open("") and table.may_open("-") and table.may_open("..")
    assert table.may_open("Tsinghua") and table.may_open("tsinghua") and table.may_open("thu")
    assert table.may_open("École") is table.may_open("ecole")


def test_the_chinese_forms_in_a_text_are_those_a_search_of_every_form_finds():
    """`han_forms_in` returns, in the table's order (longest first), at least every form the
    text holds: the understander then searches those alone, not the ~460 forms."""
    table = alias_table()
    texts = ["清华大学世界模型", "北大 智能体", "上交所的股票", "东北大学", "港中文和港科大的具身智能",
             "大语言模型的推理能力", "world models", *table.han_forms[::7]]
    for text in texts:
        some = table.han_forms_in(text)
        held = [f for f in table.han_forms if f in text]
        assert [f for f in some if f in text] == held, text
        assert some == [f for f in table.han_forms if f in some], text  # the table's order
        assert all(f[0] in text for f in some), text
    assert table.han_forms_in("world models") == []
