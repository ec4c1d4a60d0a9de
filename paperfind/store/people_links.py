"""The evidence pass of people resolution: which author slots share a link, in compact arrays.

A slot's links are (its name, an institution of its slot) and (its name, a co-author's name of
its paper). Two slots with the same link are joined: each slot to the first slot that had the
link. The pass kept every link as a tuple key of a dict, ~20M of them at a million papers and
~2-3 GB; here a link is one int64 (two interned ids), and the first slot of each link is found
by one stable sort. `shared_link_pairs` gives the joins in the order the dict's pass made them
(slot by slot, each slot's links in order), so the union-find, which refuses some joins by
their order (two profile ids), ends the same.
"""

from __future__ import annotations

from array import array
from collections.abc import Mapping, Sequence

import numpy as np

_INSTITUTION = 1 << 31  # an institution's id is above every name's: the two kinds never meet


def link_codes(keys: Sequence[str], slots: Sequence, institutions: Mapping[tuple[int, int], set[str]],
               coauthors: Mapping[int, Sequence[str]]) -> tuple[np.ndarray, np.ndarray]:
    """Every link of every slot with a name (`keys[i]`, "" for none), slot by slot: its slot's
    `institutions` (by (paper_id, position), sorted) then its paper's other names (`coauthors`,
    sorted); returns the links' codes (int64) and their slots' indexes (int32)."""
    names: dict[str, int] = {}
    places: dict[str, int] = {}
    codes, owners = array("q"), array("i")
    for i, key in enumerate(keys):
        if not key:
            continue
        slot = slots[i]
        base = names.setdefault(key, len(names)) << 32
        for inst in sorted(institutions.get((slot.paper_id, slot.position), ())):
            codes.append(base | (_INSTITUTION + places.setdefault(inst, len(places))))
            owners.append(i)
        for other in coauthors[slot.paper_id]:
            if other != key:
                codes.append(base | names.setdefault(other, len(names)))
                owners.append(i)
    return np.frombuffer(codes, dtype=np.int64), np.frombuffer(owners, dtype=np.int32)


def shared_link_pairs(codes: np.ndarray, slots: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each link after its first: (the link's first slot, this slot), in the links' order,
    leaving out a slot's own first (a slot never has a link twice)."""
    order = np.argsort(codes, kind="stable")  # a link's slots, in the order they came
    ordered = codes[order]
    starts = np.ones(len(ordered), dtype=bool)
    starts[1:] = ordered[1:] != ordered[:-1]
    del ordered
    group_start = np.maximum.accumulate(np.where(starts, np.arange(len(order)), 0))
    first = np.empty(len(order), dtype=np.int32)
    first[order] = slots[order[group_start]]
    joined = first != slots
    return first[joined], slots[joined]


def join_shared_links(keys: Sequence[str], slots: Sequence, institutions: Mapping[tuple[int, int], set[str]],
                      coauthors: Mapping[int, Sequence[str]], union, chunk: int = 1 << 20) -> None:
    """`union(first, slot)` for every slot that shares a link with an earlier one, in the order
    the links came (a million pairs at a time as Python ints)."""
    firsts, seconds = shared_link_pairs(*link_codes(keys, slots, institutions, coauthors))
    for start in range(0, len(firsts), chunk):
        for first, slot in zip(firsts[start:start + chunk].tolist(), seconds[start:start + chunk].tolist()):
            union(first, slot)
