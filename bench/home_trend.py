"""What the home page and the search trend cost: medians over a real database and server.

Two tables, each with its baseline measured in the same run:

- the search with its trend (year and venue facets in works, the per-year and per-venue-year
  shares) against the same searcher without the trend's counting (a subclass whose work
  counts are empty), in-process, response cache off, lexical; by query kind, since the
  counting grows with the matching rows (a broad topic or a filter matches tens of thousands);
- the home page (grid, examples, latest venue-years; built from the stats cached per data
  version) against the search page of a title fragment and the /stats page, over HTTP on a
  real uvicorn server, after one warming visit each.

    flock /tmp/paperfind-heavy.lock .venv/bin/python bench/home_trend.py --db /tmp/p.db
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.common import append_results  # noqa: E402
from bench.web_load import sample_queries  # noqa: E402
from paperfind.core import Paperfind  # noqa: E402
from paperfind.search.engine import Searcher  # noqa: E402
from paperfind.search.response import SearchRequest  # noqa: E402
from paperfind.search.settings import SearchSettings  # noqa: E402
from paperfind.search.trend import WorkCounts  # noqa: E402
from paperfind.settings import Settings  # noqa: E402
from tests.web.conftest import serve  # noqa: E402

BROAD = ["learning", "diffusion models", "graph neural networks", "reinforcement learning",
         "large language models"]
FILTERS = ["venue:iclr", "year:2024", "venue:nips year:2023"]


class WithoutTrend(Searcher):
    """The searcher as it was before the trend: nothing counted per year or venue-year."""

    @staticmethod
    def _work_counts(backend, rows) -> WorkCounts:
        return WorkCounts({}, {}, {})


def median_ms(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        fn()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def search_table(pf: Paperfind, repeats: int) -> str:
    settings = SearchSettings(use_vectors=False, result_cache=0)
    searchers = {name: cls(pf.store, pf.settings.index_dir, settings, vector_dir=pf.settings.vector_dir)
                 for name, cls in (("with", Searcher), ("without", WithoutTrend))}
    kinds = {"title fragments and names": sample_queries(pf, 20), "broad topics": BROAD,
             "filters only": FILTERS}
    rows = ["| queries | n | matching works (median) | without trend ms | with trend ms | ratio |",
            "|---|---:|---:|---:|---:|---:|"]
    for kind, queries in kinds.items():
        for s in searchers.values():  # load the index, the segmenter, the corpus counts
            for q in queries:
                s.search(SearchRequest(q=q, limit=20))
        medians = {name: [] for name in searchers}
        totals = []
        for q in queries:
            for name, s in searchers.items():
                medians[name].append(median_ms(lambda: s.search(SearchRequest(q=q, limit=20)), repeats))
            totals.append(searchers["with"].search(SearchRequest(q=q, limit=20)).total)
        base, new = statistics.median(medians["without"]), statistics.median(medians["with"])
        rows.append(f"| {kind} | {len(queries)} | {statistics.median(totals):,.0f} | {base:.1f} | "
                    f"{new:.1f} | {new / base:.2f} |")
    return "\n".join(rows)


def page_table(pf: Paperfind, repeats: int) -> str:
    title = pf.store().conn.execute("SELECT title FROM papers ORDER BY key LIMIT 1").fetchone()[0]
    pages = {"home (en)": "/?lang=en", "home (zh)": "/?lang=zh",
             "search page, title fragment": "/?lang=en&q=" + " ".join(title.split()[:4]),
             "/stats": "/stats?lang=en"}
    rows = ["| page | first visit ms | median ms |", "|---|---:|---:|"]
    with serve(pf) as portal:
        for name, url in pages.items():
            started = time.perf_counter()
            assert portal.get(url).status_code == 200
            first = (time.perf_counter() - started) * 1000
            rows.append(f"| {name} | {first:.1f} | {median_ms(lambda: portal.get(url), repeats):.1f} |")
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--db", type=Path, required=True, help="a database (built from the "
                        "bundled corpus if it does not exist)")
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()
    pf = Paperfind(Settings(db_path=args.db, semantic=False))
    pf.ensure_database(progress=False)
    papers = pf.store().paper_count()
    search = search_table(pf, args.repeats)
    pages = page_table(pf, args.repeats)
    table = (f"{papers:,} papers, lexical, medians of {args.repeats} runs per query (search) "
             f"and per page.\n\n{search}\n\n{pages}\n")
    print(table)
    append_results("Home page and search trend (bench/home_trend.py)", table)


if __name__ == "__main__":
    main()
