"""Plain, single-spaced Unicode from the LaTeX, entities and line breaks sources print.

The LaTeX converter is slow, so it runs only on the islands that can be LaTeX, and never on text
that is not well formed (odd `$`, unbalanced braces): such text keeps its characters.
"""

from __future__ import annotations

import html
import logging
import re
import unicodedata
from functools import lru_cache

from pylatexenc.latex2text import LatexNodes2Text
from pylatexenc.latexwalker import get_default_latex_context_db

_LATEX = LatexNodes2Text(math_mode="text", strict_latex_spaces=False)
# the parser's macro table, built once: pylatexenc builds it anew for every call otherwise
# (a fifth of the LaTeX conversion time)
_LATEX_CONTEXT = get_default_latex_context_db()
# pylatexenc warns on every macro it cannot expand (`\frac12`); the text is still
# readable and thousands of warnings would bury real messages during an ingest.
logging.getLogger("pylatexenc").setLevel(logging.ERROR)
_BRACES = r"\{(?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})*\}"  # up to three levels of nesting
# The parts of a text that are LaTeX: math, macros with their brace arguments, escapes
# and accents, brace groups. Only these go through the (slow) converter, one at a time.
_ISLAND = re.compile(
    r"(?<!\\)\$\$.+?(?<!\\)\$\$"
    r"|(?<!\\)\$.+?(?<!\\)\$"
    r"|\\[a-zA-Z]+\*?(?:\s*" + _BRACES + r")*"
    r"|\\[^a-zA-Z\s](?:\{[^{}]*\}|[a-zA-Z])?"
    r"|" + _BRACES,
    re.DOTALL,
)
_WHITESPACE = re.compile(r"\s+")
# `%` starts a comment and `&` is a column separator in LaTeX; in abstracts both are
# meant literally ("50% of", "R&D"), so they are escaped before conversion.
_LITERAL_SPECIALS = re.compile(r"(?<!\\)([%&#])")
_MATH = re.compile(r"(?<!\\)\$(.+?)(?<!\\)\$", re.DOTALL)
_SUPERSCRIPT = str.maketrans("0123456789+-=()n", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿ")
_SUBSCRIPT = str.maketrans("0123456789+-=()", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎")
_SCRIPT = re.compile(r"([\^_])(?:\{([0-9+\-=()n]{1,4})\}|([0-9n]))")
_TRAILING_TITLE_JUNK = re.compile(r"[\s.]+$")
_NOT_ASCII_ALNUM = re.compile(r"[^0-9a-z]+")
# The longest field of the real data is a 16,262-character abstract; a field far beyond
# that is a broken or hostile file, and would cost seconds of cleaning and a huge page.
MAX_FIELD_CHARS = 100_000
# Format characters that are invisible yet change how the text around them is shown or read:
# the bidi embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069: "Alice \u202eEvil"
# prints every co-author after it backwards), the bidi marks (U+200E, U+200F, U+061C), the
# zero-width space and word joiners (U+200B, U+2060, U+FEFF), the invisible operators
# (U+2061-U+2064), the deprecated format controls (U+206A-U+206F); and NUL, which a JSON
# "\u0000" escapes to and at which C strings (and what is built on them) end.
INVISIBLE_CHARS = r"\x00\u061c\u200b\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff"
_INVISIBLE = re.compile(f"[{INVISIBLE_CHARS}]+")
# ZWNJ and ZWJ (U+200C, U+200D) are part of how Persian and the Indic scripts spell words, and
# they join emoji: kept between two characters that are neither ASCII nor space, dropped next to
# ASCII, a space or an end, where they mean nothing (the real data has "process\u200c." and
# "\u200cNavigating the MIL Trade-Off" in English text).
_STRAY_JOINER = re.compile(r"(?:\A|(?<=[\x00-\x7f\s]))[\u200c\u200d]+|[\u200c\u200d]+(?=[\x00-\x7f\s]|\Z)")
_USABLE_ID = re.compile(r"[^\s/?#%\\\x00-\x1f\x7f" + INVISIBLE_CHARS + r"\u200c\u200d]{1,200}")


def clean_text(s: str | None) -> str:
    """Plain, single-spaced Unicode for a title, abstract or tldr; never raises.

    Non-strings (None, numbers a source put in a text field) give "" for None and their
    `str()` otherwise, so a reader never has to special-case them.
    """
    if s is None:
        return ""
    if not isinstance(s, str):
        s = str(s)
    text = html.unescape(s) if "&" in s else s
    if ("\\" in text or "$" in text or "{" in text) and _is_well_formed(text):
        text = _latex_to_text(text)
    return _WHITESPACE.sub(" ", text).strip()


def text_problem(field: str, value: str) -> str | None:
    """Why a source's text field cannot be stored (too long, not encodable), else None.

    A lone UTF-16 surrogate (a JSON `\\ud800` escape without its pair) is a valid Python
    string that no UTF-8 database or page can hold, so it is refused here, naming the field,
    instead of failing the whole file's transaction later.
    """
    if len(value) > MAX_FIELD_CHARS:
        return (f"field '{field}' is {len(value):,} characters long; "
                f"at most {MAX_FIELD_CHARS:,} are taken")
    if not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            return (f"field '{field}' contains an invalid character (a lone surrogate "
                    f"U+{ord(value[exc.start]):04X} at position {exc.start})")
    return None


def usable_id(ident: str) -> bool:
    """Whether a source's id can become part of a paper key, which is a URL path segment
    (`/papers/iclr2024:abc`): no spaces, slashes, `?`, `#`, `%` or backslashes, no control or
    invisible characters (`strip_invisible`, ZWNJ and ZWJ too), not too long."""
    return bool(_USABLE_ID.fullmatch(ident))


# JSON `\\u` escapes of Latin-1 letters that reached a source as text: the backslash lost, at
# times with a space in its place ("Universit u00e9 de Montr u00e9al", "Universitu00e9",
# "HEC Montru00e9al"), or kept ("Polit\\u00e9cnica"). Only the letters U+00C0-U+00FF (but × and
# ÷) are read back, after a letter or a backslash: "liu2025" and "zhou0101" stay as they are.
_LOST_ESCAPE = re.compile(r"(\\| ?)u(00[c-f][0-9a-f])", re.IGNORECASE)
# ...and, in a text that had one, the quotes of the same escapes ("du2019Auvergne").
_LOST_QUOTE = re.compile(r"(?<=[A-Za-z])\\?u(201[89cd])(?=[A-Za-z])", re.IGNORECASE)


def repair_lost_escapes(s: str) -> str:
    """The text with its `\\u00XX` escapes that lost (or kept) their backslash read as letters.

    Every reader's text passes here (`paperfind.ingest.scrub`): "Universit u00e9 Laval" was a
    page title and an institution slug of its own. An escape after a letter and a space joins
    the word when its letter is lower case ("Montr u00e9al" → "Montréal") and keeps the space
    when upper case ("de u00c9cole" → "de École").
    """
    if "u00" not in s and "U00" not in s:
        return s
    out = _LOST_ESCAPE.sub(_lost_letter, s)
    if out != s and ("u201" in out or "U201" in out):
        out = _LOST_QUOTE.sub(lambda m: chr(int(m.group(1), 16)), out)
    return out


def _lost_letter(match: re.Match[str]) -> str:
    letter = chr(int(match.group(2), 16))
    if letter in "\u00d7\u00f7":
        return match.group(0)
    lead, start = match.group(1), match.start()
    before = match.string[start - 1] if start else ""
    if lead == "\\":
        return letter
    if not before.isalpha():  # "(u00e9" or a space after a non-letter: not a lost escape
        return match.group(0)
    return letter if (not lead or letter.islower()) else " " + letter


def strip_invisible(s: str) -> str:
    """The text without NUL and the invisible bidi and zero-width controls (`INVISIBLE_CHARS`).

    A stray U+202E in one author's name reverses what follows it on a page or a terminal,
    and a zero-width space makes two equal titles or names differ, all unseen. ZWNJ and ZWJ
    are kept where a script needs them (between two non-ASCII characters: Persian, Devanagari,
    emoji sequences). Text that was single-spaced stays so where a character went. ASCII text
    without NUL is returned as it is, at the cost of one scan.
    """
    if s.isascii():
        if "\x00" not in s:
            return s
        out = s.replace("\x00", "")
    else:
        out = _INVISIBLE.sub("", s)
        if "\u200c" in out or "\u200d" in out:
            out = _STRAY_JOINER.sub("", out)
        if out == s:
            return s
    if _WHITESPACE.sub(" ", s).strip() == s:  # it was single-spaced: keep it so
        out = _WHITESPACE.sub(" ", out).strip()
    return out


def clean_title(s: str | None) -> str:
    """`clean_text` plus what titles alone suffer from: a trailing period, outer braces.

    BibTeX-style titles arrive as `{Deep Learning}` and some sites end titles with a
    period; both would make otherwise equal titles differ on screen.
    """
    text = clean_text(s)
    while len(text) > 2 and text[0] == "{" and text[-1] == "}" and _is_well_formed(text[1:-1]):
        text = text[1:-1].strip()
    if text.endswith(".") and not text.endswith(("...", "etc.", "al.")):
        text = _TRAILING_TITLE_JUNK.sub("", text)
    return text


def normalize_title(s: str | None) -> str:
    """The duplicate-detection key of a title: case, accents, punctuation and spacing folded.

    Two sources printing "Schrödinger's Bridge." and "schrodinger s bridge" are the
    same paper; this key makes them compare equal.
    """
    text = clean_text(s).casefold()
    if text.isascii():  # 99% of titles: the same result without two passes per character
        return _NOT_ASCII_ALNUM.sub(" ", text).strip()
    text = unicodedata.normalize("NFKD", text)
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    text = "".join(ch if ch.isalnum() else " " for ch in text)
    return _WHITESPACE.sub(" ", text).strip()


def _is_well_formed(text: str) -> bool:
    """True when dollars pair up and braces balance, i.e. the converter can be trusted."""
    unescaped = text.replace("\\$", "").replace("\\{", "").replace("\\}", "")
    if unescaped.count("$") % 2:
        return False
    depth = 0
    for ch in unescaped:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth < 0:
                return False
    return depth == 0


def _latex_to_text(text: str) -> str:
    """Convert the LaTeX islands of a text, leaving the prose between them untouched.

    Converting island by island is ~50x faster than handing pylatexenc a whole abstract
    (its tokenizer is per character), and prose never meets LaTeX's rules for `~` or `%`.
    """
    return _ISLAND.sub(lambda m: _convert_island(m.group(0)), text)


@lru_cache(maxsize=50_000)
def _convert_island(text: str) -> str:
    """Convert one piece of LaTeX with pylatexenc; on any converter failure keep the input."""
    prepared = _LITERAL_SPECIALS.sub(r"\\\1", text)
    prepared = _MATH.sub(lambda m: "$" + _SCRIPT.sub(_script_to_unicode, m.group(1)) + "$", prepared)
    try:
        converted = _LATEX.latex_to_text(prepared, latex_context=_LATEX_CONTEXT)
    except Exception:  # pylatexenc raises several unrelated types on odd input
        return text
    # A macro missing its arguments (`\frac12`) comes out as its unfilled template.
    return text if "%s" in converted else converted


def _script_to_unicode(match: re.Match[str]) -> str:
    """`^2` → `²`, `_{12}` → `₁₂`: readable without a math renderer."""
    body = match.group(2) or match.group(3)
    table = _SUPERSCRIPT if match.group(1) == "^" else _SUBSCRIPT
    converted = body.translate(table)
    if any(a == b for a, b in zip(body, converted)):  # a char with no Unicode form
        return match.group(0)
    return converted
