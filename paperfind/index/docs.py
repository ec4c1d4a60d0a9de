"""The shapes the store hands to the index builder.

The index never reads SQL: the store flattens each paper into an `IndexDoc` and each resolved
person into an `AuthorEntry`, so the index (and a future distributed engine) can be rebuilt from
any source that yields these two streams.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Iterator, Protocol


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
    status: str
    area: str
    institutions: list[str]  # institution slugs
    citations: int | None
    work_id: int
    track: str = ""  # the venue's track, shown where a paper has no area
    links: dict[str, str] = field(default_factory=dict)  # pdf, openreview, site, ...: on its card


@dataclass
class AuthorEntry:
    """One resolved person: what an author card shows and what name lookups match."""

    id: int
    slug: str
    name: str
    aliases: list[str] = field(default_factory=list)
    paper_count: int = 0
    institutions: list[str] = field(default_factory=list)  # slugs, most frequent first
    years: tuple[int, int] = (0, 0)


class IndexSource(Protocol):
    """What `build_index` needs from a store: the two streams and a version number.

    A source may also offer `institution_names() -> dict[slug, name]`, so that `inst:` can
    be given a name ("inst:Carnegie") as well as a slug.
    """

    def iter_index_docs(self) -> Iterator[IndexDoc]: ...

    def iter_author_entries(self) -> Iterator[AuthorEntry]: ...

    def data_version(self) -> int: ...


class DocsSource:
    """An in-memory `IndexSource`, for building an index without a database (benches, exports)."""

    def __init__(self, docs: Iterable[IndexDoc], authors: Iterable[AuthorEntry],
                 version: int = 1, institutions: dict[str, str] | None = None) -> None:
        self.docs = list(docs)
        self.authors = list(authors)
        self.version = version
        self.institutions = dict(institutions or {})

    def institution_names(self) -> dict[str, str]:
        return self.institutions

    def iter_index_docs(self) -> Iterator[IndexDoc]:
        return iter(self.docs)

    def iter_author_entries(self) -> Iterator[AuthorEntry]:
        return iter(self.authors)

    def data_version(self) -> int:
        return self.version
