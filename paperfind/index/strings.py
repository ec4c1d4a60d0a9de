"""Sorted string tables on disk: the index's dictionaries without pickles or load-time dicts.

A vocabulary of 200k terms or a name table of 700k forms would cost seconds to turn into a
Python dict on every start. Kept as one sorted UTF-8 blob (`.blob.bin`) plus offsets
(`.offsets.npy`), both memory-mapped, a lookup is a binary search of ~20 byte-string compares.

The search compares UTF-8 bytes, never decoded strings: UTF-8 was designed so that its byte order
is the code-point order of the strings, which is Python's str order (the order the tables are
saved in), so the positions are the same without a decode and a method call per step (~1.7x
faster a lookup, measured on the bundled corpus's tables). A query string with a lone surrogate
(valid in a Python str, not in UTF-8) is encoded with "surrogatepass", which keeps that order too.
"""

from __future__ import annotations

import json
import mmap
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np
import orjson


_OFFSETS_AS_LIST = 300_000  # smaller tables keep offsets as a list: faster to index than numpy


def _map_bytes(path: Path) -> bytes | mmap.mmap:
    """The file's bytes, memory-mapped (an empty file cannot be mapped: plain b"")."""
    if path.stat().st_size == 0:
        return b""
    with open(path, "rb") as f:
        return mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)


def load_array(path: Path) -> np.ndarray:
    """A memory-mapped array as a plain ndarray: `np.memmap` indexing is ~20x slower per element."""
    return np.load(path, mmap_mode="r").view(np.ndarray)


def _utf8(s: str) -> bytes:
    """`s` as the tables store it; a lone surrogate (which no stored string holds) in its
    code-point place, so a query holding one finds nothing rather than raising."""
    try:
        return s.encode("utf-8")
    except UnicodeEncodeError:
        return s.encode("utf-8", "surrogatepass")


class StringTable(Sequence[str]):
    """An immutable sorted list of strings backed by `name.blob.npy` and `name.offsets.npy`."""

    def __init__(self, blob: bytes | mmap.mmap, offsets: np.ndarray) -> None:
        self._blob = blob  # raw UTF-8; slicing an mmap gives bytes without numpy overhead
        self._offsets = offsets.tolist() if len(offsets) <= _OFFSETS_AS_LIST else offsets

    def __len__(self) -> int:
        return len(self._offsets) - 1

    def __getitem__(self, i):  # type: ignore[override]
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self)
        return self._blob[self._offsets[i]:self._offsets[i + 1]].decode("utf-8")

    def bisect_left(self, s: str) -> int:
        """The first position whose string is not less than `s` (`bisect.bisect_left`)."""
        key = _utf8(s)
        blob, offsets = self._blob, self._offsets
        lo, hi = 0, len(offsets) - 1
        while lo < hi:
            mid = (lo + hi) // 2
            if blob[offsets[mid]:offsets[mid + 1]] < key:
                lo = mid + 1
            else:
                hi = mid
        return lo

    def bisect_right(self, s: str) -> int:
        """The first position whose string is greater than `s` (`bisect.bisect_right`)."""
        key = _utf8(s)
        blob, offsets = self._blob, self._offsets
        lo, hi = 0, len(offsets) - 1
        while lo < hi:
            mid = (lo + hi) // 2
            if key < blob[offsets[mid]:offsets[mid + 1]]:
                hi = mid
            else:
                lo = mid + 1
        return lo

    def find(self, s: str) -> int:
        """The position of `s`, or -1."""
        i = self.bisect_left(s)
        return i if i < len(self) and self[i] == s else -1

    def range(self, s: str) -> tuple[int, int]:
        """The half-open range of positions holding `s` (tables may repeat a string)."""
        return self.bisect_left(s), self.bisect_right(s)

    @staticmethod
    def save(strings: Iterable[str], root: Path, name: str) -> None:
        """Write strings (already sorted by the caller, in Python's str order)."""
        encoded = [s.encode("utf-8") for s in strings]
        offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
        if encoded:
            offsets[1:] = np.cumsum([len(b) for b in encoded])
        (root / f"{name}.blob.bin").write_bytes(b"".join(encoded))
        np.save(root / f"{name}.offsets.npy", offsets)

    @classmethod
    def load(cls, root: Path, name: str) -> "StringTable":
        return cls(_map_bytes(root / f"{name}.blob.bin"), load_array(root / f"{name}.offsets.npy"))


