"""Text analysis shared by the index builder and the query side.

Both sides must cut text the same way, so there is exactly one analyser: fold to lower-case
ASCII-ish words (diacritics dropped, Han kept), segment Han runs with jieba, drop English stop
words, stem with Snowball. Names are not stemmed (`james` must not become `jame`).
"""

from __future__ import annotations

import re
import unicodedata

import Stemmer
from anyascii import anyascii

HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_HAN_RUN = re.compile(f"[{HAN}]+")
_WORD = re.compile(f"[{HAN}]+|[^\\W_{HAN}]+")
_HAS_HAN = re.compile(f"[{HAN}]")
_PUNCT_ONLY = re.compile(r"^[\W_]+$")
# the possessive clitic: "the model's prior", "CNNs' depth" (an apostrophe is not a word character,
# so without this "model's" is the words "model" and "s", and "s" becomes a term of most abstracts)
_POSSESSIVE = re.compile(r"(?<=[^\W_])['\u2019]s\b|(?<=s)['\u2019](?=\s|$)")
_COMPOUND = re.compile(r"(?<![\w-])[^\W\d_]+(?:-[^\W\d_]+)+(?![\w-])")
# combining marks left by NFKD decomposition (accents, umlauts, cedillas, ...)
_COMBINING = re.compile("[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]")

# Function words of English titles and questions: they carry no topic. Written for this project.
STOPWORDS = frozenset("""
a about above after again against all also am an and any are as at be because been before being
below between both but by can could did do does doing down during each either few for from further
had has have having he her here hers him his how however i if in into is it its itself just
let may me might more most must my no nor not of off on once only or other our ours out over own
per same shall she should so some such than that the their theirs them then there these they this
those through thus to too toward towards under until up upon us very via was we were what when
where whether which while who whom whose why will with within without would yet you your yours
using use used based new towards via vs versus
""".split())
# Chinese function words jieba yields as separate tokens.
STOPWORDS_ZH = frozenset("的 了 和 与 及 在 是 中 对 于 为 以 用 一种 一个 如何 什么 怎么 怎样 哪些 基于 通过 我们 进行".split())


def fold(text: str) -> str:
    """Lower-case, strip diacritics (Rocktäschel → rocktaschel); Han characters are kept."""
    if text.isascii():  # most titles and abstracts: nothing to decompose
        return text.lower()
    return _COMBINING.sub("", unicodedata.normalize("NFKD", text)).casefold()


def has_han(text: str) -> bool:
    return bool(_HAS_HAN.search(text))


class Analyzer:
    """Turns text into index terms; one instance per index/searcher (it caches stems)."""

    def __init__(self) -> None:
        self._stemmer = Stemmer.Stemmer("english")
        self._stems: dict[str, str] = {}
        self._jieba = None

    # -- words -----------------------------------------------------------------------------
    def words(self, text: str) -> list[str]:
        """Folded words in order, stop words kept, Han runs segmented into words."""
        folded = _POSSESSIVE.sub("", fold(text))
        if not _HAS_HAN.search(folded):
            return _WORD.findall(folded)
        out: list[str] = []
        for w in _WORD.findall(folded):
            if _HAN_RUN.fullmatch(w):
                out.extend(self._segment(w))
            else:
                out.append(w)
        return out

    def _segment(self, run: str) -> list[str]:
        if self._jieba is None:
            import jieba  # loading its dictionary takes ~0.6 s: only when Han text shows up

            jieba.setLogLevel(60)
            self._jieba = jieba
        return [w for w in self._jieba.lcut(run, HMM=True) if w.strip() and not _PUNCT_ONLY.match(w)]

    @property
    def segmenter_loaded(self) -> bool:
        """Whether jieba's dictionary is loaded (the first Han text waits for it otherwise)."""
        return self._jieba is not None and bool(self._jieba.dt.initialized)

    # -- terms -----------------------------------------------------------------------------
    def stem(self, word: str) -> str:
        stem = self._stems.get(word)
        if stem is None:
            stem = word if _HAS_HAN.search(word) else self._stemmer.stemWord(word)
            if len(self._stems) < 500_000:
                self._stems[word] = stem
        return stem

    def is_stopword(self, word: str) -> bool:
        return word in STOPWORDS or word in STOPWORDS_ZH

    def terms(self, text: str) -> list[str]:
        """Stemmed content terms in order: what the title/abstract/keyword fields index."""
        return [self.stem(w) for w in self.words(text) if not self.is_stopword(w)]

    def compounds(self, text: str) -> list[tuple[list[str], str]]:
        """Hyphenated words with their parts and the stem of the joined form:
        `auto-encoders` → (["auto", "encoders"], "autoencod").

        The same word is written `auto-encoder` and `autoencoder`, `multi-modal` and
        `multimodal`; the index adds the joined stem beside the parts, so either spelling finds
        the other."""
        folded = fold(text)
        if "-" not in folded:
            return []
        out = []
        for m in _COMPOUND.finditer(folded):
            parts = m.group(0).split("-")
            if not any(_HAS_HAN.search(p) for p in parts):
                out.append((parts, self.stem("".join(parts))))
        return out

    def terms_of_words(self, words: list[str]) -> list[str]:
        return [self.stem(w) for w in words if not self.is_stopword(w)]

    def name_terms(self, text: str) -> list[str]:
        """Name tokens, unstemmed, nothing dropped: what the author field indexes."""
        return fold_name(text).split()


def fold_name(name: str) -> str:
    """A person's name as comparable ASCII words: `Tim Rocktäschel` → `tim rocktaschel`.

    Han names are left alone here (they are matched through pinyin by the name index).
    """
    if _HAS_HAN.search(name):
        return " ".join(_WORD.findall(fold(name)))
    return " ".join(_WORD.findall(anyascii(name).casefold()))
