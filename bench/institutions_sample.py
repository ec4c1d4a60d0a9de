"""Draw the affiliation strings of the labelled set (tests/catalog/data/affiliations_labelled.tsv).

How: every distinct affiliation of an author slot is collected, with where it was first
seen, from two pools, and a seeded random sample is drawn from each:
- paperlists: each `../shared/data/paperlists/*/*.json.gz` record's `aff` slots with their
  `aff_unique_norm`/`aff_unique_abbr` (aligned by `aff_unique_index`, as the paperlists
  reader does), since the resolver gets all three;
- extra: the raw strings the `extra/` readers handed the resolver, read back from the
  bundled corpus (records whose source is under `extra/`; the norm is empty there).
Then 200 distinct triples are drawn from paperlists, 120 from extra, and 40 more from the
non-ASCII strings of both, so transliterations are covered. The expected slug column is
filled in by hand afterwards; this script only prints the draw (TSV on stdout, with an
empty `expected` column).

    python -m bench.institutions_sample > /tmp/draw.tsv
"""

from __future__ import annotations

import gzip
import json
import random
import sys
from typing import Iterator

from bench.corpus import BUNDLED as CORPUS, DATA
from paperfind.ingest.corpus import corpus_files
from paperfind.ingest.jsonl import read_export
from paperfind.model import Record

SEED = 14
COUNTS = {"paperlists": 200, "extra": 120, "non-ascii": 40}


def _split(value: object) -> list[str]:
    return value.split(";") if isinstance(value, str) else []


def slot_triples(item: dict) -> Iterator[tuple[str, str, str]]:
    """(raw, norm, abbr) of each affiliation of a paperlists record's author slots, the
    `aff_unique_*` lists aligned by `aff_unique_index` as the paperlists reader aligns them."""
    norms, abbrs = _split(item.get("aff_unique_norm")), _split(item.get("aff_unique_abbr"))
    indexes = _split(item.get("aff_unique_index"))
    for slot_number, slot in enumerate(_split(item.get("aff"))):
        raws = [p.strip() for p in slot.split("+")]
        index_slot = indexes[slot_number] if slot_number < len(indexes) else ""
        index_parts = index_slot.split("+") if index_slot else []
        if len(index_parts) != len(raws):
            index_parts = [""] * len(raws)
        for raw, index in zip(raws, index_parts):
            number = int(index) if index.strip().isdigit() else None
            norm = norms[number].strip() if number is not None and number < len(norms) else ""
            abbr = abbrs[number].strip() if number is not None and number < len(abbrs) else ""
            if raw or norm:
                yield raw, norm, abbr


def paperlists_pool() -> dict[tuple[str, str, str], str]:
    """(raw, norm, abbr) of every paperlists author slot → the first `venue/file:id` with it."""
    pool: dict[tuple[str, str, str], str] = {}
    for path in sorted(DATA.glob("paperlists/*/*.json.gz")):
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            items = json.load(handle)
        for item in items:
            for triple in slot_triples(item):
                pool.setdefault(triple, f"{path.parent.name}/{path.name}:{item.get('id', '')}")
    return pool


def extra_pool() -> dict[tuple[str, str, str], str]:
    """(raw, "", "") of every affiliation the extra readers produced → the first record key."""
    pool: dict[tuple[str, str, str], str] = {}
    for record in (r for shard in corpus_files(CORPUS) for r in read_export(shard)):
        if not isinstance(record, Record) or not record.source.startswith("extra/"):
            continue
        for author in record.authors:
            for affiliation in author.affiliations:
                if affiliation.raw:
                    pool.setdefault((affiliation.raw, "", ""), f"{record.source}:{record.key}")
    return pool


def draw() -> list[tuple[str, str, str, str, str]]:
    """(pool, where, raw, norm, abbr) rows, seeded, no triple twice."""
    rng = random.Random(SEED)
    pools = {"paperlists": paperlists_pool(), "extra": extra_pool()}
    chosen: dict[tuple[str, str, str], tuple[str, str]] = {}
    for name, pool in pools.items():
        for triple in rng.sample(sorted(pool), COUNTS[name]):
            chosen[triple] = (name, pool[triple])
    non_ascii = sorted(t for pool in pools.values() for t in pool
                       if not (t[0] + t[1]).isascii() and t not in chosen)
    for triple in rng.sample(non_ascii, COUNTS["non-ascii"]):
        name = "paperlists" if triple in pools["paperlists"] else "extra"
        chosen[triple] = (name, pools[name][triple])
    return [(name, where, *triple) for triple, (name, where) in chosen.items()]


def main() -> None:
    out = sys.stdout
    out.write("pool\twhere\traw\tnorm\tabbr\texpected\n")
    for row in draw():
        out.write("\t".join(" ".join(v.replace("\t", " ").split()) for v in row) + "\t\n")


if __name__ == "__main__":
    main()
