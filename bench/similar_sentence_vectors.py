"""Experiment (issue 4): would per-sentence vectors of the candidates lift similar papers on CSFCube?

CSFCube's strongest systems compare a query paper's facet sentences with each candidate's
sentences one by one (Aspire). paperfind stores one vector per paper (words24), so this measures
what sentence vectors would buy before anyone builds them: every abstract sentence of the 1,946
CSFCube papers (`split_sentences`) is embedded with the product's embedder (OnnxE5Embedder,
"passage: " prefix as documents are embedded, int8 with per-dimension scales as stored), and each
item's pool is re-ranked by
  - mean-of-max: for each query facet sentence its best candidate sentence, averaged;
  - max-of-mean: the candidate sentence with the best mean cosine to the query facet sentences;
  - max-max: the single best pair;
  - the same, the candidate's sentences restricted to the item's aspect (our classifier);
  - each blended with the product's default aspect ranking (bench/similar_quality.py row (c)).
The query's facet sentences are CSFCube's given ones or our classifier's (the product's);
`--query-prefix` embeds every sentence with E5's "query: " prefix instead (separate cache). The
stored whole-paper words24 vector's cosine alone is printed for context. Findings: bench/RESULTS.md,
"Experiment: per-sentence vectors for similar papers (issue 4)".
Figures from ../shared/eval-dev/score.py in pool mode (functions of bench/similar_quality.py);
vectors are cached under --cache (never in the repository: CSFCube is CC BY-NC 4.0).

    flock /tmp/paperfind-timing.lock nice .venv/bin/python bench/similar_sentence_vectors.py --probe
    flock /tmp/paperfind-timing.lock nice .venv/bin/python bench/similar_sentence_vectors.py --embed-only
    nice .venv/bin/python bench/similar_sentence_vectors.py
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import numpy as np  # noqa: E402

from bench import similar_quality as sq  # noqa: E402
from paperfind.embed.onnx_backend import OnnxE5Embedder  # noqa: E402
from paperfind.embed.retriever import SemanticRetriever  # noqa: E402
from paperfind.embed.text import document_text, text_hash  # noqa: E402
from paperfind.index.vectors import quantise  # noqa: E402
from paperfind.search.aspects import classify_sentences  # noqa: E402
from paperfind.search.similar import SimilarSettings, add_aspect_words, blend, similarity_signals  # noqa: E402
from paperfind.text.analyze import Analyzer  # noqa: E402
from paperfind.text.sentences import split_sentences  # noqa: E402


class SentenceVectors:
    """Vectors of sentence texts, cached by text hash in one .npz (int8 + per-dimension scales)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.index: dict[str, int] = {}
        self.vectors = np.zeros((0, 384), np.float32)
        if path.exists():
            data = np.load(path, allow_pickle=False)
            self.index = {h: i for i, h in enumerate(data["hashes"].tolist())}
            self.vectors = data["q"].astype(np.float32) * data["scales"]

    def missing(self, texts: list[str]) -> list[str]:
        return list(dict.fromkeys(t for t in texts if text_hash(t) not in self.index))

    def add(self, texts: list[str], vectors: np.ndarray) -> None:
        start = len(self.vectors)
        self.vectors = np.vstack([self.vectors, vectors.astype(np.float32)])
        self.index.update({text_hash(t): start + i for i, t in enumerate(texts)})
        hashes = sorted(self.index, key=self.index.get)
        q, scales = quantise(self.vectors, "int8")
        self.vectors = q.astype(np.float32) * scales  # what a store would give back
        self.path.parent.mkdir(parents=True, exist_ok=True)
        np.savez(self.path, hashes=np.asarray(hashes), q=q, scales=scales)

    def of(self, texts: list[str]) -> np.ndarray:
        return self.vectors[[self.index[text_hash(t)] for t in texts]] if texts else np.zeros((0, 384), np.float32)


def embed(vectors: SentenceVectors, texts: list[str], threads: int, limit: int | None = None,
          query: bool = False) -> tuple[int, int, float]:
    """Embed the missing texts (passage prefix, as the product embeds documents, unless `query`:
    E5's advice for symmetric tasks is the query prefix on both sides); (count, tokens, s)."""
    todo = vectors.missing(texts)[:limit]
    if not todo:
        return 0, 0, 0.0
    embedder = OnnxE5Embedder(threads=threads)
    tokens = sum(embedder.tokenizer().token_count(t, query=query) for t in todo)
    embedder.embed(["warm up"])
    started = time.perf_counter()
    out = [embedder.embed(todo[i:i + 256], query=query) for i in range(0, len(todo), 256)]
    took = time.perf_counter() - started
    vectors.add(todo, np.vstack(out))
    return len(todo), tokens, took


def sentence_scores(q: np.ndarray, c: np.ndarray) -> dict[str, float]:
    """Three ways to turn the query-sentence x candidate-sentence cosines into one score."""
    if len(q) == 0 or len(c) == 0:
        return {"mean-of-max": 0.0, "max-of-mean": 0.0, "max-max": 0.0}
    sims = q @ c.T
    return {"mean-of-max": float(sims.max(axis=1).mean()), "max-of-mean": float(sims.mean(axis=0).max()),
            "max-max": float(sims.max())}


