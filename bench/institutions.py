"""Institution resolution before and after: accuracy on the labelled set, slugs of the corpus.

Issue 14: the slugs the cards show split one institution ("University of California, Los
Angeles" → `university-of-california`, IBM under three slugs). This bench loads the resolver
of a baseline git ref (default `main`) next to the working tree's and, in the same run,
measures for both:

- accuracy on tests/catalog/data/affiliations_labelled.tsv (hand-checked expected slugs), by
  pool (paperlists slots with their norms; extra strings; the non-ASCII ones);
- over every affiliation of the bundled corpus (paperlists slots re-read from their files
  with their `aff_unique_*` values, since the corpus keeps only the raw string; the extra
  sources' raw strings as stored, of the authors and of the papers whose authors and
  institutions do not line up): distinct slugs, slugs with at most two affiliations, and
  affiliations left at `university-of-california` although they name a campus;
- the slugs each duplicate family of the issue resolves to;
- the median time to resolve all distinct corpus strings (caches cleared), as a ratio.

    flock /tmp/paperfind-heavy.lock .venv/bin/python -m bench.institutions [--baseline REF] [--no-record]
    .venv/bin/python -m bench.institutions --no-timing   # accuracy and counts only, no lock needed
"""

from __future__ import annotations

import argparse
import csv
import gzip
import importlib.util
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path
from types import ModuleType

from bench.corpus import DATA, REPO
from bench.results import append_results
from bench.institutions_sample import slot_triples
from paperfind.catalog import institutions as current
from paperfind.ingest.corpus import corpus_files
from paperfind.ingest.jsonl import read_export
from paperfind.model import Record

LABELLED = REPO / "tests" / "catalog" / "data" / "affiliations_labelled.tsv"
CORPUS = REPO / "paperfind" / "data" / "corpus"
CAMPUSES = ("los angeles", "san diego", "santa barbara", "irvine", "santa cruz", "davis",
            "riverside", "merced", "berkeley", "san francisco")
FAMILIES = {
    "UC Los Angeles": ["University of California, Los Angeles", "UCLA", "University of California Los Angeles"],
    "UC San Diego": ["University of California, San Diego", "UC San Diego", "UCSD"],
    "UC Davis": ["University of California, Davis", "UC Davis", "University of California at Davis"],
    "IBM": ["IBM Research", "International Business Machines",
            "International Business Machines Corporation", "IBM"],
    "Tübingen": ["University of Tübingen", "Eberhard Karls University of Tübingen", "University Tübingen",
                 "Eberhard Karls University Tübingen", "Eberhard Karls Universität Tübingen"],
    "Google": ["Google", "GoogleAI", "Google AI", "Google Research"],
    "Google DeepMind": ["Google DeepMind", "GoogleDeepMind", "DeepMind"],
    "CAS": ["Chinese Academy of Sciences", "Chinese Academic of Science", "Chinese Acadamy of Sciences"],
    "SUSTech": ["Southern University of Science and Technology",
                "Southern University of Science and Techonology"],
    "address (Caltech's)": ["1200 E California Blvd, Pasadena, CA 91125"],
}


def load_baseline(ref: str) -> ModuleType:
    """The institutions module as it is at git `ref`, imported under its own name."""
    def show(name: str) -> str | None:
        done = subprocess.run(["git", "-C", str(REPO), "show", f"{ref}:paperfind/{name}"],
                              capture_output=True, text=True)
        return done.stdout if done.returncode == 0 else None

    # paperfind/catalog/ (its table a package-data file) since house-text; paperfind/ingest/ before
    source = show("catalog/institutions.py") or show("ingest/institutions.py")
    if source is None:
        raise SystemExit(f"no institutions module at {ref}")
    table = show("catalog/institutions.tsv")
    if table is not None:  # the ref's own table, not the working tree's package data
        source = source.replace("_ROWS = read_table()", f"_ROWS = read_table({table!r})")
    path = Path(tempfile.mkdtemp()) / "baseline_institutions.py"
    path.write_text(source, "utf-8")
    spec = importlib.util.spec_from_file_location("baseline_institutions", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


def labelled_rows() -> list[dict[str, str]]:
    with open(LABELLED, encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))


def accuracy(module: ModuleType, rows: list[dict[str, str]]) -> dict[str, tuple[int, int]]:
    """(right, total) per pool and over all rows."""
    counts: dict[str, list[int]] = {}
    for row in rows:
        got = module.resolve_affiliation(row["raw"], row["norm"], row["abbr"]).slug
        pools = [row["pool"], "all"] + ([] if (row["raw"] + row["norm"]).isascii() else ["non-ASCII"])
        for pool in pools:
            tally = counts.setdefault(pool, [0, 0])
            tally[0] += got == row["expected"]
            tally[1] += 1
    return {pool: (right, total) for pool, (right, total) in counts.items()}


