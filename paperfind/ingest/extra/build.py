"""Turning a source's field values into `Record` fields, shared by the recent-venue adapters.

The OpenReview-derived files share conventions (`;`-joined authors, `~First_Last1` profile
ids, `+` between several affiliations of one author, decisions written as venue strings
such as "Submitted to ICLR 2025"), and they share their quirks too: in the Paper Copilot
author files `aff` follows `or_profile`, whose order (and sometimes id) differs from
`author`/`authorids`; in the 2022-2024 venue files `aff` skips authors without a profile
entry, so it cannot be lined up with the authors at all. Both are handled here, once.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from urllib.parse import parse_qs, urlparse

from paperfind.catalog.institutions import resolve_affiliation
from paperfind.catalog.venues import normalize_status
from paperfind.model import Affiliation, AuthorSlot, BadRecord, Record
from paperfind.text.clean import clean_text, clean_title
from paperfind.text.names import clean_name, name_key, split_authors

_PROFILE_SUFFIX = re.compile(r"\d+$")
_VENUE_PREFIX = re.compile(r"^\s*[A-Za-z&.]+\s+(?:\d{4}\s+)?(?:conference\s+)?", re.IGNORECASE)
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
_FORUM_PATH = re.compile(r"/forum/?$")
_TITLE_COMMAND = re.compile(r"^\s*\\title\{(.*)\}\s*$", re.DOTALL)  # "\title{...}" as typed
# What some files put where an affiliation is missing.
_NO_AFFILIATION = {"", "affiliation", "n/a", "na", "none", "unknown", "-"}


def new_record(path: Path, index: int, venue: str, year: int, title: object,
               **fields: object) -> Record | BadRecord:
    """A record with a cleaned title, or a `BadRecord` saying the title is missing."""
    if isinstance(title, str):
        title = _TITLE_COMMAND.sub(r"\1", title)
    text = clean_title(title) if isinstance(title, str) else ""
    if not text:
        return BadRecord(str(path), index, "no title")
    return Record(venue=venue, year=year, title=text, source=str(path), source_index=index,
                  **fields)  # type: ignore[arg-type]


def text(value: object) -> str:
    """Cleaned free text of a field that may be missing or not a string."""
    return clean_text(value) if isinstance(value, str) else ""


def forum_id_from_url(url: object) -> str:
    """The OpenReview forum id in `https://openreview.net/forum?id=XYZ`, else ""."""
    if not isinstance(url, str) or "openreview" not in url:
        return ""
    parsed = urlparse(url.strip())
    if not _FORUM_PATH.search(parsed.path):
        return ""
    return (parse_qs(parsed.query).get("id") or [""])[0].strip()


def openreview_links(forum_id: str, pdf: object = "") -> dict[str, str]:
    links = {"openreview": f"https://openreview.net/forum?id={forum_id}"} if forum_id else {}
    if isinstance(pdf, str) and pdf.strip():
        pdf = pdf.strip()
        links["pdf"] = pdf if pdf.startswith("http") else f"https://openreview.net{pdf}"
    return links


def crawled_paper(path: Path, index: int, venue: str, year: int, cell: dict[str, str],
                  **fields: object) -> Record | BadRecord:
    """A row of an OpenReview crawl (`paper_id` or the forum link, title, abstract, keywords),
    the shape the evanzd and NeurIPS OpenReviewData crawlers share."""
    forum_id = cell["paper_id"].strip() or forum_id_from_url(cell.get("link"))
    if not forum_id:
        return BadRecord(str(path), index, "empty 'paper_id' and no forum link")
    return new_record(path, index, venue, year, cell["title"], source_id=forum_id, forum_id=forum_id,
                      abstract=text(cell["abstract"]), keywords=split_keywords(cell.get("keywords")),
                      links=openreview_links(forum_id), **fields)


def split_keywords(raw: object) -> list[str]:
    """Author keywords from a `;`- or `,`-joined string or a list of such strings."""
    items = raw if isinstance(raw, list) else [raw]
    out: list[str] = []
    for item in items:
        if not isinstance(item, str):
            continue
        parts = item.split(";") if ";" in item else item.split(",")
        for part in parts:
            word = clean_text(part).strip(" .")
            if word and word.casefold() not in {w.casefold() for w in out}:
                out.append(word)
    return out


def format_area(raw: object) -> str:
    """A subject area for display; hierarchical "Area->Subarea" values become "Area · Subarea"."""
    if not isinstance(raw, str):
        return ""
    parts = [clean_text(p) for p in re.split(r"\s*->\s*", raw)]
    return " · ".join(p for p in parts if p)


def status_from_venue(venue: object, decided: bool) -> str:
    """The status an OpenReview venue string states ("ICLR 2025 Poster", "Submitted to ...").

    "Submitted to X" and "X Conference Submission" mean no decision was attached: in a
    crawl made after the decisions (`decided`) that is a rejection, during review it is a
    submission still under review.
    """
    if not isinstance(venue, str) or not venue.strip():
        return ""
    low = venue.lower()
    if "withdrawn" in low:
        return "Withdraw"
    if "desk reject" in low:
        return "Desk Reject"
    if low.startswith("submitted to") or low.endswith("submission"):
        return "Reject" if decided else "Under Review"
    if "reject" in low:
        return "Reject"
    rest = _VENUE_PREFIX.sub("", venue).strip() or venue.strip()
    return normalize_status(_CAMEL.sub(" ", rest))


# The same institution strings recur thousands of times; `Affiliation` is frozen, so
# one resolved value can be shared by every slot that names it.
resolve = lru_cache(maxsize=200_000)(resolve_affiliation)


def affiliations_of(raw: str) -> list[Affiliation]:
    """The affiliations of one author slot: `+` joins several."""
    return [resolve(part.strip()) for part in raw.split("+")
            if part.strip().casefold() not in _NO_AFFILIATION]


def paper_level_affiliations(raws: list[str]) -> list[Affiliation]:
    """A de-duplicated institution set for the paper, in first-seen order."""
    seen: set[str] = set()
    out: list[Affiliation] = []
    for raw in raws:
        for aff in affiliations_of(raw):
            ident = aff.slug or aff.raw.casefold()
            if ident not in seen:
                seen.add(ident)
                out.append(aff)
    return out


def name_of_profile(profile_id: str) -> str:
    """The folded name an OpenReview profile id spells: `~KEIYA_HIRASHIMA1` → "keiya hirashima"."""
    return name_key(_PROFILE_SUFFIX.sub("", profile_id.lstrip("~")).replace("_", " "))


def _split_ids(raw: object) -> list[str]:
    return [p.strip() for p in raw.split(";")] if isinstance(raw, str) and raw.strip() else []


def _align_profiles(names: list[str], ids: list[str], profiles: list[str]) -> list[int | None]:
    """For each `or_profile` position, the author position it belongs to (or None)."""
    targets: list[int | None] = [None] * len(profiles)
    free = set(range(len(names)))
    keys = [(ids[i] if i < len(ids) else "", name_key(names[i]),
             name_of_profile(ids[i]) if i < len(ids) and ids[i] else "") for i in range(len(names))]
    for j, prof in enumerate(profiles):  # same id
        hit = [i for i in sorted(free) if prof and keys[i][0] == prof]
        if len(hit) == 1:
            targets[j] = hit[0]
            free.discard(hit[0])
    for j, prof in enumerate(profiles):  # same name, spelled by the profile id
        if targets[j] is None and prof:
            name = name_of_profile(prof)
            hit = [i for i in sorted(free) if name in (keys[i][1], keys[i][2])]
            if len(hit) == 1:
                targets[j] = hit[0]
                free.discard(hit[0])
    left = [j for j, t in enumerate(targets) if t is None]
    if len(left) == 1 and len(free) == 1:
        targets[left[0]] = free.pop()
    return targets


def openreview_authors(item: dict) -> tuple[list[AuthorSlot], list[Affiliation]]:
    """(author slots in paper order, paper-level affiliations) of a Paper Copilot record.

    Affiliations go to the author they belong to when the source makes that certain;
    otherwise they are kept as the paper's institutions, never guessed onto an author.
    """
    names = [clean_name(n) for n in split_authors(item.get("author"))]
    ids = _split_ids(item.get("authorids"))
    profiles = _split_ids(item.get("or_profile"))
    affs = [a.strip() for a in item["aff"].split(";")] if isinstance(item.get("aff"), str) else []
    slots = [AuthorSlot(name=n, profile_id=ids[i] if i < len(ids) and len(ids) == len(names) else "")
             for i, n in enumerate(names)]
    if profiles and profiles != ids and len(profiles) == len(names):
        targets = _align_profiles(names, ids if len(ids) == len(names) else [], profiles)
    else:
        targets = list(range(len(names)))
    for j, target in enumerate(targets):
        if target is not None and j < len(profiles) and profiles[j] != slots[target].profile_id:
            if slots[target].profile_id:
                slots[target].alias_profile_id = profiles[j]
            else:
                slots[target].profile_id = profiles[j]
    if not affs or not any(affs):
        return [s for s in slots if s.name], []
    if len(affs) == len(names) and all(t is not None for t in targets):
        for j, target in enumerate(targets):
            slots[target].affiliations = affiliations_of(affs[j])  # type: ignore[index]
        return [s for s in slots if s.name], []
    return [s for s in slots if s.name], paper_level_affiliations(affs)


def plain_authors(names: list[str], affiliations: list[str] | None = None) -> list[AuthorSlot]:
    """Author slots from names (and, when aligned, one affiliation string each)."""
    slots = []
    for i, raw in enumerate(names):
        name = clean_name(raw)
        if not name:
            continue
        affs = affiliations[i] if affiliations and i < len(affiliations) else ""
        slots.append(AuthorSlot(name=name, affiliations=affiliations_of(affs) if affs else []))
    return slots
