"""Spaces a source lost at the PDF's line breaks, put back: "recurrent orconvolutional neural".

Abstracts copied from a PDF lose the space at each line break when the extractor joins the
lines: NeurIPS 2017's "Attention is all you need" reads "complex recurrent orconvolutional",
"convolutions entirely.Experiments", "BLEU onEnglish-to-German" and, where the extractor moved
the space one letter, "through an attentionm echanisms". No general word splitter is precise
enough for text full of model names and terms of art (a statistics split of any rare token was
wrong in 10 edits of 30), so each kind of join is its own class with a strict rule, and each
was measured on the bundled corpus before it was enabled (bench/joins.py, bench/RESULTS.md):

- `sentence`: a full stop between two words with no space after it, a lower-case word of the
  vocabulary before it and a frequent capitalised word after it ("entirely.Experiments"). The
  word before must start its token ("e.g.We", "U.S.Army", initials and numbers have another
  full stop, capital or digit there), the word after must end its token (a URL or file name
  goes on), and a code module is no word ("torch.Tensor").
- `function`: a lower-case function word glued to a capitalised word that is a frequent word
  ("onEnglish"); "anSwering" and "weIght", stylised names, stay, since "swering" and "ight"
  are no words, and so do names that are words joined ("inSight"); "a" is no function word
  here ("aPascal", "aAcc" are names).
- `rare`: a token that is no word of the vocabulary and has one split into a function word and
  a frequent word ("orconvolutional", "superiorin", "timeto", "onan").
- `pair`: the same with two frequent words of five letters or more, the first with the
  ending of a whole word ("previoussingle", "stochasticcontrol").
- `shifted`: two neighbouring tokens, neither a word, that become two frequent words when the
  space moves one or two letters ("attentionm echanisms").

The vocabulary is a word list with counts that `scripts/word-counts` makes from the bundled
corpus (`paperfind/text/word_counts.tsv.gz`, provenance in its header): a fixed list, not
counts of the corpus being read, so a paper's abstract reads the same whatever else is read
with it (a single file, the first venues of a first start, the whole corpus), and reading
stays one pass per file.
"""

from __future__ import annotations

import gzip
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources

# a word at least this frequent in the vocabulary is one a split may produce
FREQUENT = 50
# the classes `repair_joins` applies by default: those measured precise (bench/RESULTS.md)
ENABLED: frozenset[str] = frozenset({"sentence", "function", "rare", "pair", "shifted"})
CLASSES = ("sentence", "function", "rare", "pair", "shifted")

# lower-case function words a line break glued to the next word
FUNCTION_WORDS = frozenset("""
an and are as at be by for from in into is of on or than that the their these this to via
with we our its which where when while both over under between through
""".split())
# first halves that are prefixes as often as words: "nonconvex", "multitask", "pretrained"
# are words written closed, not two words
_PREFIXES = frozenset("""
a an anti auto bi bio co counter cross cyber de dis down electro em en ex extra geo hetero homo
hydro hyper in inter intra iso macro meta micro mid mini mis mono multi nano neuro non omni out
over para photo poly post pre pro pseudo quasi re self semi sub super tele thermo trans tri
ultra un under up uni
""".split())
# second halves that are suffixes as often as words: "parameterless", "rotationwise"
_SUFFIXES = frozenset("""
able ability ably al ally ation ations ed er ers es free fully ful ible ing ings ise ised ising
ize ized izing less like ly ment ments ness ship wise ward wards
""".split())
# words before a full stop that name code, not a sentence's end: "torch.Tensor", "nn.Module"
# function words that are as often the start ("attracks", "attuning", "oncoming", "onsets",
# "belies", "forgiving") or the end of a word ("governor", "takeover", "tendon",
# "walkthrough") that the vocabulary misses: a half of a `rare` split there only beside
# another function word ("onan"). The vocabulary is machine learning's: the slices of other
# venues (ICRA, COLM) found the last three
_NOT_FIRST = frozenset({"at", "on", "be", "for"})
_NOT_SECOND = frozenset({"or", "an", "as", "at", "us", "over", "under", "on", "through"})
# endings of a whole word, which the first word of a `pair` has
_WORD_ENDINGS = ("s", "ed", "ly", "al", "ic", "ive", "ous", "ion", "ing", "ity", "ble", "ary",
                 "ent", "ant", "ful")
_CODE_NAMES = frozenset("torch nn np tf jax keras numpy scipy sklearn pandas os sys".split())

