"""An index's memory-mapped files made resident in a serving process at its start.

The index's arrays (postings, term sequences, stored cards, names, spelling tables) are
memory-mapped, so a page is mapped into the process the first time a search reads it. A
freshly started server's first hundreds of searches each touch pages no search touched
before: on the bundled corpus (156k papers) its first 60 typo'd titles made ~1,860 minor and
41-47 major page faults where the same queries asked again made none, and ran 1.2-1.5x slower
at the median and up to 2x at p95 (bench/RESULTS.md, lex33k). Asking the kernel to map every page of the index's files at the start
(`madvise(MADV_POPULATE_READ)`, Linux 5.14+: the pages are read from the page cache, or the
disk, and mapped now) takes ~0.05-0.1 s for the bundled corpus's ~0.7 GB, and no search
faults after it.

The pages are the page cache's (shared, reclaimable), but they count in the process's
resident set, so a budget caps how much is made resident (`SearchSettings.resident_index_mb`),
and a file larger than what is left of the budget is skipped. At a million papers the index
(3.9 GB) is larger than the budget, so the order matters: files go in the order a search reads
them, measured on a cold 1M server (bench/RESULTS.md, cold33: `fincore` of every index file
after each kind's 60 searches, nothing made resident). Every lexical search reads the
vocabulary, the spelling tables (a typo'd word's corrections) and the postings of the fields it
scores (`text`, `authors`, `venue`), then the per-paper columns and keys of its matches: the first
60 typo'd titles read 367 MB of the text field's postings and 38 MB of spelling tables, which
the earlier order by name (the abstract's postings first) left out. The per-field postings of
title and abstract come next (the default mode's second stage reads them: 285 MB for the first
60 typo'd titles), then the sequences of titles and keywords and the people's tables; the
abstract's sequences, the people's cards and the stored cards (1.6 GB, read a card at a time,
advised random) last. Where the call is not supported (another system, an older kernel)
nothing is done: the pages are then mapped on first use as before.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
from pathlib import Path

MADV_POPULATE_READ = 22  # <linux/mman.h>, Linux 5.14+
_MAPS = Path("/proc/self/maps")


def _mapped_files(root: Path) -> list[tuple[int, int, str]]:
    """(start, end, path) of this process's mappings of files under `root`."""
    if not _MAPS.exists():
        return []
    prefix = str(Path(root).resolve()) + "/"
    out = []
    with open(_MAPS, encoding="utf-8", errors="replace") as fh:
        for line in fh:
            parts = line.split(maxsplit=5)
            if len(parts) == 6 and parts[5].rstrip("\n").startswith(prefix):
                start, end = (int(x, 16) for x in parts[0].split("-"))
                out.append((start, end, parts[5].rstrip("\n")))
    return out


# the index's files by how often a search reads them (module docstring), most often first; the
# stored records (`*.jsonl`: cards read one at a time, advised random) and any file no tier names
# come after them all
READ_BY_EVERY_SEARCH = ("vocab.", "spell.", "field.text.", "field.authors.", "field.venue.", "keys.",
                        "meta.", "stored.offsets")
READ_BY_SOME_SEARCHES = ("field.title.", "field.abstract.", "field.keywords.", "seq.title.",
                         "seq.keywords.", "names.")
READ_TIERS = (READ_BY_EVERY_SEARCH, READ_BY_SOME_SEARCHES)


def read_tier(path: str) -> int:
    """0 for a file every lexical search reads, 1 for one some searches read, 2 for the rest
    (the abstract's sequences, the stored cards of papers and people)."""
    name = Path(path).name
    if name.endswith(".jsonl"):
        return len(READ_TIERS)
    return next((tier for tier, prefixes in enumerate(READ_TIERS) if name.startswith(prefixes)),
                len(READ_TIERS))


def make_resident(root: Path, budget_bytes: int) -> int:
    """Map every page of the memory-mapped files under `root` (an index version's directory)
    into this process now, at most `budget_bytes` in all; returns the bytes made resident
    (0 where the kernel cannot: nothing changes then)."""
    if budget_bytes <= 0:
        return 0
    maps = sorted(_mapped_files(root), key=lambda m: (read_tier(m[2]), m[2], m[0]))
    if not maps:
        return 0
    libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    libc.madvise.restype = ctypes.c_int
    done = 0
    for start, end, _ in maps:
        size = end - start
        if done + size > budget_bytes:
            continue
        if libc.madvise(start, size, MADV_POPULATE_READ) != 0:
            if ctypes.get_errno() == errno.EINVAL:  # a kernel without it: leave the rest lazy
                return done
            continue  # this mapping only (e.g. a file shortened under it)
        done += size
    return done
