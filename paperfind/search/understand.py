"""An institution named in a query is a question about its work: `清华 具身智能`, `THU world
models`, `embodied agents Stanford`.

The names come from the curated alias table (paperfind.catalog.aliases), in Chinese inside a
run of Han characters or in Latin as one to a few words, anywhere in the free text (quoted
phrases are the user's literal words and are left alone). A name found becomes the
institution filter and leaves the words searched. Three things keep the reading honest:

- a Chinese form inside a longer dictionary word is not the institution (北大 in 东北大学,
  上交 in 上交所), and a Han name the corpus prints as a person's is a person;
- a Latin form that is part of a person's name in the corpus (two or three words the people
  index matches in full) is that person;
- a form that is also a word of the corpus's text (Meta, Stanford), or a Chinese one that is
  also a term of the field's glossary (字节 "byte"), is read both ways, and the reading that finds more works is kept; the other is offered (`alternative`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Callable

from paperfind.catalog.aliases import AliasTable, InstitutionNames, alias_key, is_acronym
from paperfind.index.names import FULL, JOINED, PINYIN, REVERSED
from paperfind.search.backend import SearchBackend
from paperfind.search.query import ParsedQuery
from paperfind.text.fold import has_han

MAX_QUERY_WORDS = 12  # a longer text is a description: a name in it is part of the description
AMBIGUOUS_FREQ = 50  # a form whose word the corpus's text uses this often is also a topic word
ACRONYM_AMBIGUOUS_FREQ = 150  # ... an acronym typed as one: "MIT", "PKU" stay names (116, 89)
# "pku", "sjtu", "cmu" in lower case are the acronym (the corpus prints them in URLs and dataset
# names, under a hundred times); "hit", "bit", "fair" are words
LOWER_ACRONYM_MAX_FREQ = 100
MAX_DICT_WORD = 8  # longest dictionary word looked for around a Chinese form
_EDGE = re.compile(r"^[^\w]+|[^\w]+$")
_POSSESSIVE = re.compile(r"(?i)['’]s$")
_PERSON_KINDS = (FULL, REVERSED, JOINED)


@dataclass(frozen=True)
class Mention:
    """An institution the query names, and the text it was named by."""

    slug: str
    name: str
    name_zh: str
    written: str
    ambiguous: bool = False  # the form is also a word of the corpus's text

    def to_json(self) -> dict:
        return {"slug": self.slug, "name": self.name, "name_zh": self.name_zh or None,
                "written": self.written}


@dataclass
class Understanding:
    """What a query was read as: the institutions it names (now filters), the words left to
    search, the query as typed without those names (where a chip's "remove" leads), and the
    other reading of an ambiguous name as a query to offer."""

    institutions: list[Mention] = field(default_factory=list)
    text: str = ""
    without: str = ""
    alternative: dict | None = None

    def to_json(self) -> dict:
        return {"institutions": [m.to_json() for m in self.institutions], "text": self.text,
                "without": self.without, "alternative": self.alternative}


@dataclass
class _Found:
    mention: Mention
    item: int  # index into q.words
    span: tuple[int, int]  # characters of a Han item, or (first, last + 1) items for Latin
    han: bool = False


def find_institutions(q: ParsedQuery, backend: SearchBackend, table: AliasTable,
                      is_word: Callable[[str], bool], field_sense: Callable[[str], str]) -> list[_Found]:
    """The institutions `q`'s free text names, left to right, without overlaps.

    `is_word` says whether a Chinese string is a dictionary word, `field_sense` gives a Chinese
    form's sense as a term of the field, if it is one (字节: byte), which makes it two-way.
    """
    words = q.words
    if not words or len(words) > MAX_QUERY_WORDS:
        return []
    literal = set(q.phrases)
    found: list[_Found] = []
    latin: list[tuple[int, str]] = []  # (item, word) of a run of Latin items
    for i, item in enumerate(words):
        if item in literal:
            _latin_names(latin, backend, table, found)
            latin = []
            continue
        if has_han(item):
            _latin_names(latin, backend, table, found)
            latin = []
            found += _han_names(i, item, backend, table, is_word, field_sense)
        else:
            latin.append((i, item))
    _latin_names(latin, backend, table, found)
    return sorted(found, key=lambda f: (f.item, f.span))


def _ambiguous(words: list[str], backend: SearchBackend, own: InstitutionNames,
               threshold: int = 0) -> bool:
    """Whether the form's English words are words papers use (beyond naming the institution).
    Asked of the words themselves, not their stems: `thu` is the stem of "thus"."""
    own_words = {w for form in (own.name, *own.aliases) for w in alias_key(form).lower().split()}
    for word in words:
        w = word.lower()
        if not w or w in own_words and len(words) > 1:
            continue
        if backend.word_frequency(w) >= (threshold or AMBIGUOUS_FREQ):
            return True
    return False


def _latin_names(run: list[tuple[int, str]], backend: SearchBackend, table: AliasTable,
                 found: list[_Found]) -> None:
    """Names in a run of Latin items, longest first from the left."""
    cleaned = [(i, _POSSESSIVE.sub("", _EDGE.sub("", w))) for i, w in run]
    start = 0
    while start < len(cleaned):
        if not table.may_open(cleaned[start][1]):  # no alias begins with this word
            start += 1
            continue
        for size in range(min(table.longest_latin, len(cleaned) - start), 0, -1):
            part = cleaned[start:start + size]
            text = " ".join(w for _, w in part)
            names = _latin_lookup(text, backend, table)
            if names is None or _is_person(cleaned, start, size, backend):
                continue
            # an acronym typed as one (THU, MSRA, MIT) means the institution, unless papers
            # print it as often as a word (FAIR, UCI's datasets)
            two_ways = _ambiguous(text.split(), backend, names,
                                  ACRONYM_AMBIGUOUS_FREQ if is_acronym(text) else AMBIGUOUS_FREQ)
            mention = Mention(names.slug, names.name, names.name_zh,
                              " ".join(run[start + k][1] for k in range(size)), two_ways)
            found.append(_Found(mention, part[0][0], (part[0][0], part[-1][0] + 1)))
            start += size
            break
        else:
            start += 1


def _latin_lookup(text: str, backend: SearchBackend, table: AliasTable) -> InstitutionNames | None:
    if not text:
        return None
    names = table.lookup(text)
    if names is not None:
        return names
    # an acronym typed in lower case ("thu", "sjtu"), unless it is a word the corpus uses
    upper = text.upper()
    names = table.lookup(upper) if is_acronym(upper) else None
    if names is None or " " in text:
        return None
    return names if backend.word_frequency(text.lower()) < LOWER_ACRONYM_MAX_FREQ else None


def _is_person(cleaned: list[tuple[int, str]], start: int, size: int, backend: SearchBackend) -> bool:
    """Whether the form, with a word before or after it, is a person's full name in the corpus."""
    windows = []
    if start > 0:
        windows.append(cleaned[start - 1:start + size])
    if start + size < len(cleaned):
        windows.append(cleaned[start:start + size + 1])
    for window in windows:
        if len(window) > 4:
            continue
        name = " ".join(w for _, w in window)
        if any(m.kind in _PERSON_KINDS for m in backend.people(name)):
            return True
    return False


def _han_names(i: int, item: str, backend: SearchBackend, table: AliasTable,
               is_word: Callable[[str], bool], field_sense: Callable[[str], str]) -> list[_Found]:
    """Chinese forms inside one Han item, longest first, not inside a longer dictionary word."""
    if 2 <= len(item) <= 4 and any(m.kind != PINYIN for m in backend.people(item)):
        return []  # a name the corpus prints in Han
    taken = [False] * len(item)
    out = []
    for form in table.han_forms_in(item):
        at = item.find(form)
        while at >= 0:
            end = at + len(form)
            if not any(taken[at:end]) and not _inside_word(item, at, end, is_word, table):
                names = table.lookup(form)
                sense = field_sense(form)
                mention = Mention(names.slug, names.name, names.name_zh, form,
                                  bool(sense) and _ambiguous(sense.split(), backend, names))
                out.append(_Found(mention, i, (at, end), han=True))
                taken[at:end] = [True] * len(form)
            at = item.find(form, at + 1)
    return out


def _inside_word(text: str, start: int, end: int, is_word: Callable[[str], bool],
                 table: AliasTable) -> bool:
    """Whether a longer dictionary word, not itself an institution's name, covers text[start:end]."""
    for a in range(max(0, start - MAX_DICT_WORD + 1), start + 1):
        for b in range(end, min(len(text), a + MAX_DICT_WORD) + 1):
            if b - a > end - start and table.lookup(text[a:b]) is None and is_word(text[a:b]):
                return True
    return False


def without_names(q: ParsedQuery, found: list[_Found]) -> ParsedQuery:
    """`q` with the names cut out of its free text and their slugs among its `inst:` filters."""
    words = list(q.words)
    drop: set[int] = set()
    han_cuts: dict[int, list[tuple[int, int]]] = {}
    for f in found:
        if f.han:
            han_cuts.setdefault(f.item, []).append(f.span)
        else:
            drop.update(range(*f.span))
    for item, spans in han_cuts.items():
        text = words[item]
        for a, b in sorted(spans, reverse=True):
            text = text[:a] + " " + text[b:]
        words[item] = " ".join(text.split())
    kept = [w for k, w in enumerate(words) if k not in drop and w]
    text_words = [piece for w in kept for piece in w.split()]
    insts = list(q.insts) + [f.mention.slug for f in found if f.mention.slug not in q.insts]
    return replace(q, words=text_words, insts=insts)


def typed_without(raw: str, found: list[_Found]) -> str:
    """The query as typed with the institution names taken out (the chip's "remove" link)."""
    out = raw
    for f in found:
        written = f.mention.written
        if has_han(written):
            out = out.replace(written, " ", 1)
        else:
            out = re.sub(rf"(?<!\w){re.escape(written)}(?:['’]s)?(?!\w)", " ", out, count=1)
    return " ".join(out.split())
