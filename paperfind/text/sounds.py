"""Foreign names a dictionary lacks, read back from their sound: 香农 is Shannon, 哈密顿 Hamiltonian.

Chinese writes a foreign name with characters chosen for their sound (玻尔兹曼 Boltzmann). CC-CEDICT
knows many such names but not the field's (哈密顿, 香农, 李雅普诺夫 are missing), and read character by
character they become nonsense ("sound agriculture" for 香农). A run of such characters is read in pinyin
and matched to the field's own words by a consonant skeleton with the usual Mandarin
correspondences: the English sh, ch, s, z, j and x are all one sound class, as are b~p, d~t, g~k~c,
f~v~ph, n~ng, l~r (Chinese often drops an English r or l: 薛定谔 Schrödinger, 哈密顿 Hamilton, so
l/r are left out of the comparison), vowels and the glides y, w are not compared. A reading is
kept only when one word of the field clearly wins: no ordinary English word (one CC-CEDICT uses in
its everyday glosses) can be a name read this way, and acronyms (no vowels) are not names.

Which characters are transliteration characters is read from CC-CEDICT itself: those that occur
in many of its entries glossed as a foreign name (a proper name whose gloss is not the
headword's own pinyin, as a Chinese person's or place's would be).
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

# a character is a transliteration character when this many of CC-CEDICT's foreign names use it
# (斯 693, 尔 522, 伊 80, 辛 24, 香 21, 农 12; 模 2, 量 0, 随 0)
MIN_FOREIGN_NAMES = 8
# and at least this share of the CC-CEDICT entries that use it are foreign names: 不 (18 of 2,143: 不列颠
# Britain) is no name's character, 可 (18 of 396) is
MIN_FOREIGN_SHARE = 0.04
MIN_RUN = 2
MAX_RUN = 6
# the field's word must be written this often, and this many times more than the next candidate
MIN_COUNT = 50
MIN_LEAD = 2.0
# the vowels must agree but for this many edits (`vowel_distance`)
MAX_VOWEL_DISTANCE = 0.75
# a candidate this close to the best one's vowels is a rival (`MIN_LEAD`)
CLOSE_SECOND = 0.25

_CEDICT_LINE = re.compile(r"^(\S+) (\S+) \[([^\]]*)\] /(.*)/\s*$")
_NAME = re.compile(r"^(?:[A-Z][\w.'-]*\s+){0,3}([A-Z][a-z][\w'-]*)\s*(?:,|$)")
_PAREN = re.compile(r"\([^)]*\)")
_PAREN_IN_LINE = re.compile(r"\([^)\n]*\)")
_GLOSS_WORD = re.compile(r"(?<![A-Za-z])[a-z]+(?![A-Za-z])")  # lower-case words: not "Wise" as "ise"

# pinyin initials, longest first, to their sound class ("" for the glides)
_PINYIN_INITIALS = (("zh", "S"), ("ch", "S"), ("sh", "S"), ("b", "P"), ("p", "P"), ("d", "T"), ("t", "T"),
                    ("g", "K"), ("k", "K"), ("f", "F"), ("h", "H"), ("j", "S"), ("q", "S"), ("x", "S"),
                    ("z", "S"), ("c", "S"), ("s", "S"), ("l", "L"), ("r", "L"), ("m", "M"), ("n", "N"),
                    ("y", ""), ("w", "F"))
# English letters and groups, longest first, to the same classes
_ENGLISH_GROUPS = (("sch", "S"), ("tch", "S"), ("sh", "S"), ("ch", "S"), ("th", "T"), ("ph", "F"),
                   ("ck", "K"), ("gh", ""), ("ng", "N"), ("tz", "S"), ("ts", "S"), ("dt", "T"), ("qu", "K"),
                   ("x", "KS"), ("ce", "S"), ("ci", "S"), ("cy", "S"), ("b", "P"), ("p", "P"), ("d", "T"),
                   ("t", "T"), ("g", "K"), ("k", "K"), ("q", "K"), ("c", "K"), ("f", "F"), ("v", "F"),
                   ("h", "H"), ("j", "S"), ("s", "S"), ("z", "S"), ("l", "L"), ("r", "L"), ("m", "M"),
                   ("n", "N"), ("w", "F"), ("y", ""))
_VOWELS = re.compile(r"[aeiouy]+")
# a name's adjective has a vowel more than the name (Hamiltonian, 哈密顿)
_ADJECTIVE = re.compile(r"[ei]an$")


def _collapse(classes: Iterable[str]) -> str:
    """The sound classes with l/r left out but at the start, repeats merged (Shannon's nn is one
    n); "V" marks a word that starts with a vowel (Euler, 欧拉)."""
    out: list[str] = []
    for c in classes:
        if c and (c != "L" or not out) and (not out or out[-1] != c):
            out.append(c)
    return "".join(out)


def pinyin_skeletons(syllables: list[str]) -> set[str]:
    """The consonant skeletons of toneless pinyin syllables: 哈密顿 ha mi dun is "HMTN". The
    initials j, q, x write an English s, sh, ch, j, but ji, qi, xi also a k or g (吉布斯 Gibbs,
    欧几里得 Euclid): each reading is one skeleton."""
    palatal = [i for i, syllable in enumerate(syllables) if syllable in ("ji", "qi", "xi")]
    out = set()
    for hard in itertools.product((False, True), repeat=min(len(palatal), 3)):
        hardened = set(i for i, h in zip(palatal, hard) if h)
        out.add(pinyin_skeleton(syllables, hardened))
    return out


def pinyin_skeleton(syllables: Iterable[str], hardened: set[int] | frozenset[int] = frozenset()) -> str:
    """One skeleton: the syllables at `hardened` read with a k for their j, q or x."""
    classes: list[str] = []
    for index, syllable in enumerate(syllables):
        rest = syllable.lower()
        if not index and (rest[:1] in "aeiouy"):
            classes.append("V")
        if rest == "er":  # 尔: an English r or l
            classes.append("L")
            continue
        for initial, cls in _PINYIN_INITIALS:
            if rest.startswith(initial):
                classes.append("K" if index in hardened else cls)
                rest = rest[len(initial):]
                break
        if rest.endswith("ng") or rest.endswith("n"):
            classes.append("N")
        elif rest.endswith("r"):
            classes.append("L")
    return _collapse(classes)


def fold_letters(word: str) -> str:
    """Lower-case ASCII letters of `word` (ö is o)."""
    decomposed = unicodedata.normalize("NFKD", word.lower())
    return "".join(ch for ch in decomposed if "a" <= ch <= "z")


def english_skeleton(word: str) -> str:
    """The consonant skeleton of an English word by the same classes: Hamilton is "HMTN"."""
    rest = fold_letters(word)
    classes: list[str] = ["V"] if rest[:1] in ("a", "e", "i", "o", "u", "y") else []
    while rest:
        for group, cls in _ENGLISH_GROUPS:
            if rest.startswith(group):
                classes.extend(cls)
                # "ce"/"ci"/"cy": the vowel stays to be read as one
                rest = rest[1:] if group in ("ce", "ci", "cy") else rest[len(group):]
                break
        else:
            rest = rest[1:]  # a vowel
    return _collapse(classes)


def vowel_groups(word: str) -> int:
    return len(_VOWELS.findall(fold_letters(word)))


def _vowel_class(vowels: str) -> str:
    """A: a; E: e, i, y; O: o, u (the first letter of a vowel group decides: "au" is A)."""
    return "A" if vowels[0] == "a" else "O" if vowels[0] in "ou" else "E"


_R_VOWEL = re.compile(r"[eiuy]+(?=r)")


def english_vowels(word: str) -> str:
    """The vowel classes of an English word's vowel groups: Shannon "AO". An e, i, u or y before
    r is "R", which any pinyin vowel matches (Bernoulli's "ber" is 伯 bo, Schrödinger's "ger" 谔
    e); an a or o before r keeps its class."""
    letters = fold_letters(word)
    return "".join("R" if _R_VOWEL.match(letters, m.start()) else _vowel_class(m.group())
                   for m in _VOWELS.finditer(letters))


# syllables whose vowel Chinese adds after a consonant that closes an English syllable or a
# cluster (吉布斯 ji bu si, Gibbs; 切比雪夫 Chebyshev): their vowel is left out cheaply
_EPENTHETIC = frozenset("si zi ci shi zhi chi ri fu bu pu mu du tu ku gu lu te de ke ge le".split())


def pinyin_vowels(syllables: Iterable[str]) -> str:
    """The vowel class of each syllable's main vowel (none for 尔 er), lower case where the vowel
    is an added one (`_EPENTHETIC`): 香农 xiang nong "AO", 吉布斯 ji bu si "Eoe"."""
    out = []
    for syllable in syllables:
        epenthetic = syllable.lower() in _EPENTHETIC
        rest = syllable.lower()
        for initial, _ in _PINYIN_INITIALS:
            if rest.startswith(initial) and len(rest) > len(initial):
                rest = rest[len(initial):]
                break
        if rest in ("er", ""):
            continue
        if rest in ("ian", "ie", "ui", "v", "ve", "ue"):
            cls = "E"
        elif "a" in rest:
            cls = "A"
        elif "o" in rest or rest in ("u", "un", "iu"):
            cls = "O"
        else:
            cls = "E"
        out.append(cls.lower() if epenthetic else cls)
    return "".join(out)


def vowel_distance(pinyin: str, english: str) -> float:
    """Edits from the pinyin's vowels (`pinyin_vowels`) to the English word's (`english_vowels`):
    a pinyin vowel the English lacks costs 0.5, 0.25 when Chinese added it (斯 si for s); an
    English vowel after the pinyin's last 0.5 (the adjective's -ian: Hamiltonian); "R" matches
    any vowel; any other edit 1."""
    def drop(p: str) -> float:
        return 0.25 if p.islower() else 0.5

    previous = [j * 1.0 for j in range(len(english) + 1)]
    for i, p in enumerate(pinyin, 1):
        last = i == len(pinyin)
        current = [previous[0] + drop(p)]
        for j, e in enumerate(english, 1):
            same = e == "R" or p.upper() == e
            current.append(min(previous[j] + drop(p), current[j - 1] + (0.5 if last else 1.0),
                               previous[j - 1] + (0.0 if same else 1.0)))
        previous = current
    return previous[-1]


@dataclass(frozen=True)
class NameSounds:
    """What reading names by sound needs from CC-CEDICT: its transliteration characters and the
    everyday English words of its glosses (no name is one of them)."""

    characters: frozenset[str]
    everyday_words: frozenset[str]


def read_name_sounds(cedict_path: Path, min_foreign_names: int = MIN_FOREIGN_NAMES) -> NameSounds:
    """The transliteration characters and everyday gloss words of the CC-CEDICT file (read with
    splits, not a pattern a line, and the everyday glosses searched for words once: this runs at
    the translator's start-up)."""
    foreign: Counter[str] = Counter()
    entries: Counter[str] = Counter()
    everyday: list[str] = []
    with open(cedict_path, encoding="utf-8") as fh:
        for line in fh:
            if line.startswith("#"):
                continue
            parts = line.split(" ", 2)
            if len(parts) < 3 or not parts[2].startswith("["):
                continue
            simplified, rest = parts[1], parts[2]
            pinyin, _, senses = rest[1:].partition("] /")
            entries.update(set(simplified))
            if not pinyin[:1].isupper():
                everyday.append(senses)
                continue
            name = _NAME.match(_PAREN.sub("", senses.split("/")[0]).strip())
            if len(simplified) < 2 or not name:
                continue
            spelled = re.sub(r"[^a-z]", "", pinyin.lower())
            if fold_letters(name.group(1)) in spelled:
                continue  # a Chinese name, glossed in its own pinyin
            foreign.update(set(simplified))
    words = _GLOSS_WORD.findall(_PAREN_IN_LINE.sub("", "\n".join(everyday)))
    return NameSounds(frozenset(ch for ch, n in foreign.items()
                                if n >= min_foreign_names and n >= MIN_FOREIGN_SHARE * entries[ch]),
                      frozenset(words))


class SoundReader:
    """Reads a run of transliteration characters as the field word it sounds like, or None."""

    def __init__(self, sounds: NameSounds, counts: dict[str, int], min_count: int = MIN_COUNT,
                 min_lead: float = MIN_LEAD) -> None:
        """`counts`: how often the field writes each word (lower case). Only words written
        `min_count` times, not everyday English and with a vowel, can be read."""
        self.sounds = sounds
        self.min_lead = min_lead
        import Stemmer

        stem = Stemmer.Stemmer("english").stemWord
        # an inflection of an everyday word is everyday too (searching, labels, summing)
        everyday = {s for s in map(stem, sounds.everyday_words) if len(s) >= 3}
        by_skeleton: dict[str, list[tuple[int, str]]] = defaultdict(list)
        for word, count in counts.items():
            if (count >= min_count and len(word) >= 4 and word.isalpha()
                    and word not in sounds.everyday_words and stem(word) not in everyday):
                skeleton = english_skeleton(word)
                if len(skeleton) >= 2:
                    by_skeleton[skeleton].append((count, word))
        self._by_skeleton = {k: sorted(v, reverse=True) for k, v in by_skeleton.items()}

    def is_name_character(self, character: str) -> bool:
        return character in self.sounds.characters

    def read(self, run: str, syllables: list[str]) -> str | None:
        """The field word `run` (read as `syllables`, toneless pinyin) sounds like, capitalised
        as a name, when one clearly wins; None otherwise."""
        if not MIN_RUN <= len(run) <= MAX_RUN or not all(map(self.is_name_character, run)):
            return None
        vowels = pinyin_vowels(syllables)
        words = {word: count for skeleton in pinyin_skeletons(syllables)
                 for count, word in self._by_skeleton.get(skeleton, ())
                 if 1 <= vowel_groups(word) <= len(syllables) + (_ADJECTIVE.search(word) is not None)}
        found = sorted((vowel_distance(vowels, english_vowels(word)), -count, word) for word, count in words.items())
        found = [f for f in found if f[0] <= MAX_VOWEL_DISTANCE]
        if not found:
            return None
        # a close second that the field writes nearly as often: no clear winner (伯努利 sounds
        # like Bernoulli, and Boolean nearly as well)
        best_distance, best_count = found[0][0], -found[0][1]
        if any(distance <= best_distance + CLOSE_SECOND and self.min_lead * -count > best_count
               for distance, count, _ in found[1:]):
            return None
        return found[0][2].capitalize()


def pinyin_syllables(text: str) -> list[str]:
    """Toneless pinyin of `text`, a syllable a character (pypinyin's commonest reading)."""
    from pypinyin import Style, lazy_pinyin

    return lazy_pinyin(text, style=Style.NORMAL)
