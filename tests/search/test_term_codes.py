"""A query's term codes by the low bits of a term id (paperfind.search.term_codes) are those of
a binary search per id, on the real slice's titles, abstracts and keywords, for asked terms
the texts hold, terms they do not, ids alike in their low bits, and no terms at all."""

from __future__ import annotations

import numpy as np
import pytest

from paperfind.search.backend import BOUNDARY, OTHER_TERM
from paperfind.search.term_codes import MAX_SLOT_BITS, TermCodes


@pytest.fixture(scope="module")
def texts(searcher):
    docs = searcher.backend().index.docs
    return {"title": docs.title_seq.indices, "abstract": docs.abstract_seq.indices,
            "keywords": docs.keyword_seq.indices}


def _asked_sets(ids: np.ndarray) -> list[np.ndarray]:
    rng = np.random.default_rng(3)
    present = np.unique(ids[ids >= 0])
    alike = present[0] + (np.arange(4) << MAX_SLOT_BITS)  # the same 16 low bits: no small table
    return [np.zeros(0, dtype=np.int64), present[:1], rng.choice(present, 12, replace=False),
            rng.choice(present, 60, replace=False), np.array([int(present.max()) + 5]),
            np.concatenate([rng.choice(present, 5, replace=False), [10 ** 6 + 7]]), alike]


def test_codes_are_the_binary_searchs(texts):
    for field, ids in texts.items():
        assert len(ids) > 1000
        for asked in _asked_sets(ids):
            asked = np.unique(asked).astype(np.int64)
            codes = np.random.default_rng(len(asked)).permutation(len(asked)).astype(np.int32)
            mapped = TermCodes(asked, codes, OTHER_TERM, BOUNDARY)
            got = mapped.of(ids)
            assert got.dtype == np.int32
            assert got.tolist() == mapped._searched(np.asarray(ids, dtype=np.int32)).tolist()
            known = dict(zip(asked.tolist(), codes.tolist()))
            expected = [BOUNDARY if i < 0 else known.get(i, OTHER_TERM) for i in ids[:3000].tolist()]
            assert got[:3000].tolist() == expected
        if field == "keywords":
            assert BOUNDARY in got.tolist()


def test_ids_alike_in_their_low_bits_are_searched(texts):
    asked = np.array([3, 3 + (1 << MAX_SLOT_BITS)], dtype=np.int64)
    mapped = TermCodes(asked, np.array([1, 0], dtype=np.int32), OTHER_TERM, BOUNDARY)
    assert mapped._mask < 0
    assert mapped.of(np.array([3, 3 + (1 << MAX_SLOT_BITS), 4, -1])).tolist() == [1, 0, OTHER_TERM, BOUNDARY]
    small = TermCodes(asked[:1], np.array([0], dtype=np.int32), OTHER_TERM, BOUNDARY)
    assert small._mask > 0 and small.of(np.array([3, 3 + (1 << MAX_SLOT_BITS), -1, 0])).tolist() == \
        [0, OTHER_TERM, BOUNDARY, OTHER_TERM]
