"""Shared helpers of the search benches: corpora, eval sets, runs, scoring, the results file.

Until the store can hand out `IndexDoc`s, `load_raw_source` reads the paperlists files directly
with a deliberately simple reading (authors split on `;`, people keyed by OpenReview profile id
or folded name). When a database built by `paperfind` exists, `open_source` uses the store.
"""

from __future__ import annotations

import csv
import gzip
import html
import json
import re
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"
EVAL = REPO.parent / "shared" / "eval-dev"
OUT = REPO / "bench" / "out"
RESULTS = REPO / "bench" / "RESULTS.md"
DEFAULT_VENUES = ("icml", "nips", "iclr", "colm", "aistats", "colt", "uai", "corl")
VENUE_NAMES = {"nips": "NeurIPS", "iclr": "ICLR", "icml": "ICML", "colm": "COLM",
               "aistats": "AISTATS", "colt": "COLT", "uai": "UAI", "corl": "CoRL"}
_SPACE = re.compile(r"\s+")


def manifest(default_only: bool) -> list[tuple[Path, str, int]]:
    """(file, venue, year) of the paperlists files of the default (or full) corpus."""
    out = []
    with open(DATA / "paperlists" / "MANIFEST.tsv", encoding="utf-8") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            venue, year = row["venue"], int(row["year"])
            if default_only and (venue not in DEFAULT_VENUES or year < 2013):
                continue
            out.append((DATA / "paperlists" / row["file"], venue, year))
    return out


def _text(value) -> str:
    return _SPACE.sub(" ", html.unescape(str(value or ""))).strip()


def _split(value: str) -> list[str]:
    value = str(value or "")
    parts = value.split(";") if ";" in value or ", " not in value else value.split(", ")
    return [p.strip() for p in parts]


def _slug(name: str) -> str:
    from paperfind.text.names import fold_name
    return "-".join(fold_name(name).split())


def load_raw_source(files: list[tuple[Path, str, int]], limit_per_file: int | None = None):
    """A `DocsSource` read straight from paperlists files (a stand-in for the store)."""
    from paperfind.index.docs import DocsSource
    from paperfind.model import AuthorEntry, IndexDoc
    from paperfind.text.names import fold_name

    people: dict[str, int] = {}
    names: dict[int, Counter] = defaultdict(Counter)
    papers: dict[int, list[tuple[int, list[str]]]] = defaultdict(list)
    docs = []
    for path, venue, year in files:
        with gzip.open(path, "rt", encoding="utf-8") as f:
            records = json.load(f)
        for rec in records[:limit_per_file]:
            title = _text(rec.get("title"))
            if not title:
                continue
            authors = [a for a in (_text(x) for x in _split(rec.get("author", ""))) if a]
            ids = _split(rec.get("authorids", ""))
            prof = _split(rec.get("or_profile", ""))
            insts = [s for s in _split(rec.get("aff_unique_norm", "")) if s]
            slugs = sorted({_slug(s) for s in insts} - {""})
            author_ids = []
            for i, name in enumerate(authors):
                pid = ids[i] if i < len(ids) and ids[i].startswith("~") else ""
                if not pid and i < len(prof) and prof[i].startswith("~"):
                    pid = prof[i]
                person = pid or "name:" + fold_name(name)
                author_ids.append(people.setdefault(person, len(people) + 1))
                names[author_ids[-1]][name] += 1
                papers[author_ids[-1]].append((year, slugs))
            cites = rec.get("gs_citation")
            try:
                cites = int(cites) if cites not in (None, "") and int(cites) >= 0 else None
            except (TypeError, ValueError):
                cites = None
            docs.append(IndexDoc(
                key=f"{venue}{year}:{rec.get('id')}", title=title, abstract=_text(rec.get("abstract")),
                authors=authors, author_ids=author_ids,
                keywords=[k for k in (_text(x) for x in str(rec.get("keywords") or "").split(";")) if k],
                venue=venue, venue_name=VENUE_NAMES.get(venue, venue.upper()), year=year,
                status=_text(rec.get("status")), area=_text(rec.get("primary_area")),
                institutions=slugs, citations=cites, work_id=len(docs) + 1))
    seen, unique = set(), []
    for d in docs:  # a few files repeat an id; the store keeps one record per key
        if d.key not in seen:
            seen.add(d.key)
            unique.append(d)
    entries = []
    for pid, counter in names.items():
        name = sorted(counter.items(), key=lambda p: (-p[1], p[0]))[0][0]
        years = [y for y, _ in papers[pid]]
        inst = Counter(s for _, slugs in papers[pid] for s in slugs)
        entries.append(AuthorEntry(
            id=pid, slug=_slug(name) + f"-{pid}", name=name,
            aliases=sorted(set(counter) - {name}), paper_count=len(papers[pid]),
            institutions=[s for s, _ in sorted(inst.items(), key=lambda p: (-p[1], p[0]))[:3]],
            years=(min(years), max(years))))
    return DocsSource(unique, entries)


def open_source(corpus: str):
    """(source, index root): the store of bench/out/{corpus}.db when that database exists,
    else the raw reading of the paperlists files (indexed under bench/out/{corpus}.raw.index)."""
    db = OUT / f"{corpus}.db"
    if db.exists():
        from paperfind.store import Store

        return Store(db), Path(str(db) + ".index")
    return load_raw_source(manifest(default_only=corpus == "default")), OUT / f"{corpus}.raw.index"


def ensure_index(corpus: str, rebuild: bool = False) -> tuple[object, Path]:
    """(source, index root) for a corpus, building the index when missing."""
    from paperfind.index.manager import build_index, current_name, index_is_current

    source, root = open_source(corpus)
    stale = current_name(root) is None or not index_is_current(root, source.data_version())
    if rebuild or stale:
        OUT.mkdir(parents=True, exist_ok=True)
        build_index(source, root)
    return source, root


def load_set(name: str) -> list[dict]:
    with open(EVAL / f"{name}.jsonl", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def write_run(path: Path, ranked: dict[str, list[str]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        for qid, keys in ranked.items():
            f.write(json.dumps({"qid": qid, "ranked": keys}) + "\n")


def score(set_name: str, run: Path, *options: str) -> dict:
    """Figures of `score.py --json` for a run."""
    cmd = [sys.executable, str(EVAL / "score.py"), str(EVAL / f"{set_name}.jsonl"), str(run),
           "--json", *options]
    return json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)


def percentile(values: list[float], p: float) -> float:
    """The nearest-rank `p`th percentile (0 for no values), as every timing bench reports it."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))] if ordered else 0.0


def append_results(heading: str, table: str) -> None:
    """Replace the section `## heading` of bench/RESULTS.md where it stands, or add it at the end.

    In place, so a re-run does not reorder the file and a diff shows only the figures that moved.
    """
    text = RESULTS.read_text("utf-8") if RESULTS.exists() else "# Benchmark results\n"
    section = f"## {heading}\n"
    body = section + "\n" + table.rstrip("\n") + "\n"
    start = text.find(section)
    if start < 0:
        RESULTS.write_text(text.rstrip("\n") + "\n\n" + body, "utf-8")
        return
    end = text.find("\n## ", start + len(section))
    rest = text[end + 1:] if end >= 0 else ""
    RESULTS.write_text(text[:start] + body + ("\n" + rest if rest else ""), "utf-8")
