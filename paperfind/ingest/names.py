"""Author names: splitting a source's author field, cleaning names, matching keys.

Paperlists files separate authors with `;` (OpenReview venues), `; ` or `;  ` (CVF and
most others) and, in a few older files, `, `. The split keeps positions: the `aff`,
`authorids` and `aff_unique_index` fields are aligned with the author list by position,
so an empty slot between two separators stays an empty string (the caller decides
whether to drop it after aligning). Only leading/trailing empties (a trailing `;`) are
removed, because no aligned field counts them either.

`fold_name` is the key people are matched on across papers and sources: it must make
"Tim Rocktäschel", "Tim Rocktaschel" and "tim  rocktäschel" equal, and make Chinese
names in Latin script and in pinyin-with-tones compare equal too.
"""

from __future__ import annotations

import html
import re
from functools import lru_cache

from anyascii import anyascii

_SEMICOLON = re.compile(r"\s*;\s*")
_WHITESPACE = re.compile(r"\s+")
_FOLD_PUNCT = re.compile(r"[-‐‑‒–—.'’`´,_]+")
_NON_WORD = re.compile(r"[^a-z0-9 ]+")
# Suffixes that follow a comma without the name being "Last, First".
_SUFFIXES = {"jr", "jr.", "sr", "sr.", "ii", "iii", "iv", "phd", "ph.d.", "md"}


def split_authors(raw: str | None) -> list[str]:
    """The author names of one paper, in order, stripped; position-preserving.

    `;` wins when present (then commas are part of names); otherwise `, ` separates.
    A single "Last, First" name cannot be told from two authors here; the
    paperlists files never use that form in a comma-separated list.
    """
    if not isinstance(raw, str):
        return []
    text = raw.replace("\xa0", " ").strip()
    if not text:
        return []
    if ";" in text:
        parts = _SEMICOLON.split(text)
    elif ", " in text:
        parts = text.split(", ")
    else:
        parts = [text]
    parts = [_WHITESPACE.sub(" ", p).strip() for p in parts]
    while parts and not parts[-1]:
        parts.pop()
    while parts and not parts[0]:
        parts.pop(0)
    return parts


def clean_name(name: str | None) -> str:
    """A name as it should be displayed: entities decoded, spacing fixed, "Last, First" turned.

    The comma form is only turned when it is unambiguous: exactly one comma and the part
    after it is not a suffix ("Smith, Jr." stays as is).
    """
    if not isinstance(name, str):
        return ""
    text = html.unescape(name) if "&" in name else name
    text = _WHITESPACE.sub(" ", text.replace("\xa0", " ")).strip().strip(",;").strip()
    if text.count(",") == 1:
        last, first = (p.strip() for p in text.split(","))
        if last and first and first.casefold() not in _SUFFIXES:
            text = f"{first} {last}"
    return text


@lru_cache(maxsize=200_000)
def fold_name(name: str) -> str:
    """The matching key of a name: ASCII, lower case, hyphens and dots as spaces.

    "Tim Rocktäschel" → "tim rocktaschel", "Jean-François" → "jean francois",
    "E.J. Chichilnisky" → "e j chichilnisky".
    """
    text = anyascii(clean_name(name)).lower()
    text = _FOLD_PUNCT.sub(" ", text)
    text = _NON_WORD.sub("", text)
    return _WHITESPACE.sub(" ", text).strip()


def name_tokens(name: str) -> list[str]:
    """The folded words of a name, for token-level matching and indexing."""
    return fold_name(name).split()


def initial_form(name: str) -> str:
    """First names reduced to initials, last name kept: "Huishuai Zhang" → "h zhang".

    Sources abbreviate given names ("H. Zhang"); this form lets them meet the full name.
    """
    tokens = name_tokens(name)
    if len(tokens) < 2:
        return " ".join(tokens)
    return " ".join([t[0] for t in tokens[:-1]] + [tokens[-1]])
