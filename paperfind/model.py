"""The shapes passed between stages, so no stage sees another's quirks.

Readers yield a `Record` per paper (or a `BadRecord`, and the rest of the file still goes in);
the store hands the index an `IndexDoc` per paper and an `AuthorEntry` per person.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Affiliation:
    """One institution an author gave on one paper.

    `raw` is the string as printed; `slug` the resolved institution (`pku`,
    `microsoft-research`), empty when nothing could be resolved.
    """

    raw: str
    slug: str = ""
    name: str = ""
    country: str = ""


@dataclass
class AuthorSlot:
    """An author as printed on one paper, before people are resolved."""

    name: str
    profile_id: str = ""  # OpenReview `~First_Last1`, when the source has one
    alias_profile_id: str = ""  # a second id for the same slot (authorids vs or_profile)
    affiliations: list[Affiliation] = field(default_factory=list)


@dataclass
class Reviews:
    """A paper's review scores as one source gives them (`paperfind.ingest.reviews` reads them).

    `ratings` and `confidences` are per review, in the source's order (`confidences` empty when
    the source has none); `mean` is the source's own mean where it gives only that (ICLR 2026's
    lists), so `ratings` may be empty. `scale` is the venue-year's rating scale
    (`paperfind.catalog.rating_scales`), `initial` marks scores taken before the rebuttal.
    """

    mean: float
    ratings: list[float] = field(default_factory=list)
    confidences: list[float] = field(default_factory=list)
    decision: str = ""
    scale: str = ""
    initial: bool = False

    @property
    def count(self) -> int:
        return len(self.ratings)

    @classmethod
    def from_json(cls, data: object) -> "Reviews":
        """Reviews from their JSON object; raises `ValueError` naming the bad field."""
        if not isinstance(data, dict):
            raise ValueError("field 'reviews' must be an object")
        unknown = sorted(set(data) - {f.name for f in dataclasses.fields(cls)})
        if unknown:
            raise ValueError(f"field 'reviews' has unknown field(s): {', '.join(unknown)}")
        try:
            return cls(mean=float(data["mean"]),
                       ratings=[float(x) for x in data.get("ratings") or []],
                       confidences=[float(x) for x in data.get("confidences") or []],
                       decision=str(data.get("decision") or ""), scale=str(data.get("scale") or ""),
                       initial=bool(data.get("initial", False)))
        except (KeyError, TypeError, ValueError):
            raise ValueError("field 'reviews' needs a numeric 'mean' and numeric "
                             "'ratings'/'confidences' lists") from None


@dataclass
class Record:
    """One paper as a source describes it, normalised.

    `venue` is the lower-case folder name of the paperlists data (`nips`, `iclr`), which is
    also the prefix of the paper key; display names come from `catalog.venues.display_name`.
    """

    venue: str
    year: int
    source_id: str  # the source's id; "" when the source has none
    title: str
    abstract: str = ""
    tldr: str = ""
    authors: list[AuthorSlot] = field(default_factory=list)
    authors_ordered: bool = True  # False where a source sorts authors alphabetically
    # Institutions a source lists for the paper as a whole, not tied to one author (a
    # de-duplicated set, or an `aff` list that does not line up with the authors).
    paper_affiliations: list[Affiliation] = field(default_factory=list)
    keywords: list[str] = field(default_factory=list)
    status: str = ""  # Oral, Spotlight, Poster, Reject, Withdraw, ...
    track: str = ""
    area: str = ""  # "Area · Subarea" or the venue's primary area
    links: dict[str, str] = field(default_factory=dict)  # site, pdf, openreview, code, project, arxiv
    bibtex: str = ""
    citations: int | None = None
    forum_id: str = ""  # OpenReview forum id, the join key across recent-venue sources
    source: str = ""  # the file the record came from
    source_index: int = -1  # its position in that file
    key: str = ""  # `{venue}{year}:{id}`, filled by `assign_key` when empty
    reviews: Reviews | None = None  # review scores, where the source has them

    def content_json(self) -> str:
        """Everything the record says but its provenance (file and key), as canonical JSON.

        The store keeps this text and its `content_digest`, so ingest serialises a record once.
        """
        data = dict(self.__dict__)  # `to_json` without its copies: dumps only reads
        del data["source"], data["key"], data["source_index"]
        data["authors"] = [{**slot.__dict__, "affiliations": [a.__dict__ for a in slot.affiliations]}
                           for slot in self.authors]
        data["paper_affiliations"] = [a.__dict__ for a in self.paper_affiliations]
        _reviews_plain(data)
        return json.dumps(data, sort_keys=True, ensure_ascii=False)

    def content_hash(self) -> str:
        """A hash of everything but provenance, to tell a changed record from an unchanged one."""
        return content_digest(self.content_json())

    def to_json(self) -> dict[str, Any]:
        """The export line of this record: the JSON Lines format paperfind reads back."""
        data = _plain(self)
        data.pop("source_index")
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Record":
        """Build a record from an export line; raises `ValueError` naming the bad field."""
        if not isinstance(data, dict):
            raise ValueError("line is not a JSON object")
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"unknown field(s): {', '.join(unknown)}")
        for name in ("venue", "title"):
            if not isinstance(data.get(name), str) or not data.get(name).strip():
                raise ValueError(f"field '{name}' must be a non-empty string")
        try:
            year = int(data.get("year"))
        except (TypeError, ValueError):
            raise ValueError("field 'year' must be an integer") from None
        authors = []
        for i, slot in enumerate(data.get("authors") or []):
            if not isinstance(slot, dict) or not isinstance(slot.get("name"), str):
                raise ValueError(f"field 'authors[{i}]' must be an object with a 'name'")
            affs = [Affiliation(**a) if isinstance(a, dict) else Affiliation(raw=str(a))
                    for a in slot.get("affiliations") or []]
            authors.append(AuthorSlot(
                name=slot["name"], profile_id=str(slot.get("profile_id") or ""),
                alias_profile_id=str(slot.get("alias_profile_id") or ""), affiliations=affs))
        paper_affs = data.get("paper_affiliations") or []
        if not isinstance(paper_affs, list):
            raise ValueError("field 'paper_affiliations' must be a list")
        values = {k: v for k, v in data.items() if k in known}
        if values.get("reviews") is not None:
            values["reviews"] = Reviews.from_json(values["reviews"])
        values.update(year=year, authors=authors, paper_affiliations=[
            Affiliation(**a) if isinstance(a, dict) else Affiliation(raw=str(a)) for a in paper_affs])
        for name in ("keywords",):
            if not isinstance(values.get(name, []), list):
                raise ValueError(f"field '{name}' must be a list")
        if not isinstance(values.get("links", {}), dict):
            raise ValueError("field 'links' must be an object")
        return cls(**values)


@dataclass(frozen=True)
class BadRecord:
    """One record of a file that was skipped, with the reason a user can act on."""

    source: str
    index: int
    reason: str

    def __str__(self) -> str:
        return f"{self.source}: record {self.index}: {self.reason}"


@dataclass
class IndexDoc:
    """One paper as the search index sees it: searchable text plus filter/facet values."""

    key: str
    title: str
    abstract: str
    authors: list[str]
    author_ids: list[int]  # same order as `authors`; the store's person ids
    keywords: list[str]
    venue: str  # lower-case venue slug, `iclr`
    venue_name: str  # display name, `ICLR`
    year: int
    status: str  # the status true today (paperfind.catalog.decisions.shown_status)
    area: str
    institutions: list[str]  # institution slugs
    citations: int | None
    work_id: int
    track: str = ""  # the venue's track, shown where a paper has no area
    links: dict[str, str] = field(default_factory=dict)  # pdf, openreview, site, ...: on its card
    source_status: str | None = None  # what the sources said, when it differs from `status`
    reviews: dict[str, Any] | None = None  # {"mean", "count", "scale"} where it has scores


@dataclass
class AuthorEntry:
    """One resolved person: what an author card shows and what name lookups match."""

    id: int
    slug: str
    name: str
    aliases: list[str] = field(default_factory=list)
    paper_count: int = 0  # papers with this person among their authors, each version once
    work_count: int = 0  # the works they are: a work's versions count once (what pages list)
    institutions: list[str] = field(default_factory=list)  # slugs, most frequent first
    years: tuple[int, int] = (0, 0)


def _plain(record: "Record") -> dict[str, Any]:
    """The record as plain dicts and lists: `dataclasses.asdict` without its generic deep
    copies, which took a third of the ingest time."""
    data = dict(record.__dict__)
    authors = []
    for slot in record.authors:
        plain = dict(slot.__dict__)
        plain["affiliations"] = [dict(a.__dict__) for a in slot.affiliations]
        authors.append(plain)
    data["authors"] = authors
    data["paper_affiliations"] = [dict(a.__dict__) for a in record.paper_affiliations]
    data["keywords"] = list(record.keywords)
    data["links"] = dict(record.links)
    _reviews_plain(data)
    return data


def _reviews_plain(data: dict[str, Any]) -> None:
    """`reviews` as a plain dict, or left out when there are none: a record without scores
    serialises (and hashes) as it did before the field existed, so no stored record changes."""
    reviews = data.pop("reviews", None)
    if reviews is not None:
        data["reviews"] = dict(reviews.__dict__)


def content_digest(content_json: str) -> str:
    """The content hash of a record's `content_json`; raises `UnicodeEncodeError` on a lone
    surrogate, which no UTF-8 database or file can hold."""
    return hashlib.sha256(content_json.encode("utf-8")).hexdigest()[:20]


def paper_key(venue: str, year: int, ident: str) -> str:
    """The stable public id of a paper, e.g. `iclr2018:B11bwYgfM`."""
    return f"{venue}{year}:{ident}"


def content_key(record: Record) -> str:
    """A stable key for a record without a usable source id, derived from what it says."""
    basis = "|".join([record.title.casefold().strip(),
                      ";".join(a.name.casefold() for a in record.authors)])
    digest = hashlib.sha1(basis.encode("utf-8")).hexdigest()[:10]
    return paper_key(record.venue, record.year, f"h{digest}")
