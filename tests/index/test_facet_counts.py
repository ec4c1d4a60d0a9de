"""Facets counted from cells and gathered institutions (paperfind.index.facet_counts) are the
counts of each facet read alone, on a real index of several venues and years, with numpy's
gather and with the compiled one."""

from __future__ import annotations

import numpy as np
import pytest

from paperfind.index.doctable import FACETS, DocTable, FacetCells, _top_pairs, load_params
from paperfind.index.facet_counts import (
    MAX_CELLS, EntryGatherer, cell_codes, institution_entries, sized_cells, year_codes)
from paperfind.index.manager import build_index, open_index
from paperfind.ingest.run import ingest_paths
from paperfind.store import Store
from tests.realdata import PAPERLISTS

SLICES = [("aistats", 2001), ("colt", 2019), ("corl", 2022), ("iclr", 2017), ("iclr", 2018),
          ("icml", 2017), ("uai", 2019)]


@pytest.fixture(scope="module")
def index_path(tmp_path_factory):
    root = tmp_path_factory.mktemp("facets")
    store = Store(root / "facets.db")
    ingest_paths(store, [PAPERLISTS / v / f"{v}{y}.json.gz" for v, y in SLICES], progress=False)
    build_index(store, root / "facets.db.index")
    index = open_index(root / "facets.db.index")
    assert index is not None
    return index.path


def doc_table(path, compiled: bool) -> DocTable:
    docs = DocTable(path, load_params(path))
    if compiled:
        assert docs.load_kernel()
        assert docs.institutions.compiled
    return docs


def reference(docs: DocTable, rows: np.ndarray, top: int = 20) -> dict[str, list[list]]:
    """Each facet counted alone: its column read at the rows, the institutions row by row."""
    out: dict[str, list[list]] = {}
    for facet in FACETS:
        if facet == "year":
            years = docs.year[rows]
            counts = np.bincount(years[years > 0]) if len(rows) else np.zeros(0, int)
            out["year"] = [[int(y), int(counts[y])] for y in np.flatnonzero(counts)[::-1]]
            continue
        if facet == "institution":
            codes = [int(c) for r in rows.tolist()
                     for c in docs.inst[docs.inst_indptr[r]:docs.inst_indptr[r + 1]]]
            codes = np.asarray(codes, dtype=np.int64)
        else:
            codes = {"venue": docs.venue, "status": docs.status, "area": docs.area}[facet][rows]
        labels = docs.labels[facet]
        counts = np.bincount(codes, minlength=len(labels)) if len(codes) else np.zeros(0, int)
        out[facet] = _top_pairs(counts, labels, top)
    return out


