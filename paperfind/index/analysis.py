"""The text side of an index build: every paper's title, abstract and keywords cut into terms.

It was 60% of a first start's index build when each paper's words went through Python one by
one, three times (analysis, term ids, field rows). Here the per-paper Python is the regular
expressions alone (`Analyzer.words`, `Analyzer.compounds`); each distinct word is stemmed,
stop-listed and spell-checked once, and the corpus' words become term ids, field rows, term
sequences and spelling counts in array operations.

A `TextTerms` depends on the texts alone, not on the store's people or ids, so it can be made
in another process while the store is written (`paperfind.index.prepared`), and `take` picks
the rows of the papers whose texts it has, by their `text_digest`.
"""

from __future__ import annotations

import hashlib
import re
from array import array
from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np

from paperfind.index.distinct import distinct
from paperfind.text.analyze import Analyzer

KEYWORD_BREAK = -1  # separates two keywords in a doc's keyword sequence
_BREAK_WORD = "\x00"  # stands for KEYWORD_BREAK among the words (no word is "\x00")
_STOP = -2  # the term of a stop word: not indexed
_SPELL_WORD = re.compile(r"^[a-z]+$")
_TEXT_FIELDS = ("title", "abstract", "keywords")
SPELL_CHUNK_PAPERS = 20_000  # papers whose spelling pairs are sorted at once (`_spelling_rows`)
# (title, abstract, keywords) of one paper
Texts = tuple[str, str, Sequence[str]]


@dataclass
class Ragged:
    """One int32 row per paper: row i is `ids[indptr[i]:indptr[i + 1]]`."""

    indptr: np.ndarray  # int64, n + 1
    ids: np.ndarray  # int32

    @property
    def lengths(self) -> np.ndarray:
        return np.diff(self.indptr)

    def take(self, rows: np.ndarray) -> "Ragged":
        """The rows `rows`, in that order."""
        lengths = self.lengths[rows]
        indptr = np.zeros(len(rows) + 1, dtype=np.int64)
        np.cumsum(lengths, out=indptr[1:])
        # position k of the output is input position starts[row] + (k - indptr[row])
        starts = np.repeat(self.indptr[:-1][rows] - indptr[:-1], lengths)
        return Ragged(indptr, self.ids[starts + np.arange(int(indptr[-1]), dtype=np.int64)])

    def where(self, keep: np.ndarray) -> "Ragged":
        """Each row with only the entries where `keep` (one bool per entry of `ids`) holds."""
        kept = np.zeros(len(keep) + 1, dtype=np.int64)
        np.cumsum(keep, out=kept[1:])
        indptr = kept[self.indptr]
        return Ragged(indptr, self.ids[keep])

    def rows(self) -> list[list[int]]:
        """As Python lists (tests and small corpora)."""
        return [self.ids[a:b].tolist() for a, b in zip(self.indptr[:-1], self.indptr[1:])]


def concat_rows(*parts: Ragged) -> Ragged:
    """Row i of the result is row i of every part, one after the other (all have n rows)."""
    n = len(parts[0].indptr) - 1
    lengths = np.zeros((len(parts), n), dtype=np.int64)
    for p, part in enumerate(parts):
        lengths[p] = part.lengths
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(lengths.sum(axis=0), out=indptr[1:])
    ids = np.empty(int(indptr[-1]), dtype=np.int32)
    offset = indptr[:-1].copy()
    for p, part in enumerate(parts):
        # entry j of row i of this part goes to offset[i] + j
        local = np.arange(len(part.ids), dtype=np.int64) - np.repeat(part.indptr[:-1], lengths[p])
        ids[np.repeat(offset, lengths[p]) + local] = part.ids
        offset += lengths[p]
    return Ragged(indptr, ids)


def ragged(rows: list[list[int]]) -> Ragged:
    """Python lists as one `Ragged`."""
    indptr = np.zeros(len(rows) + 1, dtype=np.int64)
    if rows:
        np.cumsum([len(r) for r in rows], out=indptr[1:])
    return Ragged(indptr, np.fromiter((v for r in rows for v in r), dtype=np.int32,
                                      count=int(indptr[-1])))


