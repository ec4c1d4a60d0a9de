"""Highlights: the matched words marked in a title and in an abstract snippet.

Text from the data is HTML-escaped first and only then wrapped in `<mark>`, so markup in a
title (`<b>`, `&amp;`, LaTeX) is shown, never interpreted. A word is marked when its stem is
one of the query's stems, the same test retrieval used. Candidate words are found with one
regular expression of the query's stems and words (a Snowball stem is nearly always a prefix
of its word), then confirmed by stemming, so a result costs a regex scan, not a Python loop
over every word of its abstract.
"""

from __future__ import annotations

import html
import re
from bisect import bisect_right
from collections.abc import Iterable

from paperfind.text.analyze import Analyzer
from paperfind.text.fold import HAN, fold

_HAN_CHAR = re.compile(f"[{HAN}]")
_WORD_RUN = re.compile(r"[^\W_]+")
SNIPPET_CHARS = 240
CONTEXT_CHARS = 40
_SPECIAL = re.compile(r"[&<>\"']")  # what html.escape (quote=True) changes


def _shortest(prefixes: list[str]) -> tuple[str, ...]:
    """The prefixes none of the others begins (`class` for `class` and `classif`): a run that
    begins with a longer one begins with the shorter, so its occurrences add no run; a long
    query's stems and words (`distanc`, `distances`) halve the scans of an abstract."""
    kept: list[str] = []
    for p in sorted(prefixes, key=lambda p: (len(p), p)):
        if not p.startswith(tuple(kept)):
            kept.append(p)
    return tuple(kept)


