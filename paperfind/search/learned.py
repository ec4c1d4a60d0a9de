"""The learned re-ranker: a LightGBM lambdarank model over the pipeline's top candidates.

Hand-tuned weights give each signal (BM25F, proximity, coverage, title features, the e5
cosine) one fixed importance per query kind, but which signal is right differs from query to
query. A model trained on authors' own TL;DRs of their papers (`python -m paperfind.rank.train`)
learns when to trust which. It re-orders only the first `depth` candidates of today's ranking,
reads only what the searcher already computes for them (`candidate_features`), and is applied
to the query kinds where the bench measured a gain (`SearchSettings.learned_kinds`).

The model is LightGBM's plain-text dump (no pickle) with its feature names; a missing or
unreadable file is a `ModelError`, and the searcher then ranks as it did before.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from paperfind.search.fusion import QUERY_KINDS
from paperfind.search.row_features import QueryFeatures
from paperfind.search.second_stage import phrase_share

DEFAULT_MODEL = Path(__file__).resolve().parents[1] / "rank" / "lambdarank.txt"

# The model's inputs, in column order. Shares are in [0, 1]; "_rel" = divided by the best
# candidate's value; ranks count from 0 in the order named.
FEATURES = (
    "pipeline_rel",  # today's relevance (lexical re-rank + fusion) / the best candidate's
    "pipeline_rank",  # position in today's ranking
    "bm25f_rel",  # BM25F over title + abstract + keywords (+ authors, venue), as retrieved
    "bm25f_rank",  # position among the candidates by BM25F alone
    "bm25_title_rel",  # BM25 of the query's words in the title field alone
    "bm25_abstract_rel",  # ... in the abstract field alone
    "matched_share",  # query words (groups) the paper contains
    "title_match", "title_cover", "title_in_query",  # the second stage's title features
    "proximity", "coverage", "keyword", "author", "phrase",  # ... and the others
    "cosine",  # e5 cosine of query and paper (missing outside the semantic list)
    "cosine_gap",  # best cosine of the semantic list minus this one
    "semantic_rank",  # position in the semantic list (its length when absent)
    "query_kind",  # 0 name, 1 chinese, 2 keywords, 3 natural
    "query_words",  # query word groups
    "query_chars",
)
# Left out on purpose: the paper's year, age, citations, number of versions, title and abstract
# lengths, and raw (unnormalised) BM25F. Every training query's paper is from the training
# venue-years (ICLR 2024/2026, CoRL 2022/23), so these tell the model "a recent ICLR paper" rather
# than "the paper described": with them, CV on the training years rose and every dev set fell
# (tldr MRR@10 -.007, title_typo -.011, zh -.024; bench/RESULTS.md, issue 17).
KIND_CODES = {name: i for i, name in enumerate(QUERY_KINDS)}


class ModelError(Exception):
    """The model file is missing, unreadable, or made for other features."""


@dataclass
class FirstStage:
    """What the semantic route found, kept for the candidates' features."""

    vec_rows: np.ndarray  # the semantic list (handles), best first
    vec_scores: np.ndarray  # its cosines
    n_groups: int
    kind: str
    query_chars: int


