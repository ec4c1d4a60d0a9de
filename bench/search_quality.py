"""Search quality on the development query sets, against a plain BM25 baseline in the same run.

    .venv/bin/python bench/search_quality.py [--sets tldr_dev,author_dev] [--no-baseline]
                                             [--rebuild] [--no-write] [--corpus NAME]
                                             [--ablate WEIGHT=VALUE ...]

Runs every query of each set through paperfind's Searcher (lexical mode) and through bm25s
(title + abstract + authors, PyStemmer English, English stop words) over the same default-corpus
papers, writes 100-deep runs to bench/out/, scores them with ../shared/eval-dev/score.py and
appends the table to bench/RESULTS.md. `--corpus NAME` searches bench/out/NAME.db instead (e.g. a
database built from the bundled corpus); `--ablate title_exact=0` adds a column with one rank
weight changed, measured in the same run.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import OUT, append_results, ensure_index, load_set, score, write_run  # noqa: E402

SETS = ("tldr_dev", "title_typo_dev", "author_dev", "topical_dev", "zh_dev")
METRICS = ("nDCG@10", "MRR@10", "R@1", "R@10", "R@100")
# extra scorings per set: (label, score.py options)
VARIANTS = {
    "tldr_dev": [("lenient", ("--lenient",))],
    "title_typo_dev": [("by corruption", ("--by", "corruption"))],
    "author_dev": [("lenient", ("--lenient",)), ("lenient, by name_form", ("--lenient", "--by", "name_form")),
                   ("strict, by name_form", ("--by", "name_form"))],
    "topical_dev": [("lenient", ("--lenient",))],
    "zh_dev": [],
}
DEPTH = 100
SYSTEMS = ("bm25", "paperfind", "ablated")  # column order of the table


def run_paperfind(root: Path, items: list[dict], weights: dict[str, float] | None = None
                  ) -> dict[str, list[str]]:
    import dataclasses

    from paperfind.search.engine import SearchRequest, open_searcher
    from paperfind.search.rank import RankWeights
    from paperfind.search.settings import SearchSettings

    settings = SearchSettings(result_cache=0, weights=dataclasses.replace(RankWeights(), **(weights or {})))
    searcher = open_searcher(root, None, settings)
    return {it["qid"]: [r["key"] for r in searcher.search(
        SearchRequest(q=it["query"], limit=DEPTH, mode="lexical")).results] for it in items}


class Bm25Baseline:
    """bm25s over title + abstract + authors, as in the eval-dev README."""

    def __init__(self, docs) -> None:
        import bm25s
        import Stemmer

        self.bm25s = bm25s
        self.stemmer = Stemmer.Stemmer("english")
        self.keys = [d.key for d in docs]
        corpus = [f"{d.title} {d.abstract} {' '.join(d.authors)}" for d in docs]
        tokens = bm25s.tokenize(corpus, stopwords="en", stemmer=self.stemmer, show_progress=False)
        self.retriever = bm25s.BM25()
        self.retriever.index(tokens, show_progress=False)

    def search(self, query: str, k: int = DEPTH) -> list[str]:
        tokens = self.bm25s.tokenize([query], stopwords="en", stemmer=self.stemmer, show_progress=False)
        if not tokens.vocab:
            return []
        docs, _ = self.retriever.retrieve(tokens, k=min(k, len(self.keys)), show_progress=False)
        return [self.keys[i] for i in docs[0]]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sets", default=",".join(SETS))
    ap.add_argument("--no-baseline", action="store_true")
    ap.add_argument("--rebuild", action="store_true", help="rebuild the index first")
    ap.add_argument("--no-write", action="store_true", help="do not touch bench/RESULTS.md")
    ap.add_argument("--corpus", default="default", help="bench/out/NAME.db (default: the 16.5k files)")
    ap.add_argument("--ablate", action="append", default=[], metavar="WEIGHT=VALUE",
                    help="also run with this rank weight changed (same run)")
    args = ap.parse_args()
    sets = [s for s in args.sets.split(",") if s]
    ablated = {k: float(v) for k, v in (a.split("=", 1) for a in args.ablate)}
    source, root = ensure_index(args.corpus, rebuild=args.rebuild)
    baseline = None if args.no_baseline else Bm25Baseline(list(source.iter_index_docs()))
    rows = []
    for name in sets:
        items = load_set(name)
        started = time.perf_counter()
        ours = run_paperfind(root, items)
        took = time.perf_counter() - started
        write_run(OUT / f"{name}.paperfind.jsonl", ours)
        systems = {"paperfind": OUT / f"{name}.paperfind.jsonl"}
        if ablated:
            write_run(OUT / f"{name}.ablated.jsonl", run_paperfind(root, items, ablated))
            systems["ablated"] = OUT / f"{name}.ablated.jsonl"
        if baseline is not None:
            write_run(OUT / f"{name}.bm25.jsonl", {it["qid"]: baseline.search(it["query"]) for it in items})
            systems["bm25"] = OUT / f"{name}.bm25.jsonl"
        print(f"{name}: {len(items)} queries, {took:.1f} s", file=sys.stderr)
        scored = {s: {"": score(name, run)} for s, run in systems.items()}
        for label, opts in VARIANTS[name]:
            for s, run in systems.items():
                scored[s][label] = score(name, run, *opts)
        for label in [""] + [lab for lab, _ in VARIANTS[name]]:
            for metric in METRICS:
                groups = scored["paperfind"][label].get("by")
                if groups:
                    for g, vals in groups.items():
                        rows.append((name, f"{label}: {g} (n={vals['n']})", metric,
                                     *(scored[s][label]["by"][g][metric] for s in SYSTEMS
                                       if s in scored)))
                else:
                    rows.append((name, label or "all", metric,
                                 *(scored[s][label]["metrics"][metric] for s in SYSTEMS
                                   if s in scored)))
    label_of = ", ".join(f"{k}={v:g}" for k, v in ablated.items())
    header = ("| set | scoring | metric |" + (" BM25 |" if baseline else "") + " paperfind |"
              + (f" paperfind, {label_of} |" if ablated else ""))
    sep = "|---|---|---|" + ("---:|" if baseline else "") + "---:|" + ("---:|" if ablated else "")
    lines = [header, sep] + ["| " + " | ".join(r[:3]) + " | " + " | ".join(f"{v:.3f}" for v in r[3:]) + " |"
                             for r in rows if r[2] in ("nDCG@10", "MRR@10", "R@1", "R@10", "R@100")]
    table = "\n".join(lines)
    print(table)
    if not args.no_write and set(sets) == set(SETS) and baseline is not None and not ablated \
            and args.corpus == "default":
        intro = ("Default corpus (16,563 records), lexical mode, 100-deep runs in bench/out/, "
                 "scored with ../shared/eval-dev/score.py; BM25 = bm25s 0.3.16 over "
                 "title + abstract + authors, same run. Produced by bench/search_quality.py.\n\n")
        append_results("Search quality (issue 3)", intro + table)


if __name__ == "__main__":
    main()
