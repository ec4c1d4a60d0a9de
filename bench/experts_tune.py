"""Issue 30's expert finder: variants in process on both dev sets, the baseline in the same run.

    PAPERFIND_SHARED=/work/shared flock /tmp/paperfind-heavy.lock nice \
        .venv/bin/python -m bench.experts_tune --db DB [--only 0,1] [--no-write] [--model FILE]

DB: a database of the bundled corpus with its vectors. Each variant is the product's
`ExpertSettings` with a few fields changed, scored by the same code the server runs
(`find_experts`) on bench/experts_dev.jsonl and bench/experts_dev2.jsonl (the abstract is the
query, before = its year; rules in bench/experts_dev.md): R@10, MRR@10, nDCG@10 and the
in-process time per abstract (no HTTP, no cards). The baseline (the product's settings) runs
first and again last, so the caches' warming shows in its two latencies. A change is kept only
if it lifts both sets; the HTTP figures are bench/experts.py's.

With `--model FILE` (written by `python -m paperfind.rank.train_experts --out FILE`) the variants
are instead the product's voting, the learned ranking of people with that model re-ordering the
voting's first `learned_depth` (and fewer) people, and the voting again, recorded in a section of
its own with the model's training record.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from dataclasses import replace
from pathlib import Path

from bench.experts import DEV_SETS, scores_of, sets_text, table_head
from bench.metrics import p50_p95
from bench.results import append_results

HEADING = "exp33a — experts (issue 30): the floor of eligible works on the dev sets"
# the variants of the last sections (exp32b's training choices) are at 656e9b2, exp32c's floor
# of eligible papers (rows) at 5f06c0a; this list is the product (a floor of 3 eligible works
# since exp33a) against everyone listed and a floor of 2
VARIANTS: tuple[tuple[str, dict], ...] = (
    ("baseline (the product: people with >= 3 eligible works)", {}),
    ("everyone with a matching paper (min_works 1)", {"min_works": 1}),
    ("people with >= 2 eligible works only (min_works 2)", {"min_works": 2}),
    ("baseline again, last (warm caches)", {}),
)
MODEL_HEADING = "experts (issue 30): the learned ranking of people retrained for today's voting"
LEARNED_DEPTHS = (1000, 200, 50)  # how many of the voting's first people the model re-orders


def model_variants(model: Path) -> list[tuple[str, dict]]:
    """The voting as the product ranks today, the model re-ordering its first N, the voting again."""
    voting = ("the voting (the product's ranking, learned off)", {})
    learned = [(f"learned ranking of people ({model.name}), the voting's first {n:,} re-ordered",
                {"learned": True, "learned_model": model, "learned_depth": n}) for n in LEARNED_DEPTHS]
    return [voting, *learned, ("the voting again, last", {})]


def model_record(model: Path) -> str:
    """One paragraph from the JSON record train_experts writes beside the model ("" if none)."""
    path = model.with_suffix(".json")
    if not path.exists():
        return ""
    r = json.loads(path.read_text(encoding="utf-8"))
    return (f"The model ({model.name}, {model.stat().st_size / 1e3:.0f} KB, `{r['command']}`): "
            f"{r['queries']:,} leave-one-out queries of {len(r['queries_by_venue_year'])} venue-years outside "
            f"the judge's and both dev sets' ({r['queries_with_a_relevant_candidate']:,} with a relevant person "
            f"among the voting's first candidates), {r['candidates']:,} candidates; collecting their features "
            f"took {r['collect_seconds']:.0f} s, the whole training {r['seconds']:.0f} s.")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, required=True)
    parser.add_argument("--only", default="", help="comma-separated variant indices")
    parser.add_argument("--no-write", action="store_true", help="print, do not record in RESULTS.md")
    parser.add_argument("--model", type=Path, help="a model of python -m paperfind.rank.train_experts: "
                        "measure it against the voting instead of the variants")
    args = parser.parse_args(argv)
    import numpy as np

    from paperfind.core import Paperfind
    from paperfind.search.experts import ExpertQuery, find_experts
    from paperfind.settings import Settings
    from paperfind.search.settings import EVERY_PAIR

    sets = [(name, [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()])
            for name, path, _ in DEV_SETS]
    pf = Paperfind(Settings(db_path=args.db))
    backend = pf.searcher().backend()
    names = backend.index.names

    def slug(author_id: int) -> str:
        return names.card(int(np.searchsorted(names.ids, author_id)))["slug"]

    base = pf.settings.search.experts
    started = time.perf_counter()
    pairs = backend.rare_pairs(base.pairs_max_df)  # the table the server makes
    build_s = time.perf_counter() - started
    started = time.perf_counter()
    links = backend.code_links()  # and the code links' (paperfind.index.code_links)
    links_s = time.perf_counter() - started
    find_experts(backend, ExpertQuery(text="warm up the query model"), base)
    if args.model is not None and not args.model.exists():
        raise SystemExit(f"{args.model}: no such model")
    variants = model_variants(args.model) if args.model else list(VARIANTS)
    chosen = [variants[int(i)] for i in args.only.split(",")] if args.only else variants
    lines = [f"In process, the scoring code the server runs (`find_experts`), on every dev set ({sets_text()}; "
             f"200 abstracts each, before = the paper's year), database "
             f"{args.db.name} ({backend.index.docs.n:,} papers), every row in one run with the baseline. "
             f"Latency: in-process time of `find_experts` per abstract over every set.",
             f"Run {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, load average at the start "
             f"{' / '.join(f'{x:.1f}' for x in os.getloadavg())}; "
             "`PAPERFIND_SHARED=/work/shared flock /tmp/paperfind-heavy.lock nice .venv/bin/python -m "
             f"bench.experts_tune --db DB{' --model ' + str(args.model) if args.model else ''}`.", "",
             *table_head("variant", ("p50 ms", "p95 ms"))]
    for label, change in chosen:
        settings = replace(base, **change)
        figures, took = [], []
        for _, items in sets:
            runs = []
            for item in items:
                t0 = time.perf_counter()
                found = find_experts(backend, ExpertQuery(text=item["query"], before=item["before"]), settings)
                took.append(1000 * (time.perf_counter() - t0))
                runs.append([slug(e.author_id) for e in found.experts[:10]])
            figures.append(scores_of(runs, items))
        p50, p95 = p50_p95(took)
        line = (f"| {label} | " + " | ".join(f"{f['R@10']:.3f} | {f['MRR@10']:.3f} | {f['nDCG@10']:.3f}"
                                            for f in figures) + f" | {p50:.0f} | {p95:.0f} |")
        lines.append(line)
        print(line, flush=True)
    bound = "every pair" if pairs.max_df >= EVERY_PAIR else f"pairs held by at most {pairs.max_df} papers"
    lines += ["", f"The word-pair table (paperfind/index/rare_pairs.py, pairs of consecutive content stems of "
              f"titles and abstracts, {bound}): {len(pairs.keys):,} pairs, "
              f"{pairs.nbytes / 1e6:.1f} MB in memory, made from the index's term sequences in {build_s:.1f} s "
              f"on first use, nothing on disk.",
              f"The code links (paperfind/index/code_links.py): {len(links.accounts):,} GitHub accounts linked by "
              f"{len(np.unique(links.rows)):,} papers, {links.nbytes / 1e6:.2f} MB, made from the index's "
              f"abstracts in {links_s:.2f} s on first use.", *([model_record(args.model)] if args.model else []),
              f"Load average at the end: {' / '.join(f'{x:.1f}' for x in os.getloadavg())}."]
    table = "\n".join(lines) + "\n"
    print(table)
    if not args.no_write and not args.only:
        append_results(MODEL_HEADING if args.model else HEADING, table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
