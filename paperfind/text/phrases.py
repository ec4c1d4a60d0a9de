"""Which English phrases the field writes: the sense of a Chinese word is chosen by its neighbours.

A dictionary gives a word several senses and a character its everyday ones first: 平均 is
"average, mean", 谱 "chart, ..., spectrum", 集 "gather, collect". Read side by side, the senses the
field's own titles and abstracts write together are the ones meant: of the pairs of adjacent
segments' senses, the pair the corpus writes most wins ("spectral density" over "chart
density"), and two senses the corpus writes as one word are that word (树 宽: "treewidth").
The counts are shipped package data (`phrase_counts.tsv.gz`, written by scripts/phrase-counts
from the bundled corpus, provenance in its header), read once.
"""

from __future__ import annotations

import gzip
import math
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

import Stemmer

from paperfind.text.stopwords import STOPWORDS

_CHUNK = re.compile(r"[^.,;:!?()\[\]{}\"]+")  # no pair spans punctuation
_WORD = re.compile(r"[a-z]+")
# a pair the corpus writes this often is a phrase of the field ("uniform convex": 21, "tree
# width": 18); fewer is chance
PHRASE_MIN_COUNT = 10
# and this many times more often than its words would meet by chance (`PhraseCounts.association`)
PHRASE_MIN_ASSOCIATION = 5.0
# what taking a word's next sense costs against a pair's log count: a pair written 20 times
# (log 3.0) outweighs the dictionary's order over five senses, one written 10 times over four
SENSE_RANK_COST = 0.5
MAX_MEMO_SENSES = 200_000  # senses whose edge words a PhraseCounts keeps (the glossary has fewer)
MAX_CANDIDATES = 10  # senses of a word weighed (CC-CEDICT lists up to 30 for a character)
_NO_LINK = (0.0, False)


def pairs_of(text: str, stems: dict[str, str], stemmer: Stemmer.Stemmer | None = None) -> Iterator[str]:
    """The stemmed adjacent word pairs of `text` ("stem stem"), as scripts/phrase-counts counts
    them: lower case, ASCII letter runs of two or more, stop words and punctuation break a pair.
    `stems` caches the stemmer's answers across calls."""
    stemmer = stemmer or _stemmer()
    for chunk in _CHUNK.findall(text.lower()):
        previous = ""
        for word in _WORD.findall(chunk):
            if len(word) < 2 or word in STOPWORDS:
                previous = ""
                continue
            stem = stems.get(word)
            if stem is None:
                stem = stems[word] = stemmer.stemWord(word)
            if previous:
                yield f"{previous} {stem}"
            previous = stem


@lru_cache(maxsize=1)
def _stemmer() -> Stemmer.Stemmer:
    return Stemmer.Stemmer("english")


class PhraseCounts:
    """How often the field writes two words side by side, and a word whole (closed compounds)."""

    def __init__(self, pairs: dict[str, int], word_count: Callable[[str], int], words: int = 0) -> None:
        """`words`: how many words the counts were taken of (0: the pairs are not weighed
        against chance)."""
        self.pairs = pairs
        self.word_count = word_count
        self.words = words
        self._stems: dict[str, str] = {}
        # per sense (the glossary's, a bounded set): its content words, and their edge stems. A
        # Chinese query's senses are weighed pair by pair (`choose_senses`), each sense against
        # every neighbour's, and each time found again by a regex and stemmed: ~0.3 ms a query
        self._edge_words: dict[str, tuple[str, ...]] = {}
        self._edge_stem_pairs: dict[str, tuple[str, str]] = {}

    def _edges(self, sense: str) -> tuple[str, ...]:
        edges = self._edge_words.get(sense)
        if edges is None:
            edges = tuple(w for w in _WORD.findall(sense.lower()) if len(w) > 1 and w not in STOPWORDS)
            if len(self._edge_words) < MAX_MEMO_SENSES:
                self._edge_words[sense] = edges
        return edges

    def _edge_stems(self, sense: str) -> tuple[str, str]:
        """The stems of the first and last content words of `sense` ("" when it has none)."""
        pair = self._edge_stem_pairs.get(sense)
        if pair is None:
            stems = [self._stem(w) for w in self._edges(sense)]
            pair = (stems[0], stems[-1]) if stems else ("", "")
            if len(self._edge_stem_pairs) < MAX_MEMO_SENSES:
                self._edge_stem_pairs[sense] = pair
        return pair

    def _stem(self, word: str) -> str:
        stem = self._stems.get(word)
        if stem is None:
            stem = self._stems[word] = _stemmer().stemWord(word)
        return stem

    def pair(self, left: str, right: str) -> int:
        """How often the field writes `left`'s last word just before `right`'s first."""
        last, first = self._edge_stems(left)[1], self._edge_stems(right)[0]
        return self.pairs.get(f"{last} {first}", 0) if last and first else 0

    def association(self, left: str, right: str) -> float:
        """How many times more often the pair is written than two words this frequent would
        meet by chance: a phrase is written far more often ("mean field": ~700 times, "feedback
        loop" ~600), two common words side by side little more ("model average": 3, "third one":
        10). Infinite when the counts are not weighed against chance (`words` 0)."""
        if not self.words:
            return math.inf
        a, b = self._edges(left), self._edges(right)
        if not a or not b:
            return 0.0
        chance = self.word_count(a[-1]) * self.word_count(b[0]) / self.words
        return self.pair(left, right) / max(chance, 1.0)

    def read_ahead(self, senses: Iterable[str]) -> None:
        """Find `senses`' edges now (a server's start-up: `ZhEnTranslator.warm`), not at the
        first query that weighs them."""
        for sense in senses:
            self._edge_stems(sense)

    def link(self, left: str, right: str) -> tuple[float, bool]:
        """What reading `left` just before `right` is worth (`choose_senses`): the log count of
        the closed word or of the phrase the field writes of them (0 below `PHRASE_MIN_COUNT`,
        a phrase only when `PHRASE_MIN_ASSOCIATION` times above chance), and whether the
        closed word is the larger."""
        return self.links((left,), (right,))[0][0]

    def links(self, lefts: Sequence[str], rights: Sequence[str]) -> list[list[tuple[float, bool]]]:
        """`link` of each of `lefts` (rows) before each of `rights`: `closed` and `pair` in one
        step, each sense's edges read once from the memo. A Chinese query weighs ~60 pairs of
        senses, one function call and three look-ups each, ~40% of its rendering (issue 33)."""
        pairs, word_count = self.pairs, self.word_count
        ahead = [(self._edge_stems(right)[0], right.isalpha()) for right in rights]
        table = []
        for left in lefts:
            last, left_alpha = self._edge_stems(left)[1], left.isalpha()
            row = []
            for right, (first, right_alpha) in zip(rights, ahead):
                joined = word_count((left + right).lower()) if left_alpha and right_alpha else 0
                paired = pairs.get(f"{last} {first}", 0) if last and first else 0
                if paired and self.association(left, right) < PHRASE_MIN_ASSOCIATION:
                    paired = 0
                best = joined if joined > paired else paired
                row.append((math.log1p(best), joined > paired) if best >= PHRASE_MIN_COUNT else _NO_LINK)
            table.append(row)
        return table

    def closed(self, left: str, right: str) -> int:
        """How often the field writes two one-word senses as one word ("tree" "width": treewidth)."""
        if " " in left or " " in right or not left.isalpha() or not right.isalpha():
            return 0
        return self.word_count((left + right).lower())


