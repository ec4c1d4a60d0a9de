"""The evidence pass of people resolution in arrays joins the slots the dict of links joined,
in the same order (the union-find refuses some joins by their order)."""

from __future__ import annotations

from collections import defaultdict

import pytest

from paperfind.ingest.run import ingest_paths
from paperfind.store import Store
from paperfind.store.people import Slot, person_key
from paperfind.store.people_links import join_shared_links, link_codes
from tests.realdata import PAPERLISTS


@pytest.fixture(scope="module")
def slots_and_links(tmp_path_factory):
    store = Store(tmp_path_factory.mktemp("people-links") / "p.db")
    files = [p for venue in ("colt", "acml", "colm", "iclr") for p in sorted((PAPERLISTS / venue).glob("*.json.gz"))]
    ingest_paths(store, files, progress=False)
    conn = store.conn
    slots = [Slot._make(row) for row in conn.execute(  # as resolve_people reads them
        "SELECT pa.paper_id, pa.position, pa.name, pa.name_fold, pa.profile_id, pa.alias_profile_id, "
        "p.key, pa.author_id FROM paper_authors pa JOIN papers p ON p.id = pa.paper_id ORDER BY p.key, pa.position")]
    insts: dict[tuple[int, int], set[str]] = defaultdict(set)
    for paper_id, pos, inst in conn.execute(
            "SELECT paper_id, position, institution FROM paper_affiliations WHERE institution IS NOT NULL"):
        insts[(paper_id, pos)].add(inst)
    keys = [person_key(s.name, s.name_fold) for s in slots]
    names_of_paper: dict[int, set[str]] = defaultdict(set)
    for slot, key in zip(slots, keys):
        if key:
            names_of_paper[slot.paper_id].add(key)
    coauthors = {paper_id: sorted(names) for paper_id, names in names_of_paper.items()}
    return keys, slots, insts, coauthors


def _dict_of_links(keys, slots, insts, coauthors) -> list[tuple[int, int]]:
    """The pass as it was: every link a tuple key of a dict, each slot joined to its first."""
    joins, evidence = [], {}
    for i, slot in enumerate(slots):
        key = keys[i]
        if not key:
            continue
        links = [("i", key, inst) for inst in sorted(insts.get((slot.paper_id, slot.position), ()))]
        links += [("c", key, other) for other in coauthors[slot.paper_id] if other != key]
        for link in links:
            first = evidence.setdefault(link, i)
            if first != i:
                joins.append((first, i))
    return joins


def test_the_joins_are_the_dict_passes_in_its_order(slots_and_links):
    keys, slots, insts, coauthors = slots_and_links
    expected = _dict_of_links(keys, slots, insts, coauthors)
    assert len(expected) > 500 and any(slots[i].paper_id != slots[j].paper_id for i, j in expected)
    assert any(insts.get((s.paper_id, s.position)) for s in slots)  # institution links are there too
    joins: list[tuple[int, int]] = []
    join_shared_links(keys, slots, insts, coauthors, lambda a, b: joins.append((a, b)), chunk=97)
    assert joins == expected


def test_a_link_is_one_int64_and_institutions_never_meet_names(slots_and_links):
    keys, slots, insts, coauthors = slots_and_links
    codes, owners = link_codes(keys, slots, insts, coauthors)
    assert codes.dtype.itemsize == 8 and owners.dtype.itemsize == 4 and len(codes) == len(owners)
    low = codes & 0xFFFFFFFF
    institution_links = sum(len(insts.get((slots[i].paper_id, slots[i].position), ())) for i, k in enumerate(keys) if k)
    assert int((low >= 1 << 31).sum()) == institution_links > 0
