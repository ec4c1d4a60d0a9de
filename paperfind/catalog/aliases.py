"""Institutions by the names people type: 清华, 北大, 上交, THU, MSRA, Stanford.

`institution_aliases.tsv` beside this module is curated by hand: per slug (a slug of
`institutions.tsv`, or the automatic slug the bundled corpus gives an institution the table
lacks) its English name, Chinese full name, Chinese short forms and English aliases. The
affiliation resolver reads author strings; this table reads queries, where a name is two
characters or an acronym and must point at one institution only, so a form two institutions
share is left out of both (the file's last comments say which).
"""

from __future__ import annotations

import string
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from types import MappingProxyType

from paperfind.text.fold import fold, has_han

ALIASES_FILE = "institution_aliases.tsv"
_FIELDS = 5


@dataclass(frozen=True)
class InstitutionNames:
    slug: str
    name: str  # English
    name_zh: str  # Chinese full name ("" when none is in use)
    short_zh: tuple[str, ...]
    aliases: tuple[str, ...]  # English: acronyms (matched as written) and names (any case)

    def forms(self) -> tuple[str, ...]:
        """Every form a query may name this institution by."""
        return tuple(dict.fromkeys(f for f in (self.name, self.name_zh, *self.short_zh, *self.aliases) if f))


_LOWER = string.ascii_lowercase.encode("ascii")
_UPPER = string.ascii_uppercase.encode("ascii")


def is_acronym(form: str) -> bool:
    """`THU`, `MSRA`, `EPFL`: matched only as written (upper case), since `bit`, `hit` and `fair`
    are words; names (`Tsinghua`, `Stanford`) match in any case.

    ASCII, two letters or more, at most one of them lower case, and not all lower case after
    the first character. The letters are counted by `bytes.translate` rather than a Python step
    a character: a query's every run of up to five words is asked (paperfind.search.understand),
    and the per-character loop was ~0.25 ms of a ten-word title's search (issue 33)."""
    if not form.isascii():
        return False
    raw = form.encode("ascii")
    lower = len(raw) - len(raw.translate(None, _LOWER))
    if lower > 1:
        return False
    upper = len(raw) - len(raw.translate(None, _UPPER))
    return lower + upper >= 2 and not form[1:].islower()


def alias_key(form: str) -> str:
    """The comparable form of a name: Chinese as written, acronyms as written, other Latin folded."""
    form = " ".join(form.split())
    if has_han(form) or is_acronym(form):
        return form
    return " ".join(fold(form).replace("-", " ").replace(".", " ").split())


def read_aliases(text: str | None = None) -> list[InstitutionNames]:
    """The rows of the alias table; a malformed line raises ValueError naming its line."""
    if text is None:
        text = resources.files("paperfind.catalog").joinpath(ALIASES_FILE).read_text(encoding="utf-8")
    rows = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.rstrip("\n").split("\t")
        if len(fields) != _FIELDS or not fields[0].strip() or not fields[1].strip():
            raise ValueError(f"{ALIASES_FILE}:{number}: expected {_FIELDS} tab-separated fields "
                             f"(slug, English name, Chinese name, Chinese short forms, English aliases), "
                             f"got {line!r}")
        slug, name, name_zh, short, aliases = (f.strip() for f in fields)
        rows.append(InstitutionNames(slug, name, name_zh, _split(short), _split(aliases)))
    return rows


def _split(field: str) -> tuple[str, ...]:
    return tuple(f.strip() for f in field.split(";") if f.strip())


def alias_index(rows: list[InstitutionNames]) -> dict[str, str]:
    """Alias key → slug over every form of every row; a form of two slugs raises ValueError."""
    index: dict[str, str] = {}
    for row in rows:
        for form in row.forms():
            key = alias_key(form)
            owner = index.setdefault(key, row.slug)
            if owner != row.slug:
                raise ValueError(f"{ALIASES_FILE}: {form!r} names both {owner} and {row.slug}")
    return index


@dataclass(frozen=True)
class AliasTable:
    by_slug: MappingProxyType  # slug -> InstitutionNames
    by_alias: MappingProxyType  # alias key -> slug
    longest_latin: int  # words in the longest Latin form
    han_forms: tuple[str, ...]  # Chinese forms, longest first
    latin_openers: frozenset[str]  # the first word of every Latin alias key
    han_by_first: MappingProxyType  # a character -> its forms' places in han_forms

    def lookup(self, form: str) -> InstitutionNames | None:
        slug = self.by_alias.get(alias_key(form))
        return self.by_slug[slug] if slug else None

    def may_open(self, word: str) -> bool:
        """Whether a Latin form that begins with `word` (then a space and any words) can be a
        key of the table, as written, in upper case or folded: False only when none can. A
        query's every run of up to `longest_latin` words is looked up (paperfind.search.
        understand), ~26 look-ups of a ten-word title that names no institution, each folding
        its text; the runs that begin with a word no alias begins with are skipped at once
        (issue 33). A word with nothing to compare (empty, or only `-` and `.` once folded)
        leaves the next word first: True."""
        written = word.split()
        folded = fold(word).replace("-", " ").replace(".", " ").split()
        if not written or not folded:
            return True
        openers = self.latin_openers
        return written[0] in openers or folded[0] in openers or word.upper().split()[0] in openers

    def han_forms_in(self, text: str) -> list[str]:
        """The Chinese forms that may occur in `text`, in `han_forms`' order (longest first):
        those whose first character is one of `text`'s, rather than a search of every form."""
        places = sorted({i for c in set(text) for i in self.han_by_first.get(c, ())})
        return [self.han_forms[i] for i in places]


@lru_cache(maxsize=1)
def alias_table() -> AliasTable:
    rows = read_aliases()
    index = alias_index(rows)
    han = sorted((k for k in index if has_han(k)), key=lambda k: (-len(k), k))
    latin = [k.split() for k in index if not has_han(k)]
    longest = max((len(words) for words in latin), default=1)
    by_first: dict[str, list[int]] = {}
    for i, form in enumerate(han):
        by_first.setdefault(form[0], []).append(i)
    return AliasTable(MappingProxyType({r.slug: r for r in rows}), MappingProxyType(index),
                      longest, tuple(han), frozenset(words[0] for words in latin if words),
                      MappingProxyType({c: tuple(places) for c, places in by_first.items()}))
