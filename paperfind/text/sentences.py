"""Sentence splitting of abstracts, where `e.g.` or `et al.` does not end a sentence."""

from __future__ import annotations

import re

_SPACE = re.compile(r"\s+")
_SENTENCE_END = re.compile(r"[.!?]\s+(?=[A-Z(\[])")
_ABBREVIATIONS = ("e.g.", "i.e.", "et al.", "vs.", "cf.", "Fig.", "resp.", "etc.", "Eq.", "approx.")


def split_sentences(text: str) -> list[str]:
    """The text's sentences (whitespace-normalised); the period of `e.g.`, `et al.` or `1.5`
    does not end one."""
    text = _SPACE.sub(" ", text or "").strip()
    out, start = [], 0
    for match in _SENTENCE_END.finditer(text):
        head = text[start:match.start() + 1]
        if not head.endswith(_ABBREVIATIONS):
            out.append(head.strip())
            start = match.end()
    tail = text[start:].strip()
    if tail:
        out.append(tail)
    return [s for s in out if s]
