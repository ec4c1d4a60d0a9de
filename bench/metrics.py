"""Runs and their figures: the dev sets' scorer, the rank metrics computed in process, percentiles.

The figures recorded in bench/RESULTS.md come from ../shared/eval-dev/score.py (`score`); the
in-process metrics serve experiments that score thousands of variants and must agree with it.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Iterable, Sequence

from bench.corpus import EVAL, set_file


def write_run(path: Path, ranked: dict[str, list[str]]) -> None:
    """A run file as score.py reads it: one {"qid", "ranked"} line per query."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        for qid, keys in ranked.items():
            f.write(json.dumps({"qid": qid, "ranked": keys}) + "\n")


def score(set_name: str, run: Path, *options: str) -> dict:
    """Figures of `score.py --json` for a run of a dev set ({"metrics": ..., "by": ...})."""
    cmd = [sys.executable, str(EVAL / "score.py"), str(set_file(set_name)), str(run),
           "--json", *options]
    return json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)


def score_ranked(set_name: str, ranked: dict[str, list[str]], *options: str) -> dict:
    """`score` of runs held in memory (written to a temporary file for score.py)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "run.jsonl"
        write_run(path, ranked)
        return score(set_name, path, *options)


def reciprocal_rank(ranked: Sequence[str], relevant: Iterable[str], k: int = 10) -> float:
    """1 / rank of the first relevant key in the top k, 0 when none is there (score.py's MRR@k)."""
    relevant = set(relevant)
    return next((1.0 / (i + 1) for i, key in enumerate(ranked[:k]) if key in relevant), 0.0)


def mrr(runs: Iterable[Sequence[str]], relevant: Iterable[Iterable[str]], k: int = 10) -> float:
    """Mean reciprocal rank at k over queries (runs and relevant sets in the same order)."""
    ranks = [reciprocal_rank(r, rel, k) for r, rel in zip(runs, relevant)]
    return sum(ranks) / len(ranks) if ranks else 0.0


def recall(ranked: Sequence[str], relevant: Iterable[str], k: int = 10) -> float:
    """Share of the relevant keys in the top k (score.py's R@k)."""
    relevant = set(relevant)
    return len(relevant & set(ranked[:k])) / len(relevant) if relevant else 0.0


def percentile(values: list[float], p: float) -> float:
    """The nearest-rank `p`th percentile (0 for no values), as every timing bench reports it."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))] if ordered else 0.0


def p50_p95(values: list[float]) -> tuple[float, float]:
    """The median and the 95th percentile, the pair the latency tables print."""
    return percentile(values, 50), percentile(values, 95)
