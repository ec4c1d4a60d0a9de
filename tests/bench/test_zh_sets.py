"""The project's own Chinese dev sets (bench/zh_dev2, bench/zh_dev3) and bench.zh_quality's parts
that read them."""

from __future__ import annotations

import argparse
import json
import sqlite3

import pytest

from bench import corpus, zh_dev2, zh_quality


@pytest.mark.parametrize("name", sorted(zh_dev2.SETS))
def test_the_projects_own_set_is_read_from_bench_and_eval_devs_from_shared(name):
    assert corpus.set_file(name) == corpus.REPO / "bench" / f"{name}.jsonl" == zh_dev2.SETS[name].path
    assert corpus.set_file("zh_dev") == corpus.EVAL / "zh_dev.jsonl"
    items = corpus.load_set(name)
    assert 60 <= len(items) <= 100 and len({it["qid"] for it in items}) == len(items)


@pytest.mark.parametrize("name", sorted(zh_dev2.SETS))
def test_every_drawn_sets_query_is_chinese_of_the_rules_length_and_names_one_paper(name):
    for item in corpus.load_set(name):
        assert zh_dev2.HAN[0] <= zh_dev2.han_chars(item["query"]) <= zh_dev2.HAN[1], item["qid"]
        assert item["han_chars"] == zh_dev2.han_chars(item["query"])
        assert len(item["relevant"]) == 1 and item["title"] not in item["query"]


@pytest.mark.realdata
@pytest.mark.parametrize("name", sorted(zh_dev2.SETS))
def test_no_drawn_sets_paper_is_of_a_zh_dev_venue_year(name):
    barred = zh_dev2.barred_venue_years()
    assert barred and "nips2018" in barred
    keys = {k for it in corpus.load_set(name) for k in it["relevant"]}
    assert not {zh_dev2.venue_year(k) for k in keys} & barred


def test_the_drawn_sets_share_no_paper_and_no_query():
    items = {name: corpus.load_set(name) for name in zh_dev2.SETS}
    keys = [k for its in items.values() for it in its for k in it["relevant"]]
    queries = [it["query"] for its in items.values() for it in its]
    assert len(set(keys)) == len(keys) and len(set(queries)) == len(queries)


def test_the_draw_is_seeded_and_skips_barred_venue_years_and_short_abstracts(tmp_path, monkeypatch):
    db = tmp_path / "papers.db"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE papers (key TEXT, title TEXT, abstract TEXT)")
    long = "x" * zh_dev2.MIN_ABSTRACT
    con.executemany("INSERT INTO papers VALUES (?, ?, ?)",
                    [(f"iclr2021:p{i}", f"t{i}", long) for i in range(30)]
                    + [(f"nips2018:q{i}", f"u{i}", long) for i in range(10)]
                    + [("iclr2021:short", "s", "too short")])
    con.commit()
    con.close()
    monkeypatch.setattr(zh_dev2, "barred_venue_years", lambda: {"nips2018"})
    drawn = zh_dev2.draw(db, 20)
    assert drawn == zh_dev2.draw(db, 20) and len(drawn) == 20
    keys = [p["key"] for p in drawn]
    assert all(k.startswith("iclr2021:p") for k in keys)
    assert keys != sorted(keys)  # the seeded order, not the table's
    every = [p["key"] for p in zh_dev2.draw(db, 30)]
    other = [p["key"] for p in zh_dev2.draw(db, 30, seed="zh_dev3")]
    assert other != every and sorted(other) == sorted(every)  # each set's name seeds its own order


def test_check_reads_the_named_sets_file_and_its_sample(tmp_path, monkeypatch):
    db = tmp_path / "papers.db"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE papers (key TEXT, title TEXT, abstract TEXT)")
    con.executemany("INSERT INTO papers VALUES (?, ?, ?)",
                    [(f"uai2021:p{i}", f"t{i}", "x" * zh_dev2.MIN_ABSTRACT) for i in range(10)])
    con.commit()
    con.close()
    monkeypatch.setattr(zh_dev2, "barred_venue_years", lambda: {"nips2018"})
    drawn_set = zh_dev2.DrawnSet("own_set", 3, "a test corpus")
    monkeypatch.setattr(zh_dev2.DrawnSet, "path", property(lambda self: tmp_path / f"{self.name}.jsonl"))
    first, last = zh_dev2.draw(db, 10, seed="own_set")[0]["key"], zh_dev2.draw(db, 10, seed="own_set")[-1]["key"]
    lines = [{"qid": "a", "query": "半定规划松弛为什么是紧的问题", "relevant": {first: 1}},
             {"qid": "b", "query": "太短", "relevant": {last: 1}}]
    drawn_set.path.write_text("\n".join(json.dumps(it, ensure_ascii=False) for it in lines), encoding="utf-8")
    problems = zh_dev2.check(db, drawn_set)
    assert problems == [f"b: {last} is not among the 3 drawn papers", "b: 2 Han characters"]


def test_precision_at_10_is_the_share_of_the_top_10_that_is_relevant(tmp_path, monkeypatch):
    items = [{"qid": "a", "relevant": {"k1": 1, "k2": 1}}, {"qid": "b", "relevant": {"k3": 1}}]
    path = tmp_path / "bench_set.jsonl"
    path.write_text("\n".join(json.dumps(it) for it in items), encoding="utf-8")
    monkeypatch.setattr(corpus, "set_file", lambda name: path)
    ranked = {"a": ["k1", "x", "k2"] + [f"y{i}" for i in range(10)], "b": ["z"]}
    assert zh_quality.precision_at_10("bench_set", ranked) == pytest.approx((2 / 10 + 0) / 2)


def test_a_variant_is_a_name_and_an_existing_tree(tmp_path):
    assert zh_quality.parse_variant(f"zh28e={tmp_path}") == ("zh28e", tmp_path.resolve())
    for bad in ("zh28e", f"={tmp_path}", f"zh28e={tmp_path / 'missing'}"):
        with pytest.raises(argparse.ArgumentTypeError):
            zh_quality.parse_variant(bad)


def test_zh_dev3_is_scored_by_both_chinese_benches():
    from bench import modes_quality

    assert "zh_dev3" in zh_quality.ZH_SETS and "zh_dev3" in modes_quality.OWN_SETS
    assert "zh_dev2" not in modes_quality.OWN_SETS  # its papers are of the bundled corpus only
