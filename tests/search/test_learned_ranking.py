"""The learned re-ranker on the real search slice (COLT 2019, CoRL 2022, ICLR 2017) with the
bundled vectors: training is reproducible byte for byte and never uses a dev year, the model
re-orders only the kinds it is applied to, the switch and a bad model file give today's order."""

from __future__ import annotations

import json

import numpy as np
import pytest

from paperfind.rank import train
from paperfind.search.engine import SearchRequest, Searcher, open_searcher
from paperfind.search.learned import FEATURES, LearnedRanker, ModelError
from paperfind.search.settings import SearchSettings
from paperfind.settings import BUNDLED_CORPUS, Settings

pytestmark = pytest.mark.realdata

VECTORS = BUNDLED_CORPUS.with_name("default-corpus.vectors")  # the base generation: the slice's keys are in it
NATURAL = "we learn a policy for robot grasping from human demonstrations with a transformer"
KEYWORDS = "imitation learning"


@pytest.fixture(scope="module")
def trained(slice_store, tmp_path_factory):
    """Two models trained from the same slice and arguments, and the first one's record."""
    store, index_root = slice_store
    db = index_root.with_name(index_root.name[:-len(".index")])
    out = tmp_path_factory.mktemp("model")
    args = ["--db", str(db), "--vectors", str(VECTORS), "--max-queries", "60", "--rounds", "25",
            "--folds", "2"]
    assert train.main(args + ["--out", str(out / "a.txt")]) == 0
    assert train.main(args + ["--out", str(out / "b.txt")]) == 0
    return out / "a.txt", out / "b.txt", json.loads((out / "a.json").read_text())


def _searcher(slice_store, **settings) -> Searcher:
    settings.setdefault("learned_kinds", ("natural",))
    store, index_root = slice_store
    return open_searcher(index_root, store, SearchSettings(result_cache=0, **settings), vector_dir=VECTORS)


def _keys(searcher: Searcher, q: str, **request) -> list[str]:
    return [h["key"] for h in searcher.search(SearchRequest(q=q, limit=100, mode="hybrid", **request)).results]


def test_training_is_byte_identical_and_recorded(trained):
    a, b, record = trained
    assert a.read_bytes() == b.read_bytes()
    assert a.read_text().startswith("tree")
    assert record["features"] == list(FEATURES)
    counts = record["training_set"]
    assert counts["queries_run"] == 60 and counts["queries"] > 40
    assert counts["queries"] + counts["not_fused"] + counts["title_covered"] == 60
    assert len(record["cross_validation"]["per_fold"]) == 2
    assert record["cross_validation"]["grouped_by"] == "work"


def test_training_never_queries_a_dev_year(slice_store):
    store, index_root = slice_store
    searcher = _searcher(slice_store, learned_ranking=False)
    queries, info = train.training_queries(BUNDLED_CORPUS, searcher.backend())
    assert queries and not [q for q in queries if q.key.startswith(("iclr2017:", "iclr2018:"))]
    assert set(info["queries_by_venue_year"]) == {"corl2022"}  # ICLR 2017 TL;DRs are the dev set


def test_folds_keep_a_work_on_one_side():
    works = [5, 7, 5, 9, 7, 11, 5]
    folds = train.folds_by_work(works, 2, seed=0)
    assert sorted(np.concatenate(folds).tolist()) == list(range(len(works)))
    for fold in folds:
        inside = {works[q] for q in fold.tolist()}
        outside = {works[q] for f in folds if f is not fold for q in f.tolist()}
        assert not inside & outside


def test_the_model_orders_the_candidates_of_the_kinds_it_is_applied_to(slice_store, trained):
    model = trained[0]
    off = _searcher(slice_store, learned_ranking=False)
    on = _searcher(slice_store, learned_model=model, learned_kinds=("natural",))
    rows, features = on.first_stage(NATURAL, 100)
    scores = LearnedRanker.load(model).scores(features)
    backend = on.backend()
    expected = [backend.key_of(int(rows[i])) for i in np.lexsort((np.arange(len(rows)), -scores))]
    assert _keys(on, NATURAL)[:len(expected)] == expected
    assert sorted(_keys(on, NATURAL)) == sorted(_keys(off, NATURAL))  # same papers, re-ordered
    # a keyword query is another kind: untouched
    assert _keys(on, KEYWORDS) == _keys(off, KEYWORDS)
    # and a natural query is untouched when its kind is not listed
    assert _keys(_searcher(slice_store, learned_model=model, learned_kinds=("chinese",)), NATURAL) \
        == _keys(off, NATURAL)


