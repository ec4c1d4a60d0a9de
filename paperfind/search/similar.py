"""Similar papers: for one paper, the other papers most like it ("more like this").

Four signals over every indexed paper, each on a scale where the paper itself is the top:
- words: BM25F of the paper's own strongest title + abstract terms against the index, divided
  by the paper's score against itself (so the scale does not depend on the abstract's length);
- keywords: BM25 of the paper's author keywords in the keyword field, divided by the same
  self-score (words + keywords), so a keyword every paper has weighs as little as its idf;
- meaning: cosine of the paper's vector with the others, above the corpus' mean cosine,
  divided by the room up to 1 (e5 cosines of unrelated papers sit near 0.75, not 0);
- authors: the share of the paper's people who also wrote the other paper.
Words and meaning carry the topic, meaning at half the weight of words (on CSFCube dev a larger
weight lowered nDCG@20 for both title and title + 48-word vectors: bench/similar_quality.py);
shared people and keywords add a little, so a co-author's paper on another topic does not beat a
paper on the same problem. Without vectors (not embedded yet, or none at all) the meaning signal
is skipped. The paper itself and other versions of its work (same `work_id`, or the same
normalised title: a workshop paper and its main-track version) are never listed, and another
paper appears once, as its best-scored version.
With an aspect (background, method or result: "papers like this one for its method", the
faceted query by example of CSFCube), the paper's sentences of that aspect, picked by our own
classifier (`paperfind.search.aspects`), weigh over the rest of its words, and the best
`aspect_rerank_depth` (100) papers of that blend are also matched on their own sentences of the
aspect (the "aspect" signal; classifying those candidates' sentences is most of an aspect's
cost): an abstract's opening is mostly background, so whole-abstract scores under-weigh what a
method or a result has in common. The meaning signal stays the stored
whole-paper vector: embedding the aspect's sentences on the fly measured no better.
Deterministic: scores are rounded, ties go to the smaller row, and rows are in key order.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

import numpy as np

from paperfind.index.tokenize import Analyzer
from paperfind.ingest.text import normalize_title
from paperfind.search.backend import IndexBackend

SCORE_DECIMALS = 6
SIGNALS = ("words", "meaning", "aspect", "authors", "keywords")
_TERMS_PER_CALL = 64  # the lexical scorer reads at most this many groups per call
# a row -> its sentences of the aspect; the product's is our classifier, a bench can pass others
SentencesOf = Callable[[int], list[str]]


@dataclass(frozen=True)
class SimilarSettings:
    """Weights of the blend and the size of the lexical query (chosen on CSFCube dev)."""

    words_weight: float = 1.0
    meaning_weight: float = 0.5  # CSFCube dev: 1.0 did worse with title and words48 vectors
    authors_weight: float = 0.05  # all people shared: a nudge among topical equals
    keywords_weight: float = 1.0  # a keyword shared counts twice (the text field has them too)
    max_terms: int = 64  # the paper's strongest terms that make its lexical query
    max_limit: int = 100
    # With an aspect (bench/similar_quality.py, CSFCube dev, each step within ~0.02 = noise):
    # the aspect's sentences count at weight 1 and the whole title + abstract beside them at
    # this weight (the topic still matters: 0 did worse);
    aspect_context_weight: float = 0.5
    # the share of the meaning signal taken from the aspect's sentences embedded on the fly,
    # the rest from the stored whole-paper vector (embedding them did not beat the stored
    # vector and costs a query embedding, so 0);
    aspect_meaning_share: float = 0.0
    # the candidates' own sentences of the aspect (our classifier) matched against the
    # aspect's terms, for the best `aspect_rerank_depth` papers of the blend.
    aspect_words_weight: float = 0.5
    aspect_rerank_depth: int = 100  # a few tenths of a ms a paper (classifying its sentences)


@dataclass(frozen=True)
class AspectQuery:
    """"This paper, with respect to its `aspect`": the sentences that say it."""

    aspect: str
    sentences: tuple[str, ...]

    @property
    def text(self) -> str:
        return " ".join(self.sentences)


def aspect_query(doc: dict, aspect: str) -> AspectQuery:
    """The stored paper's sentences of `aspect`, picked by `paperfind.search.aspects`."""
    from paperfind.search.aspects import aspect_sentences

    return AspectQuery(aspect, tuple(aspect_sentences(doc.get("abstract", ""), aspect)))


