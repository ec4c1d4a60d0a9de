"""Signature phrases over a real index: the rare word pairs are counted per paper from the
index's own sequences, a person holds the pairs of their eligible papers only, and holding a
query's rare pairs lifts a person above a slightly better vote."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from paperfind.core import Paperfind
from paperfind.index.rare_pairs import RarePairs, pair_keys
from paperfind.search.expert_phrases import by_phrases, phrase_scores, query_pairs, query_term_ids
from paperfind.search.experts import Expert, ExpertQuery, find_experts
from paperfind.settings import Settings
from paperfind.text.analyze import Analyzer


def _paper(local, year: int) -> int:
    """A row of `year` with a long abstract and resolved people."""
    docs = local.index.docs
    for row in range(docs.n):
        if int(docs.year[row]) == year and len(docs.abstract_seq.row(row)) > 60 and \
                any(int(a) > 0 for a in docs.authors_of(row)):
            return row
    raise AssertionError("no such paper in the slice")


def test_pair_counts_are_papers_holding_the_pair(colt_years_app):
    local = colt_years_app.searcher().backend()
    docs = local.index.docs
    # the table itself: the backend's may be the finder's table of every pair (a larger bound
    # serves a smaller one, tests/search/test_expert_pairs.py), made by an earlier test's ask
    pairs = RarePairs.build((docs.title_seq, docs.abstract_seq), docs.n, local.n_terms, 3)
    by_row = [set(pair_keys(docs.title_seq.row(r), local.n_terms).tolist())
              | set(pair_keys(docs.abstract_seq.row(r), local.n_terms).tolist()) for r in range(docs.n)]
    counts: dict[int, int] = {}
    for held in by_row:
        for key in held:
            counts[key] = counts.get(key, 0) + 1
    expected = sorted(k for k, c in counts.items() if c <= 3)
    assert pairs.keys.tolist() == expected
    assert pairs.df.tolist() == [counts[k] for k in expected]
    assert len(expected) < len(counts)  # some pairs are common here and left out


def test_a_person_holds_only_the_pairs_of_their_eligible_papers(colt_years_app):
    local = colt_years_app.searcher().backend()
    docs = local.index.docs
    profiles = local.profiles()
    settings = colt_years_app.settings.search.experts
    row = _paper(local, 2019)
    pairs = query_pairs(local, query_term_ids(local, Analyzer(), docs.stored_doc(row)["abstract"]), settings)
    assert len(pairs.keys)  # an abstract's own wording is rare in 80 papers
    people = [int(a) for a in docs.authors_of(row) if int(a) > 0]
    everyone = phrase_scores(local, profiles, people, pairs, None, settings.phrase_max_df)
    assert all(s >= pairs.idf.sum() - 1e-9 for s in everyone)  # the paper holds every pair of itself
    before_2019 = np.asarray(docs.year) < 2019
    earlier = phrase_scores(local, profiles, people, pairs, before_2019, settings.phrase_max_df)
    # the paper of 2019 no longer counts: only what the people wrote before it can
    assert all(e < s for e, s in zip(earlier.tolist(), everyone.tolist()))


def test_holding_the_query_pairs_lifts_a_person_above_a_better_vote(colt_years_app):
    local = colt_years_app.searcher().backend()
    docs = local.index.docs
    settings = colt_years_app.settings.search.experts
    row = _paper(local, 2019)
    author = next(int(a) for a in docs.authors_of(row) if int(a) > 0)
    other = next(int(a) for r in range(docs.n) for a in docs.authors_of(r)
                 if int(a) > 0 and int(a) not in {int(x) for x in docs.authors_of(row)}
                 and not phrase_scores(local, local.profiles(), [int(a)],
                                       query_pairs(local, query_term_ids(local, Analyzer(), docs.stored_doc(row)["abstract"]), settings),
                                       None, settings.phrase_max_df)[0])
    pairs = query_pairs(local, query_term_ids(local, Analyzer(), docs.stored_doc(row)["abstract"]), settings)
    voted = [Expert(other, 1.0), Expert(author, 0.95)]
    lifted = by_phrases(local, local.profiles(), voted, pairs, None, settings)
    assert [e.author_id for e in lifted] == [author, other]
    off = by_phrases(local, local.profiles(), voted, pairs, None, replace(settings, phrase_weight=0.0))
    assert [e.author_id for e in off] == [other, author]


def test_the_finder_reads_the_query_phrases(colt_years_app):
    local = colt_years_app.searcher().backend()
    docs = local.index.docs
    settings = colt_years_app.settings.search.experts
    row = _paper(local, 2019)
    query = ExpertQuery(text=docs.stored_doc(row)["abstract"], before=2020)
    on = find_experts(local, query, settings)
    off = find_experts(local, query, replace(settings, phrase_weight=0.0))
    assert on.experts and off.experts
    own = {int(a) for a in docs.authors_of(row) if int(a) > 0}
    assert on.experts[0].author_id in own
    # the phrases add to the votes of the people who hold them, never take from anyone's
    votes = {e.author_id: e.score for e in off.experts}
    assert all(e.score >= votes[e.author_id] - 1e-9 for e in on.experts if e.author_id in votes)
    assert any(e.score > votes.get(e.author_id, 0) + 1e-6 for e in on.experts)


def test_the_start_up_makes_the_pairs_before_any_request(colt_years_app):
    fresh = Paperfind(Settings(db_path=colt_years_app.settings.db_path, semantic=False))
    assert "experts" not in fresh.warm_state()  # nothing loaded yet
    assert fresh.warm_up()["experts"] is False  # readiness does not wait for them
    fresh.warm_experts_in_background().join(timeout=60)
    assert fresh.warm_state()["experts"] is True  # made by the start-up, no /api/experts asked
    local = fresh.searcher().backend()
    assert local.experts_ready(fresh.settings.search.experts.phrase_max_df)
    # a backend opened without the warm-up has not made them
    assert not Paperfind(Settings(db_path=colt_years_app.settings.db_path, semantic=False)).searcher().backend() \
        .experts_ready(fresh.settings.search.experts.phrase_max_df)