def corpus_affiliations() -> Counter:
    """(raw, norm, abbr) → how many affiliations of the bundled corpus are that triple."""
    wanted: dict[str, set[str]] = {}
    found: Counter = Counter()
    for record in (r for shard in corpus_files(CORPUS) for r in read_export(shard)):
        if not isinstance(record, Record):
            continue
        if record.source.startswith("paperlists/"):
            wanted.setdefault(record.source, set()).add(record.source_id)
            continue
        slots = [a for author in record.authors for a in author.affiliations]
        for affiliation in slots + list(record.paper_affiliations):
            if affiliation.raw:
                found[(affiliation.raw, "", "")] += 1
    for source, ids in sorted(wanted.items()):
        with gzip.open(DATA / source, "rt", encoding="utf-8") as handle:
            items = json.load(handle)
        for item in items:
            if str(item.get("id", "")) not in ids:
                continue
            for triple in slot_triples(item):
                found[triple] += 1
    return found


def corpus_figures(module: ModuleType, triples: Counter) -> dict[str, int]:
    slugs: Counter = Counter()
    campus_lost = 0
    for (raw, norm, abbr), count in triples.items():
        slug = module.resolve_affiliation(raw, norm, abbr).slug
        if not slug:
            continue
        slugs[slug] += count
        text = f"{raw} {norm}".lower()
        if slug == "university-of-california" and any(c in text for c in CAMPUSES):
            campus_lost += count
    return {"affiliations": sum(slugs.values()), "distinct slugs": len(slugs),
            "slugs with ≤ 2 affiliations": sum(1 for n in slugs.values() if n <= 2),
            "`university-of-california`": slugs.get("university-of-california", 0),
            "… naming a campus": campus_lost}


def resolve_seconds(module: ModuleType, triples: Counter, runs: int = 3) -> float:
    """Median seconds to resolve every distinct triple once, the resolver's cache cleared."""
    times = []
    for _ in range(runs):
        module._resolve.cache_clear()
        start = time.perf_counter()
        for raw, norm, abbr in triples:
            module.resolve_affiliation(raw, norm, abbr)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default="main", help="git ref of the resolver to compare with")
    parser.add_argument("--no-record", action="store_true", help="print only, leave bench/RESULTS.md")
    parser.add_argument("--no-timing", action="store_true",
                        help="skip the timing row (for a run outside /tmp/paperfind-heavy.lock)")
    args = parser.parse_args()
    before = load_baseline(args.baseline)
    rows = labelled_rows()
    acc = {"before": accuracy(before, rows), "after": accuracy(current, rows)}
    triples = corpus_affiliations()
    figures = {"before": corpus_figures(before, triples), "after": corpus_figures(current, triples)}
    seconds = None if args.no_timing else {"before": resolve_seconds(before, triples),
                                           "after": resolve_seconds(current, triples)}

    lines = ["| labelled set (tests/catalog/data/affiliations_labelled.tsv) | strings | before | after |",
             "|---|---:|---:|---:|"]
    for pool in ("all", "paperlists", "extra", "non-ASCII"):
        right_b, total = acc["before"][pool]
        right_a, _ = acc["after"][pool]
        lines.append(f"| {pool} | {total} | {right_b} ({right_b / total:.1%}) | {right_a} ({right_a / total:.1%}) |")
    lines += ["", "| bundled corpus, every affiliation | before | after |", "|---|---:|---:|"]
    for name in figures["before"]:
        lines.append(f"| {name} | {figures['before'][name]:,} | {figures['after'][name]:,} |")
    if seconds:
        lines.append(f"| resolve {len(triples):,} distinct strings, median of 3, s | {seconds['before']:.2f} | "
                     f"{seconds['after']:.2f} ({seconds['after'] / seconds['before']:.2f}x) |")
    lines += ["", "| family | slugs before | slugs after |", "|---|---|---|"]
    for family, names in FAMILIES.items():
        slugs = {side: sorted({m.resolve_affiliation(n).slug or "(none)" for n in names})
                 for side, m in (("before", before), ("after", current))}
        lines.append(f"| {family} | {', '.join(slugs['before'])} | {', '.join(slugs['after'])} |")
    head = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
                          capture_output=True, text=True).stdout.strip()
    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    table = "\n".join(lines) + (
        f"\n\nMeasured {stamp}: before = `{args.baseline}`'s resolver, after = the working tree's "
        f"(HEAD {head}), same run, same strings. Corpus figures count every affiliation of "
        f"paperfind/data/default-corpus.jsonl.gz as ingest resolves it (paperlists slots re-read "
        f"with their norms); the corpus itself is not rebuilt here.\n\n"
        "Labels: the canonical slug of a family is the one most of its affiliations already had "
        "(`ucla`, `ucsd`, `tubingen`, `ibm-research`; the uncurated UC campuses keep the "
        "`university-of-california-<campus>` their own norms gave them); a generic slug drops the "
        "legal form (`sony`, not `sony-corporation`) and names a university of a place "
        "`university-of-<place>` whatever the language (`university-of-stuttgart` for "
        "\"Universität Stuttgart\"). Strings that name no institution (a postal address, an "
        "author's name in the affiliation field) are labelled with no slug. The labelled "
        "failures left after: author names in the paperlists `aff` field (6), misaligned "
        "paperlists norms (\"Covariant\" for a Berkeley string), and names the table does not "
        "know the relation of (Courant Institute → NYU, TeleAI → China Telecom).\n")
    print(table)
    if not args.no_record:
        append_results("Institutions: resolver accuracy and slugs, before and after (issue 14)", table)


if __name__ == "__main__":
    main()
