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
    profiles = PersonProfiles.build(INDPTR, AUTHORS)
    work = np.array([0, 1, 2, 0])  # rows 0 and 3 are versions of one work
    assert profiles.works_counted([7, 3, 5], None, work) == [2, 2, 1]
    eligible = np.array([True, True, False, False])
    assert profiles.works_counted([7, 3, 5], eligible, work) == [1, 2, 0]
