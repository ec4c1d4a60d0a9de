"""The query language: every form, and forgiveness for anything else."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from paperfind.limits import MAX_QUERY_CHARS
from paperfind.search.query import parse_query


def test_plain_words_and_phrases():
    q = parse_query('graph "neural network" pruning')
    assert q.words == ["graph", "neural network", "pruning"]
    assert q.phrases == ["neural network"]


def test_fields():
    q = parse_query('author:"Haipeng Luo" title:bandits venue:COLT inst:mit area:theory status:oral')
    assert q.authors == ["Haipeng Luo"] and q.titles == ["bandits"] and q.venues == ["COLT"]
    assert q.insts == ["mit"] and q.areas == ["theory"] and q.statuses == ["oral"]
    assert q.words == [] and q.has_text


def test_years():
    assert (parse_query("year:2019").year_from, parse_query("year:2019").year_to) == (2019, 2019)
    q = parse_query("year:2017..2019")
    assert (q.year_from, q.year_to) == (2017, 2019)
    q = parse_query("year:2019-2017")
    assert (q.year_from, q.year_to) == (2017, 2019)
    q = parse_query("year:>2018")
    assert (q.year_from, q.year_to) == (2019, None)
    q = parse_query("year:2018..")
    assert (q.year_from, q.year_to) == (2018, None)
    q = parse_query("year:soon")
    assert (q.year_from, q.year_to) == (None, None)


def test_exclusion_and_or():
    q = parse_query('bandits -adversarial -"full information" NOT contextual')
    assert q.words == ["bandits"]
    assert q.excluded == ["adversarial", "full information", "contextual"]
    assert parse_query("gan OR vae").any_of and not parse_query("gan or vae").any_of


def test_aliases_and_case_of_field_names():
    q = parse_query("AU:levine Ti:robots Institution:cmu")
    assert q.authors == ["levine"] and q.titles == ["robots"] and q.insts == ["cmu"]


def test_unknown_fields_and_stray_operators_are_text():
    q = parse_query("foo:bar - : AND OR -- author:")
    assert "foo:bar" in q.words and q.authors == []


def test_unbalanced_quote_quotes_to_the_end():
    q = parse_query('deep "reinforcement learning')
    assert q.phrases == ["reinforcement learning"]


def test_sql_and_fts_syntax_are_just_text():
    q = parse_query("'; DROP TABLE papers; -- NEAR(a b) title:* \"")
    assert q.raw.startswith("'; DROP")
    assert "DROP" in q.words


def test_long_input_is_cut_and_controls_removed():
    q = parse_query("a\x00b\u200b" + "x" * 10_000)
    assert len(q.raw) <= MAX_QUERY_CHARS and "\x00" not in q.raw


def test_non_string_input():
    assert parse_query(None).words == [] and parse_query(42).words == ["42"]


@settings(max_examples=1000, deadline=None)
@given(st.text(max_size=300))
def test_parser_never_raises(text):
    q = parse_query(text)
    assert isinstance(q.words, list) and len(q.raw) <= MAX_QUERY_CHARS


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(['author:', 'title:', 'year:', '"', '-', 'OR', 'NOT', 'venue:',
                                 '..', '2019', 'x', ' ', '：', '模型', '😀', '\\', '(']), max_size=30))
def test_parser_never_raises_on_operator_soup(parts):
    parse_query("".join(parts))