def product_scores(backend, item: dict, semantic, settings: SimilarSettings, focus) -> dict[str, float]:
    """The product's default aspect blend (similar_quality row (c)) of each pool key."""
    analyzer = Analyzer()
    row = backend.row_of(item["query_key"])
    query = focus(backend, item)
    parts = blend(similarity_signals(backend, row, semantic=semantic, settings=settings, analyzer=analyzer,
                                     focus=query), settings)
    pool = np.asarray([backend.row_of(k) for k in item["candidates"]], dtype=np.int64)
    parts = add_aspect_words(backend, parts, row, query, settings, analyzer, pool)
    total = sum(parts.values())
    return {backend.key_of(int(r)): float(total[r]) for r in pool}


def order(scores: dict[str, float]) -> list[str]:
    return sorted(scores, key=lambda k: (-round(scores[k], 6), k))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cache", type=Path, default=Path("/tmp/sentvec/csfcube-sentences.npz"))
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--query-prefix", action="store_true",
                        help="embed every sentence with E5's query prefix (its advice for symmetric tasks)")
    parser.add_argument("--probe", action="store_true", help="time 256 sentences and stop")
    parser.add_argument("--embed-only", action="store_true")
    parser.add_argument("--weights", type=float, nargs="+", default=[0.25, 0.5, 1.0],
                        help="weights of the sentence score beside the product blend")
    args = parser.parse_args()
    corpus = sq.load_jsonl("csfcube_dev_corpus")
    items = sq.load_jsonl("csfcube_dev")
    sentences = {p["key"]: split_sentences(p["abstract"]) for p in corpus}
    every = [s for ss in sentences.values() for s in ss]
    given = [s for it in items for s in it["facet_sentences"]]
    if args.query_prefix:
        args.cache = args.cache.with_suffix(".query.npz")
    vectors = SentenceVectors(args.cache)
    if args.probe:
        n, tokens, took = embed(SentenceVectors(args.cache.with_suffix(".probe.npz")), every[:256], args.threads)
        print(f"probe: {n} sentences, {tokens} tokens in {took:.1f} s: {n / took:.1f} sentences/s, "
              f"{tokens / took:.0f} tokens/s ({args.threads} threads)")
        docs = [document_text(p["title"], p["abstract"], "words24") for p in corpus[:256]]
        n, tokens, took = embed(SentenceVectors(args.cache.with_suffix(".probe-words24.npz")), docs, args.threads)
        print(f"baseline, same run: {n} words24 paper texts (what the product stores), {tokens} tokens in "
              f"{took:.1f} s: {n / took:.1f} papers/s, {tokens / took:.0f} tokens/s")
        return
    n, tokens, took = embed(vectors, every + given, args.threads, query=args.query_prefix)
    if n:
        print(f"embedded {n} sentences ({tokens} tokens, {tokens / n:.1f} per sentence) in {took:.0f} s: "
              f"{n / took:.1f} sentences/s, {len(corpus) * n / len(every) / took:.2f} papers/s")
    if args.embed_only:
        return
    print(f"{len(every):,} sentences in {len(corpus):,} papers ({len(every) / len(corpus):.2f} per paper)")
    backend = sq.csfcube_backend(corpus)
    semantic = SemanticRetriever(sq.vector_dir("words24"), [backend.key_of(r) for r in range(backend.n_docs)])
    default = SimilarSettings()
    aspects = {k: [s.aspect for s in classify_sentences(ss)] for k, ss in sentences.items()}
    results = [("BM25 baseline (bm25s, title + abstract)", sq.score(sq.bm25_baseline(corpus, items)))]
    product = {it["qid"]: product_scores(backend, it, semantic, default, sq.our_focus) for it in items}
    results.append(("product default: (c) our classifier's sentences, words + aspect + 0.5 x meaning, words24",
                    sq.score({q: order(s) for q, s in product.items()})))
    paper = {}
    for it in items:  # DIAGNOSTIC context: the stored whole-paper words24 vector's cosine alone
        rows, cos = semantic.similar_rows(backend.row_of(it["query_key"]), None, backend.n_docs)
        by_row = dict(zip(rows.tolist(), cos.tolist()))
        paper[it["qid"]] = order({k: by_row.get(backend.row_of(k), 0.0) for k in it["candidates"]})
    results.append(("stored whole-paper vector (words24) alone", sq.score(paper)))
    for qname, focus in (("given", sq.given_focus), ("ours", sq.our_focus)):
        raw: dict[str, dict[str, dict[str, float]]] = {}  # variant -> qid -> key -> score
        for it in items:
            q = vectors.of(list(focus(backend, it).sentences))
            for cname in ("all", "aspect"):
                for key in it["candidates"]:
                    cs = sentences[key]
                    if cname == "aspect":
                        cs = [s for s, a in zip(cs, aspects[key]) if a == it["facet"]] or cs
                    for score_name, value in sentence_scores(q, vectors.of(cs)).items():
                        raw.setdefault(f"{score_name}, {cname}", {}).setdefault(it["qid"], {})[key] = value
        for variant, runs in raw.items():
            cands = ("candidates' sentences of the aspect (ours)" if variant.endswith("aspect")
                     else "all candidate sentences")
            label = f"query sentences {qname}: {variant.split(',')[0]} over {cands}"
            results.append((label + ", alone", sq.score({q: order(s) for q, s in runs.items()})))
            for w in args.weights:
                blended = {}
                for qid, s in runs.items():
                    values = np.asarray(list(s.values()))
                    lo, hi = float(values.mean()), float(values.max())  # pool mean -> 0, pool best -> 1
                    blended[qid] = {k: product[qid][k] + w * max(0.0, (v - lo) / max(hi - lo, 1e-6))
                                    for k, v in s.items()}
                results.append((f"{label}, product default + {w:g} x it",
                                sq.score({q: order(s) for q, s in blended.items()})))
    print(sq.table(results))


if __name__ == "__main__":
    main()
