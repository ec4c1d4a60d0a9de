"""The expert finder's floor of eligible works (`ExpertSettings.min_works`, exp32c, exp33a) over a
real index: at 1 everyone with a matching paper is listed; at N only people with N works before
`before` (a work's versions once), their scores untouched, and how many it left out is told."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from paperfind.search.experts import ExpertQuery, PaperScores, rank_people


def _quiet(settings):
    """The voting alone: no recency, phrases, links nor group spread, and no floor."""
    return replace(settings, recency_half_life_years=0.0, phrase_weight=0.0, link_weight=0.0,
                   group_discount=0.0, min_works=1)


def _ranked(local, rows, settings, eligible=None, reference_year=2019):
    papers = PaperScores(np.asarray(rows, dtype=np.int64), np.ones(len(rows)), np.zeros(len(rows)))
    return rank_people(local, local.profiles(), papers, reference_year, settings, needed=10_000,
                       eligible=eligible)


def test_min_works_lists_only_people_with_that_many_eligible_works(colt_years_app):
    local = colt_years_app.searcher().backend()
    docs = local.index.docs
    profiles = local.profiles()
    before = 2019
    eligible = local._mask(ExpertQuery(text="", before=before).restriction())

    def earlier(author_id: int) -> int:
        rows = profiles.rows_of(author_id)
        return len(set(docs.work[rows[eligible[rows]]].tolist()))

    rows = [r for r in range(docs.n) if docs.year[r] < before]
    base = _quiet(colt_years_app.settings.search.experts)
    everyone = _ranked(local, rows, base, eligible, before - 1)
    scores = {e.author_id: e.score for e in everyone.experts}
    assert everyone.below_floor == 0 and everyone.total == len(scores)
    assert {earlier(a) for a in scores} >= {1, 2}  # the slice holds both kinds
    # and people whose second paper is of 2019 (not eligible): they must not be listed
    assert any(earlier(a) == 1 and len(profiles.rows_of(a)) >= 2 for a in scores)
    floored = _ranked(local, rows, replace(base, min_works=2), eligible, before - 1)
    listed = {e.author_id: e.score for e in floored.experts}
    assert set(listed) == {a for a in scores if earlier(a) >= 2}
    assert all(listed[a] == scores[a] for a in listed)  # the others' scores untouched
    assert floored.total == len(listed) and floored.below_floor == len(scores) - len(listed)
    assert _ranked(local, rows, replace(base, min_works=0), eligible, before - 1) == everyone


def test_no_one_left_after_exclude_is_an_empty_answer(colt_years_app):
    """Every author of every matching paper excluded (a paper page's conflicts in a small
    corpus): no one, not an error."""
    local = colt_years_app.searcher().backend()
    docs = local.index.docs
    row = 0
    people = frozenset(int(a) for a in docs.authors_of(row) if int(a) > 0)
    papers = PaperScores(np.asarray([row], dtype=np.int64), np.ones(1), np.zeros(1))
    ranked = rank_people(local, local.profiles(), papers, 2019,
                         _quiet(colt_years_app.settings.search.experts), exclude=people)
    assert ranked.experts == [] and ranked.total == 0 and ranked.below_floor == 0


def test_every_persons_works_are_counted_once_for_a_restriction_and_read_alike(colt_years_app):
    """The floor reads every person's works counted once per filters and `before`
    (`IndexBackend.people_works`): the same numbers as counted per request, the same people."""
    local = colt_years_app.searcher().backend()
    profiles = local.profiles()
    for before in (None, 2019):
        restriction = ExpertQuery(text="", before=before).restriction()
        works = local.people_works(restriction)
        for year in range(1990, 2030):  # the masks and scorings of other requests come and go
            local._mask(ExpertQuery(text="", before=year).restriction())
        assert local.people_works(restriction) is works  # made once, kept apart from them
        eligible = local._mask(restriction)
        assert works.tolist() == profiles.works_counted(profiles.ids.tolist(), eligible)
        rows = [r for r in range(local.index.docs.n) if before is None or local.index.docs.year[r] < before]
        papers = PaperScores(np.asarray(rows, dtype=np.int64), np.ones(len(rows)), np.zeros(len(rows)))
        settings = replace(_quiet(colt_years_app.settings.search.experts), min_works=2)
        counted = rank_people(local, profiles, papers, 2019, settings, needed=10_000, eligible=eligible)
        read = rank_people(local, profiles, papers, 2019, settings, needed=10_000, eligible=eligible,
                           works=works)
        assert read == counted and counted.below_floor > 0
