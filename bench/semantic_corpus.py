"""Shared helpers of the semantic bench scripts: the default corpus and the dev query sets.

The bench scripts must run before the store exists and without touching it, so they read the
paperlists files directly with a minimal clean-up (whitespace, a few LaTeX wrappers). The
product's own ingest does the real normalisation; these figures compare text budgets and
routes, which the clean-up affects equally.
"""

from __future__ import annotations

import csv
import gzip
import json
import random
import re
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data" / "paperlists"
EVAL = REPO.parent / "shared" / "eval-dev"
DEFAULT_VENUES = {"icml", "nips", "iclr", "colm", "aistats", "colt", "uai", "corl"}

_SPACE = re.compile(r"\s+")
_WRAP = re.compile(r"\\(?:emph|textit|textbf|mathrm|mathbf|text)\{([^{}]*)\}")


@dataclass(frozen=True)
class BenchDoc:
    key: str
    title: str
    abstract: str


def clean(text: str) -> str:
    """Collapse whitespace and unwrap the commonest LaTeX text macros."""
    return _SPACE.sub(" ", _WRAP.sub(r"\1", text or "")).strip()


def default_corpus() -> list[BenchDoc]:
    """Every record of the default corpus (16,563), in manifest order."""
    docs: list[BenchDoc] = []
    with open(DATA / "MANIFEST.tsv", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t"))
    for row in rows:
        if row["venue"] not in DEFAULT_VENUES or int(row["year"]) < 2013:
            continue
        with gzip.open(DATA / row["file"], "rt", encoding="utf-8") as fh:
            records = json.load(fh)
        for rec in records:
            key = f"{row['venue']}{row['year']}:{rec['id']}"
            docs.append(BenchDoc(key, clean(rec.get("title", "")), clean(rec.get("abstract", ""))))
    return docs


def load_set(name: str) -> list[dict]:
    with open(EVAL / f"{name}.jsonl", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def subset(docs: list[BenchDoc], must: set[str], size: int, seed: int = 7) -> list[BenchDoc]:
    """All docs whose key is in `must`, plus random distractors up to `size`, in corpus order."""
    rng = random.Random(seed)
    rest = [d for d in docs if d.key not in must]
    picked = {d.key for d in rng.sample(rest, max(0, size - len(must)))} | must
    return [d for d in docs if d.key in picked]
