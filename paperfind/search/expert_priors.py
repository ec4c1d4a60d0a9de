"""Re-weightings of the expert voting measured for issue 30 (all off by default).

Each reads only what the voting already holds (the eligible rows, the people's papers) and
re-orders the voting's first people before the signature phrases and the group spread:

- **activity** (`ExpertSettings.inactive_penalty`): someone with no eligible work in the
  `active_years` years up to the query's reference year is less likely to publish this year
  than someone who did, whatever matched; not the recency weight (which weighs the *matching*
  papers by age), but a prior on the person.
- **co-authors' votes** (`coauthor_share`): a person gains a share of the best vote among their
  recent co-authors in the voting's first people: a student whose advisor is voted high.
- **the evidence's venue** (`venue_weight`): papers of the query's own venue family (ML, vision,
  language) count more, when the query has one (a paper's page asks for its own venue).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from paperfind.index.profiles import PersonProfiles
from paperfind.search.settings import ExpertSettings

if TYPE_CHECKING:
    from paperfind.search.experts import Expert

# venues whose papers share reviewers and readers; a venue outside them is its own family
VENUE_FAMILIES = {
    "nips": "ml", "icml": "ml", "iclr": "ml", "aistats": "ml", "colt": "ml", "uai": "ml",
    "cvpr": "vision", "iccv": "vision", "eccv": "vision",
    "acl": "language", "emnlp": "language", "naacl": "language", "colm": "language",
}


def venue_family(venue: str) -> str:
    return VENUE_FAMILIES.get(venue, venue)


def implied_venue(docs, rows: np.ndarray, score: np.ndarray, settings: ExpertSettings) -> str:
    """The venue of most of the score among the `venue_infer_papers` best papers (a query
    without a venue of its own: its best matches' venue family stands for it)."""
    if settings.venue_infer_papers <= 0 or not len(rows):
        return ""
    best = np.argsort(-score, kind="stable")[:settings.venue_infer_papers]
    labels = docs.labels["venue"]
    mass: dict[str, float] = {}
    for code, s in zip(np.asarray(docs.venue[rows[best]]).tolist(), score[best].tolist()):
        family = venue_family(labels[int(code)])
        mass[family] = mass.get(family, 0.0) + float(s)
    return max(sorted(mass), key=lambda f: mass[f]) if mass else ""


def venue_factors(docs, rows: np.ndarray, venue: str, settings: ExpertSettings) -> np.ndarray:
    """x (1 + `venue_weight`) for the papers of `venue`'s family among `rows`, 1 for the rest."""
    if settings.venue_weight <= 0 or not venue or not len(rows):
        return np.ones(len(rows))
    family = venue_family(venue)
    same = np.array([venue_family(label) == family for label in docs.labels["venue"]], dtype=bool)
    return np.where(same[np.asarray(docs.venue[rows], dtype=np.int64)], 1.0 + settings.venue_weight, 1.0)


def _recent_rows(docs, profiles: PersonProfiles, author_id: int, eligible: np.ndarray | None,
                 first_year: int) -> np.ndarray:
    """The person's eligible rows published from `first_year` on."""
    rows = profiles.rows_of(author_id)
    if eligible is not None:
        rows = rows[eligible[rows]]
    return rows[np.asarray(docs.year[rows]) >= first_year]


def by_activity(docs, profiles: PersonProfiles, experts: list["Expert"], eligible: np.ndarray | None,
                reference_year: int, settings: ExpertSettings) -> list["Expert"]:
    """The first `prior_depth` people, those without an eligible work in the last `active_years`
    years (the reference year included) scaled by 1 - `inactive_penalty`, re-sorted."""
    if settings.inactive_penalty <= 0 or not experts:
        return experts
    head, tail = experts[:settings.prior_depth], experts[settings.prior_depth:]
    first_year = reference_year - settings.active_years + 1
    scaled = [e if len(_recent_rows(docs, profiles, e.author_id, eligible, first_year))
              else replace(e, score=e.score * (1.0 - settings.inactive_penalty)) for e in head]
    scaled.sort(key=lambda e: (-e.score, e.author_id))
    return scaled + tail


def by_coauthors(docs, profiles: PersonProfiles, experts: list["Expert"], eligible: np.ndarray | None,
                 reference_year: int, settings: ExpertSettings) -> list["Expert"]:
    """The first `prior_depth` people, each gaining `coauthor_share` x the best vote among their
    co-authors (of eligible papers of the last `coauthor_years` years) in that head, re-sorted."""
    if settings.coauthor_share <= 0 or len(experts) < 2:
        return experts
    head, tail = experts[:settings.prior_depth], experts[settings.prior_depth:]
    vote = {e.author_id: e.score for e in head}
    first_year = reference_year - settings.coauthor_years + 1
    raised = []
    for e in head:
        best = 0.0
        for row in _recent_rows(docs, profiles, e.author_id, eligible, first_year).tolist():
            for other in docs.authors_of(row).tolist():
                if other != e.author_id and other in vote:
                    best = max(best, vote[int(other)])
        raised.append(replace(e, score=e.score + settings.coauthor_share * best))
    raised.sort(key=lambda e: (-e.score, e.author_id))
    return raised + tail
