"""A query that is a paper's name ("BigGAN", "mixup", "AdamW") puts that paper first.

The names come from the index (`paperfind.index.paper_names`): the paper that introduced a
name, or that later papers call by it. When the whole query is such a name, the papers it
names are candidates whatever their words ("AdamW" is nowhere in "Decoupled Weight Decay
Regularization") and rank above every other match, best standing first; the follow-ups and
the papers that only mention the name come after, in today's order. Longer queries and people's
names are never read as a paper's name; a Chinese query is, by the English it was read as
(权重归一化 → "weight normalization").
"""

from __future__ import annotations

import numpy as np

from paperfind.search.backend import SearchBackend
from paperfind.search.plan import QueryPlan
from paperfind.search.query import ParsedQuery
from paperfind.text.fold import has_han

MAX_NAME_WORDS = 4  # "deep equilibrium models" may be a name; a question is not
MAX_NAMED = 5  # papers one name may put first (homonyms: three papers are "DINO")
_NONE = np.zeros(0, dtype=np.int64)


def named_papers(backend: SearchBackend, q: ParsedQuery, plan: QueryPlan) -> np.ndarray:
    """Handles of the papers the query is the name of, best first; none for other queries."""
    text = q.text.strip()
    if has_han(text):
        text = plan.translation.strip()
    if (not text or not plan.groups or plan.person_is_query or q.titles or q.authors
            or len(text.split()) > MAX_NAME_WORDS):
        return _NONE
    return backend.paper_names(text)[:MAX_NAMED]


def name_tier(handles: np.ndarray, relevance: np.ndarray, named: np.ndarray) -> np.ndarray:
    """`relevance` with the named papers above every other candidate, in the order given."""
    out = np.array(relevance, dtype=np.float64, copy=True)
    if len(named) == 0 or len(handles) == 0:
        return out
    top = float(out.max())
    for i, handle in enumerate(named.tolist()):
        out[handles == handle] = top + 1.0 + (len(named) - i) / len(named)
    return out
