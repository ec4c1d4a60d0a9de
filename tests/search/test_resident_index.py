"""A searcher warmed for serving has its index's memory-mapped files resident before its first
search (paperfind.index.resident), up to `SearchSettings.resident_index_mb`, so a fresh
server's first searches do not fault their pages in one by one; a CLI search maps only what
it reads. Read from this process's own page tables (/proc/self/smaps), on the tests' real
slice through the real index build."""

from __future__ import annotations

from pathlib import Path

from paperfind.index.resident import make_resident, read_tier
from paperfind.search.engine import open_searcher
from paperfind.search.response import SearchRequest
from paperfind.search.settings import SearchSettings


def _mapped(root: Path) -> dict[str, tuple[int, int]]:
    """Per file under `root` mapped by this process: (kB mapped, kB resident), summed over its mappings."""
    prefix = str(root.resolve()) + "/"
    out: dict[str, tuple[int, int]] = {}
    current = None
    with open("/proc/self/smaps", encoding="utf-8", errors="replace") as fh:
        for line in fh:
            head = line.split(maxsplit=5)
            if "-" in head[0] and len(head) >= 5 and not head[0].endswith(":"):
                current = head[5].strip() if len(head) == 6 and head[5].startswith(prefix) else None
            elif current is not None and head[0] in ("Size:", "Rss:"):
                size, rss = out.get(current, (0, 0))
                kb = int(head[1])
                out[current] = (size + kb, rss) if head[0] == "Size:" else (size, rss + kb)
    return out


def _version(searcher) -> Path:
    return searcher.backend().index.path


def test_a_searcher_warmed_for_serving_has_every_page_of_its_index_files_resident(index_copy):
    store, root = index_copy
    served = open_searcher(root, store, SearchSettings(result_cache=0))
    served.warm_for_serving()
    mapped = _mapped(_version(served))
    stored = str(_version(served).resolve() / "stored.jsonl")
    assert stored in mapped and len(mapped) > 20  # postings, sequences, stored cards, names...
    assert all(rss == size for size, rss in mapped.values()), \
        {Path(f).name: v for f, v in mapped.items() if v[0] != v[1]}
    # and its answers are a searcher's that maps pages as it reads them
    plain = open_searcher(root, store, SearchSettings(result_cache=0, resident_index_mb=0))
    request = SearchRequest(q="online learning with bandit feedback", limit=20, mode="lexical")
    first, again = served.search(request), plain.search(request)
    assert [r["key"] for r in first.results] == [r["key"] for r in again.results]
    assert first.total == again.total and first.facets == again.facets


def test_without_the_budget_the_stored_cards_stay_unmapped_until_read(index_copy):
    store, root = index_copy
    lazy = open_searcher(root, store, SearchSettings(result_cache=0, resident_index_mb=0))
    lazy.warm_for_serving()
    size, rss = _mapped(_version(lazy))[str(_version(lazy).resolve() / "stored.jsonl")]
    assert rss < size  # no search has read a card yet


def test_the_budget_caps_what_is_made_resident(index_copy):
    store, root = index_copy
    lazy = open_searcher(root, store, SearchSettings(result_cache=0, resident_index_mb=0))
    lazy.backend()
    version = _version(lazy)
    total = sum(size for size, _ in _mapped(version).values()) * 1024
    budget = total // 3
    done = make_resident(version, budget)
    assert 0 < done <= budget
    assert make_resident(version, 0) == 0


def test_a_budget_short_of_the_index_takes_the_files_every_search_reads_first(index_copy):
    # at 1M papers the index is ~4x the budget: the vocabulary, spelling tables and the scored
    # fields' postings must be the ones made resident, not the abstract's postings that come
    # first by name (a cold 1M server's first typo'd titles read 367 MB of the text postings)
    store, root = index_copy
    lazy = open_searcher(root, store, SearchSettings(result_cache=0, resident_index_mb=0))
    lazy.backend()
    version = _version(lazy)
    sizes = {Path(f).name: size for f, (size, _) in _mapped(version).items()}
    every_search = [name for name in sizes if read_tier(name) == 0]
    assert {"field.text.data.npy", "field.text.indices.npy", "spell.deletes.blob.bin",
            "vocab.blob.bin"} <= set(every_search)
    done = make_resident(version, sum(sizes[name] for name in every_search) * 1024)
    assert done == sum(sizes[name] for name in every_search) * 1024
    after = {Path(f).name: v for f, v in _mapped(version).items()}
    assert all(after[name][1] == after[name][0] for name in every_search), \
        {name: after[name] for name in every_search if after[name][1] != after[name][0]}
    assert after["field.abstract.data.npy"][1] < after["field.abstract.data.npy"][0]
    assert after["stored.jsonl"][1] < after["stored.jsonl"][0]


def test_the_files_are_ordered_by_how_often_a_search_reads_them():
    assert read_tier("/x/v1/spell.deletes.blob.bin") == 0 == read_tier("/x/v1/field.text.indices.npy")
    assert read_tier("/x/v1/field.abstract.data.npy") == 1 == read_tier("/x/v1/names.forms.blob.bin")
    assert read_tier("/x/v1/seq.abstract.indices.npy") == 2
    assert read_tier("/x/v1/stored.jsonl") == 2 == read_tier("/x/v1/names.cards.jsonl")