_SENTENCE = re.compile(r"(?:(?<=\s)|^|(?<=[(\"']))([a-z]{2,})\.([A-Z][a-z]+)(?=[\s,;:]|$)")
_CAMEL = re.compile(r"[a-z][A-Z]")
_CAPITALISED = re.compile(r"[A-Z][a-z]{2,}(?![A-Za-z0-9_@])")
# not inside markup, code, links or LaTeX: "**P**areto", "\\href", "$\\tilde", "github.com/x"
_EDGE_BEFORE = r"(?<![A-Za-z0-9_./@#'*\\$^{}~-])"
_EDGE_AFTER = r"(?![A-Za-z0-9_@*\\$^{}~-]|'[a-z]|\.[a-z])"  # "perfor- mance" is no join
_WORD = re.compile(r"[a-z]{3,}")
_SENTENCE_HINT = re.compile(r"[a-z]\.[A-Z]")
_LOWER = re.compile(_EDGE_BEFORE + r"([a-z]{4,})" + _EDGE_AFTER)
_NEXT = re.compile(r"([a-z]{3,})" + _EDGE_AFTER)
_NOT_BEFORE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./@#'*\\$^{}~-")


@dataclass(frozen=True)
class Edit:
    """One repair: `kind` (a class), where it is in the text, what it read and what it reads."""

    kind: str
    start: int
    end: int
    old: str
    new: str


@dataclass(frozen=True)
class Vocabulary:
    """Word counts (lower case) of real abstracts and titles: a word of the vocabulary is one
    counted at least `known` times; absent, a token counts 0."""

    counts: Mapping[str, int]
    words: frozenset[str] = frozenset()
    # `one_split` of each non-word met so far: the same model names and typos recur across
    # thousands of abstracts, and splitting them again was a third of the repair's time
    splits: dict[str, tuple[str, str, str] | None] = field(default_factory=dict, compare=False,
                                                           repr=False)

    def __post_init__(self) -> None:
        if not self.words:  # for the set operations of the finders, made once
            object.__setattr__(self, "words", frozenset(self.counts))

    def count(self, word: str) -> int:
        return self.counts.get(word.lower(), 0)

    def known(self, word: str) -> bool:
        return word.lower() in self.counts

    def frequent(self, word: str) -> bool:
        return self.counts.get(word.lower(), 0) >= FREQUENT

    def split(self, token: str) -> tuple[str, str, str] | None:
        """`one_split(token, self)`, worked out once per token."""
        try:
            return self.splits[token]
        except KeyError:
            found = self.splits[token] = one_split(token, self)
            return found


@lru_cache(maxsize=1)
def vocabulary() -> Vocabulary:
    """The shipped vocabulary (`word_counts.tsv.gz`), read once."""
    data = resources.files("paperfind.text").joinpath("word_counts.tsv.gz").read_bytes()
    return Vocabulary(parse_counts(gzip.decompress(data).decode("utf-8").splitlines()))


def parse_counts(lines: Iterable[str]) -> dict[str, int]:
    """`word<TAB>count` lines; `#` lines are the header."""
    counts: dict[str, int] = {}
    for line in lines:
        if line and not line.startswith("#"):
            word, _, count = line.partition("\t")
            counts[word] = int(count)
    return counts


def repair_joins(text: str, vocab: Vocabulary | None = None,
                 kinds: frozenset[str] = ENABLED) -> str:
    """`text` with the lost spaces of the `kinds` classes put back (unchanged when none)."""
    if not text:
        return text
    edits = join_edits(text, vocab or vocabulary(), kinds)
    if not edits:
        return text
    out, at = [], 0
    for edit in edits:
        out.append(text[at:edit.start])
        out.append(edit.new)
        at = edit.end
    out.append(text[at:])
    return "".join(out)


def join_edits(text: str, vocab: Vocabulary, kinds: frozenset[str] = ENABLED) -> list[Edit]:
    """The repairs of `text`, in text order and not overlapping (a span the first class in
    `CLASSES` order claims is not looked at again)."""
    edits: list[Edit] = []
    taken: list[tuple[int, int]] = []
    unknown = frozenset(_WORD.findall(text)).difference(vocab.words)  # lower-case non-words
    for finder, finds in _FINDERS:
        if finds & kinds:
            for edit in finder(text, vocab, unknown):
                if edit.kind in kinds and not any(edit.start < end and start < edit.end
                                                  for start, end in taken):
                    edits.append(edit)
                    taken.append((edit.start, edit.end))
    edits.sort(key=lambda e: e.start)
    return edits