def row_sets(docs: DocTable) -> list[np.ndarray]:
    rng = np.random.default_rng(7)
    n = docs.n
    out = [np.zeros(0, dtype=np.int64), np.arange(n), np.array([n - 1]), np.array([0])]
    out += [rng.choice(n, size, replace=False) for size in (3, 40, n // 3, n - 5)]  # any order
    out.append(np.flatnonzero(docs.venue == docs.venue[0]))  # one venue's papers
    out.append(np.flatnonzero(np.diff(docs.inst_indptr) == 0))  # papers without an institution
    out.append(np.flatnonzero(np.diff(docs.inst_indptr) > 1))  # with several
    return [np.asarray(rows, dtype=np.int64) for rows in out]


@pytest.mark.parametrize("compiled", [False, True])
def test_facets_are_each_facet_counted_alone(index_path, compiled):
    docs = doc_table(index_path, compiled)
    assert len(docs.labels["venue"]) > 3 and len(set(docs.year.tolist())) > 3
    for rows in row_sets(docs):
        got = docs.facets(rows)
        assert got == reference(docs, rows)
        assert list(got) == list(FACETS)  # the JSON's key order too


def test_facets_without_cells_count_the_same(index_path):
    """A corpus whose grids would be too large counts one facet at a time: same answers."""
    docs = doc_table(index_path, False)
    docs._facet_cells = FacetCells(None, None, docs.facet_cells().first_year)
    for rows in row_sets(docs):
        assert docs.facets(rows) == reference(docs, rows)


@pytest.mark.parametrize("cells", [True, False])
def test_facets_of_some_facets_count_only_those(index_path, cells):
    """A search counts its year and venue facets in works: the papers' counts of the other
    three are the same numbers alone, and the two it shows otherwise are not counted."""
    docs = doc_table(index_path, False)
    if not cells:
        docs._facet_cells = FacetCells(None, None, docs.facet_cells().first_year)
    for only in (("institution", "status", "area"), ("year",), ("area",), ("venue", "institution"), ()):
        for rows in row_sets(docs):
            got = docs.facets(rows, only=only)
            assert list(got) == [f for f in FACETS if f in only]
            assert got == {f: pairs for f, pairs in reference(docs, rows).items() if f in only}


def test_compiled_gather_is_numpys(index_path):
    plain, compiled = doc_table(index_path, False), doc_table(index_path, True)
    for rows in row_sets(plain):
        assert plain.institutions.gather(rows).tolist() == compiled.institutions.gather(rows).tolist()


def test_institution_entries_are_each_rows_entries_in_turn():
    indptr = np.array([0, 2, 2, 2, 5, 6, 6, 9], dtype=np.int64)  # rows 1, 2 and 5 hold none
    for rows in ([], [1], [1, 2], [0], [6, 0, 3], [2, 4, 1, 6], list(range(7)), [5, 3, 1]):
        expected = [p for r in rows for p in range(indptr[r], indptr[r + 1])]
        assert institution_entries(indptr, np.asarray(rows, dtype=np.int64)).tolist() == expected


def test_an_entry_gatherer_refuses_what_its_kernel_cannot_read():
    wide = EntryGatherer(np.array([0, 1]), np.array([3], dtype=np.int64))
    assert not wide.load() and not wide.compiled
    assert wide.gather(np.array([0])).tolist() == [3]


def test_rows_without_a_year_fall_in_no_year():
    codes, first = year_codes(np.array([2019, 0, 2021, 2019, 0], dtype=np.int32))
    assert first == 2019 and codes.tolist() == [1, 0, 3, 1, 0]
    assert year_codes(np.zeros(3, dtype=np.int32))[0].tolist() == [0, 0, 0]


def test_a_grid_too_large_is_not_made():
    a = np.array([0, 5], dtype=np.int32)
    assert cell_codes(a, np.array([0, MAX_CELLS], dtype=np.int32)) is None
    cells = cell_codes(a, np.array([2, 0], dtype=np.int32), min_b=4)
    assert cells is not None and (cells.span_a, cells.span_b) == (6, 4)
    assert cells.cells.tolist() == [2, 20]
    assert cells.grid(np.array([0, 1, 1])).tolist()[5] == [2, 0, 0, 0]


@pytest.mark.parametrize("cells", [True, False])
def test_tallies_of_disjoint_rows_add_up_to_the_unions_facets(index_path, cells):
    """Issue 33: a fused search tallies its lexical matches while its vector is made and the
    vector's other papers after (`facet_tally`, `add_tallies`): the facets of the sum are
    those of the union counted at once, with and without the cells' grids."""
    from paperfind.index.doctable import add_tallies

    docs = doc_table(index_path, False)
    if not cells:
        docs._facet_cells = FacetCells(None, None, docs.facet_cells().first_year)
    rng = np.random.default_rng(11)
    for rows in row_sets(docs):
        rows = np.unique(rows)
        cut = rng.permutation(len(rows))
        a, b = rows[cut[:len(rows) // 3]], rows[cut[len(rows) // 3:]]
        for only in (FACETS, ("institution", "status", "area"), ("year",)):
            summed = add_tallies(docs.facet_tally(a, only), docs.facet_tally(b, only))
            assert docs.facet_lists(summed) == docs.facets(rows, only=only)
            assert docs.facet_lists(add_tallies(docs.facet_tally(b, only), docs.facet_tally(a, only))) \
                == docs.facets(rows, only=only)


@pytest.mark.parametrize("field", ["title_seq", "abstract_seq", "keyword_seq"])
def test_a_fields_sequences_of_many_rows_are_each_rows_in_turn(index_path, field):
    """`Sequences.rows` (the second stage's read of its candidates' texts, issue 33) gives each
    row's term ids one row after the other and where each begins, with numpy's gather and with
    the compiled one once loaded; keywords keep their boundaries (-1)."""
    plain, compiled = doc_table(index_path, False), doc_table(index_path, True)
    seqs, loaded = getattr(plain, field), getattr(compiled, field)
    assert not seqs.gatherer.compiled and loaded.gatherer.compiled
    rows_sets = row_sets(plain) + [np.array([5, 5, 2], dtype=np.int64)]  # a repeat too
    for rows in rows_sets:
        expected = [seqs.row(int(r)).tolist() for r in rows]
        for table in (seqs, loaded):
            indptr, ids = table.rows(rows)
            assert indptr.dtype == np.int64 and len(indptr) == len(rows) + 1
            assert [ids[indptr[j]:indptr[j + 1]].tolist() for j in range(len(rows))] == expected
    if field == "keyword_seq":
        assert (loaded.rows(np.arange(plain.n))[1] == -1).any()


def test_a_pages_works_are_each_row_and_its_other_versions(index_path):
    """`works_of` (a page's cards read at once, issue 33): each row then `versions_of` it, for
    rows of one-version works and of works with several, in any order."""
    docs = doc_table(index_path, False)
    several = np.flatnonzero(np.bincount(docs.work)[docs.work] > 1)
    assert len(several) > 0
    rows = [int(r) for r in np.concatenate([several[:15], np.arange(0, docs.n, max(1, docs.n // 40)),
                                            several[-3:][::-1]])]
    assert docs.works_of(rows) == [[r, *(int(v) for v in docs.versions_of(r))] for r in rows]
    assert docs.works_of([]) == []


def work_counter(docs: DocTable, beside, sizes=None, joint_min_rows: int = 0):
    """A work counter reading every row set by its joint codes (the slice's sets are below the
    served size at which it does, `JOINT_MIN_ROWS`), or from `joint_min_rows`."""
    from paperfind.search.trend import WorkCounter

    return WorkCounter(docs.work, docs.year, docs.venue, docs.labels["venue"], beside=beside, sizes=sizes,
                       joint_min_rows=joint_min_rows)


@pytest.mark.parametrize("compiled", [False, True])
def test_the_works_tally_status_area_grid_and_institutions_in_one_read_are_the_counts_apart(
        index_path, compiled):
    """Issue 33 (big37): a search's works' tally, status x area grid and institutions' number,
    read from each row's packed joint code and size in one pass, are the counts made apart, on
    real rows of several venues, years and works of several versions; so are the facets (the
    institutions gathered to the number read) and the works a search shows."""
    docs = doc_table(index_path, compiled)
    status_area = docs.facet_cells().status_area
    assert status_area is not None
    sizes = np.diff(docs.inst_indptr)
    counter = work_counter(docs, status_area, sizes)
    assert counter.joint is not None and counter.joint.records.dtype == np.int64
    assert (counter.joint.span_a, counter.joint.span_b) == (
        counter.span_v * counter.span_y + 1, status_area.span_a * status_area.span_b)
    several = np.flatnonzero(np.bincount(docs.work)[docs.work] > 1)
    assert len(several) > 0 and (sizes > 1).any() and (sizes == 0).any()
    sets = row_sets(docs) + [several, np.unique(np.concatenate([several[:5], np.arange(0, docs.n, 7)]))]
    for rows in sets:
        works, grid, entries = counter.tally_beside(rows)
        apart = counter.tally(rows)
        assert works.cells.tolist() == apart.cells.tolist() and works.rows == apart.rows
        assert works.multi.tolist() == apart.multi.tolist()
        assert grid.tolist() == status_area.grid(rows).tolist()
        assert entries == len(docs.institutions.gather(rows)) == int(sizes[rows].sum())
        assert counter.finish(works) == counter.finish(apart)
        only = ("institution", "status", "area")
        joint = docs.facet_tally(rows, only, status_area=grid, institution_entries=entries)
        assert list(joint) == list(only)
        assert docs.facet_lists(joint) == docs.facets(rows, only=only) == {
            f: pairs for f, pairs in reference(docs, rows).items() if f in only}
    assert counter.tally_beside(np.zeros(0, dtype=np.int64))[2] == 0
    assert work_counter(docs, status_area).tally_beside(sets[1])[2] is None  # no sizes: none summed
    # below `joint_min_rows` the counts are made apart: the same numbers
    small = work_counter(docs, status_area, sizes, joint_min_rows=docs.n // 2)
    for rows in (sets[5], sets[6], sets[7]):  # 40, n // 3 and n - 5 rows
        got, want = small.tally_beside(rows), counter.tally_beside(rows)
        assert got[0].cells.tolist() == want[0].cells.tolist() and got[1].tolist() == want[1].tolist()
        assert got[2] == want[2]


def test_a_joint_grid_too_large_counts_apart(index_path, monkeypatch):
    """Past `MAX_CELLS` joint cells the counter keeps no joint codes and counts the two grids
    and the sizes apart: the same numbers."""
    from paperfind.index import facet_counts

    docs = doc_table(index_path, True)
    status_area = docs.facet_cells().status_area
    sizes = np.diff(docs.inst_indptr)
    monkeypatch.setattr(facet_counts, "MAX_CELLS", status_area.span_a * status_area.span_b)
    counter = work_counter(docs, status_area, sizes)
    assert counter.joint is None
    for rows in row_sets(docs):
        works, grid, entries = counter.tally_beside(rows)
        assert works.cells.tolist() == counter.tally(rows).cells.tolist()
        assert grid.tolist() == status_area.grid(rows).tolist()
        assert entries == len(docs.institutions.gather(rows))


def test_sizes_and_cells_past_32_bits_are_not_packed():
    cells = cell_codes(np.array([0, 1]), np.array([1, 0]))
    assert sized_cells(cells, np.array([3, 0])).grid(np.array([0, 1]))[1] == 3
    with pytest.raises(ValueError):
        sized_cells(cells, np.array([2 ** 31, 0]))


def test_a_facets_top_labels_are_the_stable_sorts_first(index_path):
    """`_top_pairs` keeps the 4 x top most frequent values as a set before its own sort: the
    lists of the stable sort of every value, on real institution counts full of ties."""
    docs = doc_table(index_path, compiled=False)
    labels = docs.labels["institution"]

    def by_sort(counts, top):
        present = np.flatnonzero(counts)
        if len(present) > 4 * top:
            present = present[np.argsort(-counts[present], kind="stable")[:4 * top]]
        pairs = [[labels[i], int(counts[i])] for i in present.tolist() if labels[i]]
        return sorted(pairs, key=lambda p: (-p[1], p[0]))[:top]

    tied = 0
    for rows in row_sets(docs):
        counts = np.bincount(docs.institutions.gather(rows), minlength=len(labels))
        for top in (1, 3, 20):
            assert _top_pairs(counts, labels, top) == by_sort(counts, top)
            present = np.sort(counts[counts > 0])[::-1]
            tied += len(present) > 4 * top and present[4 * top - 1] == present[4 * top]
    assert tied >= 3  # ties at the cut were met