@lru_cache(maxsize=1)
def phrase_counts() -> PhraseCounts:
    """The shipped pair counts (`phrase_counts.tsv.gz`) and word counts, read once."""
    from paperfind.text.joins import parse_counts, vocabulary

    data = resources.files("paperfind.text").joinpath("phrase_counts.tsv.gz").read_bytes()
    words = vocabulary()
    return PhraseCounts(parse_counts(gzip.decompress(data).decode("utf-8").splitlines()),
                        words.count, sum(words.counts.values()))


@dataclass(frozen=True)
class Choice:
    """A segment's chosen sense; `joined` when it and the next segment's sense are one word
    (the word is `sense`, the next segment's choice is empty); `phrase` when a phrase of the
    field with a neighbour backs the choice (else the dictionary's order stands)."""

    sense: str
    phrase: bool = False
    joined: bool = False


def choose_senses(chain: list[tuple[str, ...]], counts: PhraseCounts) -> list[Choice]:
    """One sense per segment of a run of adjacent segments, each given its candidate senses in
    dictionary order: the path that best trades the corpus's pair counts of neighbours (those
    written `PHRASE_MIN_COUNT` times or more) against the senses' ranks (Viterbi)."""
    options = [tuple(c[:MAX_CANDIDATES]) for c in chain]
    if not options or any(not o for o in options):
        raise ValueError("every segment of a chain needs a sense")

    tables = [counts.links(options[i - 1], options[i]) for i in range(1, len(options))]
    score = [-SENSE_RANK_COST * r for r in range(len(options[0]))]
    back: list[list[int]] = []
    for i in range(1, len(options)):
        table, new, pointers = tables[i - 1], [], []
        for r in range(len(options[i])):
            best, arg = max((score[p] + table[p][r][0], -p) for p in range(len(options[i - 1])))
            new.append(best - SENSE_RANK_COST * r)
            pointers.append(-arg)
        score, back = new, back + [pointers]
    path = [max(range(len(score)), key=lambda r: (score[r], -r))]
    for pointers in reversed(back):
        path.append(pointers[path[-1]])
    path.reverse()
    return _choices(options, path, tables)


def _choices(options: list[tuple[str, ...]], path: list[int],
             tables: list[list[list[tuple[float, bool]]]]) -> list[Choice]:
    """The path's senses as choices; `tables[i]` links `options[i]`'s senses to the next's."""
    senses = [options[i][r] for i, r in enumerate(path)]
    phrase = [False] * len(senses)
    joined = [False] * len(senses)
    for i in range(len(senses) - 1):
        weight, closed = tables[i][path[i]][path[i + 1]]
        if weight > 0:
            phrase[i] = phrase[i + 1] = True
            joined[i] = closed and not joined[i - 1] if i else closed
    out: list[Choice] = []
    for i, sense in enumerate(senses):
        if i and joined[i - 1]:
            out.append(Choice("", True))
        elif joined[i]:
            out.append(Choice((sense + senses[i + 1]).lower(), True, True))
        else:
            out.append(Choice(sense, phrase[i]))
    return out


def chains(items: Iterable[tuple[str, ...]]) -> Iterator[list[int]]:
    """The runs of positions whose candidate lists are not empty (a function word breaks a run)."""
    run: list[int] = []
    for i, senses in enumerate(items):
        if senses:
            run.append(i)
        elif run:
            yield run
            run = []
    if run:
        yield run
