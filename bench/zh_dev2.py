"""The second Chinese dev set (bench/zh_dev2.jsonl): the papers it asks for, drawn by a seeded rule.

    .venv/bin/python -m bench.zh_dev2 --db DB --sample      # the papers to write queries for
    .venv/bin/python -m bench.zh_dev2 --db DB --check       # the set follows the rule

The 60 queries of ../shared/eval-dev/zh_dev.jsonl move by about .03 with one query, too much to
judge a change of the Chinese reading by; a second set written the same way halves that noise.
The papers are drawn here and the queries were written by hand (bench/zh_dev2.md has the rule):
a paper of the bundled corpus with an abstract of at least `MIN_ABSTRACT` characters, from no
venue-year that holds a zh_dev target (so neither set's papers are the other's neighbours in one
proceedings), taken in the order of sha1("zh_dev2|key"). `--check` re-draws the sample and fails
when a query's paper is not among its first `SAMPLE` papers, when its Han characters are not
10-30, or when a key is a zh_dev target's venue-year.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sqlite3
import sys
import textwrap
from pathlib import Path

from bench import corpus
from paperfind.text.fold import has_han

SET_PATH = Path(__file__).with_name("zh_dev2.jsonl")
SAMPLE = 90  # papers drawn; queries were written for them in this order
MIN_ABSTRACT = 400  # characters: a paper a reader can describe from its abstract
HAN = (10, 30)  # Han characters in a query, as zh_dev's rule


def venue_year(key: str) -> str:
    """"nips2018:11954" -> "nips2018": the proceedings a paper key names."""
    return key.split(":", 1)[0]


def barred_venue_years() -> set[str]:
    """The venue-years of zh_dev's targets: no zh_dev2 paper is drawn from them."""
    return {venue_year(k) for item in corpus.load_set("zh_dev") for k in item["relevant"]}


def draw(db: Path, n: int = SAMPLE) -> list[dict]:
    """The first `n` eligible papers in the seeded order (key, title, abstract)."""
    barred = barred_venue_years()
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    rows = con.execute("SELECT key, title, abstract FROM papers WHERE length(abstract) >= ?",
                       (MIN_ABSTRACT,)).fetchall()
    con.close()
    eligible = [r for r in rows if venue_year(r[0]) not in barred]
    eligible.sort(key=lambda r: hashlib.sha1(f"zh_dev2|{r[0]}".encode()).hexdigest())
    return [{"key": k, "title": t, "abstract": a} for k, t, a in eligible[:n]]


def han_chars(text: str) -> int:
    """Han characters in `text`."""
    return sum(map(has_han, text))


def check(db: Path) -> list[str]:
    """What in bench/zh_dev2.jsonl breaks the rule (empty when nothing does)."""
    drawn = {p["key"] for p in draw(db)}
    barred = barred_venue_years()
    problems = []
    for line in SET_PATH.read_text(encoding="utf-8").splitlines():
        item = json.loads(line)
        for key in item["relevant"]:
            if key not in drawn:
                problems.append(f"{item['qid']}: {key} is not among the {SAMPLE} drawn papers")
            if venue_year(key) in barred:
                problems.append(f"{item['qid']}: {key} is of a zh_dev venue-year")
        if not HAN[0] <= han_chars(item["query"]) <= HAN[1]:
            problems.append(f"{item['qid']}: {han_chars(item['query'])} Han characters")
    return problems


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--db", type=Path, required=True, help="the bundled corpus's database")
    ap.add_argument("--sample", action="store_true", help="print the drawn papers")
    ap.add_argument("--check", action="store_true", help="check bench/zh_dev2.jsonl against the rule")
    args = ap.parse_args(argv)
    if args.sample:
        for i, paper in enumerate(draw(args.db), 1):
            print(f"[{i}] {paper['key']} | {paper['title']}\n{textwrap.shorten(paper['abstract'], 700)}\n")
    if args.check:
        problems = check(args.db)
        print("\n".join(problems) or f"{SET_PATH.name}: follows the rule")
        return 1 if problems else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
