"""The bundled corpus's review scores as side files: `paperfind/data/corpus.reviews/`.

The corpus shards (`paperfind/data/corpus/`) are kept byte for byte; the scores its sources
carry go beside them, one JSON lines file per shard with the shard's name, each line a
corpus paper key and its `Reviews`. They are made here by reading the sources with the
readers `paperfind ingest` uses, choosing a paper's scores by the store's rule
(`paperfind.store.reviews.best_reviews`, best source first) and pairing them with the corpus
by forum id, then key, then title within the venue-year. Run by `scripts/build-corpus --reviews`.

    python -m paperfind.ingest.review_sides DATA_DIR CORPUS_DIR OUT_DIR
"""

from __future__ import annotations

import gzip
import json
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from paperfind.ingest.corpus import corpus_files, shard_venue_year
from paperfind.ingest.readers import READERS, find_reader
from paperfind.model import Record, Reviews
from paperfind.store.reviews import best_reviews
from paperfind.text.clean import normalize_title

# the readers that fill `Record.reviews` (paperfind.ingest.reviews)
REVIEW_READERS = frozenset({"paperlists", "paperlists-history-forum", "papercopilot-venues",
                            "papercopilot-init", "evanzd-ratings", "neurips-openreviewdata-ratings",
                            "iclr2026-alickzhu"})


@dataclass
class Coverage:
    """Per venue-year: papers the sources give scores for, and those paired with a corpus paper."""

    carried: dict[tuple[str, int], set[str]] = field(default_factory=lambda: defaultdict(set))
    paired: dict[tuple[str, int], int] = field(default_factory=lambda: defaultdict(int))


def source_files(data: Path) -> list[Path]:
    """The files under `data` a review reader reads (their records of venues outside the
    corpus are left out as they are read)."""
    found = []
    for path in sorted(p for p in data.rglob("*") if p.is_file()):
        reader = find_reader(path)
        if reader is not None and reader.name in REVIEW_READERS:
            found.append(path)
    return found


class _CorpusIndex:
    """The corpus papers of each venue-year, by forum id, by key and by title."""

    def __init__(self, corpus: Path) -> None:
        self.shard_of: dict[str, str] = {}
        self.by_forum: dict[tuple[str, int, str], str] = {}
        self.by_title: dict[tuple[str, int, str], list[str]] = defaultdict(list)
        for path in corpus_files(corpus):
            with gzip.open(path, "rt", encoding="utf-8") as fh:
                for line in fh:
                    paper = json.loads(line)
                    key, venue, year = paper["key"], paper["venue"], int(paper["year"])
                    self.shard_of[key] = path.name
                    if paper.get("forum_id"):
                        self.by_forum[(venue, year, paper["forum_id"])] = key
                    self.by_title[(venue, year, normalize_title(paper["title"]))].append(key)
        self.venues = {shard_venue_year(Path(n))[0] for n in set(self.shard_of.values())
                       if shard_venue_year(Path(n))}

    def pair(self, record: Record) -> str | None:
        for ident in (record.forum_id, record.source_id):
            if ident:
                key = self.by_forum.get((record.venue, record.year, ident))
                if key is None and f"{record.venue}{record.year}:{ident}" in self.shard_of:
                    key = f"{record.venue}{record.year}:{ident}"
                if key is not None:
                    return key
        titled = self.by_title.get((record.venue, record.year, normalize_title(record.title)), [])
        return titled[0] if len(titled) == 1 else None


def build_sides(data: Path, corpus: Path, out: Path) -> Coverage:
    """Write the side files of `corpus` from the sources under `data`; returns the coverage."""
    index = _CorpusIndex(corpus)
    priority = {reader.name: reader.priority for reader in READERS}
    coverage = Coverage()
    found: dict[str, list[tuple[int, Record]]] = defaultdict(list)
    for path in source_files(data):
        reader = find_reader(path)
        for item in reader.read(path):
            if not isinstance(item, Record) or item.reviews is None or item.venue not in index.venues:
                continue
            venue_year = (item.venue, item.year)
            coverage.carried[venue_year].add(item.forum_id or item.source_id or normalize_title(item.title))
            key = index.pair(item)
            if key is not None:
                found[key].append((priority[reader.name], item))
    lines: dict[str, list[str]] = defaultdict(list)
    for key in sorted(found):
        records = [record for _, record in sorted(found[key], key=lambda pr: -pr[0])]
        reviews = best_reviews(records)
        if reviews is None:
            continue
        record = records[0]
        coverage.paired[(record.venue, record.year)] += 1
        lines[index.shard_of[key]].append(json.dumps({"key": key, **_plain(reviews)},
                                                     sort_keys=True, ensure_ascii=False))
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("*.jsonl.gz"):
        if old.name not in lines:
            old.unlink()
    for name, rows in sorted(lines.items()):
        # mtime 0 and no name in the header: the same scores make the same bytes
        with open(out / name, "wb") as raw, gzip.GzipFile("", "wb", 9, raw, mtime=0) as fh:
            fh.write(("\n".join(rows) + "\n").encode("utf-8"))
    return coverage


def _plain(reviews: Reviews) -> dict:
    data = dict(reviews.__dict__)
    for name in ("decision", "scale"):
        if not data[name]:
            del data[name]
    if not data["initial"]:
        del data["initial"]
    for name in ("ratings", "confidences"):
        if not data[name]:
            del data[name]
    return data


def coverage_table(coverage: Coverage) -> str:
    """Papers with scores per venue-year, against the source records that carry them."""
    lines = ["| venue-year | papers with scores (bundled) | papers the sources give scores for |",
             "|---|---:|---:|"]
    for venue, year in sorted(coverage.carried):
        lines.append(f"| {venue} {year} | {coverage.paired.get((venue, year), 0):,} | "
                     f"{len(coverage.carried[(venue, year)]):,} |")
    total = sum(coverage.paired.values()), sum(len(s) for s in coverage.carried.values())
    lines.append(f"| all | {total[0]:,} | {total[1]:,} |")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    coverage = build_sides(Path(argv[0]), Path(argv[1]), Path(argv[2]))
    print(coverage_table(coverage))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
