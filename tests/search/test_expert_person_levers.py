"""The expert finder's person-level levers (exp32c) over a real index: each is off at its
default, and when on moves a person's vote or total by exactly what its setting says."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from paperfind.search.experts import ExpertQuery, PaperScores, rank_people


def _quiet(settings):
    """The voting alone: no recency, phrases, links nor group spread."""
    return replace(settings, recency_half_life_years=0.0, phrase_weight=0.0, link_weight=0.0,
                   group_discount=0.0)


def _totals(local, rows, settings, eligible=None, reference_year=2019) -> dict[int, float]:
    papers = PaperScores(np.asarray(rows, dtype=np.int64), np.ones(len(rows)), np.zeros(len(rows)))
    experts, _ = rank_people(local, local.profiles(), papers, reference_year, settings,
                             needed=10_000, eligible=eligible)
    return {e.author_id: e.score for e in experts}


def _paper_with_authors(docs, at_least: int) -> tuple[int, list[int]]:
    for row in range(docs.n):
        people = [int(a) for a in docs.authors_of(row)]
        if len(people) >= at_least and all(a > 0 for a in people) and len(set(people)) == len(people):
            return row, people
    raise AssertionError("no paper with that many resolved authors in the slice")


def test_last_author_and_author_share(colt_years_app):
    local = colt_years_app.searcher().backend()
    row, people = _paper_with_authors(local.index.docs, 3)
    base = _quiet(colt_years_app.settings.search.experts)
    plain = _totals(local, [row], base)
    assert plain[people[0]] == plain[people[-1]] == 1.0
    assert plain[people[1]] == base.middle_author_weight
    senior = _totals(local, [row], replace(base, last_author_weight=1.3))
    assert senior[people[-1]] == 1.3 and senior[people[0]] == 1.0 and senior[people[1]] == plain[people[1]]
    n = len(people)
    shared = _totals(local, [row], replace(base, author_share_power=0.5))
    assert math.isclose(shared[people[0]], 1.0 / math.sqrt(n), abs_tol=1e-6)
    assert math.isclose(shared[people[1]], base.middle_author_weight / math.sqrt(n), abs_tol=1e-6)


def test_volume_and_activity_priors_count_eligible_papers(colt_years_app):
    local = colt_years_app.searcher().backend()
    docs = local.index.docs
    profiles = local.profiles()
    before = 2019
    eligible = local._mask(ExpertQuery(text="", before=before).restriction())
    # a person with earlier papers (COLT 2018) and a later one (2019) that must not count
    counts = {}
    for author_id in profiles.ids.tolist():
        years = np.asarray(docs.year[profiles.rows_of(author_id)])
        if (years < before).any() and (years >= before).any():
            counts[author_id] = int((years < before).sum())
    person, n = max(counts.items(), key=lambda kv: (kv[1], -kv[0]))
    total = len(profiles.rows_of(person))
    assert total > n
    row = int(next(r for r in profiles.rows_of(person).tolist() if docs.year[r] < before))
    base = _quiet(colt_years_app.settings.search.experts)
    plain = _totals(local, [row], base, eligible, before - 1)[person]
    volume = _totals(local, [row], replace(base, volume_power=0.5), eligible, before - 1)[person]
    assert math.isclose(volume, round(plain / math.sqrt(n), 6), abs_tol=1e-6)
    assert not math.isclose(volume, round(plain / math.sqrt(total), 6), abs_tol=1e-6)
    active = _totals(local, [row], replace(base, activity_weight=0.1, activity_years=2), eligible,
                     before - 1)[person]
    assert math.isclose(active, round(plain + 0.1 * math.log1p(n), 6), abs_tol=1e-6)
    old = _totals(local, [row], replace(base, activity_weight=0.1, activity_years=1), None,
                  before)[person]  # every paper eligible, the last year 2019: its papers, not 2018's
    assert math.isclose(old, round(plain + 0.1 * math.log1p(total - n), 6), abs_tol=1e-6)
    # the default: every lever off, the same totals
    assert _totals(local, [row], replace(base, activity_years=5), eligible, before - 1)[person] == plain


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
    listed = _totals(local, rows, replace(base, min_papers=2), eligible, before - 1)
    assert set(listed) == {a for a in everyone if earlier(a) >= 2}
    assert all(listed[a] == everyone[a] for a in listed)  # the others' scores untouched
