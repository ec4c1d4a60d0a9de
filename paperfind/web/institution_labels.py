"""How a page names an institution: links and `data-slug` keep the slug, the reader sees a name.

One rule for every card, facet, filter chip and sidebar:

- English: the display name when it is short (at most `SHORT_NAME_CHARS` characters: "Microsoft
  Research", "Tsinghua University", "ETH Zurich"); a longer one by the catalog's acronym where it
  has one ("Carnegie Mellon University" is CMU, "University of California, Berkeley" UCB: the
  first acronym among institutions.tsv's exact-only forms, then institution_aliases.tsv's
  aliases), else in full ("University of Washington").
- Chinese: the full Chinese name where the catalog has one (清华大学, 卡内基梅隆大学), else the
  English label.

The full English name is always the tooltip, so a shortened label can be read out. Names come
from the store (the names sources printed, for institutions the catalog lacks), then the catalog,
then the slug itself.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from paperfind.catalog.aliases import alias_table, is_acronym
from paperfind.catalog.institutions import institution_display, read_table

SHORT_NAME_CHARS = 20


@dataclass(frozen=True)
class CatalogNames:
    acronym: str  # "" when the catalog has none
    name_zh: str  # "" when none is in use


@lru_cache(maxsize=1)
def catalog_names() -> dict[str, CatalogNames]:
    """Acronym and Chinese name per slug, from the two curated tables (package data)."""
    acronyms: dict[str, str] = {}
    for slug, _name, _country, _full, exact in read_table():
        found = [f.strip() for f in exact.split(";") if is_acronym(f.strip())]
        if found:
            acronyms[slug] = found[0]
    aliases = alias_table().by_slug
    for slug, row in aliases.items():
        if slug not in acronyms:
            found = [a for a in row.aliases if is_acronym(a)]
            if found:
                acronyms[slug] = found[0]
    return {slug: CatalogNames(acronyms.get(slug, ""),
                               aliases[slug].name_zh if slug in aliases else "")
            for slug in set(acronyms) | set(aliases)}


def english_label(name: str, acronym: str) -> str:
    return name if len(name) <= SHORT_NAME_CHARS or not acronym else acronym


class InstitutionLabels:
    """The labels of one page in one language; `name_of` reads a slug's display name (the
    store's), each slug once per page."""

    def __init__(self, lang: str, name_of: Callable[[str], str | None]) -> None:
        self.lang = lang
        self._name_of = name_of
        self._names: dict[str, str] = {}

    def name(self, slug: str) -> str:
        """The full English name: the tooltip."""
        if slug not in self._names:
            self._names[slug] = self._name_of(slug) or institution_display(slug) or slug
        return self._names[slug]

    def label(self, slug: str) -> str:
        known = catalog_names().get(slug, CatalogNames("", ""))
        if self.lang == "zh" and known.name_zh:
            return known.name_zh
        return english_label(self.name(slug), known.acronym)
