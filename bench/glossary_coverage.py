"""How much of the field's vocabulary a Chinese query can reach through the glossary.

    .venv/bin/python -m bench.glossary_coverage [--top 600] [--min-area 50] [--missing] [--record]

The corpus is English and a Chinese query is translated word by word: a field term the team's
glossary lacks falls to CC-CEDICT, whose everyday senses miss or mangle it ("过平滑" -> "cross
flat and smooth"). The corpus's own author keywords and areas say which terms the field uses
most, so this counts them (papers, not mentions) and reports how many of the most used have a
Chinese form in the glossary: some glossary entry's English rendering is the keyword, or its
singular. Measured against the glossary at HEAD ("before") and in the working tree ("now").
An area is a venue's composite track name ("transfer learning, meta learning, and lifelong
learning"), which no one types, so the topics the areas name are counted too.
`--missing` lists the uncovered ones, most used first: the glossary's work list (so the top N it
was grown from is the optimistic view; a larger --top shows the rest of the field).
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import subprocess
import tempfile
from collections import Counter
from datetime import datetime
from pathlib import Path

from bench.corpus import BUNDLED, REPO
from bench.results import append_results
from paperfind.text.analyze import Analyzer
from paperfind.text.translate import default_glossary_path, read_glossary

HEADING = "Glossary coverage of the corpus's keywords (bench/glossary_coverage.py)"
GLOSSARY_IN_REPO = "paperfind/text/zh_en_glossary.tsv"
_AREA_SPLIT = re.compile(r"[,;()&]|\b(?:and|including)\b")
_AREA_FILLER = {"etc", "i.e", "none of the above", "other topics in machine learning"}


def count_terms(corpus: Path = BUNDLED) -> tuple[Counter[str], Counter[str]]:
    """Papers per author keyword and per area (lower-cased, stripped; once per paper)."""
    keywords: Counter[str] = Counter()
    areas: Counter[str] = Counter()
    for path in sorted(corpus.glob("*.jsonl.gz")):
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            for line in fh:
                paper = json.loads(line)
                keywords.update({" ".join(k.lower().split()) for k in paper.get("keywords") or []} - {""})
                area = " ".join((paper.get("area") or "").lower().split())
                if area:
                    areas[area] += 1
    return keywords, areas


class Matcher:
    """Whether an English term has a glossary rendering: equal as written, or once a trailing
    "s" is stripped (LLMs = LLM), or equal in the analyser's stems (plural = singular), with a
    hyphenated word also read joined, as the index reads it (non-convex = nonconvex)."""

    def __init__(self, renderings: set[str]) -> None:
        self._analyzer = Analyzer()
        self._exact = {r.lower() for r in renderings}
        self._stems = set().union(*(self._keys(r) for r in renderings))

    def _keys(self, text: str) -> set[str]:
        forms = {text, text.replace("-", "")}
        return {" ".join(self._analyzer.terms(f)) for f in forms} - {""}

    def covers(self, term: str) -> bool:
        term = term.lower()
        singular = term[:-1] if term.endswith("s") else term
        if term in self._exact or singular in self._exact:
            return True
        return bool((self._keys(term) | self._keys(singular)) & self._stems)


def area_topics(areas: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """The topics an area names ("transfer learning, meta learning, and lifelong learning" is
    three), with the papers of the areas naming them: an area as a whole is no query."""
    topics: Counter[str] = Counter()
    for area, papers in areas:
        for part in _AREA_SPLIT.split(area):
            part = part.strip(" .").removeprefix("applications to ").strip()
            if part and part not in _AREA_FILLER:
                topics[part] += papers
    return topics.most_common()


def renderings_of(glossary: dict[str, tuple[str, ...]]) -> set[str]:
    return {english for senses in glossary.values() for english in senses}


def glossary_at_head(ref: str = "HEAD") -> dict[str, tuple[str, ...]]:
    """The glossary committed at `ref` (read by the product's own reader, so both sides parse alike)."""
    text = subprocess.run(["git", "-C", str(REPO), "show", f"{ref}:{GLOSSARY_IN_REPO}"],
                          capture_output=True, text=True, check=True).stdout
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "glossary.tsv"
        path.write_text(text, encoding="utf-8")
        return read_glossary(path)


def commit() -> str:
    out = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
                         capture_output=True, text=True, check=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain", "--", GLOSSARY_IN_REPO],
                           capture_output=True, text=True, check=True).stdout.strip()
    return out + (" + working-tree glossary" if dirty else "")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", default="HEAD", help="git ref of the glossary 'before' (default HEAD)")
    parser.add_argument("--top", type=int, default=600, help="most used keywords to check")
    parser.add_argument("--min-area", type=int, default=50, help="areas with at least this many papers")
    parser.add_argument("--missing", action="store_true", help="list the uncovered terms, most used first")
    parser.add_argument("--record", action="store_true", help="write the table to bench/RESULTS.md")
    args = parser.parse_args()

    keywords, areas = count_terms()
    top_areas = [(a, n) for a, n in areas.most_common() if n >= args.min_area]
    sets = {f"author keywords, top {args.top}": keywords.most_common(args.top),
            f"areas with >= {args.min_area} papers": top_areas,
            "topics those areas name": area_topics(top_areas)}
    before = Matcher(renderings_of(glossary_at_head(args.base)))
    now_glossary = read_glossary(default_glossary_path())
    now = Matcher(renderings_of(now_glossary))

    rows = [f"| terms | N | covered before ({args.base}) | covered now | share now |", "|---|---:|---:|---:|---:|"]
    for name, terms in sets.items():
        b = sum(before.covers(t) for t, _ in terms)
        n = sum(now.covers(t) for t, _ in terms)
        rows.append(f"| {name} | {len(terms)} | {b} | {n} | {n / max(len(terms), 1):.1%} |")
    table = "\n".join(rows) + "\n"
    print(table)

    if args.missing:
        for name, terms in sets.items():
            print(f"## uncovered: {name}")
            for term, papers in terms:
                if not now.covers(term):
                    print(f"{papers}\t{term}")
            print()

    if args.record:
        header = (f"{datetime.now():%Y-%m-%d %H:%M}, commit {commit()}, `.venv/bin/python -m "
                  f"bench.glossary_coverage`: the bundled corpus's author keywords and areas (papers "
                  f"per term, {sum(keywords.values())} keyword uses) that some glossary entry renders "
                  f"(as written, or singular); the glossary now has {len(now_glossary)} headwords.\n\n")
        append_results(HEADING, header + table)


if __name__ == "__main__":
    main()
