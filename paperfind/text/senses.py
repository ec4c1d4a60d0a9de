"""The senses a Chinese word has inside CC-CEDICT's compounds, beside those of its own entry.

A character's entry lists its everyday senses; its sense in the field's terms is often only in
the compounds it makes: 场's entry is "threshing floor, stage, scene", but 磁场 is "magnetic
field" and 电场 "electric field", and 集 ("gather, collect") is "set" in 数据集 "data set". Of a
compound A+B (both words of the dictionary) read as two English words "x y", where x is a sense
of A, y is a sense B has in the compound; and the other way round. These derived senses are only
candidates: a neighbour in the query must make a phrase of the field with one for it to be read
(`phrases.choose_senses`), so "field" is read for 场 beside 平均 "mean", not beside 停车 "parking".
"""

from __future__ import annotations

from collections import Counter, defaultdict

import Stemmer

_MAX_COMPOUND = 4


def compound_senses(cedict: dict[str, list[str]]) -> dict[str, list[str]]:
    """Word → its senses in the dictionary's two-word-sense compounds, the most frequent first
    (ties alphabetical); senses of the word's own entry are not repeated."""
    stemmer = Stemmer.Stemmer("english")
    stems: dict[str, str] = {}

    def stem(word: str) -> str:
        found = stems.get(word)
        if found is None:
            found = stems[word] = stemmer.stemWord(word)
        return found

    own: dict[str, set[str]] = {}

    def own_stems(word: str) -> set[str]:
        found = own.get(word)
        if found is None:
            found = own[word] = {stem(w.lower()) for sense in cedict[word] for w in sense.split()}
        return found

    found: dict[str, Counter[str]] = defaultdict(Counter)
    for word, senses in cedict.items():
        if not 2 <= len(word) <= _MAX_COMPOUND:
            continue
        pairs = [sense.lower().split() for sense in senses]
        pairs = [p for p in pairs if len(p) == 2]
        if not pairs:
            continue
        for cut in range(1, len(word)):
            left, right = word[:cut], word[cut:]
            if left not in cedict or right not in cedict:
                continue
            for x, y in pairs:
                if stem(x) in own_stems(left) and stem(y) not in own_stems(right):
                    found[right][y] += 1
                if stem(y) in own_stems(right) and stem(x) not in own_stems(left):
                    found[left][x] += 1
    return {word: [s for s, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]
            for word, counts in found.items()}