def candidate_features(backend, plan, terms: list[str], stage: FirstStage, pool,
                       max_people: int, rows_memo: QueryFeatures | None = None) -> np.ndarray:
    """Feature matrix (len(pool) x len(FEATURES), float32) of the candidates of `pool` (an
    `pool.Pool`), given in today's order with today's relevance. Everything comes from the
    searcher's own scoring: the BM25F scores of retrieval, the per-field BM25 of the same
    engine, the second stage's features, the semantic list. `rows_memo`: this query's
    per-row features held already (the searcher computes the lexical leaders' while the
    query's vector is made); the same values as computed here without it."""
    rows, relevance = pool.handles, pool.relevance
    n = len(rows)
    memo = rows_memo or QueryFeatures(backend, plan, terms, max_people)
    cols: dict[str, np.ndarray] = {}
    cols["pipeline_rel"] = relevance / (float(relevance.max()) or 1.0)
    cols["pipeline_rank"] = np.arange(n, dtype=np.float64)
    scores = memo.lexical_scores(rows)
    bm = scores["bm25f"].astype(np.float64)
    cols["bm25f_rel"] = bm / (float(bm.max()) or 1.0)
    cols["bm25f_rank"] = np.argsort(np.lexsort((rows, -bm))).astype(np.float64)
    for field in ("title", "abstract"):
        own = scores[f"bm25_{field}"].astype(np.float64)
        cols[f"bm25_{field}_rel"] = own / (float(own.max()) or 1.0)
    cols["matched_share"] = scores["matched"] / max(stage.n_groups, 1)
    cols.update(memo.second_stage(rows))
    cols["phrase"] = phrase_share(backend, plan, terms, rows) if plan.phrases else np.zeros(n)
    cosine = np.full(n, np.nan)
    sem_rank = np.full(n, float(len(stage.vec_rows)))
    where = {int(r): i for i, r in enumerate(stage.vec_rows.tolist())}
    for j, r in enumerate(rows.tolist()):
        i = where.get(int(r))
        if i is not None:
            cosine[j] = float(stage.vec_scores[i])
            sem_rank[j] = i
    cols["cosine"] = cosine
    best = float(stage.vec_scores[0]) if len(stage.vec_scores) else math.nan
    cols["cosine_gap"] = best - cosine
    cols["semantic_rank"] = sem_rank
    cols["query_kind"] = np.full(n, float(KIND_CODES.get(stage.kind, -1)))
    cols["query_words"] = np.full(n, float(stage.n_groups))
    cols["query_chars"] = np.full(n, float(stage.query_chars))
    return np.column_stack([np.asarray(cols[name], dtype=np.float64) for name in FEATURES]).astype(np.float32)


def read_model(path: Path | str) -> str:
    """A model file's text; a `ModelError` naming the file when it cannot be read."""
    path = Path(path)
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ModelError(f"{path}: no such model file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ModelError(f"{path}: cannot read the model ({e})") from None


def load_booster(model_text: str, source: str, features: tuple[str, ...], purpose: str, trainer: str):
    """A LightGBM booster from its text dump, checked to be one over `features`; a
    `ModelError` naming `source` otherwise (`purpose` names the ranking that needs lightgbm,
    `trainer` the module that makes a model of these features)."""
    try:
        import lightgbm
    except ImportError as e:  # pragma: no cover - pinned dependency
        raise ModelError(f"{purpose} needs lightgbm ({e})") from None
    if not model_text.startswith("tree"):
        raise ModelError(f"{source}: not a LightGBM text model (the first line is not 'tree')")
    try:
        booster = lightgbm.Booster(model_str=model_text)
    except Exception as e:  # lightgbm raises its own LightGBMError for any malformed dump
        raise ModelError(f"{source}: unreadable LightGBM model ({str(e).splitlines()[0]})") from None
    names = tuple(booster.feature_name())
    if names != features:
        raise ModelError(f"{source}: the model was trained on other features ({len(names)} "
                         f"named {', '.join(names[:3])}...); retrain with python -m {trainer}")
    return booster


class LearnedRanker:
    """A loaded lambdarank model: scores candidates and names what decided each score."""

    def __init__(self, model_text: str, source: str = "<text>") -> None:
        self.booster = load_booster(model_text, source, FEATURES, "the learned ranking",
                                    "paperfind.rank.train")
        self.source = source

    @classmethod
    def load(cls, path: Path | str) -> "LearnedRanker":
        return cls(read_model(path), str(path))

    def scores(self, features: np.ndarray) -> np.ndarray:
        """One score per candidate (higher = better); only their order means something."""
        return np.asarray(self.booster.predict(features, num_threads=1), dtype=np.float64)

    def top_features(self, features: np.ndarray, k: int = 3) -> list[list[tuple[str, float]]]:
        """Per candidate, the `k` features that moved its score most (SHAP contributions)."""
        contrib = np.asarray(self.booster.predict(features, pred_contrib=True, num_threads=1))[:, :-1]
        out = []
        for row in contrib:
            best = np.argsort(-np.abs(row), kind="stable")[:k]
            out.append([(FEATURES[i], round(float(row[i]), 4)) for i in best])
        return out


def learned_relevance(relevance_rest: np.ndarray, model_scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(the candidates' new relevance, the other rows' relevance), for candidates given in
    today's order: the model orders its candidates (equal scores keep today's order) on
    distinct steps from 2 down, every other row stays below them in today's order."""
    order = np.lexsort((np.arange(len(model_scores)), -model_scores))
    top = np.empty(len(model_scores))
    top[order] = 2.0 - np.arange(len(model_scores)) / max(len(model_scores), 1)
    rest = relevance_rest
    if len(rest):
        rest = 0.5 * rest / max(float(np.abs(rest).max()), 1e-9)
    return top, rest
