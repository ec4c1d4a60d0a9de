"""The one analyser: the index builder and the query side must cut text the same way.

Fold (diacritics dropped, Han kept), segment Han runs with jieba, drop stop words, stem with
Snowball; names are not stemmed (`james` must not become `jame`).
"""

from __future__ import annotations

import re

import Stemmer

from paperfind.text.fold import HAN, WORD, fold, has_han
from paperfind.text.names import fold_name
from paperfind.text.stopwords import STOPWORDS, STOPWORDS_ZH

_HAN_RUN = re.compile(f"[{HAN}]+")
_PUNCT_ONLY = re.compile(r"^[\W_]+$")
# the possessive clitic: "the model's prior", "CNNs' depth" (an apostrophe is not a word character,
# so without this "model's" is the words "model" and "s", and "s" becomes a term of most abstracts)
# (written to start at the apostrophe: a pattern that starts with a look-behind is tried at every
# character, which took 3 s of the first start's text analysis; this one is skipped to the next
# apostrophe)
_POSSESSIVE = re.compile(r"['\u2019](?:(?<=[^\W_].)s\b|(?<=s.)(?=\s|$))")
# in ASCII text a word (`WORD`) is a run of ASCII letters and digits, which matches faster
_ASCII_WORD = re.compile(r"[0-9A-Za-z]+")
# a compound is a whole run of word characters and hyphens, letters between the hyphens; runs are
# looked for in the text's space-separated pieces that have a hyphen, not at every character
_WORD_OR_HYPHEN_RUN = re.compile(r"[\w-]+")
_COMPOUND = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)+")


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
        if folded.isascii():
            return _ASCII_WORD.findall(folded)
        if not has_han(folded):
            return WORD.findall(folded)
        out: list[str] = []
        for w in WORD.findall(folded):
            if _HAN_RUN.fullmatch(w):
                out.extend(self._segment(w))
            else:
                out.append(w)
        return out

    def _segment(self, run: str) -> list[str]:
        if self._jieba is None:
            self._import_jieba()
        return [w for w in self._jieba.lcut(run, HMM=True) if w.strip() and not _PUNCT_ONLY.match(w)]

    def _import_jieba(self) -> None:
        import jieba  # loading its dictionary takes ~0.6 s: only when Han text shows up

        jieba.setLogLevel(60)
        self._jieba = jieba

    def load_segmenter(self) -> None:
        """Load jieba's dictionary now rather than at the first Han text (a server's warm-up)."""
        if self._jieba is None:
            self._import_jieba()
        self._jieba.initialize()

    @property
    def segmenter_loaded(self) -> bool:
        """Whether jieba's dictionary is loaded (the first Han text waits for it otherwise)."""
        return self._jieba is not None and bool(self._jieba.dt.initialized)

    # -- terms -----------------------------------------------------------------------------
    def stem(self, word: str) -> str:
        stem = self._stems.get(word)
        if stem is None:
            stem = word if has_han(word) else self._stemmer.stemWord(word)
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
        for piece in folded.split():
            if "-" not in piece:
                continue
            for run in _WORD_OR_HYPHEN_RUN.findall(piece):
                if "-" in run and _COMPOUND.fullmatch(run):
                    parts = run.split("-")
                    if not any(has_han(p) for p in parts):
                        out.append((parts, self.stem("".join(parts))))
        return out

    def terms_of_words(self, words: list[str]) -> list[str]:
        return [self.stem(w) for w in words if not self.is_stopword(w)]

    def name_terms(self, text: str) -> list[str]:
        """Name tokens, unstemmed, nothing dropped: what the author field indexes."""
        return fold_name(text).split()