@dataclass
class TextTerms:
    """The analysed texts of n papers. Term ids index `terms` (this analysis' own, unsorted
    vocabulary); spelling word ids index `spell_words`."""

    terms: list[str]
    title: Ragged  # stemmed content terms in order (the term sequences and the BM25 rows)
    abstract: Ragged
    keywords: Ragged  # every keyword's terms followed by KEYWORD_BREAK
    title_plus: Ragged  # joined stems of hyphenated words: scored, not in the sequences
    abstract_plus: Ragged
    keywords_plus: Ragged
    spell_words: list[str]
    spell: Ragged  # the distinct spelling-candidate words of each paper
    digests: list[bytes]  # text_digest of each paper's texts

    FIELDS = ("title", "abstract", "keywords", "title_plus", "abstract_plus", "keywords_plus",
              "spell")

    def __len__(self) -> int:
        return len(self.digests)

    def take(self, rows: np.ndarray) -> "TextTerms":
        rows = np.asarray(rows, dtype=np.int64)
        return TextTerms(self.terms, **{f: getattr(self, f).take(rows) for f in self.FIELDS},
                         spell_words=self.spell_words,
                         digests=[self.digests[i] for i in rows.tolist()])

    def joined(self, other: "TextTerms") -> "TextTerms":
        """This analysis' papers, then `other`'s, in one vocabulary (this one's, extended)."""
        terms, term_map = _merged(self.terms, other.terms)
        spell_words, spell_map = _merged(self.spell_words, other.spell_words)
        parts = {}
        for f in self.FIELDS:
            mine, theirs = getattr(self, f), getattr(other, f)
            mapped = spell_map if f == "spell" else term_map
            ids = np.where(theirs.ids >= 0, mapped[np.maximum(theirs.ids, 0)], theirs.ids)
            parts[f] = Ragged(np.concatenate([mine.indptr, theirs.indptr[1:] + mine.indptr[-1]]),
                              np.concatenate([mine.ids, ids.astype(np.int32)]))
        return TextTerms(terms, **parts, spell_words=spell_words,
                         digests=self.digests + other.digests)


def _merged(first: list[str], second: list[str]) -> tuple[list[str], np.ndarray]:
    """`first` extended by the strings of `second` it lacks, and where each of `second` is."""
    ids = _Ids()
    for s in first:
        ids[s]  # noqa: B018 (assigns the next id)
    return ids.order, ids.array(second)


def terms_of_texts(texts: list[Texts], an: Analyzer | None = None,
                   prepared: TextTerms | None = None) -> TextTerms:
    """The analysis of `texts`, in their order: each paper's rows from `prepared` when it has
    that paper's texts (by digest), the others analysed now."""
    if prepared is None or not len(prepared):
        return analyze_texts(texts, an)
    row_of = {d: i for i, d in enumerate(prepared.digests)}
    rows = [row_of.get(text_digest(*t), -1) for t in texts]
    missing = [i for i, r in enumerate(rows) if r < 0]
    if not missing:
        return prepared.take(np.asarray(rows, dtype=np.int64))
    both = prepared.joined(analyze_texts([texts[i] for i in missing], an))
    for j, i in enumerate(missing):
        rows[i] = len(prepared) + j
    return both.take(np.asarray(rows, dtype=np.int64))


def text_digest(title: str, abstract: str, keywords: Sequence[str]) -> bytes:
    """Names a paper's texts exactly: each text after its length, so no two different texts meet."""
    joined = "".join(f"{len(part)}\x00{part}" for part in (title, abstract, *keywords))
    return hashlib.blake2b(f"{len(keywords)}\x00{joined}".encode("utf-8", "surrogatepass"),
                           digest_size=16).digest()


class _Ids(dict):
    """Strings to dense ids in order of first sight; `order` lists them by id."""

    def __init__(self) -> None:
        super().__init__()
        self.order: list[str] = []

    def __missing__(self, key: str) -> int:
        self[key] = n = len(self.order)
        self.order.append(key)
        return n

    def array(self, strings: list[str]) -> np.ndarray:
        return np.fromiter(map(self.__getitem__, strings), dtype=np.int32, count=len(strings))