@dataclass(frozen=True)
class SimilarPaper:
    """One similar paper: key, blended score, and why (signal names, strongest first)."""

    key: str
    score: float
    reasons: tuple[str, ...]
    signals: dict[str, float] = field(default_factory=dict)  # each signal's share of the score
    shared_authors: tuple[str, ...] = ()
    shared_keywords: tuple[str, ...] = ()
    title: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "title": self.title, "score": self.score,
                "reasons": list(self.reasons), "signals": dict(self.signals),
                "shared_authors": list(self.shared_authors),
                "shared_keywords": list(self.shared_keywords)}


class UnknownPaper(LookupError):
    """The key names no indexed paper."""

    def __init__(self, key: str) -> None:
        super().__init__(f"no paper with key {key!r} in the index")
        self.key = key


class NeighbourSource(Protocol):
    """The semantic side (`paperfind.embed.retriever.SemanticRetriever` is one)."""

    def similar_rows(self, row: int, mask: np.ndarray | None,
                     k: int) -> tuple[np.ndarray, np.ndarray]: ...

    def vector_candidates(self, text: str, mask: np.ndarray | None,
                          k: int) -> tuple[np.ndarray, np.ndarray]: ...


@dataclass
class Signals:
    """Each signal over all rows (0 where it says nothing); `meaning` is None without vectors."""

    words: np.ndarray
    meaning: np.ndarray | None
    authors: np.ndarray
    keywords: np.ndarray


def weighted_terms(backend: IndexBackend, analyzer: Analyzer, title: str, abstract: str,
                   settings: SimilarSettings, focus: AspectQuery | None = None) -> list[tuple[str, float]]:
    """The paper's lexical query: its strongest terms, each boosted by its count in the paper.

    The whole title + abstract as one BM25 query (counts linear, as a query repeating a word
    weighs it more; sub-linear counts measured lower on CSFCube dev), cut to the terms with the
    largest count x idf, which also keeps words like "model" (a third of the corpus) from
    costing time on a large index.
    """
    counts: Counter[str] = Counter(analyzer.terms(title))
    counts.update(analyzer.terms(abstract))
    if focus is not None:  # the aspect's sentences at weight 1, the whole paper beside them
        whole = counts
        counts = Counter(analyzer.terms(focus.text))
        for term, tf in whole.items():
            counts[term] += settings.aspect_context_weight * tf
    ranked = []
    for term, tf in counts.items():
        df, idf = _text_df_idf(backend, term)
        if df > 0:
            ranked.append((term, float(tf), tf * idf))
    ranked.sort(key=lambda t: (-t[2], t[0]))
    return [(term, boost) for term, boost, _ in ranked[:settings.max_terms]]


def _text_df_idf(backend: IndexBackend, term: str) -> tuple[int, float]:
    """`term`'s document frequency in the text field and its BM25 idf, as query terms are weighed."""
    n = max(backend.n_docs, 1)
    df = backend.doc_freq("text", term)
    return df, math.log1p((n - df + 0.5) / (df + 0.5))


def _term_scores(backend: IndexBackend, field_name: str,
                 terms: list[tuple[str, float]]) -> np.ndarray:
    scores = np.zeros(backend.n_docs, dtype=np.float64)
    for start in range(0, len(terms), _TERMS_PER_CALL):
        chunk = terms[start:start + _TERMS_PER_CALL]
        part, _ = backend.corpus_scores([[(field_name, t, b)] for t, b in chunk])
        scores += part
    return scores


