"""The codes of a query's asked terms, looked up for every term id of its candidates' texts.

Why: the second stage reads ~100-200 candidates' titles, abstracts and keywords as codes of
the query's few terms (`SearchBackend.sequences`): 15-40k term ids a query, each mapped to its
term's position among the asked ones, or to "another word". A binary search per id
(`np.searchsorted` into the sorted asked ids) took ~0.35 ms for the abstracts of a query at
the bundled corpus, and a table over the whole vocabulary (286k ids there, more at 1M papers)
would be allocated per query. Here a small table is indexed by an id's low bits: the fewest
bits at which the asked ids fall in distinct slots (a dozen ids: 2^6-2^12 slots), so an id is
its slot's asked term exactly when the slot holds that id. One gather and one comparison per
id, ~0.09 ms for the same abstracts; the same codes as the binary search (tests compare both).
"""

from __future__ import annotations

import numpy as np

MAX_SLOT_BITS = 16  # beyond 65,536 slots (asked ids alike in their 16 low bits): binary search


class TermCodes:
    """Maps term ids to the codes of the asked ones: `asked` (distinct, >= 0) to `codes`,
    every other id to `other`, and a negative id (a keyword boundary) to `boundary`."""

    def __init__(self, asked: np.ndarray, codes: np.ndarray, other: int, boundary: int) -> None:
        self.asked = np.asarray(asked, dtype=np.int64)
        self.codes = np.asarray(codes, dtype=np.int32)
        self.other, self.boundary = np.int32(other), np.int32(boundary)
        self._mask = -1  # -1: no small table, the binary search
        first = max(int(len(self.asked)).bit_length() + 1, 4)
        listed = self.asked.tolist()
        for bits in range(first, MAX_SLOT_BITS + 1):
            # distinct slots, told by a set of the few asked ids' low bits: `np.unique` per width
            # tried was ~1% of a served lexical search (issue 33, lat33)
            low = (1 << bits) - 1
            if len({t & low for t in listed}) == len(listed):
                slots = self.asked & low
                self._mask = (1 << bits) - 1
                # a slot no asked id falls in holds -1, which no id it is asked for equals
                # (a negative id is a boundary, set after)
                self._ids = np.full(1 << bits, -1, dtype=np.int32)
                self._codes = np.full(1 << bits, other, dtype=np.int32)
                self._ids[slots] = self.asked
                self._codes[slots] = self.codes
                break

    def of(self, ids: np.ndarray) -> np.ndarray:
        """The code of each of `ids` (int32)."""
        ids = np.asarray(ids, dtype=np.int32)
        if self._mask < 0:
            return self._searched(ids)
        slot = np.bitwise_and(ids, np.int32(self._mask))
        out = np.where(self._ids.take(slot) == ids, self._codes.take(slot), self.other)
        if len(ids) and ids.min() < 0:
            out[ids < 0] = self.boundary
        return out.astype(np.int32, copy=False)

    def _searched(self, ids: np.ndarray) -> np.ndarray:
        """`of` by a binary search per id (the reference, and ids alike in their low bits)."""
        out = np.full(len(ids), self.other, dtype=np.int32)
        out[ids < 0] = self.boundary
        if len(self.asked):
            at = np.minimum(np.searchsorted(self.asked, ids), len(self.asked) - 1)
            hit = self.asked[at] == ids
            out[hit] = self.codes[at[hit]]
        return out
