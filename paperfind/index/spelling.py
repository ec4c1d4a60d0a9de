"""A corpus-vocabulary spell corrector (symmetric delete, edit distance 1).

Why symmetric delete: a one-letter typo (swap, drop, double, neighbour key) and the right word
always share a string made by deleting at most one letter from each, so candidates come from
a handful of exact lookups in a sorted table, not from a scan of the vocabulary. The
vocabulary is the unstemmed words of titles, keywords and abstracts with their document
frequencies, so corrections point at words papers actually use.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import numpy as np

from paperfind.index.strings import StringTable, load_array

_ALPHA = re.compile(r"^[a-z]+$")
MIN_LEN = 4  # the shortest word we try to correct
MIN_VOCAB_LEN = 3


def deletes(word: str) -> set[str]:
    return {word[:i] + word[i + 1:] for i in range(len(word))}


def within_one_edit(a: str, b: str) -> bool:
    """Optimal-string-alignment distance <= 1 (one insert, delete, substitute or swap)."""
    if a == b:
        return True
    la, lb = len(a), len(b)
    if abs(la - lb) > 1:
        return False
    i = 0
    while i < min(la, lb) and a[i] == b[i]:
        i += 1
    if la == lb:
        if a[i + 1:] == b[i + 1:]:
            return True
        return i + 1 < la and a[i] == b[i + 1] and a[i + 1] == b[i] and a[i + 2:] == b[i + 2:]
    if la > lb:
        return a[i + 1:] == b[i:]
    return a[i:] == b[i + 1:]


class SpellIndex:
    """Words with frequencies plus a sorted table of their deletes."""

    def __init__(self, words: StringTable, freq: np.ndarray, delete_keys: StringTable,
                 delete_words: np.ndarray) -> None:
        self.words = words
        self.freq = freq
        self.delete_keys = delete_keys
        self.delete_words = delete_words

    def frequency(self, word: str) -> int:
        i = self.words.find(word)
        return int(self.freq[i]) if i >= 0 else 0

    def candidates(self, word: str) -> list[tuple[str, int]]:
        """Vocabulary words within one edit of `word` (itself excluded), most frequent first."""
        if len(word) < MIN_LEN or not _ALPHA.match(word):
            return []
        found: set[int] = set()
        for key in {word} | deletes(word):
            lo, hi = self.delete_keys.range(key)
            found.update(int(w) for w in self.delete_words[lo:hi])
            i = self.words.find(key)  # the query word with one extra letter
            if i >= 0:
                found.add(i)
        out = []
        for i in found:
            cand = self.words[i]
            if cand != word and within_one_edit(word, cand):
                out.append((cand, int(self.freq[i])))
        out.sort(key=lambda p: (-p[1], p[0]))
        return out

    # -- build / persistence ----------------------------------------------------------------
    @staticmethod
    def build(counts: Counter, root: Path) -> None:
        words = sorted(w for w in counts if len(w) >= MIN_VOCAB_LEN and _ALPHA.match(w))
        StringTable.save(words, root, "spell.words")
        np.save(root / "spell.freq.npy", np.asarray([counts[w] for w in words], dtype=np.int32))
        pairs = sorted((d, i) for i, w in enumerate(words) if len(w) >= MIN_LEN for d in deletes(w))
        StringTable.save((d for d, _ in pairs), root, "spell.deletes")
        np.save(root / "spell.delete_words.npy", np.asarray([i for _, i in pairs], dtype=np.int32))

    @classmethod
    def load(cls, root: Path) -> "SpellIndex":
        return cls(StringTable.load(root, "spell.words"),
                   load_array(root / "spell.freq.npy"),
                   StringTable.load(root, "spell.deletes"),
                   load_array(root / "spell.delete_words.npy"))
