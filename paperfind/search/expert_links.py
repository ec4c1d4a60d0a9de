"""The query's code links: people whose own earlier papers link the same GitHub account.

An abstract that gives its code's place ("github.com/OWNER/repo", "OWNER.github.io") names the
account its group keeps, and a group links the same account from paper to paper: when the
query links one, the people of the eligible papers linking it (`before` and the filters, as the
voting's) hold its authors far more often than not (on the three dev sets: 109 of 600 abstracts
link an account, 40 an account an earlier paper links, and those papers' people hold one of
the query's own authors in 32 of the 40). Each of the voting's listed people among them gains
`link_weight` x the best vote among them, after the signature phrases and before the group
spread, so the link lifts people the voting found and never lists someone with no matching
paper. Measured in process on every dev set (bench/RESULTS.md, issue 30, exp31).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from paperfind.index.code_links import code_accounts
from paperfind.search.backend import IndexBackend
from paperfind.search.settings import ExpertSettings

SCORE_DECIMALS = 6


def linked_people(local: IndexBackend, text: str, eligible: np.ndarray | None) -> frozenset[int]:
    """The people of the eligible papers that link a GitHub account `text` links."""
    accounts = code_accounts(text)
    if not accounts:
        return frozenset()
    rows = local.code_links().rows_of(accounts)
    if eligible is not None and len(rows):
        rows = rows[np.asarray(eligible, dtype=bool)[rows]]
    docs = local.index.docs
    return frozenset(int(a) for r in rows.tolist() for a in docs.authors_of(r) if int(a) > 0)


def by_links(experts: list, people: frozenset[int], settings: ExpertSettings) -> list:
    """`experts` (best first) with the `people` among them lifted by `link_weight` x the best
    score, re-ordered; unchanged when off or when none of them is listed."""
    if settings.link_weight <= 0 or not people or not experts:
        return experts
    if not any(e.author_id in people for e in experts):
        return experts
    lift = settings.link_weight * max(e.score for e in experts)
    lifted = [replace(e, score=round(e.score + lift, SCORE_DECIMALS)) if e.author_id in people else e
              for e in experts]
    lifted.sort(key=lambda e: (-e.score, e.author_id))
    return lifted
