"""Joining the semantic route to the lexical one, in the backend's row space.

The fusion rule itself (a convex sum of normalised lexical score and rescaled cosine, with a
weight per query kind) lives in `paperfind.search.fusion`; this module feeds it the lexical
ranking's head and the vector candidates, and puts the fused order back into rows. Rows
beyond the fused head keep their lexical order below it.
"""

from __future__ import annotations

import numpy as np

from paperfind.search.rank import top_order

FUSION_DEPTH = 1000  # lexical rows handed to the fusion


def fuse_rows(text: str, rows: np.ndarray, relevance: np.ndarray,
              vec_rows: np.ndarray, vec_scores: np.ndarray, mode: str,
              is_name: bool) -> tuple[np.ndarray, np.ndarray, str]:
    """(rows, relevance, mode used) after fusing the vector candidates into the lexical ranking."""
    from paperfind.search.fusion import QUERY_KINDS, fuse_arrays

    if mode == "semantic":
        return vec_rows.astype(np.int64), vec_scores.astype(np.float64), "semantic"
    head = top_order(rows, relevance, FUSION_DEPTH)
    in_head = np.zeros(len(rows), dtype=bool)
    in_head[head] = True
    tail = np.flatnonzero(~in_head)
    # rows are papers in key order, so rows serve as the fusion's keys (its ties go by key)
    fused_rows, fused_scores = fuse_arrays(text, rows[head], relevance[head], vec_rows, vec_scores,
                                           kind=QUERY_KINDS["name"] if is_name else None)
    tail = tail[~np.isin(rows[tail], fused_rows)]  # vector candidates from the lexical tail moved up
    out_rows = np.concatenate([fused_rows, rows[tail].astype(np.int64)])
    floor = float(fused_scores.min()) if len(fused_scores) else 1.0
    rest = relevance[tail]
    rest = floor * 0.5 * rest / max(float(rest.max()), 1e-9) if len(rest) else rest
    return out_rows, np.concatenate([fused_scores, rest]), "hybrid"
