"""Issue 30's expert finder: what-if changes its settings cannot express, in process on every dev set.

    PAPERFIND_SHARED=/work/shared flock /tmp/paperfind-heavy.lock nice \
        .venv/bin/python -m bench.experts_whatif --db DB [--only 0,1] [--no-write]

DB: a database of the bundled corpus with its vectors. Each variant replaces one step of
`paperfind.search.experts` for its own queries (`Hooks`, put back after) and is scored by the
code the server runs (`find_experts`) on bench/experts_dev.jsonl and bench/experts_dev2.jsonl
(the abstract is the query, before = its year; rules in bench/experts_dev.md): R@10, MRR@10,
nDCG@10. The product's ranking runs first and again last. The families (issue 30's last points):

- the vector route's query form: the abstract embedded as the papers were (E5's `passage: `
  prefix, its first 24 / 32 / 64 words) instead of `query: ` + 64 words, or both summed;
- the shape of a paper's score: the blend raised to a power, each route's standard scores
  raised to one, reciprocal ranks in place of standard scores, a bonus for papers both routes found;
- the query terms: weighed by a power of their idf, the commonest dropped, the routes' depths;
- the evidence's time and place: the last year's papers weighed up or down, the middle authors'
  weight; people with fewer than 3 works before the year left out;
- `paper=KEY`'s query (title + abstract): the paper's own stored vector instead of an encoder run,
  its title's words weighed up in the lexical route;
- the query's word pairs in the lexical route (exp30k): each paper the text route found gains
  `pair_weight` x the summed idf of the query's ordered pairs of consecutive content stems that
  its title or abstract holds (every pair of the corpus, not only the signature phrases' rare
  ones), before the route's standard scores: a sequential-dependence term at the paper level.
  The product's since exp30m (`ExpertSettings.pair_weight`, paperfind.search.expert_pairs): its
  variants change those settings; the `pair_weight` hook adds pairs on top of the product's.

A variant is kept only if it lifts both sets (dev2 by 3 papers of 200, dev down at most one).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from bench.experts import DEV_SETS, scores_of, sets_text, table_head
from bench.results import append_results

HEADING = "experts (issue 30): the vector route's query form, the score's shape, terms, recency, paper=KEY: measured, none kept"


@dataclass(frozen=True)
class Hooks:
    """What a variant changes; the defaults change nothing."""

    vector_form: str = ""  # "+"-joined forms of `FORMS` summed; "" = the product's (query: + 64 words)
    power: float = 1.0  # the blend of a paper's routes raised to this
    route_power: float = 1.0  # each route's standard scores raised to this
    reciprocal_k: int = 0  # > 0: a route's i-th paper scores (k + 1) / (k + 1 + i) instead
    both_bonus: float = 0.0  # papers both routes found: the blend x (1 + this)
    idf_power: float = 0.0  # a query term's boost x (idf / 5) ** this
    max_df_share: float = 1.0  # query terms held by more than this share of papers dropped
    vector_depth: int = 0  # > 0: the vector route's papers (the text route keeps `depth`)
    last_year_weight: float = 1.0  # papers of the year before the query's: weight x this
    paper_key: bool = False  # the query is paper=KEY's: the paper's title + abstract
    stored_vector: bool = False  # ... and its vector route starts from the paper's stored vector
    title_weight: float = 1.0  # ... its title's terms weigh this in the lexical route
    pair_weight: float = 0.0  # > 0: text route papers + this x the idf of the query's word pairs they hold,
    # on top of the product's own (ExpertSettings.pair_weight)
    pair_max_df: int = 0  # > 0: only pairs held by at most this many papers count
    settings: dict = field(default_factory=dict)  # ExpertSettings fields changed


FORMS = {"q64": (True, 64), "q24": (True, 24), "p24": (False, 24), "p32": (False, 32), "p64": (False, 64)}
VARIANTS: tuple[tuple[str, Hooks], ...] = (
    ("baseline (the product: query: + 64 words embedded, the query's word pairs at 0.6)", Hooks()),
    ("vector: passage: + 24 words (the papers' form)", Hooks(vector_form="p24")),
    ("vector: passage: + 32 words", Hooks(vector_form="p32")),
    ("vector: passage: + 64 words", Hooks(vector_form="p64")),
    ("vector: query: 64 words + passage: 32 words, summed", Hooks(vector_form="q64+p32")),
    ("vector: query: + 24 words", Hooks(vector_form="q24")),
    ("a paper's blend ^ 1.5", Hooks(power=1.5)),
    ("a paper's blend ^ 0.7", Hooks(power=0.7)),
    ("each route's standard scores ^ 1.5", Hooks(route_power=1.5)),
    ("each route's reciprocal ranks (k 60) for standard scores", Hooks(reciprocal_k=60)),
    ("papers both routes found x 1.15", Hooks(both_bonus=0.15)),
    ("query terms x (idf / 5) ^ 0.5", Hooks(idf_power=0.5)),
    ("query terms x (idf / 5) ^ -0.5", Hooks(idf_power=-0.5)),
    ("query terms of > 10% of papers dropped", Hooks(max_df_share=0.10)),
    ("text route 10,000 papers (vectors 5,000)", Hooks(vector_depth=5000, settings={"depth": 10000})),
    ("vector route 2,000 papers (text 5,000)", Hooks(vector_depth=2000)),
    ("the last year's papers x 1.3", Hooks(last_year_weight=1.3)),
    ("the last year's papers x 0.8", Hooks(last_year_weight=0.8)),
    ("middle authors 0.4 (0.6)", Hooks(settings={"middle_author_weight": 0.4})),
    ("middle authors 1.0 (author position off)", Hooks(settings={"middle_author_weight": 1.0})),
    # the floor of 3 works is the product's since exp33a (ExpertSettings.min_works): its variant is a setting
    ("everyone listed, no floor of works (the finder before exp33a)", Hooks(settings={"min_works": 1})),
    ("paper=KEY's query today (title + abstract, query: + 64 words)", Hooks(paper_key=True)),
    ("paper=KEY, the paper's stored vector (no encoder run)", Hooks(paper_key=True, stored_vector=True)),
    ("paper=KEY, title terms x 1.5", Hooks(paper_key=True, title_weight=1.5)),
    # the pairs are the product's since exp30m (ExpertSettings.pair_weight 0.6): their variants are settings
    ("the query's word pairs off (the finder before exp30m)", Hooks(settings={"pair_weight": 0.0})),
    ("the query's word pairs in the text route, weight 0.3", Hooks(settings={"pair_weight": 0.3})),
    ("the query's word pairs in the text route, weight 1.0", Hooks(settings={"pair_weight": 1.0})),
    ("the query's word pairs of <= 2,000 papers, weight 0.3",
     Hooks(settings={"pair_weight": 0.3, "pair_max_df": 2000})),
    ("the query's word pairs of <= 2,000 papers, weight 1.0",
     Hooks(settings={"pair_weight": 1.0, "pair_max_df": 2000})),
    ("baseline again, last", Hooks()),
)


class Query:
    """The query being scored (its key and title), read by the hooks."""

    key = ""
    title = ""
    text = ""  # the dev set's abstract (the vector forms' key)


@contextlib.contextmanager
def hooked(hooks: Hooks, backend, analyzer, vectors: dict) -> Iterator[None]:
    """`paperfind.search.experts` with `hooks` in place of its steps, put back on exit."""
    import paperfind.search.experts as ex
    from paperfind.search.similar import _text_df_idf

    saved = {name: getattr(ex, name) for name in ("meaning_hits", "query_terms", "standardised", "paper_weights",
                                                  "text_route")}
    saved_combined = ex.PaperScores.combined
    semantic = backend.semantic

    def meaning_hits(backend_, local, text, restriction, depth, max_tokens=None):
        depth = hooks.vector_depth or depth
        mask = local._mask(restriction)
        if hooks.stored_vector:
            rows, cosines = semantic.similar_rows(int(local.row_of(Query.key)), mask, depth)
            return np.asarray(rows, dtype=np.int64), np.asarray(cosines, dtype=np.float64)
        if hooks.vector_form:
            total = sum(vectors[(form, Query.text)] for form in hooks.vector_form.split("+"))
            rows, cosines = semantic._aligned.candidates(unit(total), mask, depth)  # bench only
            return np.asarray(rows, dtype=np.int64), np.asarray(cosines, dtype=np.float64)
        return saved["meaning_hits"](backend_, local, text, restriction, depth, max_tokens)

    asked = {"text": ""}  # the lexical query's text, for the pairs of `text_route`

    def query_terms(backend_, analyzer_, text, settings):
        asked["text"] = text
        terms = saved["query_terms"](backend_, analyzer_, text, settings)
        title = set(analyzer.terms(Query.title)) if hooks.title_weight != 1.0 else set()
        out = []
        for term, boost in terms:
            df, idf = _text_df_idf(backend_, term)
            if df > hooks.max_df_share * backend_.n_docs:
                continue
            boost *= (idf / 5.0) ** hooks.idf_power * (hooks.title_weight if term in title else 1.0)
            out.append((term, boost))
        return out

    def text_route(backend_, terms, eligible, depth):
        rows, scores = saved["text_route"](backend_, terms, eligible, depth)
        if hooks.pair_weight <= 0 or not len(rows):
            return rows, scores
        bonus = pair_scores(backend_, analyzer, asked["text"], rows, hooks.pair_max_df)
        return rows, scores + hooks.pair_weight * bonus

    def standardised(scores):
        if hooks.reciprocal_k:
            scores = np.asarray(scores, dtype=np.float64)
            rank = np.empty(len(scores))
            rank[np.argsort(-scores, kind="stable")] = np.arange(len(scores))
            return (hooks.reciprocal_k + 1) / (hooks.reciprocal_k + 1 + rank)
        return saved["standardised"](scores) ** hooks.route_power

    def paper_weights(backend_, rows, reference_year, settings):
        weights = saved["paper_weights"](backend_, rows, reference_year, settings)
        last = np.asarray(backend_.index.docs.year[rows]) == reference_year
        return weights * np.where(last, hooks.last_year_weight, 1.0)

    def combined(self, settings):
        blend = saved_combined(self, settings)
        if hooks.both_bonus:
            blend = blend * (1 + hooks.both_bonus * ((self.text > 0) & (self.meaning > 0)))
            blend = blend / max(float(blend.max(initial=0.0)), 1e-12)
        return blend ** hooks.power

    ex.meaning_hits, ex.query_terms, ex.standardised, ex.paper_weights, ex.text_route = (
        meaning_hits, query_terms, standardised, paper_weights, text_route)
    ex.PaperScores.combined = combined
    try:
        yield
    finally:
        for name, fn in saved.items():
            setattr(ex, name, fn)
        ex.PaperScores.combined = saved_combined


_ALL_PAIRS: dict[int, object] = {}


def all_pairs(backend):
    """Every word pair of the corpus with its paper count (`RarePairs` without a bound: ~4M pairs
    at the bundled corpus), made once per index for the bench's pair variants."""
    from paperfind.index.rare_pairs import RarePairs

    table = _ALL_PAIRS.get(id(backend.index))
    if table is None:
        docs = backend.index.docs
        table = _ALL_PAIRS[id(backend.index)] = RarePairs.build(
            (docs.title_seq, docs.abstract_seq), docs.n, backend.n_terms, np.iinfo(np.int32).max)
    return table