class Marker:
    """Marks the words of result texts that match the query; one per response."""

    def __init__(self, stems: set[str], analyzer: Analyzer, words: set[str] = frozenset()) -> None:
        self.stems = set(stems)
        self.analyzer = analyzer
        prefixes = sorted({p for p in self.stems | set(words) if len(p) >= 2}, key=lambda p: (-len(p), p))
        self._source = r"(?<![^\W_])(?:" + "|".join(map(re.escape, prefixes)) + r")[^\W_]*"
        self._any = bool(prefixes)
        # the pattern is compiled only when a text needs it (rarely, see `_starts`): compiling
        # an alternation of a long query's stems cost ~0.5 ms a search, for a pattern unused
        self._pattern: re.Pattern | None = None  # run on lower-cased text
        # prefixes of letters and digits only (nearly always): the pattern above matches exactly
        # the runs of letters and digits that begin with one, which `_runs` finds from the
        # prefixes' occurrences several times faster than the pattern's look-behind and
        # alternation tried at every character of an abstract
        self._starts = _shortest(prefixes) if prefixes and all(_WORD_RUN.fullmatch(p) for p in prefixes) else None
        # a Chinese query's own words are prefixes too, but the page's texts are nearly always
        # English: a text without a Han character is not scanned for them (one regex search of
        # the page instead of a `str.find` chain per Han word over it: issue 33, lat33)
        latin = None if self._starts is None else tuple(p for p in self._starts if not _HAN_CHAR.search(p))
        self._latin_starts = latin if latin is not None and len(latin) < len(self._starts) else None
        self._pattern_ci: re.Pattern | None = None  # compiled when a text needs it (rarely)
        self._seen: dict[str, bool] = {}
        self._prepared: dict[str, list[tuple[int, int]]] = {}  # text -> its spans (`prepare`)

    def _confirm(self, word: str) -> bool:
        known = self._seen.get(word)
        if known is None:
            folded = word.lower() if word.isascii() else fold(word)
            if _HAN_CHAR.search(folded):
                known = any(s in folded for s in self.stems if _HAN_CHAR.search(s))
            else:
                known = (not self.analyzer.is_stopword(folded)
                         and self.analyzer.stem(folded) in self.stems)
            self._seen[word] = known
        return known

    def prepare(self, texts: Iterable[str]) -> None:
        """Find the matches of many texts (a page's titles and abstracts) at once, for `mark`
        and `snippet` to take: the prefixes' occurrences are found in the texts joined by a
        line break, one `str.find` chain per prefix for the page instead of one per prefix and
        text (~460 of a page's ~760 calls). A line break is no letter or digit, so a run ends
        at a text's end and one begins at its start, as in the text alone: the same spans."""
        if self._starts is None:
            return
        lowers: dict[str, str] = {}
        for text in texts:
            if text and text not in self._prepared and text not in lowers:
                lower = text.lower()
                if len(lower) == len(text):  # else the slower path, text by text
                    lowers[text] = lower
        if not lowers:
            return
        joined = "\n".join(lowers.values())
        offsets, at = [], 0
        for lower in lowers.values():
            offsets.append(at)
            at += len(lower) + 1
        found: list[list[tuple[int, int]]] = [[] for _ in offsets]
        for start, end in self._runs(joined):
            i = bisect_right(offsets, start) - 1
            found[i].append((start - offsets[i], end - offsets[i]))
        self._prepared.update(zip(lowers, found))

    def _matches(self, text: str) -> list[tuple[int, int]]:
        if not self._any:
            return []
        prepared = self._prepared.get(text)
        if prepared is not None:
            return prepared
        lower = text.lower()
        if len(lower) != len(text):  # rare letters whose lower case is longer: slower path
            if self._pattern_ci is None:
                self._pattern_ci = re.compile(self._source, re.IGNORECASE)
            return [m.span() for m in self._pattern_ci.finditer(text) if self._confirm(m.group(0))]
        if self._starts is not None:
            return self._runs(lower)
        if self._pattern is None:
            self._pattern = re.compile(self._source)
        return [m.span() for m in self._pattern.finditer(lower) if self._confirm(m.group(0))]

    def _runs(self, lower: str) -> list[tuple[int, int]]:
        """The runs of letters and digits of `lower` that begin with a prefix, confirmed: each
        prefix's occurrences found by `str.find` (a few per abstract), each kept where it begins
        a run, rather than a Python step for every word."""
        starts: set[int] = set()
        prefixes = self._starts or ()
        if self._latin_starts is not None and not _HAN_CHAR.search(lower):
            prefixes = self._latin_starts  # a Han prefix cannot occur in a text without Han
        for prefix in prefixes:
            at = lower.find(prefix)
            while at >= 0:
                # str.isalnum is [^\W_] for every code point (checked over all of them), without a regex call
                if at == 0 or not lower[at - 1].isalnum():
                    starts.add(at)
                at = lower.find(prefix, at + 1)
        spans = []
        for at in sorted(starts):
            end = _WORD_RUN.match(lower, at).end()
            if self._confirm(lower[at:end]):
                spans.append((at, end))
        return spans

    def _render(self, text: str, spans: list[tuple[int, int]]) -> str:
        if _SPECIAL.search(text) is None:  # nearly every title and abstract: nothing to escape
            out, last = [], 0
            for start, end in spans:
                out += (text[last:start], "<mark>", text[start:end], "</mark>")
                last = end
            out.append(text[last:])
            return "".join(out)
        out, last = [], 0
        for start, end in spans:
            out.append(html.escape(text[last:start]))
            out.append("<mark>" + html.escape(text[start:end]) + "</mark>")
            last = end
        out.append(html.escape(text[last:]))
        return "".join(out)

    def mark(self, text: str) -> str:
        """`text` HTML-escaped, with the matching words wrapped in <mark>."""
        return self._render(text, self._matches(text))

    def snippet(self, text: str, width: int = SNIPPET_CHARS) -> str:
        """About `width` characters of `text` around its densest run of matches, marked."""
        spans = self._matches(text)
        if len(text) <= width + CONTEXT_CHARS:
            return self._render(text, spans)
        start = 0
        if spans:
            best, j = 0, 0
            for i, (s, _) in enumerate(spans):  # window starting at match i holds matches i..j-1
                j = max(j, i)
                while j < len(spans) and spans[j][1] <= s + width:
                    j += 1
                if j - i > best:
                    best, start = j - i, s
            start = max(0, start - CONTEXT_CHARS)
        if start > 0:
            space = text.find(" ", start)
            start = space + 1 if 0 <= space < start + CONTEXT_CHARS else start
        end = min(len(text), start + width + CONTEXT_CHARS)
        if end < len(text):
            space = text.rfind(" ", start, end)
            end = space if space > start else end
        inner = [(s - start, e - start) for s, e in spans if s >= start and e <= end]
        return (("…" if start > 0 else "") + self._render(text[start:end], inner)
                + ("…" if end < len(text) else ""))
