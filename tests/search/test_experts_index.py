"""Who works on this over a real index: the profiles follow the index when papers are added,
and the routes' scores are standardised (one paper found counts, a crowd does not)."""

from __future__ import annotations

import numpy as np

from paperfind.core import Paperfind
from paperfind.search.expert_results import ExpertsRequest
from paperfind.search.experts import standardised
from paperfind.settings import Settings
from tests.realdata import load_paperlist, write_slice


def test_people_of_papers_added_later_are_found_after_the_index_is_rebuilt(tmp_path):
    first = load_paperlist("colt", 2018)[:30]
    later = load_paperlist("colt", 2019)[:30]
    write_slice(tmp_path / "a", "colt", 2018, first)
    write_slice(tmp_path / "b", "colt", 2019, later)
    app = Paperfind(Settings(db_path=tmp_path / "p.db", semantic=False))
    app.ingest([tmp_path / "a"], progress=False)
    query = ExpertsRequest(q=later[0]["title"], size=100, min_works=1)  # a 2019 paper's people: 1 work
    before = app.searcher().experts(query)
    app.ingest([tmp_path / "b"], progress=False)
    after = app.searcher().experts(query)
    new_key = f"colt2019:{later[0]['id']}"
    assert new_key not in {e["key"] for p in before["results"] for e in p["evidence"]}
    top = after["results"][0]
    assert new_key in {e["key"] for e in top["evidence"]}
    assert top["name"] in [n.strip() for n in later[0]["author"].split(";")]


def test_standard_scores_keep_what_stands_above_the_crowd():
    assert standardised(np.array([5.0])).tolist() == [1.0]  # one paper found: it counts
    z = standardised(np.array([1.0, 1.0, 1.0, 4.0]))
    assert z[:3].tolist() == [0.0, 0.0, 0.0] and z[3] > 1.5
    assert standardised(np.zeros(0)).tolist() == []


def test_an_answer_is_kept_for_the_next_visit_and_copied(tmp_path):
    write_slice(tmp_path / "a", "colt", 2018, load_paperlist("colt", 2018)[:30])
    app = Paperfind(Settings(db_path=tmp_path / "p.db", semantic=False))
    app.ingest([tmp_path / "a"], progress=False)
    searcher = app.searcher()
    query = ExpertsRequest(q="online learning", size=5, min_works=1)  # everyone: a year of papers
    first = searcher.experts(query)
    assert first["results"]
    hits = searcher.cache.hits
    first["results"].clear()  # a caller decorating its answer does not change the kept one
    again = searcher.experts(query)
    assert searcher.cache.hits == hits + 1
    assert again["results"] and again == searcher.experts(query)
