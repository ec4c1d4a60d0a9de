"""Author names: splitting a source's author field, cleaning a name, and the two name folds.

`name_key` matches people across papers and sources (the store's `name_fold`); `fold_name` gives
the words the index and the queries match names by. They differ on purpose (see each).
"""

from __future__ import annotations

import html
import re
from functools import lru_cache

from anyascii import anyascii

from paperfind.text.fold import WORD, fold, has_han

_SEMICOLON = re.compile(r"\s*;\s*")
_WHITESPACE = re.compile(r"\s+")
_FOLD_PUNCT = re.compile(r"[-‐‑‒–—.'’`´,_]+")
_NON_WORD = re.compile(r"[^a-z0-9 ]+")
# Suffixes that follow a comma without the name being "Last, First".
_SUFFIXES = {"jr", "jr.", "sr", "sr.", "ii", "iii", "iv", "phd", "ph.d.", "md"}


def split_authors(raw: str | None) -> list[str]:
    """The author names of one paper, in order, stripped; position-preserving.

    Paperlists files separate authors with `;` (OpenReview venues), `; ` or `;  ` (CVF and
    most others) and, in a few older files, `, `. The `aff`, `authorids` and `aff_unique_index`
    fields are aligned with the author list by position, so an empty slot between two
    separators stays an empty string; only leading/trailing empties (a trailing `;`) go,
    because no aligned field counts them either.

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
def name_key(name: str) -> str:
    """The matching key of a name: ASCII, lower case, hyphens and dots as spaces.

    "Tim Rocktäschel" → "tim rocktaschel", "Jean-François" → "jean francois",
    "E.J. Chichilnisky" → "e j chichilnisky". It must make "Rocktäschel, Tim" and
    "tim  rocktaschel" equal too, so the name is cleaned first (`clean_name`), Han is
    transliterated like every other script, and other punctuation is dropped ("Müller(1)" →
    "muller1").
    """
    text = anyascii(clean_name(name)).lower()
    text = _FOLD_PUNCT.sub(" ", text)
    text = _NON_WORD.sub("", text)
    return _WHITESPACE.sub(" ", text).strip()


def name_tokens(name: str) -> list[str]:
    """The words of a name's matching key, for token-level matching."""
    return name_key(name).split()


def initial_form(name: str) -> str:
    """First names reduced to initials, last name kept: "Huishuai Zhang" → "h zhang".

    Sources abbreviate given names ("H. Zhang"); this form lets them meet the full name.
    """
    tokens = name_tokens(name)
    if len(tokens) < 2:
        return " ".join(tokens)
    return " ".join([t[0] for t in tokens[:-1]] + [tokens[-1]])


def fold_name(name: str) -> str:
    """A person's name as the index's words: `Tim Rocktäschel` → `tim rocktaschel`.

    Unlike `name_key`, Han names are left alone (the name index matches them through pinyin),
    the text is not cleaned (queries are folded with it too), and every non-word character
    splits words ("Müller(1)" → "muller 1").
    """
    if has_han(name):
        return " ".join(WORD.findall(fold(name)))
    return " ".join(WORD.findall(anyascii(name).casefold()))
