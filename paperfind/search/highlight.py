"""Highlights: the matched words marked in a title and in an abstract snippet.

Text from the data is HTML-escaped first and only then wrapped in `<mark>`, so markup in a
title (`<b>`, `&amp;`, LaTeX) is shown, never interpreted. A word is marked when its stem is
one of the query's stems, the same test retrieval used.
"""

from __future__ import annotations

import html
import re

from paperfind.index.tokenize import HAN, Analyzer, fold

_WORD = re.compile(f"[{HAN}]+|[^\\W_{HAN}]+")
SNIPPET_WORDS = 36


def _matches(word: str, stems: set[str], an: Analyzer) -> bool:
    folded = fold(word)
    if any(c for c in folded if "\u3400" <= c <= "\u9fff"):
        return any(s in folded for s in stems if len(s) >= 2 and not s.isascii())
    return an.stem(folded) in stems and not an.is_stopword(folded)


def mark(text: str, stems: set[str], an: Analyzer) -> str:
    """`text` HTML-escaped, with the words matching `stems` wrapped in <mark>."""
    out, last = [], 0
    for m in _WORD.finditer(text):
        if _matches(m.group(0), stems, an):
            out.append(html.escape(text[last:m.start()]))
            out.append("<mark>" + html.escape(m.group(0)) + "</mark>")
            last = m.end()
    out.append(html.escape(text[last:]))
    return "".join(out)


def snippet(text: str, stems: set[str], an: Analyzer, width: int = SNIPPET_WORDS) -> str:
    """The `width`-word window of `text` with the most distinct matches, escaped and marked."""
    words = list(_WORD.finditer(text))
    if not words:
        return html.escape(text[:300])
    hits = [i for i, m in enumerate(words) if _matches(m.group(0), stems, an)]
    start = 0
    if hits and len(words) > width:
        best = -1
        for h in hits:
            lo = max(0, min(h - 4, len(words) - width))
            score = len({fold(words[j].group(0)) for j in hits if lo <= j < lo + width})
            if score > best:
                best, start = score, lo
    end = min(len(words), start + width)
    first = 0 if start == 0 else words[start].start()
    last = len(text) if end == len(words) else words[end - 1].end()
    body = mark(text[first:last], stems, an)
    return ("…" if first > 0 else "") + body + ("…" if last < len(text) else "")
