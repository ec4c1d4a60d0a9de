"""The learned ranking of people over a real index: it re-orders the voting's first people by
the model, its features read only the papers that may count (`before`), an unusable model
leaves the voting's order, and its training queries never come from a held-out venue-year."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from paperfind.core import Paperfind
from paperfind.rank.train_experts import HELD_OUT, training_queries
from paperfind.search.expert_learned import FEATURES, ExpertRanker, expert_ranker, learned_order
from paperfind.search.experts import ExpertQuery, candidate_features, find_experts
from paperfind.search.learned import ModelError
from paperfind.settings import Settings
from tests.realdata import load_paperlist, write_slice

QUERY = "online learning regret bounds for bandits"


@pytest.fixture(scope="module")
def app(colt_two_years) -> Paperfind:
    return colt_two_years  # tests/conftest.py: every COLT 2018 and 2019 paper, lexical


def everyone(app: Paperfind):
    """The app's finder settings with everyone listed (`min_works` 1): the model's order is the
    test, and most COLT authors of two years have one or two papers."""
    return replace(app.settings.search.experts, min_works=1)


def works_model(path: Path) -> Path:
    """A real LightGBM model over FEATURES that scores people by their eligible works alone (so
    its order is not the voting's)."""
    import lightgbm

    rng = np.random.default_rng(0)
    x = rng.random((400, len(FEATURES))) * 10
    works = FEATURES.index("works")
    y = (x[:, works] > 5).astype(int)
    booster = lightgbm.train({"objective": "lambdarank", "verbose": -1, "min_data_in_leaf": 5,
                              "num_threads": 1, "deterministic": True, "seed": 0},
                             lightgbm.Dataset(x, y, group=[40] * 10, feature_name=list(FEATURES)),
                             num_boost_round=20)
    booster.save_model(str(path))
    return path


def test_the_model_reorders_the_votings_first_people(app, tmp_path):
    backend = app.searcher().backend()
    base = replace(everyone(app), learned=True, learned_model=works_model(tmp_path / "m.txt"))
    voting = find_experts(backend, ExpertQuery(text=QUERY), replace(base, learned=False))
    learned = find_experts(backend, ExpertQuery(text=QUERY), base)
    head = voting.experts[:base.learned_depth]
    x = candidate_features(backend, backend.profiles(), voting.papers, voting.experts, voting.eligible,
                           voting.reference_year, QUERY, base)
    order, scores = learned_order(expert_ranker(base.learned_model).scores(x))
    expected = [head[i].author_id for i in order]
    got = [e.author_id for e in learned.experts]
    assert got[:len(head)] == expected
    assert expected != [e.author_id for e in head]  # the model's order is not the voting's
    assert [e.score for e in learned.experts[:len(head)]] == sorted((e.score for e in learned.experts[:len(head)]),
                                                                    reverse=True)
    assert all(0 < e.score < 1 for e in learned.experts)
    assert sorted(got) == sorted(e.author_id for e in voting.experts)  # the same people


def test_a_page_of_ten_still_reorders_the_learned_depth_trained_on(app, tmp_path):
    """The server asks for a page (10 people): the model must still see the voting's first
    `learned_depth` people, as train_experts collects them, not the `spread_depth` the voting
    keeps for a page, or it ranks fewer people on other features than it was trained on."""
    backend = app.searcher().backend()
    base = replace(everyone(app), learned=True, learned_model=works_model(tmp_path / "m.txt"),
                   spread_depth=5, learned_depth=60)
    voting = find_experts(backend, ExpertQuery(text=QUERY), replace(base, learned=False),
                          needed=base.learned_depth)  # as train_experts.collect asks
    assert len(voting.experts) > 20  # more people than a page and the spread hold
    x = candidate_features(backend, backend.profiles(), voting.papers, voting.experts, voting.eligible,
                           voting.reference_year, QUERY, base)
    order, _ = learned_order(expert_ranker(base.learned_model).scores(x))
    head = voting.experts[:base.learned_depth]
    learned = find_experts(backend, ExpertQuery(text=QUERY), base, needed=10)
    assert [e.author_id for e in learned.experts[:len(head)]] == [head[i].author_id for i in order]


def test_features_read_only_the_papers_before_the_year(app):
    backend = app.searcher().backend()
    settings = replace(everyone(app), learned=False)
    profiles = backend.profiles()
    docs = backend.index.docs
    found = find_experts(backend, ExpertQuery(text=QUERY, before=2019), settings)
    x = candidate_features(backend, profiles, found.papers, found.experts, found.eligible,
                           found.reference_year, QUERY, settings)
    ids = [e.author_id for e in found.experts[:settings.learned_depth]]
    works = profiles.works_counted(ids, found.eligible)
    everything = profiles.works_counted(ids, None)
    assert x[:, FEATURES.index("works")].tolist() == works
    assert works != everything  # some of them wrote a 2019 paper, which must not count
    assert (x[:, FEATURES.index("matches")] <= x[:, FEATURES.index("works")]).all()
    assert (x[:, FEATURES.index("years_since_work")] >= 0).all()
    assert set(docs.year[found.papers.rows].tolist()) == {2018}


def test_an_unusable_model_leaves_the_votings_order(app, tmp_path, capsys):
    junk = tmp_path / "junk.txt"
    junk.write_text("not a model\n", encoding="utf-8")
    with pytest.raises(ModelError):
        ExpertRanker.load(junk)
    backend = app.searcher().backend()
    settings = replace(everyone(app), learned=True, learned_model=junk)
    got = find_experts(backend, ExpertQuery(text=QUERY), settings).experts
    voting = find_experts(backend, ExpertQuery(text=QUERY), replace(settings, learned=False)).experts
    assert [e.author_id for e in got] == [e.author_id for e in voting]
    assert "learned ranking of people off" in capsys.readouterr().err


def test_the_learned_ranking_is_switched_on_by_its_setting_alone():
    assert Settings().search.experts.learned is False  # it ranked no better than the voting
    assert Settings.from_env({"PAPERFIND_EXPERTS_LEARNED": "1"}).search.experts.learned is True


def test_training_queries_never_come_from_a_held_out_venue_year(tmp_path):
    records = load_paperlist("colt", 2019)
    write_slice(tmp_path / "data", "colt", 2018, load_paperlist("colt", 2018))
    write_slice(tmp_path / "data", "colt", 2019, records)
    write_slice(tmp_path / "data", "nips", 2023, records[:10])  # a judging year, the same papers
    app = Paperfind(Settings(db_path=tmp_path / "p.db", semantic=False))
    app.ingest([tmp_path / "data"], progress=False, build_index=False, vectors=False)
    app.store().close()
    assert ("nips", 2023) in HELD_OUT
    queries = training_queries(tmp_path / "p.db", 1000, min_earlier_works=0)
    keys = {q.key for q in queries}
    assert queries and {q.venue_year for q in queries} <= {"colt2019", "colt2018"}
    assert not any(k.startswith("nips2023:") for k in keys)
    # a paper with a version in a held-out venue-year is never a query either
    assert not {f"colt2019:{r['id']}" for r in records[:10]} & keys
    assert {f"colt2019:{r['id']}" for r in records[10:]} & keys