def meaning_scores(semantic: NeighbourSource | None, row: int, n_docs: int) -> np.ndarray | None:
    """Cosine above the corpus mean, scaled to [0, 1]; None when the paper has no vector."""
    if semantic is None:
        return None
    rows, cosines = semantic.similar_rows(row, None, n_docs)
    if len(rows) == 0:
        return None
    return _above_mean(rows, cosines.astype(np.float64), row, n_docs, top=1.0)


def _above_mean(rows: np.ndarray, cosines: np.ndarray, row: int, n_docs: int, top: float) -> np.ndarray:
    """Cosines above their mean, divided by the room from the mean up to `top` (1 when `top` is
    not above the mean), clipped to [0, 1]; the paper's own row scores 1."""
    mean = float(cosines.mean())
    room = top - mean if top - mean > 1e-6 else 1.0 - mean
    out = np.zeros(n_docs, dtype=np.float64)
    out[rows] = np.clip((cosines - mean) / max(room, 1e-6), 0.0, 1.0)
    out[row] = 1.0
    return out


def aspect_meaning_scores(semantic: NeighbourSource | None, row: int, n_docs: int,
                          text: str) -> np.ndarray | None:
    """Cosine of the embedded aspect text above the corpus mean, scaled so the paper's own
    stored vector scores 1 (a sentence is never as close to a paper as the paper to itself)."""
    if semantic is None or not text.strip():
        return None
    rows, cosines = semantic.vector_candidates(text, None, n_docs)
    own = np.flatnonzero(rows == row)
    if len(rows) == 0 or len(own) == 0:
        return None
    cosines = cosines.astype(np.float64)
    return _above_mean(rows, cosines, row, n_docs, top=float(cosines[own[0]]))


def aspect_words_scores(backend: IndexBackend, analyzer: Analyzer, terms: list[tuple[str, float]],
                        rows: np.ndarray, aspect: str, own_row: int,
                        sentences_of: SentencesOf | None = None) -> np.ndarray:
    """BM25 of the aspect's weighted terms against each row's own sentences of that aspect
    (picked by `paperfind.search.aspects` from its stored abstract), divided by the query
    paper's score against its own aspect sentences; 0 outside `rows`.

    The index scores whole abstracts, where a paper's background dominates; this compares
    like with like: method sentences with method sentences.
    """
    from paperfind.search.aspects import aspect_sentences

    if sentences_of is None:
        def sentences_of(row: int) -> list[str]:  # the product's: our classifier
            return aspect_sentences(backend.stored([row])[0].get("abstract", ""), aspect)
    weights = {term: boost * _text_df_idf(backend, term)[1] for term, boost in terms}
    wanted = [int(r) for r in rows] + ([own_row] if own_row not in set(rows.tolist()) else [])
    tokens = {r: analyzer.terms(" ".join(sentences_of(r))) for r in wanted}
    counts = {r: Counter(t for t in tokens[r] if t in weights) for r in wanted}
    k1, b = 1.2, 0.75
    sizes = {r: max(len(tokens[r]), 1) for r in wanted}
    mean = sum(sizes.values()) / len(sizes)
    out = np.zeros(backend.n_docs, dtype=np.float64)
    for r in wanted:
        norm = k1 * (1 - b + b * sizes[r] / mean)
        out[r] = sum(weights[t] * tf * (k1 + 1) / (tf + norm) for t, tf in counts[r].items())
    own = out[own_row]
    keep = np.zeros(backend.n_docs, dtype=bool)
    keep[rows] = True
    out[~keep] = 0.0
    return np.minimum(out / own, 1.0) if own > 0 else out * 0.0