def pair_scores(backend, analyzer, text: str, rows: np.ndarray, max_df: int = 0) -> np.ndarray:
    """Per row of `rows`, the summed BM25 idf of `text`'s ordered pairs of consecutive content
    stems (as the index's sequences hold them) that the row's title or abstract holds, each once;
    pairs held by more than `max_df` papers left out when `max_df` > 0."""
    from paperfind.index.rare_pairs import pair_keys

    table = all_pairs(backend)
    ids = np.array([backend.term_id(t) for t in analyzer.terms(text)], dtype=np.int64)
    keys = np.unique(pair_keys(ids, table.vocab_size))
    if not len(keys) or not len(table.keys):
        return np.zeros(len(rows))
    at = np.minimum(np.searchsorted(table.keys, keys), len(table.keys) - 1)
    known = table.keys[at] == keys
    keys, df = keys[known], table.df[at[known]].astype(np.float64)
    if max_df > 0:
        keys, df = keys[df <= max_df], df[df <= max_df]
    if not len(keys):
        return np.zeros(len(rows))
    n = max(backend.n_docs, 1)
    idf = np.log1p((n - df + 0.5) / (df + 0.5))
    docs = backend.index.docs
    held_rows, held_pair = table.held_by((docs.title_seq, docs.abstract_seq), np.unique(rows), keys)
    per_row = np.zeros(n)
    np.add.at(per_row, held_rows, idf[held_pair])
    return per_row[rows]


