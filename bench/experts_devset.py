"""The expert-finding dev set (`bench/experts_dev.jsonl`), by the rule in `bench/experts_dev.md`.

    .venv/bin/python -m bench.experts_devset --db DB

Read from the store alone (no index, no search), so the set does not depend on what it judges.
"""

from __future__ import annotations

import argparse
import json
import random
import sqlite3
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).parent
DEV = HERE / "experts_dev.jsonl"
VENUE_YEARS = (("nips", 2022), ("iclr", 2023), ("icml", 2023))  # never NeurIPS 2023, ICML 2024, ICLR 2024
SEED = 30  # issue 30
SIZE = 200
MIN_EARLIER_WORKS = 3
MIN_ABSTRACT_WORDS = 50


def build_dev(db: Path) -> list[dict]:
    """The 200 papers and, for each, its people with at least 3 works before its year."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    slugs = dict(conn.execute("SELECT id, slug FROM authors"))
    # works (a work counted once, whatever its versions) per person and year
    works_by_year: dict[int, dict[int, set[int]]] = defaultdict(lambda: defaultdict(set))
    for author, year, work in conn.execute(
            "SELECT pa.author_id, p.year, COALESCE(p.work_id, p.id) FROM paper_authors pa "
            "JOIN papers p ON p.id = pa.paper_id WHERE pa.author_id IS NOT NULL"):
        works_by_year[author][year].add(work)

    def earlier(author: int, year: int) -> int:
        return len(set().union(*(w for y, w in works_by_year[author].items() if y < year)))

    pool = []
    for venue, year in VENUE_YEARS:
        rows = conn.execute("SELECT id, key, title, abstract FROM papers WHERE venue = ? AND year = ? "
                            "ORDER BY key", (venue, year)).fetchall()
        for pid, key, title, abstract in rows:
            if len(abstract.split()) < MIN_ABSTRACT_WORDS:
                continue
            people = [a for (a,) in conn.execute("SELECT author_id FROM paper_authors WHERE paper_id = ? "
                                                 "AND author_id IS NOT NULL ORDER BY position", (pid,))]
            relevant = [slugs[a] for a in dict.fromkeys(people) if earlier(a, year) >= MIN_EARLIER_WORKS]
            if relevant:
                pool.append({"key": key, "venue": venue, "year": year, "title": title,
                             "query": abstract, "before": year, "relevant": relevant})
    chosen = random.Random(SEED).sample(pool, SIZE)
    return sorted(chosen, key=lambda item: item["key"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, required=True, help="a database of the bundled corpus")
    args = parser.parse_args(argv)
    items = build_dev(args.db)
    DEV.write_text("".join(json.dumps(i, ensure_ascii=False) + "\n" for i in items), encoding="utf-8")
    print(f"{len(items)} papers -> {DEV}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