def similarity_signals(backend: IndexBackend, row: int, *, semantic: NeighbourSource | None = None,
                       settings: SimilarSettings | None = None, analyzer: Analyzer | None = None,
                       focus: AspectQuery | None = None) -> Signals:
    """Every signal of the paper at `row` against every row (the paper itself scores 1);
    with `focus`, the words signal weighs the aspect's sentences over the whole paper, and
    meaning stays the stored whole-paper vector unless `aspect_meaning_share` > 0."""
    settings = settings or SimilarSettings()
    analyzer = analyzer or Analyzer()
    doc = backend.stored([row])[0]
    terms = weighted_terms(backend, analyzer, doc.get("title", ""), doc.get("abstract", ""), settings,
                           focus)
    text_scores = _term_scores(backend, "text", terms)
    keyword_terms = Counter(t for k in doc.get("keywords") or [] for t in analyzer.terms(k))
    keyword_scores = _term_scores(backend, "keywords", sorted(keyword_terms.items()))
    # one scale for both: the paper's own score on words and keywords together, so keywords
    # everybody uses ("deep learning") weigh as little as their idf, not as much as all words
    own = float(text_scores[row] + keyword_scores[row])
    scale = 1.0 / own if own > 0 else 0.0
    words = np.minimum(text_scores * scale, 1.0)
    keywords = np.minimum(keyword_scores * scale, 1.0)
    people = sorted({int(a) for a in backend.author_ids(row) if int(a) > 0})
    authors = np.zeros(backend.n_docs, dtype=np.float64)
    if people:
        rows, ids = backend.papers_of(people)
        pairs = np.unique(np.stack([rows, ids]), axis=1)  # one count per person and paper
        authors = np.bincount(pairs[0], minlength=backend.n_docs).astype(np.float64) / len(people)
    meaning = meaning_scores(semantic, row, backend.n_docs)
    if focus is not None and meaning is not None and settings.aspect_meaning_share > 0:
        part = aspect_meaning_scores(semantic, row, backend.n_docs, focus.text)
        if part is not None:
            share = settings.aspect_meaning_share
            meaning = share * part + (1.0 - share) * meaning
    return Signals(words, meaning, authors, keywords)


def blend(signals: Signals, settings: SimilarSettings) -> dict[str, np.ndarray]:
    """Each signal's weighted contribution (their sum is the score); meaning only if present."""
    parts = {"words": settings.words_weight * signals.words,
             "authors": settings.authors_weight * signals.authors,
             "keywords": settings.keywords_weight * signals.keywords}
    if signals.meaning is not None:
        parts["meaning"] = settings.meaning_weight * signals.meaning
    return parts


def add_aspect_words(backend: IndexBackend, parts: dict[str, np.ndarray], row: int,
                     focus: AspectQuery, settings: SimilarSettings, analyzer: Analyzer,
                     rows: np.ndarray | None = None,
                     sentences_of: SentencesOf | None = None) -> dict[str, np.ndarray]:
    """`parts` plus the "aspect" signal for the best `aspect_rerank_depth` of `rows` (default:
    every row the blend scores) by the blend so far; unchanged when its weight is 0."""
    if settings.aspect_words_weight <= 0:
        return parts
    total = sum(parts.values())
    rows = np.flatnonzero(total > 0) if rows is None else np.asarray(rows, dtype=np.int64)
    rows = rows[rows != row]
    if len(rows) > settings.aspect_rerank_depth:
        rows = ranked_rows(total, rows)[:settings.aspect_rerank_depth]
    doc = backend.stored([row])[0]
    terms = weighted_terms(backend, analyzer, doc.get("title", ""), doc.get("abstract", ""),
                           replace(settings, aspect_context_weight=0.0), focus)
    aspect = aspect_words_scores(backend, analyzer, terms, rows, focus.aspect, row, sentences_of)
    return {**parts, "aspect": settings.aspect_words_weight * aspect}


