"""Words the glossary implies: the part of a field term that the term's English names apart.

The glossary has 矩阵补全 "matrix completion" and 离群点检测 "outlier detection", but neither
dictionary has 补全 or 离群点 alone, so a query that writes them without their neighbours was read
by their characters (补 "make up for" + 全 "full"; 离 "leave" + 群 "group" + 点 "point"). Yet the
term tells what they mean: a headword that is a known word Y and a part X (Y + X or X + Y), whose
English begins or ends with a sense of Y, leaves the rest of its English to X: 矩阵 is "matrix",
so 补全 is "completion". The rule reads the shipped dictionaries only (never a query): no entry is
written by hand, and the glossary's growth brings its parts along.

Only parts of two characters or more are derived, from known words of two characters or more
(a lone character's senses are too many to cut an English phrase by), and only where neither
dictionary has the part: a word either one knows keeps its own reading. A part that begins with
a suffix character (化, 性, 度, 器, 式: `suffixes`) is none: the character ends the word before it.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Mapping

import Stemmer

from paperfind.text.suffixes import SUFFIX_ENDINGS

MIN_CHARS = 2  # a derived part, and the known word beside it, have at least this many characters


def implied_words(glossary: Mapping[str, tuple[str, ...]], is_known: Callable[[str], bool],
                  senses_of: Callable[[str], tuple[str, ...]],
                  is_part: Callable[[str], bool] | None = None) -> dict[str, tuple[str, ...]]:
    """{part: (its English,)} for every part of a glossary headword that neither dictionary
    knows (`is_known`) and whose English the headword's first English and the senses of its
    known remainder (`senses_of`) imply. Where several headwords imply a part, the English they
    imply most often wins (ties: the glossary's order). `is_part` chooses other parts instead
    (CC-CEDICT's words the glossary lacks: the field's sense of an everyday word, 场景 "scene",
    which the modes with vectors weigh beside the dictionary's, `ZhEnTranslator.implied_sense`)."""
    is_part = is_part or (lambda word: not is_known(word))
    stem = Stemmer.Stemmer("english").stemWord

    def words(text: str) -> list[str]:
        return text.lower().replace("-", " ").split()

    found: dict[str, Counter[str]] = defaultdict(Counter)
    for term, english in glossary.items():
        if not english or len(term) < 2 * MIN_CHARS:
            continue
        whole = words(english[0])
        stems = [stem(w) for w in whole]
        for cut in range(MIN_CHARS, len(term) - MIN_CHARS + 1):
            for part, known, known_first in ((term[cut:], term[:cut], True), (term[:cut], term[cut:], False)):
                if not is_part(part) or not is_known(known) or part[0] in SUFFIX_ENDINGS:
                    continue
                for sense in senses_of(known):
                    own = [stem(w) for w in words(sense)]
                    if not own or len(own) >= len(stems):
                        continue
                    if known_first and stems[:len(own)] == own:
                        found[part][" ".join(whole[len(own):])] += 1
                    elif not known_first and stems[-len(own):] == own:
                        found[part][" ".join(whole[:-len(own)])] += 1
    return {part: (counts.most_common(1)[0][0],) for part, counts in found.items()}
