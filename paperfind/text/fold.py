"""Folding text to comparable forms, written once for every stage that compares strings."""

from __future__ import annotations

import re
import unicodedata

from anyascii import anyascii

HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_HAS_HAN = re.compile(f"[{HAN}]")
WORD = re.compile(f"[{HAN}]+|[^\\W_{HAN}]+")
"""A word: a run of Han characters, or of other letters and digits."""
# combining marks left by NFKD decomposition (accents, umlauts, cedillas, ...)
_COMBINING = re.compile("[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]")
_NOT_SLUG = re.compile(r"[^a-z0-9]+")


def _without_marks(text: str) -> str:
    """`text` decomposed (NFKD) with its combining marks removed."""
    return _COMBINING.sub("", unicodedata.normalize("NFKD", text))


def fold(text: str) -> str:
    """Lower-case, strip diacritics (Rocktäschel → rocktaschel); Han characters are kept."""
    if text.isascii():  # most titles and abstracts: nothing to decompose
        return text.lower()
    return _without_marks(text).casefold()


def strip_accents(text: str) -> str:
    """Diacritics removed, case kept (Schrödinger → Schrodinger)."""
    if text.isascii():
        return text
    return unicodedata.normalize("NFC", _without_marks(text))


def has_han(text: str) -> bool:
    return bool(_HAS_HAN.search(text))


def han_share(text: str) -> float:
    """Share of Han characters among the non-space characters of `text`."""
    chars = [c for c in text if not c.isspace()]
    return sum(1 for c in chars if _HAS_HAN.match(c)) / len(chars) if chars else 0.0


def slugify(text: str, *, max_chars: int | None = None, empty: str = "") -> str:
    """A URL path segment: ASCII lower-case letters and digits, anything between them one `-`.

    `max_chars` cuts a longer slug at a `-` (institution slugs: at most 60); `empty` is the slug
    of a text without a letter or digit (`author` for people).
    """
    slug = _NOT_SLUG.sub("-", anyascii(text).lower()).strip("-")
    if max_chars is not None and len(slug) > max_chars:
        slug = slug[:max_chars].rsplit("-", 1)[0]
    return slug or empty