def analyze_texts(texts: Iterable[Texts], an: Analyzer | None = None) -> TextTerms:
    """Cut each paper's texts exactly as the index always did: `Analyzer.words` (stop words
    dropped, then stemmed) for the sequences and BM25 rows, `Analyzer.compounds` for the joined
    stems, and every `^[a-z]+$` word a paper uses for spelling, counted once a paper."""
    an = an or Analyzer()
    # each field's words as ids of the field's own first-sight order, 4 bytes an occurrence
    # (a list held an 8-byte pointer an occurrence, and all three lived to the end: the build's
    # peak); merged below into the order one table over title, abstract, keywords would give
    local = {f: _Ids() for f in _TEXT_FIELDS}
    words = {f: array("i") for f in _TEXT_FIELDS}
    counts = {f: array("q") for f in _TEXT_FIELDS}
    plus = {f: [] for f in _TEXT_FIELDS}
    plus_counts = {f: [] for f in _TEXT_FIELDS}
    digests: list[bytes] = []
    for title, abstract, keywords in texts:
        digests.append(text_digest(title, abstract, keywords))
        for field, text in (("title", title), ("abstract", abstract)):
            found = an.words(text)
            words[field].extend(map(local[field].__getitem__, found))
            counts[field].append(len(found))
            joined = [j for _, j in an.compounds(text)] if not text.isascii() or "-" in text else []
            plus[field].extend(joined)
            plus_counts[field].append(len(joined))
        n_words = len(words["keywords"])
        n_plus = len(plus["keywords"])
        ids = local["keywords"]
        for k in keywords:
            words["keywords"].extend(map(ids.__getitem__, an.words(k)))
            words["keywords"].append(ids[_BREAK_WORD])
            if not k.isascii() or "-" in k:
                plus["keywords"].extend(j for _, j in an.compounds(k))
        counts["keywords"].append(len(words["keywords"]) - n_words)
        plus_counts["keywords"].append(len(plus["keywords"]) - n_plus)
    n = len(digests)

    word_ids = _Ids()
    word_rows = {}
    for f in _TEXT_FIELDS:
        to_global = word_ids.array(local.pop(f).order)
        word_rows[f] = _rows(to_global[np.frombuffer(words.pop(f), dtype=np.int32)],
                             np.frombuffer(counts.pop(f), dtype=np.int64))
    terms = _Ids()
    # per distinct word: its term (or _STOP / KEYWORD_BREAK) and whether spelling counts it
    term_of = np.fromiter((KEYWORD_BREAK if w == _BREAK_WORD else
                           _STOP if an.is_stopword(w) else terms[an.stem(w)]
                           for w in word_ids.order), dtype=np.int32, count=len(word_ids.order))
    spelled = np.fromiter((bool(_SPELL_WORD.match(w)) for w in word_ids.order), dtype=bool,
                          count=len(word_ids.order))
    fields = {}
    for f, rows in word_rows.items():
        mapped = Ragged(rows.indptr, term_of[rows.ids])
        fields[f] = mapped.where(mapped.ids != _STOP)
    for f in plus:
        fields[f + "_plus"] = _rows(terms.array(plus[f]), plus_counts[f])

    spell_map = np.full(len(word_ids.order), -1, dtype=np.int32)
    spell_map[spelled] = np.arange(int(spelled.sum()), dtype=np.int32)
    spell_words = [w for w, s in zip(word_ids.order, spelled.tolist()) if s]
    spell = _spelling_rows(list(word_rows.values()), spell_map, len(spell_words))
    return TextTerms(terms.order, **fields, spell_words=spell_words, spell=spell, digests=digests)


def _rows(ids: np.ndarray, counts: Sequence[int] | np.ndarray) -> Ragged:
    indptr = np.zeros(len(counts) + 1, dtype=np.int64)
    if len(counts):
        np.cumsum(counts, out=indptr[1:])
    return Ragged(indptr, ids)


def _spelling_rows(word_rows: list[Ragged], spell_map: np.ndarray, n_spell: int) -> Ragged:
    """Each paper's distinct spelling-candidate words (`spell_map`: a word's candidate id, -1
    for none) over all its fields' rows, in id order.

    Made `SPELL_CHUNK_PAPERS` papers at a time: the (paper, word) pairs of the whole corpus at once, as int64
    with their sorted copy, were 1.5 GB at 156k papers, the index build's peak; a paper's pairs
    are all in its chunk, so the rows are the same whatever the chunk."""
    n = len(word_rows[0].indptr) - 1 if word_rows else 0
    width, chunk = max(n_spell, 1), SPELL_CHUNK_PAPERS
    lengths = np.zeros(n, dtype=np.int64)
    ids = []
    for start in range(0, n, chunk):
        stop = min(n, start + chunk)
        docs, words = [], []
        for rows in word_rows:
            a, b = int(rows.indptr[start]), int(rows.indptr[stop])
            docs.append(np.repeat(np.arange(stop - start, dtype=np.int64),
                                  np.diff(rows.indptr[start:stop + 1])))
            words.append(spell_map[rows.ids[a:b]])
        doc_of, word_of = np.concatenate(docs), np.concatenate(words)
        keep = word_of >= 0
        # sorted, each pair once; by a sort, not np.unique (which hashes first: ~1 s a chunk, ~20x)
        pairs = distinct(doc_of[keep] * width + word_of[keep])
        lengths[start:stop] = np.bincount(pairs // width, minlength=stop - start)
        ids.append((pairs % width).astype(np.int32))
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(lengths, out=indptr[1:])
    return Ragged(indptr, np.concatenate(ids) if ids else np.zeros(0, dtype=np.int32))