class JsonRecords:
    """JSON objects stored one per line with an offsets array, for random access by row."""

    def __init__(self, data: np.ndarray, offsets: np.ndarray, mapped: mmap.mmap | None = None) -> None:
        self._data = data
        self._offsets = offsets
        self._mapped = mapped

    def read_ahead(self, rows: Sequence[int]) -> None:
        """Ask the kernel to read the pages of these rows now, all at once (MADV_WILLNEED), before
        they are read one by one: on a cold page cache a page of 20 cards then waits for reads
        made together, not for 20 random reads in turn (the mapping is advised random, so each
        would be its own). Nothing where the file is not mapped or the call is missing, nor for
        a lone row (`stored([row])`, read a row at a time by the similar papers' and the finder's
        pages): its own read is the read-ahead, the call only a system call more."""
        if self._mapped is None or not hasattr(mmap, "MADV_WILLNEED") or len(rows) < 2:
            return
        at = np.asarray(rows, dtype=np.int64)
        starts, ends = self._offsets[at], self._offsets[at + 1]
        starts = starts - starts % mmap.PAGESIZE
        for start, end in zip(starts.tolist(), ends.tolist()):
            self._mapped.madvise(mmap.MADV_WILLNEED, start, end - start)

    def __len__(self) -> int:
        return len(self._offsets) - 1

    def get(self, row: int) -> dict:
        start, end = int(self._offsets[row]), int(self._offsets[row + 1])
        # orjson: ~5x faster than json for a stored paper (20 a page, with their versions)
        return orjson.loads(bytes(self._data[start:end]))

    @staticmethod
    def save(objects: Iterable[dict], root: Path, name: str) -> None:
        lengths = []
        # one encoder for every line (json.dumps with options makes one a call); the objects
        # are trees, so no check for cycles
        encode = json.JSONEncoder(ensure_ascii=False, sort_keys=True, check_circular=False).encode
        with open(root / f"{name}.jsonl", "wb") as f:
            for obj in objects:
                line = (encode(obj) + "\n").encode("utf-8")
                f.write(line)
                lengths.append(len(line))
        offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
        if lengths:
            offsets[1:] = np.cumsum(lengths)
        np.save(root / f"{name}.offsets.npy", offsets)

    @classmethod
    def load(cls, root: Path, name: str) -> "JsonRecords":
        path = root / f"{name}.jsonl"
        if not path.stat().st_size:
            return cls(np.zeros(0, dtype=np.uint8), load_array(root / f"{name}.offsets.npy"))
        with open(path, "rb") as f:
            mapped = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        # rows are read one at a time, at random: without the advice a page not in the page cache
        # brings ~128 kB around it (at 1M papers a fresh server's first 60 typo'd titles read 977 MB
        # of the 1.6 GB cards file, ~7 MB with it; bench/RESULTS.md, session 25)
        if hasattr(mmap, "MADV_RANDOM"):
            mapped.madvise(mmap.MADV_RANDOM)
        return cls(np.frombuffer(mapped, dtype=np.uint8), load_array(root / f"{name}.offsets.npy"), mapped)


def save_csr(root: Path, name: str, rows: list[Sequence[int]], dtype=np.int32) -> None:
    """Save a ragged list of int lists as `name.indptr.npy` + `name.indices.npy`."""
    indptr = np.zeros(len(rows) + 1, dtype=np.int64)
    if rows:
        indptr[1:] = np.cumsum([len(r) for r in rows])
    flat = np.fromiter((v for r in rows for v in r), dtype=dtype, count=int(indptr[-1]))
    np.save(root / f"{name}.indptr.npy", indptr)
    np.save(root / f"{name}.indices.npy", flat)


def load_csr(root: Path, name: str) -> tuple[np.ndarray, np.ndarray]:
    return load_array(root / f"{name}.indptr.npy"), load_array(root / f"{name}.indices.npy")
