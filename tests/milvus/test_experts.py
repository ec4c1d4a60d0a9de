"""Who works on this, served from Milvus: the same people, evidence and scores as the local
index, lexical alone and with the collection's vectors (its `nearest`, mapped to local rows)."""

from __future__ import annotations

import pytest

from paperfind.core import Paperfind
from paperfind.search.expert_results import ExpertsRequest
from paperfind.search.filters import Filters
from paperfind.search.settings import EVERY_PAIR, SearchSettings
from paperfind.settings import Settings
from tests.realdata import load_paperlist

REQUESTS = [ExpertsRequest(q="bandits regret"), ExpertsRequest(q="robot grasping", before=2022),
            ExpertsRequest(q="强化学习 机器人"), ExpertsRequest(q="learning", size=5, page=2),
            ExpertsRequest(q="reinforcement learning", filters=Filters(venues=("corl",))),
            ExpertsRequest(q="neural networks", filters=Filters(year_from=2017, year_to=2019)),
            # a code link two CoRL 2022 abstracts give: their people lifted from the local table
            ExpertsRequest(q="robot manipulation skills, code at https://github.com/UT-Austin-RPL/new")]


def _scores_apart(data: dict) -> tuple[dict, list[float]]:
    """The answer and its scores apart (float32 sums may differ in the last bit)."""
    scores = []
    for person in data["results"]:
        scores.append(person.pop("score"))
        scores.extend(e.pop("score") for e in person["evidence"])
    return data, scores


@pytest.mark.parametrize("request_", REQUESTS, ids=[f"{r.q}/{r.before}/{r.page}" for r in REQUESTS])
def test_milvus_finds_the_same_people_as_the_local_index(both, request_):
    local, milvus = both
    theirs, their_scores = _scores_apart(local.searcher().experts(request_))
    ours, our_scores = _scores_apart(milvus.searcher().experts(request_))
    assert theirs["results"], "a request that finds no one compares nothing"
    assert ours == theirs
    assert our_scores == pytest.approx(their_scores, abs=2e-6)


def test_exclude_is_the_same_on_milvus(both, local_index):
    local, milvus = both
    key = local_index.key_of(0)
    request = ExpertsRequest(paper=key, exclude=key)
    assert milvus.searcher().experts(request) == local.searcher().experts(request)


def test_with_vectors_milvus_finds_the_same_people(semantic_db, milvus_server):
    local = Paperfind(Settings(db_path=semantic_db, search=SearchSettings(result_cache=0)))
    milvus = Paperfind(Settings(db_path=semantic_db, backend="milvus", milvus_uri=milvus_server.uri,
                                search=SearchSettings(result_cache=0)))
    assert local.searcher().backend().vectors_ready() and milvus.searcher().backend().vectors_ready()
    # a whole abstract: both backends embed its 64 words past the search's token cap (exp30i)
    abstract = next(p["abstract"] for p in load_paperlist("colt", 2019) if len(p.get("abstract", "").split()) > 100)
    for request in (ExpertsRequest(q="online convex optimization with bandit feedback"),
                    ExpertsRequest(q="learning mixtures of gaussians", before=2020),
                    ExpertsRequest(q=abstract, before=2020)):
        theirs, their_scores = _scores_apart(local.searcher().experts(request))
        ours, our_scores = _scores_apart(milvus.searcher().experts(request))
        assert theirs["results"]
        assert [p["id"] for p in ours["results"]] == [p["id"] for p in theirs["results"]]
        assert ours == theirs
        assert our_scores == pytest.approx(their_scores, abs=1e-4)


def test_the_milvus_servers_start_up_makes_the_experts_parts(slice_db, synced, milvus_server):
    milvus = Paperfind(Settings(db_path=slice_db, semantic=False, backend="milvus",
                                milvus_uri=milvus_server.uri))
    assert "experts" not in milvus.warm_state()
    assert milvus.warm_up()["experts"] is False  # readiness does not wait for them
    milvus.warm_experts_in_background().join(timeout=60)
    assert milvus.warm_state()["experts"] is True  # the local index's people and pairs, no request
    local = milvus.searcher().live.local.backend(vectors=False)
    experts = milvus.settings.search.experts
    assert experts.pairs_max_df == EVERY_PAIR  # the text route's pairs: every pair's paper count
    assert local.experts_ready(experts.pairs_max_df)
    assert "ut-austin-rpl" in local.code_links().accounts  # the code links too
