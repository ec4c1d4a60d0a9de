"""The scale corpus of bench.scale: the bundled corpus's real records grown to N papers.

Why a generated corpus: no public source of this shape has a million papers here, and the
question issue 33 asks is what the build and the search cost as the corpus grows, which needs
term statistics like the real ones at every size. So every real record of the corpus is kept
as it is, and the rest are copies of real records, each changed the way another paper of the
same field would differ from it, drawn deterministically from a seed:

- key: `{venue}{year}:x` + 16 hex digits of blake2b(seed, copy number, original key) (unique,
  checked as they are made);
- year: one of the years the venue has in the corpus, drawn uniformly (so copies spread over
  the venue-years that exist; the venue is the original's);
- title: one or two words (not the first) replaced by words drawn from every title's words
  (so a word is drawn as often as titles use it); a leading short name (`BERT: ...`) gets one
  letter changed (`BXRT`), so copies do not all answer to the original's name;
- abstract: its sentences shuffled, and one of them replaced by a sentence of another
  abstract; TL;DR: another record's;
- authors: as many as the original had, each a real author entry (name, profile id,
  affiliations) drawn from every record's author slots (prolific people are drawn more often);
- keywords, venue, status, area, track kept; citations scaled by a factor in [0.5, 1.5];
  links and forum ids dropped (they would point at the original).

Copies are made in rounds over the originals in corpus order (copy 1 of every record, then
copy 2, ...) until the size is reached, so a smaller size is a prefix of a larger one with the
same seed. The corpus is written as venue-year shards (`shards/<venue>-<year>.jsonl.gz`, the
bundled corpus's export format, read by paperfind's own jsonl reader), `origins.tsv` (copy key
and the key of its original, for the vectors) and `manifest.json` (seed, size, counts, version:
`ensure_corpus` reuses a folder whose manifest matches).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import random
import re
import shutil
from collections.abc import Iterable, Iterator
from pathlib import Path

GENERATOR_VERSION = 1
SIZES = {"250k": 250_000, "500k": 500_000, "1m": 1_000_000}
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9])")
_SHORT_NAME = re.compile(r"^([A-Za-z0-9-]{2,15}):\s")


def parse_size(text: str) -> int:
    """`250k`, `1m`, `12000` → a number of papers."""
    text = text.strip().lower()
    if text in SIZES:
        return SIZES[text]
    if text.endswith("k"):
        return int(float(text[:-1]) * 1_000)
    if text.endswith("m"):
        return int(float(text[:-1]) * 1_000_000)
    return int(text)


def size_label(n: int) -> str:
    return next((label for label, size in SIZES.items() if size == n), str(n))


def read_records(corpus: Path) -> list[dict]:
    """Every record of a folder of `.jsonl.gz` shards (or one such file), in file name order."""
    files = sorted(corpus.glob("*.jsonl.gz")) if corpus.is_dir() else [corpus]
    out = []
    for path in files:
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            out.extend(json.loads(line) for line in fh if line.strip())
    return out


class Pools:
    """What copies draw from: every title word, abstract sentence, TL;DR, author slot and
    venue year of the originals (lists with repeats: a draw follows the real frequencies)."""

    def __init__(self, records: list[dict]) -> None:
        self.title_words = [w for r in records for w in r.get("title", "").split()[1:]]
        self.sentences = [s for r in records for s in _SENTENCE.split(r.get("abstract") or "") if s]
        self.tldrs = [r["tldr"] for r in records if r.get("tldr")]
        self.authors = [a for r in records for a in r.get("authors") or []]
        years: dict[str, set[int]] = {}
        for r in records:
            years.setdefault(r["venue"], set()).add(int(r["year"]))
        self.years = {venue: sorted(ys) for venue, ys in years.items()}


def copy_key(seed: int, copy: int, original: dict, year: int) -> str:
    digest = hashlib.blake2b(f"{seed}:{copy}:{original['key']}".encode(), digest_size=8).hexdigest()
    return f"{original['venue']}{year}:x{digest}"


def _change_letter(name: str, rng: random.Random) -> str:
    letters = [i for i, c in enumerate(name) if c.isalpha()]
    if not letters:
        return name + "X"
    i = rng.choice(letters[1:] or letters)
    pool = "ABCDEFGHIJKLMNOPQRSTUVWXYZ" if name[i].isupper() else "abcdefghijklmnopqrstuvwxyz"
    new = rng.choice(pool.replace(name[i].upper() if name[i].isupper() else name[i], ""))
    return name[:i] + new + name[i + 1:]


def perturb_title(title: str, pools: Pools, rng: random.Random) -> str:
    words = title.split()
    if not words:
        return title
    match = _SHORT_NAME.match(title)
    if match:
        words[0] = _change_letter(match.group(1), rng) + ":"
    positions = list(range(1, len(words)))
    for i in rng.sample(positions, min(len(positions), 1 if len(words) < 6 else 2)):
        words[i] = rng.choice(pools.title_words)
    if len(words) == 1:
        words.append(rng.choice(pools.title_words))
    out = " ".join(words)
    return out if out != title else out + " " + rng.choice(pools.title_words)


def perturb_abstract(abstract: str, pools: Pools, rng: random.Random) -> str:
    sentences = [s for s in _SENTENCE.split(abstract or "") if s]
    if not sentences:
        return abstract
    rng.shuffle(sentences)
    sentences[rng.randrange(len(sentences))] = rng.choice(pools.sentences)
    return " ".join(sentences)


def _draw_authors(n: int, pools: Pools, rng: random.Random) -> list[dict]:
    """`n` real author slots of different names (a paper names a person once)."""
    out, names = [], set()
    for _ in range(4 * n):
        if len(out) == n:
            break
        slot = rng.choice(pools.authors)
        if slot.get("name") not in names:
            names.add(slot.get("name"))
            out.append(slot)
    return out


def make_copy(original: dict, copy: int, seed: int, pools: Pools) -> dict:
    """Copy number `copy` (1, 2, ...) of a real record (see the module's docs)."""
    rng = random.Random(f"{seed}:{copy}:{original['key']}")
    year = rng.choice(pools.years[original["venue"]])
    key = copy_key(seed, copy, original, year)
    citations = original.get("citations")
    out = dict(original)
    out.update(
        key=key, year=year, source_id=key.partition(":")[2], forum_id="", links={}, bibtex="",
        title=perturb_title(original.get("title", ""), pools, rng),
        abstract=perturb_abstract(original.get("abstract") or "", pools, rng),
        tldr=rng.choice(pools.tldrs) if original.get("tldr") and pools.tldrs else "",
        authors=_draw_authors(len(original.get("authors") or []), pools, rng),
        citations=(int(citations * rng.uniform(0.5, 1.5))
                   if isinstance(citations, int) and citations >= 0 else citations),
        source=f"bench/scale copy {copy} of {original['key']}")
    return out


def grow(records: list[dict], size: int, seed: int) -> Iterator[tuple[dict, str]]:
    """(record, key of its original) for `size` papers: the originals (their own key as the
    original's), then copies in rounds. A key made twice raises ValueError."""
    if size < len(records):
        raise ValueError(f"size {size:,} is below the {len(records):,} real records it keeps")
    pools = Pools(records)
    seen: set[str] = set()
    for record in records:
        seen.add(record["key"])
        yield record, record["key"]
    made, copy = len(records), 0
    while made < size:
        copy += 1
        for original in records:
            if made >= size:
                break
            record = make_copy(original, copy, seed, pools)
            if record["key"] in seen:
                raise ValueError(f"generated key {record['key']} twice")
            seen.add(record["key"])
            made += 1
            yield record, original["key"]


def write_corpus(rows: Iterable[tuple[dict, str]], out: Path) -> dict[str, int]:
    """Venue-year shards under `out/shards` and `out/origins.tsv` of copies; papers per shard."""
    shards = out / "shards"
    shards.mkdir(parents=True, exist_ok=True)
    files: dict[str, gzip.GzipFile] = {}
    counts: dict[str, int] = {}
    try:
        with open(out / "origins.tsv", "w", encoding="utf-8") as origins:
            for record, original in rows:
                name = f"{record['venue']}-{record['year']}.jsonl.gz"
                fh = files.get(name)
                if fh is None:
                    fh = files[name] = gzip.GzipFile(shards / name, "wb", compresslevel=1, mtime=0)
                fh.write((json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n").encode())
                counts[name] = counts.get(name, 0) + 1
                if original != record["key"]:
                    origins.write(f"{record['key']}\t{original}\n")
    finally:
        for fh in files.values():
            fh.close()
    return dict(sorted(counts.items()))


def manifest_of(source: Path, size: int, seed: int) -> dict:
    return {"generator": GENERATOR_VERSION, "size": size, "seed": seed, "source": str(source.resolve())}


def ensure_corpus(source: Path, size: int, seed: int, out: Path) -> tuple[Path, bool]:
    """The generated corpus folder `out` (made aside and moved into place), reused when its
    manifest says the same source, size, seed and generator; (folder, whether it was made)."""
    wanted = manifest_of(source, size, seed)
    manifest = out / "manifest.json"
    if manifest.exists():
        found = json.loads(manifest.read_text("utf-8"))
        if {k: found.get(k) for k in wanted} == wanted:
            return out, False
    partial = out.with_name(out.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    records = read_records(source)
    counts = write_corpus(grow(records, size, seed), partial)
    (partial / "manifest.json").write_text(json.dumps(
        {**wanted, "originals": len(records), "copies": size - len(records), "shards": counts},
        indent=1) + "\n", "utf-8")
    shutil.rmtree(out, ignore_errors=True)
    os.replace(partial, out)
    return out, True


def read_origins(corpus: Path) -> dict[str, str]:
    """Copy key → original key, as `write_corpus` wrote them."""
    with open(corpus / "origins.tsv", encoding="utf-8") as fh:
        return dict(line.rstrip("\n").split("\t") for line in fh if line.strip())
