"""Combine the records several sources give for one paper, and match title-only records.

Sources are good at different things: one recent-venue file has the abstract, another the
ordered authors with their affiliations, a third the decision. So each field is taken from
the record that is best *for that field*, by rules that look at the values (a real
abstract, an ordered author list with profile ids, a final decision over a review-time
state); the order of `records` (best source first, as the store loads them) only breaks
ties, which keeps the result deterministic.

Title-only sources have no forum id; `match_by_title` decides which existing paper of the
same venue-year and normalised title such a record describes, and refuses to choose when
that is not certain: two different papers are never merged.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

from paperfind.model import AuthorSlot, Record
from paperfind.store.reviews import best_reviews
from paperfind.text.names import initial_form, name_key

MIN_ABSTRACT_CHARS = 50  # below this an "abstract" is a placeholder or a fragment
_ELLIPSIS = ("...", "…")
# How final a status is: a decision beats a review-time state, a withdrawal or desk
# rejection ends a submission whatever was decided before, a presentation type says more
# than a bare Accept.
_FINALITY = {"": 0, "Under Review": 1, "Accept": 2, "Reject": 2, "Withdraw": 4, "Desk Reject": 4}
_PRESENTATION = 3  # Oral, Spotlight, Poster, Highlight, ... and any other decided value


@dataclass(frozen=True)
class Ambiguous:
    """A title match the store must not make, with the reason to report."""

    keys: tuple[str, ...]
    reason: str

    def __str__(self) -> str:
        return f"{self.reason} ({', '.join(self.keys)})"


def _abstract_rank(record: Record) -> tuple[int, int]:
    text = record.abstract.strip()
    if len(text) < MIN_ABSTRACT_CHARS:
        return (0, 0)
    return (1 if text.endswith(_ELLIPSIS) else 2, len(text))


def _authors_rank(record: Record) -> tuple[int, int, int, int]:
    slots = record.authors
    return (int(bool(slots)), int(record.authors_ordered),
            int(any(s.profile_id for s in slots)), sum(1 for s in slots if s.affiliations))


def _status_rank(status: str) -> int:
    return _FINALITY.get(status, _PRESENTATION)


def _best(records: list[Record], rank) -> Record:
    """The best record by `rank`; the earlier (higher-priority) one on a tie."""
    return max(records, key=rank)  # max keeps the first of equal maxima


def _first(records: list[Record], name: str):
    for record in records:
        value = getattr(record, name)
        if value not in ("", None, [], {}):
            return value
    return getattr(records[0], name)


def _complete_slots(slots: list[AuthorSlot], others: list[Record]) -> list[AuthorSlot]:
    """The chosen slots, with affiliations and profile ids another source gives the same name."""
    by_name: dict[str, list[AuthorSlot]] = {}
    for record in others:
        seen = set()
        for slot in record.authors:
            key = name_key(slot.name)
            if key and key not in seen:
                seen.add(key)
                by_name.setdefault(key, []).append(slot)
    out = []
    for slot in slots:
        # a copy, so completing it leaves the source's record as it was (`replace` was 4x slower)
        slot = AuthorSlot(slot.name, slot.profile_id, slot.alias_profile_id,
                          list(slot.affiliations))
        if not by_name:
            out.append(slot)
            continue
        for other in by_name.get(name_key(slot.name), []):
            if not slot.affiliations and other.affiliations:
                slot.affiliations = list(other.affiliations)
            if not slot.profile_id and other.profile_id:
                slot.profile_id = other.profile_id
        out.append(slot)
    return out


def merge_records(records: list[Record]) -> Record:
    """The paper as its sources together describe it; `records` best source first."""
    if not records:
        raise ValueError("merge_records needs at least one record")
    head = records[0]
    authored = _best(records, _authors_rank)
    others = [r for r in records if r is not authored and r.authors_ordered]
    authors = _complete_slots(authored.authors, others)
    paper_affs = _first(records, "paper_affiliations")
    if authors and all(s.affiliations for s in authors):
        paper_affs = []
    links: dict[str, str] = {}
    for record in reversed(records):
        links.update(record.links)
    return dataclasses.replace(
        head,
        title=_first(records, "title"),
        abstract=_best(records, _abstract_rank).abstract if any(
            _abstract_rank(r)[0] for r in records) else "",
        tldr=_first(records, "tldr"),
        authors=authors,
        authors_ordered=authored.authors_ordered if authors else True,
        paper_affiliations=list(paper_affs),
        keywords=list(_first(records, "keywords")),
        status=_best(records, lambda r: _status_rank(r.status)).status,
        track=_first(records, "track"),
        area=_first(records, "area"),
        links=dict(sorted(links.items())),
        bibtex=_first(records, "bibtex"),
        citations=next((r.citations for r in records if r.citations is not None), None),
        forum_id=_first(records, "forum_id"),
        source_id=_first(records, "source_id"),
        reviews=best_reviews(records),
    )


def _name_keys(slot: AuthorSlot) -> set[str]:
    """Keys under which two spellings of one name meet: the folded name, initials + last
    name, and first + last name (so "Bruce W McIntosh" meets "Bruce McIntosh")."""
    folded = name_key(slot.name)
    if not folded:
        return set()
    tokens = folded.split()
    return {folded, "i:" + initial_form(slot.name), f"fl:{tokens[0]} {tokens[-1]}"}


def author_overlap(a: list[AuthorSlot], b: list[AuthorSlot]) -> int:
    """How many authors of `a` appear in `b` (by folded name, or initials and last name)."""
    pool = [_name_keys(s) for s in b]
    count = 0
    for slot in a:
        keys = _name_keys(slot)
        for j, other in enumerate(pool):
            if keys & other:
                pool[j] = set()
                count += 1
                break
    return count


def _same_authors(a: list[AuthorSlot], b: list[AuthorSlot]) -> bool:
    """At least half of the shorter list is in the other one."""
    if not a or not b:
        return True  # nothing to contradict the title
    return author_overlap(a, b) >= max(1, math.ceil(min(len(a), len(b)) / 2))


def match_by_title(record: Record, candidates: list[tuple[str, Record]]) -> str | None | Ambiguous:
    """The key of the paper `record` describes among same-title candidates of its venue-year.

    None when no candidate fits (it is a different paper: it stays apart); `Ambiguous` when
    several do and choosing one could merge two papers.
    """
    fitting = [key for key, paper in candidates
               if not (record.forum_id and paper.forum_id and record.forum_id != paper.forum_id)
               and _same_authors(record.authors, paper.authors)]
    if len(fitting) == 1:
        return fitting[0]
    if not fitting:
        return None
    with_authors = [key for key, paper in candidates if key in fitting and paper.authors]
    if record.authors and len(with_authors) == 1:
        return with_authors[0]  # the only one whose authors confirm the title
    return Ambiguous(tuple(sorted(fitting)), f"{len(fitting)} papers of {record.venue} {record.year} "
                                             f"have this title and fit its authors")
