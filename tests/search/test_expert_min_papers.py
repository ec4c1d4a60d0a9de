"""The expert finder's floor of eligible papers (`ExpertSettings.min_papers`, exp32c) over a
real index: off, everyone with a matching paper is listed; on, only people with that many
papers before `before`, their scores untouched."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from paperfind.search.experts import ExpertQuery, PaperScores, rank_people


def _quiet(settings):
    """The voting alone: no recency, phrases, links nor group spread, and no floor."""
    return replace(settings, recency_half_life_years=0.0, phrase_weight=0.0, link_weight=0.0,
                   group_discount=0.0, min_papers=0)


def _totals(local, rows, settings, eligible=None, reference_year=2019) -> dict[int, float]:
    papers = PaperScores(np.asarray(rows, dtype=np.int64), np.ones(len(rows)), np.zeros(len(rows)))
    experts, _ = rank_people(local, local.profiles(), papers, reference_year, settings,
                             needed=10_000, eligible=eligible)
    return {e.author_id: e.score for e in experts}


def test_min_papers_lists_only_people_with_that_many_eligible_papers(colt_years_app):
    local = colt_years_app.searcher().backend()
    docs = local.index.docs
    profiles = local.profiles()
    before = 2019
    eligible = local._mask(ExpertQuery(text="", before=before).restriction())

    def earlier(author_id: int) -> int:
        return int(eligible[profiles.rows_of(author_id)].sum())

    rows = [r for r in range(docs.n) if docs.year[r] < before]
    base = _quiet(colt_years_app.settings.search.experts)
    everyone = _totals(local, rows, base, eligible, before - 1)
    assert {earlier(a) for a in everyone} >= {1, 2}  # the slice holds both kinds
    # and people whose second paper is of 2019 (not eligible): they must not be listed
    assert any(earlier(a) == 1 and len(profiles.rows_of(a)) >= 2 for a in everyone)
    listed = _totals(local, rows, replace(base, min_papers=2), eligible, before - 1)
    assert set(listed) == {a for a in everyone if earlier(a) >= 2}
    assert all(listed[a] == everyone[a] for a in listed)  # the others' scores untouched
