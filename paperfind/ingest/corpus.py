"""The corpus a first start builds from: one export file, or a folder of venue-year shards.

The bundled corpus is a folder of `<venue>-<year>.jsonl.gz` shards (`paperfind/data/corpus/`).
A first start builds the machine-learning venues first (but ICLR 2026's submissions under
review), which is what most queries look for and what fits the first minute, and serves them;
the vision and language venues and ICLR 2026 follow in the background (`Paperfind.complete_corpus`), each shard one transaction, and the index switches
to its next generation once they are in.
"""

from __future__ import annotations

import gzip
import re
from collections.abc import Iterator
from pathlib import Path

# Built before the portal answers; every other venue follows in the background.
FIRST_VENUES = frozenset({"icml", "nips", "iclr", "colm", "aistats", "colt", "uai", "corl"})
# ... but these venue-years of them: ICLR 2026's 19,600 submissions are under review and its
# shard a fifth of the first venues' text; built first, they put a fresh clone's first answer
# past the minute (bench/first_minute.py: 82.6 s with them on a cold machine, RESULTS.md)
DEFERRED = frozenset({("iclr", 2026)})
_SHARD = re.compile(r"^(?P<venue>[a-z0-9]+)-(?P<year>\d{4})\.jsonl(\.gz)?$")
PENDING_META = "corpus_pending"  # store meta: the shards a first start left to the background


def shard_venue_year(path: Path) -> tuple[str, int] | None:
    match = _SHARD.match(Path(path).name)
    return (match["venue"], int(match["year"])) if match else None


def corpus_files(corpus: Path) -> list[Path]:
    """The export files of a corpus: the file itself, or the shards of a folder, sorted."""
    corpus = Path(corpus)
    if corpus.is_dir():
        return sorted(p for p in corpus.iterdir() if p.is_file() and p.name.endswith((".jsonl", ".jsonl.gz")))
    return [corpus]


def first_and_rest(files: list[Path]) -> tuple[list[Path], list[Path]]:
    """(the files a first start builds before serving, the ones it leaves to the background).

    Files that are not venue-year shards, and corpora without any first venue, are built
    whole: the split only ever defers shards."""
    def first_part(p: Path) -> bool:
        venue_year = shard_venue_year(p)
        return venue_year is None or (venue_year[0] in FIRST_VENUES and venue_year not in DEFERRED)

    first = [p for p in files if first_part(p)]
    rest = [p for p in files if p not in first]
    if not first:
        return rest, []
    return first, rest


def corpus_lines(corpus: Path) -> Iterator[str]:
    """The JSON lines of every file of a corpus (a benchmark's or a trainer's view of it)."""
    for path in corpus_files(corpus):
        opener = gzip.open if path.name.endswith(".gz") else open
        with opener(path, "rt", encoding="utf-8") as fh:
            yield from fh
