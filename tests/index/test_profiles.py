"""The expert finder's per-person arrays, from an index author column written out by hand."""

from __future__ import annotations

import numpy as np

from paperfind.index.profiles import PersonProfiles

# rows 0..3: [7, 3, 9], [3], [0, 7] (an unresolved first name), [9, 7, 3, 5]
INDPTR = np.array([0, 3, 4, 6, 10])
AUTHORS = np.array([7, 3, 9, 3, 0, 7, 9, 7, 3, 5])


def test_people_are_grouped_with_their_rows_and_their_place_in_each_author_list():
    profiles = PersonProfiles.build(INDPTR, AUTHORS)
    assert profiles.ids.tolist() == [3, 5, 7, 9]  # 0 is no one
    assert profiles.rows_of(7).tolist() == [0, 2, 3]
    assert profiles.rows_of(3).tolist() == [0, 1, 3]
    assert profiles.rows_of(4).tolist() == []
    # first or last author: 7 leads row 0 and closes row 2, is in the middle of row 3
    at = profiles.indptr[profiles.position(7)]
    assert profiles.edge[at:at + 3].tolist() == [True, True, False]
    assert profiles.entry_edge.tolist() == [True, False, True, True, True, True,
                                            True, False, False, True]


def test_works_are_counted_once_and_only_where_eligible():
    work = np.array([0, 1, 2, 0])  # rows 0 and 3 are versions of one work
    profiles = PersonProfiles.build(INDPTR, AUTHORS, work)
    assert profiles.works_counted([7, 3, 5], None) == [2, 2, 1]
    eligible = np.array([True, True, False, False])
    assert profiles.works_counted([7, 3, 5], eligible) == [1, 2, 0]
    assert profiles.works_counted([4, 3], None) == [0, 2]  # 4 wrote nothing
    # without the works, each row is a work of its own
    assert PersonProfiles.build(INDPTR, AUTHORS).works_counted([7, 3, 5], None) == [3, 3, 1]


def test_many_people_counted_at_once_as_one_by_one():
    rng = np.random.default_rng(30)
    n_rows = 400
    per_row = rng.integers(0, 5, n_rows)
    indptr = np.r_[0, np.cumsum(per_row)]
    authors = rng.integers(0, 60, int(indptr[-1]))  # 0: an unresolved name
    work = rng.integers(0, 250, n_rows)  # many works in several versions
    eligible = rng.random(n_rows) < 0.6
    profiles = PersonProfiles.build(indptr, authors, work)
    ids = np.arange(-1, 65)
    for mask in (None, eligible):
        expected = []
        for author_id in ids:
            rows = [r for r in range(n_rows) if author_id in authors[indptr[r]:indptr[r + 1]].tolist()
                    and author_id > 0 and (mask is None or mask[r])]
            expected.append(len(set(work[rows].tolist())))
        assert profiles.eligible_works(ids, mask).tolist() == expected
