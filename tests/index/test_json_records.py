"""The stored cards (`JsonRecords`) are read at random, a row at a time: their mapping is advised
so (MADV_RANDOM), or a cold page cache reads ~128 kB around every card a search touches. At 1M
papers a fresh server's first 60 typo'd titles read 977 MB of the 1.6 GB cards file that way,
and ~7 MB with the advice (bench/RESULTS.md, session 25, lead). Read from this process's own
page tables (/proc/self/smaps: `rr` is the kernel's flag for a mapping advised random)."""

from __future__ import annotations

import mmap
import os
import time
from pathlib import Path

import numpy as np
import pytest

from paperfind.index.strings import JsonRecords


def _vm_flags(path: Path) -> list[str]:
    """The VmFlags of this process's mappings of `path`."""
    target = str(path.resolve())
    flags, current = [], None
    with open("/proc/self/smaps", encoding="utf-8", errors="replace") as fh:
        for line in fh:
            head = line.split(maxsplit=5)
            if "-" in head[0] and len(head) >= 5 and not head[0].endswith(":"):
                current = head[5].strip() if len(head) == 6 else None
            elif current == target and head[0] == "VmFlags:":
                flags.append(line.split(":", 1)[1].strip())
    return flags


def test_records_read_back_by_row(tmp_path):
    objects = [{"key": f"p{i}", "title": "A title " * i, "中": i} for i in range(50)]
    JsonRecords.save(objects, tmp_path, "stored")
    records = JsonRecords.load(tmp_path, "stored")
    assert len(records) == 50
    assert [records.get(i) for i in (0, 7, 49)] == [objects[0], objects[7], objects[49]]


def test_an_empty_records_file_loads_without_a_mapping(tmp_path):
    JsonRecords.save([], tmp_path, "stored")
    assert len(JsonRecords.load(tmp_path, "stored")) == 0


@pytest.mark.skipif(not Path("/proc/self/smaps").exists() or not hasattr(mmap, "MADV_RANDOM"),
                    reason="needs Linux's /proc/self/smaps and madvise")
def test_the_records_mapping_is_advised_random(tmp_path):
    JsonRecords.save([{"key": f"p{i}", "abstract": "words " * 200} for i in range(200)], tmp_path, "stored")
    records = JsonRecords.load(tmp_path, "stored")
    flags = _vm_flags(tmp_path / "stored.jsonl")
    assert flags and all("rr" in f.split() for f in flags), flags
    assert records.get(199)["key"] == "p199"


def _page_cached(path: Path) -> list[bool]:
    """Per page of `path`: whether it is in the page cache (mincore over a mapping of our own,
    which reads nothing)."""
    import ctypes
    import ctypes.util

    import numpy as np

    libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]
    with open(path, "rb") as fh:
        probe = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    pages = (len(probe) + mmap.PAGESIZE - 1) // mmap.PAGESIZE
    vec = (ctypes.c_ubyte * pages)()
    assert libc.mincore(np.frombuffer(probe, dtype=np.uint8).ctypes.data, len(probe), vec) == 0
    return [bool(v & 1) for v in vec]


@pytest.mark.skipif(not hasattr(os, "posix_fadvise") or not hasattr(mmap, "MADV_WILLNEED"),
                    reason="needs Linux's fadvise and madvise")
def test_read_ahead_brings_the_rows_pages_into_the_page_cache_and_no_others(tmp_path):
    # a page of cards on a cold page cache: their pages asked for together, before the reads
    # (at 1M papers a cold server's lexical p50 fell ~2.5 ms; bench/RESULTS.md, cold33)
    JsonRecords.save([{"key": f"p{i}", "abstract": "words " * 300} for i in range(400)], tmp_path, "stored")
    path = tmp_path / "stored.jsonl"
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)  # clean pages: dropped
    finally:
        os.close(fd)
    records = JsonRecords.load(tmp_path, "stored")
    offsets = np.load(tmp_path / "stored.offsets.npy")
    asked, other = (10, 200), 300

    def page(row: int) -> int:
        return int(offsets[row]) // mmap.PAGESIZE

    assert not any(_page_cached(path)[page(r)] for r in (*asked, other))
    records.read_ahead(list(asked))
    deadline = time.monotonic() + 60  # the reads are the kernel's, made after the call returns
    while not all(_page_cached(path)[page(r)] for r in asked) and time.monotonic() < deadline:
        time.sleep(0.005)
    cached = _page_cached(path)
    assert all(cached[page(r)] for r in asked)
    assert not cached[page(other)]  # only the rows asked for (the mapping is advised random)
    assert records.get(200)["key"] == "p200"


def test_read_ahead_of_an_empty_records_file_does_nothing(tmp_path):
    JsonRecords.save([], tmp_path, "stored")
    JsonRecords.load(tmp_path, "stored").read_ahead([])