def _sentence(text: str, vocab: Vocabulary, unknown: frozenset[str]) -> Iterable[Edit]:
    if _SENTENCE_HINT.search(text) is None:
        return
    for match in _SENTENCE.finditer(text):
        before, after = match[1], match[2]
        if before in _CODE_NAMES or not vocab.known(before) or not vocab.frequent(after):
            continue
        yield Edit("sentence", match.start(), match.end(), match[0], f"{before}. {after}")


def _function(text: str, vocab: Vocabulary, unknown: frozenset[str]) -> Iterable[Edit]:
    """From each lower-case letter before a capital back to the start of its word: a pattern
    with the function words before the capital cost twice the time."""
    for camel in _CAMEL.finditer(text):
        capital = camel.start() + 1
        start = camel.start()
        while start > 0 and start > capital - 8 and text[start - 1].islower():
            start -= 1
        word = text[start:capital]
        if word not in FUNCTION_WORDS or start > 0 and text[start - 1] in _NOT_BEFORE:
            continue
        rest = _CAPITALISED.match(text, capital)
        if rest is None or not vocab.frequent(rest[0]) or vocab.known(word + rest[0]):
            continue
        yield Edit("function", start, rest.end(), word + rest[0], f"{word} {rest[0]}")


def _rare(text: str, vocab: Vocabulary, unknown: frozenset[str]) -> Iterable[Edit]:
    splits = {t: split for t in unknown if len(t) > 3 and (split := vocab.split(t))}
    if not splits:
        return
    for match in _LOWER.finditer(text):
        split = splits.get(match[1])
        if split is not None:
            yield Edit(split[0], match.start(), match.end(), match[1], f"{split[1]} {split[2]}")


def one_split(token: str, vocab: Vocabulary) -> tuple[str, str, str] | None:
    """(class, first word, second word) of the only split of `token` into two frequent words
    (None when there are two: "therein" could be "the rein" or "there in").

    `rare`: a function word and a word of three letters or more ("timeto", "orconvolutional";
    or two function words, "onan"). `pair`: two words of five letters or more, the first with
    the ending of a whole word ("previoussingle", "stochasticcontrol"); without it compounds
    and derived words were split ("stereo typically", "store fronts", "interpret abilities").
    Shorter halves made words of compounds ("arm chair", "guide book", "learn et"); a prefix
    first ("photo toxicity") or suffix second ("resource fully") made words of derived ones."""
    found = None
    for i in range(2, len(token) - 1):
        left, right = token[:i], token[i:]
        if left in _PREFIXES and right not in FUNCTION_WORDS or right in _SUFFIXES:
            continue
        if (left in FUNCTION_WORDS and right in FUNCTION_WORDS
                or left in FUNCTION_WORDS and left not in _NOT_FIRST and len(right) >= 3
                or right in FUNCTION_WORDS and right not in _NOT_SECOND and len(left) >= 3):
            kind = "rare"
        elif min(len(left), len(right)) >= 5 and left.endswith(_WORD_ENDINGS):
            kind = "pair"
        else:
            continue
        if vocab.frequent(left) and vocab.frequent(right):
            if found is not None:
                return None
            found = (kind, left, right)
    return found


def _shifted(text: str, vocab: Vocabulary, unknown: frozenset[str]) -> Iterable[Edit]:
    """Looked for around the text's non-words only (a few an abstract): a search at every
    pair of words was a third of the repair's time."""
    if len(unknown) < 2:
        return
    for first in unknown:
        at = text.find(first + " ")
        while at != -1:
            if at == 0 or text[at - 1] not in _NOT_BEFORE:
                after = _NEXT.match(text, at + len(first) + 1)
                if after is not None and after[1] in unknown:
                    edit = _moved_space(text, at, after.end(), first, after[1], vocab)
                    if edit is not None:
                        yield edit
            at = text.find(first + " ", at + 1)


def _moved_space(text: str, start: int, end: int, first: str, second: str,
                 vocab: Vocabulary) -> Edit | None:
    """The edit of two non-words that are two frequent words with the space one or two letters
    over; none when they are one word split ("reso lution") or when two moves would do."""
    if vocab.known(first + second):
        return None
    moves = [(first[:-k], first[-k:] + second) for k in (1, 2)]
    moves += [(first + second[:k], second[k:]) for k in (1, 2)]
    good = [m for m in moves if len(m[0]) > 1 and len(m[1]) > 1
            and vocab.frequent(m[0]) and vocab.frequent(m[1])]
    if len(good) != 1:
        return None
    return Edit("shifted", start, end, text[start:end], f"{good[0][0]} {good[0][1]}")


# each finder with the classes it finds, in the order they claim a span
_FINDERS = ((_sentence, {"sentence"}), (_function, {"function"}), (_rare, {"rare", "pair"}),
            (_shifted, {"shifted"}))