def ranked_rows(scores: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
    """`rows` (default: all) best first by rounded score, ties by row (= key order)."""
    rows = np.arange(len(scores)) if rows is None else np.asarray(rows, dtype=np.int64)
    rounded = np.round(scores[rows], SCORE_DECIMALS)
    return rows[np.lexsort((rows, -rounded))]


def similar_papers(backend: IndexBackend, key: str, limit: int = 10, *,
                   semantic: NeighbourSource | None = None, settings: SimilarSettings | None = None,
                   analyzer: Analyzer | None = None, aspect: str | None = None) -> list[SimilarPaper]:
    """The `limit` papers most similar to the paper `key`, best first; raises `UnknownPaper`.

    `aspect` ("background", "method" or "result"; None = the whole paper) asks for papers like
    this one in that respect: the query is built from the paper's sentences of that aspect
    (`paperfind.search.aspects`). Raises `ValueError` for another aspect.
    `semantic` defaults to the retriever attached to the backend (`backend.semantic`), if any.
    """
    from paperfind.search.aspects import require_aspect

    if aspect is not None:
        require_aspect(aspect)
    settings = settings or SimilarSettings()
    row = int(backend.handles_of([key])[0])
    if row < 0:
        raise UnknownPaper(key)
    limit = max(0, min(int(limit), settings.max_limit))
    if limit == 0:
        return []
    if semantic is None:
        semantic = getattr(backend, "semantic", None)
    focus = aspect_query(backend.stored([row])[0], aspect) if aspect is not None else None
    analyzer = analyzer or Analyzer()
    parts = blend(similarity_signals(backend, row, semantic=semantic, settings=settings,
                                     analyzer=analyzer, focus=focus), settings)
    if focus is not None:
        parts = add_aspect_words(backend, parts, row, focus, settings, analyzer)
    total = sum(parts.values())
    total[row] = 0.0
    candidates = np.flatnonzero(total > 0)
    own = backend.stored([row])[0]
    own_title = normalize_title(own.get("title", ""))
    own_people = {int(a): name for a, name in own.get("authors") or [] if int(a) > 0}
    own_keywords = {_keyword(k): k for k in own.get("keywords") or [] if _keyword(k)}
    out: list[SimilarPaper] = []
    seen_works, seen_titles = {own.get("work_id")}, {own_title}
    for r in _best_first(total, candidates, limit):
        doc = backend.stored([int(r)])[0]
        title = normalize_title(doc.get("title", ""))
        if doc.get("work_id") in seen_works or title in seen_titles:
            continue  # a version of this paper, or of a paper already listed
        seen_works.add(doc.get("work_id"))
        seen_titles.add(title)
        out.append(_result(doc, float(total[r]), {n: float(p[r]) for n, p in parts.items()},
                           own_people, own_keywords))
        if len(out) == limit:
            break
    return out


def _best_first(total: np.ndarray, candidates: np.ndarray, limit: int) -> Iterator[int]:
    """Candidates best first: a partial sort of the likely top, the full order only if the
    top was mostly other versions of the paper (rare)."""
    depth = min(len(candidates), 2 * limit + 16)
    if depth < len(candidates):
        part = np.argpartition(-total[candidates], depth - 1)[:depth]
        cut = total[candidates][part].min()
        head = ranked_rows(total, candidates[total[candidates] > cut])
        yield from head.tolist()
        seen = set(head.tolist())
        yield from (r for r in ranked_rows(total, candidates).tolist() if r not in seen)
    else:
        yield from ranked_rows(total, candidates).tolist()


def _keyword(text: str) -> str:
    return " ".join(str(text).casefold().split())


def _result(doc: dict, score: float, parts: dict[str, float], own_people: dict[int, str],
            own_keywords: dict[str, str]) -> SimilarPaper:
    shares = {n: round(v / score, 3) for n, v in parts.items() if v > 0}
    reasons = tuple(n for n in sorted(shares, key=lambda n: (-shares[n], SIGNALS.index(n)))
                    if shares[n] >= 0.05)
    people = tuple(name for a, name in doc.get("authors") or [] if int(a) in own_people)
    keywords = tuple(own_keywords[k] for k in dict.fromkeys(_keyword(k) for k in doc.get("keywords") or [])
                     if k in own_keywords)
    return SimilarPaper(key=doc["key"], score=round(score, SCORE_DECIMALS), reasons=reasons,
                        signals=shares, shared_authors=people, shared_keywords=keywords,
                        title=doc.get("title", ""))
