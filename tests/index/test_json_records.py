"""The stored cards (`JsonRecords`) are read at random, a row at a time: their mapping is advised
so (MADV_RANDOM), or a cold page cache reads ~128 kB around every card a search touches. At 1M
papers a fresh server's first 60 typo'd titles read 977 MB of the 1.6 GB cards file that way,
and ~7 MB with the advice (bench/RESULTS.md, session 25, lead). Read from this process's own
page tables (/proc/self/smaps: `rr` is the kernel's flag for a mapping advised random)."""

from __future__ import annotations

import mmap
from pathlib import Path

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