def unit(vector: np.ndarray) -> np.ndarray:
    return (vector / max(float(np.linalg.norm(vector)), 1e-12)).astype(np.float32)


def form_vectors(backend, texts: list[str], forms: set[str]) -> dict:
    """Each text's vector in each of `forms` (`FORMS`), made once for every variant."""
    embedder = backend.semantic._query_encoder().embedder  # the serving query model (bench only)
    out = {}
    for form in sorted(forms):
        is_query, words = FORMS[form]
        for text in texts:
            out[(form, text)] = unit(embedder.embed([" ".join(text.split()[:words])], query=is_query)[0])
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, required=True)
    parser.add_argument("--only", default="", help="comma-separated variant indices")
    parser.add_argument("--no-write", action="store_true", help="print, do not record in RESULTS.md")
    parser.add_argument("--limit", type=int, default=0, help="the first N papers of each set (a smoke run)")
    args = parser.parse_args(argv)

    from paperfind.core import Paperfind
    from paperfind.search.expert_results import _paper_text
    from paperfind.search.experts import ExpertQuery, find_experts
    from paperfind.settings import Settings

    sets = [(name, [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()])
            for name, path, _ in DEV_SETS]
    if args.limit:
        sets = [(name, items[:args.limit]) for name, items in sets]
    pf = Paperfind(Settings(db_path=args.db))
    searcher = pf.searcher()
    backend, analyzer = searcher.backend(), searcher.analyzer
    names = backend.index.names
    base = pf.settings.search.experts
    find_experts(backend, ExpertQuery(text="warm up the query model"), base)
    chosen = [VARIANTS[int(i)] for i in args.only.split(",")] if args.only else list(VARIANTS)
    forms = {f for _, h in chosen for f in h.vector_form.split("+") if f}
    started = time.perf_counter()
    vectors = form_vectors(backend, [i["query"] for _, items in sets for i in items], forms)
    embed_s = time.perf_counter() - started

    def slug(author_id: int) -> str:
        return names.card(int(np.searchsorted(names.ids, author_id)))["slug"]

    lines = [f"In process, the scoring code the server runs (`find_experts`) with one step replaced per "
             f"variant (bench/experts_whatif.py's `Hooks`), on every dev set ({sets_text()}; 200 abstracts each, before = the paper's year), database {args.db.name} "
             f"({backend.index.docs.n:,} papers), every row in one run with the baseline.",
             f"Run {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, load average at the start "
             f"{' / '.join(f'{x:.1f}' for x in os.getloadavg())}; "
             "`PAPERFIND_SHARED=/work/shared flock /tmp/paperfind-heavy.lock nice .venv/bin/python -m "
             f"bench.experts_whatif --db DB`; the vector forms' {len(vectors)} vectors made once in {embed_s:.0f} s.", "",
             *table_head("variant")]
    for label, hooks in chosen:
        settings = replace(base, **hooks.settings)
        figures = []
        with hooked(hooks, backend, analyzer, vectors):
            for _, items in sets:
                runs = []
                for item in items:
                    Query.key, Query.title, Query.text = item["key"], item["title"], item["query"]
                    text = _paper_text(backend, item["key"]) if hooks.paper_key else item["query"]
                    found = find_experts(backend, ExpertQuery(text=text, before=item["before"]), settings,
                                         analyzer, needed=10)
                    people = [e.author_id for e in found.experts]
                    runs.append([slug(p) for p in people[:10]])
                figures.append(scores_of(runs, items))
        line = f"| {label} | " + " | ".join(f"{f['R@10']:.3f} | {f['MRR@10']:.3f} | {f['nDCG@10']:.3f}"
                                           for f in figures) + " |"
        lines.append(line)
        print(line, flush=True)
    lines += ["", f"Load average at the end: {' / '.join(f'{x:.1f}' for x in os.getloadavg())}."]
    table = "\n".join(lines) + "\n"
    print(table)
    if not args.no_write and not args.only and not args.limit:
        append_results(HEADING, table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
