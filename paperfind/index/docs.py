"""What the index builder reads from: the store, or any source of the two streams of `model`.

The index never reads SQL: the store flattens each paper into an `IndexDoc` and each resolved
person into an `AuthorEntry`, so the index (and a future distributed engine) can be rebuilt from
any source that yields these two streams.
"""

from __future__ import annotations

from typing import Iterable, Iterator, Protocol

from paperfind.model import AuthorEntry, IndexDoc


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
