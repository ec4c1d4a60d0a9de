"""Chinese word-forming suffixes read as the English word the field derives: 线性化 "linearization".

Chinese makes a field's terms with a few suffix characters: 化 (-ize, -ization), 性 and 度 (-ity,
-ness), 器 (-er, -or), 式 (-ive, -al). Where no dictionary has the whole word, the translator read
the suffix alone by its everyday sense (化 "transform", 性 "property", 器 "device", 式 "type"),
a word no paper on the term writes. The English derivative is found in the field's own words: the
stem of the word's sense (Snowball: "sparse" → "spars") with each English ending of the suffix,
kept when the field writes it (`sparsification`, `sparsity`; `predictor` for 预测器).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

import Stemmer

SUFFIX_ENDINGS: dict[str, tuple[str, ...]] = {
    "化": ("ization", "isation", "ize", "ify", "ification"),
    "性": ("ity", "icity", "ability", "ibility", "ness"),
    "度": ("ity", "icity", "ness"),
    "器": ("er", "or", "izer"),
    "式": ("ive", "ative", "al"),
}
MAX_DERIVED = 2


@lru_cache(maxsize=1)
def _stem() -> Callable[[str], str]:
    return Stemmer.Stemmer("english").stemWord


def derived_forms(sense: str, suffix: str, count: Callable[[str], int], min_count: int) -> tuple[str, ...]:
    """The field's words that `sense` (one English word) makes with `suffix`'s endings, the
    most written first; () when `sense` is several words or the field writes none. The sense
    itself is one when it is the derivative already (交互 "interactive" with 式)."""
    if suffix not in SUFFIX_ENDINGS or not sense.isalpha():
        return ()
    base = _stem()(sense.lower())
    found = {base + ending for ending in SUFFIX_ENDINGS[suffix]}
    written = sorted((w for w in found if count(w) >= min_count), key=lambda w: (-count(w), w))
    return tuple(written[:MAX_DERIVED])