def test_explain_names_the_deciding_features(slice_store, trained):
    on = _searcher(slice_store, learned_model=trained[0])
    results = on.search(SearchRequest(q=NATURAL, limit=3, mode="hybrid", explain=True)).results
    assert results and all(r["ranking"]["model"] == "learned" for r in results)
    assert all(f["feature"] in FEATURES for r in results for f in r["ranking"]["top_features"])
    plain = on.search(SearchRequest(q=NATURAL, limit=3, mode="hybrid")).results
    assert "ranking" not in plain[0]


def test_switch_off_gives_todays_ranking(slice_store, trained):
    assert Settings.from_env({"PAPERFIND_LEARNED_RANKING": "0"}).search.learned_ranking is False
    assert Settings.from_env({}).search.learned_ranking is True
    off = _searcher(slice_store, learned_ranking=False, learned_model=trained[0])
    assert off.ranker() is None
    none_applied = _searcher(slice_store, learned_model=trained[0], learned_kinds=())
    assert _keys(off, NATURAL) == _keys(none_applied, NATURAL)


@pytest.mark.parametrize("content", [None, "not a model\n", "tree\nversion=v4\nnum_class=1\n"])
def test_a_missing_or_corrupt_model_file_falls_back_with_a_message(slice_store, tmp_path, capsys, content):
    path = tmp_path / "model.txt"
    if content is not None:
        path.write_text(content)
    with pytest.raises(ModelError, match="model"):
        LearnedRanker.load(path)
    broken = _searcher(slice_store, learned_model=path)
    off = _searcher(slice_store, learned_ranking=False)
    assert _keys(broken, NATURAL) == _keys(off, NATURAL)
    err = capsys.readouterr().err
    assert "learned ranking off" in err and str(path) in err


def test_a_model_of_other_features_is_refused(trained, tmp_path):
    text = trained[0].read_text().replace("feature_names=pipeline_rel", "feature_names=other", 1)
    path = tmp_path / "other.txt"
    path.write_text(text)
    with pytest.raises(ModelError, match="other features"):
        LearnedRanker.load(path)


def test_the_shipped_model_loads_and_is_recorded():
    from paperfind.search.learned import DEFAULT_MODEL

    ranker = LearnedRanker.load(DEFAULT_MODEL)
    assert ranker.booster.num_trees() > 0
    assert DEFAULT_MODEL.stat().st_size < 1_000_000
    record = json.loads(DEFAULT_MODEL.with_suffix(".json").read_text())
    assert record["features"] == list(FEATURES)
    assert record["excluded_venue_years"] == ["iclr2017", "iclr2018"]
    assert "iclr2017" not in record["training_set"]["queries_by_venue_year"]


def test_explain_reaches_the_cli_text_and_the_api(slice_store, tmp_path):
    """`paperfind search --explain` prints the deciding features; `/api/search?explain=1` gives
    them as `ranking` on the results the shipped model ordered, and nothing without it."""
    import shutil

    from paperfind.core import Paperfind
    from paperfind.search.format import format_results_text
    from tests.web.conftest import serve

    store, index_root = slice_store
    db = tmp_path / "p.db"
    shutil.copy(index_root.with_name(index_root.name[:-len(".index")]), db)
    shutil.copytree(index_root, tmp_path / "p.db.index")
    shutil.copytree(VECTORS, tmp_path / "p.db.vectors")
    pf = Paperfind(Settings(db_path=db))
    explained = pf.searcher().search(SearchRequest(q=NATURAL, limit=3, mode="hybrid", explain=True))
    assert "ranked by the learned model: " in format_results_text(explained)
    with serve(pf) as portal:
        on = portal.client.get("/api/search", params={"q": NATURAL, "mode": "hybrid", "explain": 1})
        off = portal.client.get("/api/search", params={"q": NATURAL, "mode": "hybrid"})
    assert on.status_code == off.status_code == 200
    ranked = on.json()["results"]
    assert ranked and all(r["ranking"]["model"] == "learned" for r in ranked)
    assert all(f["feature"] in FEATURES for r in ranked for f in r["ranking"]["top_features"])
    assert all("ranking" not in r for r in off.json()["results"])
