"""From parsed text to what retrieval needs: term groups, typo corrections, named people.

Each content word of the query becomes a group: its stem in the text fields, the word itself
in the name fields, plus corrections when the word is unknown to the corpus (or much rarer
than a one-letter neighbour). People are recognised when two to four consecutive words (or a
Han name) are one of a person's name forms.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from paperfind.index.lexical import idf
from paperfind.index.names import INITIAL, PersonMatch
from paperfind.search.backend import SearchBackend, TermGroup
from paperfind.search.query import ParsedQuery
from paperfind.search.sense_weights import Renderings, sense_factors
from paperfind.search.settings import SenseSettings
from paperfind.text.analyze import Analyzer
from paperfind.text.fold import has_han
from paperfind.text.names import fold_name

# Query-time boosts. "text" is the BM25F field over title + abstract + keywords; the separate
# title/abstract/keyword fields are there for `title:` and for optional extra emphasis.
FIELD_BOOSTS = {"text": 1.0, "title": 0.0, "abstract": 0.0, "keywords": 0.0, "authors": 0.5,
                "venue": 0.2}
TEXT_FIELDS = ("text", "title", "abstract", "keywords")
TRANSLATION_WEIGHT = 0.6
MAX_GROUPS = 32  # query words kept (the index scores up to 64)
MAX_NAME_WINDOW_QUERY = 8  # longer free text is not searched for embedded names
RARE_WORD_FREQ = 2  # a known word this rare may still be a typo of a common neighbour
CORRECTION_RATIO = 30  # ... when the neighbour is this many times more frequent


@dataclass
class WordGroup:
    word: str
    stems: list[tuple[str, float]]  # (stem, weight): the word's own stem first
    title_only: bool = False


@dataclass
class QueryPlan:
    groups: list[WordGroup] = field(default_factory=list)
    corrections: dict[str, str] = field(default_factory=dict)  # unknown word -> suggestion
    people: list[PersonMatch] = field(default_factory=list)  # named in the free text
    person_is_query: bool = False  # the whole free text is a person's name
    phrases: list[list[str]] = field(default_factory=list)  # stems of quoted phrases
    translation: str = ""  # the English a Chinese query was read as (its words are in `groups`)

    def known_groups(self, backend: SearchBackend) -> int:
        """Groups with at least one term the index knows: the ones a document can match."""
        return sum(1 for g in self.groups
                   if any(backend.is_known(s) for s, _ in g.stems) or backend.is_known(g.word))

    def lexical(self) -> list[TermGroup]:
        out = []
        for g in self.groups:
            alts: TermGroup = []
            for stem, weight in g.stems:
                if g.title_only:
                    alts.append(("title", stem, weight))
                else:
                    alts += [(f, stem, FIELD_BOOSTS[f] * weight) for f in TEXT_FIELDS if FIELD_BOOSTS[f]]
            if not g.title_only:
                factor = g.stems[0][1]
                alts += [(f, g.word, FIELD_BOOSTS[f] * factor) for f in ("authors", "venue")
                         if FIELD_BOOSTS[f]]
            out.append(alts)
        return out


def _corrections(word: str, backend: SearchBackend) -> tuple[list[tuple[str, float]], str | None]:
    """Alternatives for a possibly misspelt word, and the suggestion when it is unknown."""
    freq = backend.word_frequency(word)
    if freq > RARE_WORD_FREQ:
        return [], None
    cands = backend.spelling_candidates(word)
    if not cands:
        return [], None
    best_freq = cands[0][1]
    if freq == 0:
        alts = [(w, 1.0 if f == best_freq else 0.5) for w, f in cands[:2] if f * 4 >= best_freq]
        return alts, cands[0][0]
    if best_freq >= CORRECTION_RATIO * freq:
        return [(cands[0][0], 0.7)], cands[0][0]
    return [], None


def _is_author_word(word: str, backend: SearchBackend) -> bool:
    return backend.doc_freq("authors", word) > 0


def _is_name_word(word: str, backend: SearchBackend) -> bool:
    """A word the author or venue fields know (`perez`, `neurips`) is no typo."""
    return backend.doc_freq("authors", word) > 0 or backend.doc_freq("venue", word) > 0


def build_plan(q: ParsedQuery, an: Analyzer, backend: SearchBackend, translation: str = "",
               renderings: Renderings = (), senses: SenseSettings = SenseSettings()) -> QueryPlan:
    """`translation` (a Chinese query's English rendering) adds words at `TRANSLATION_WEIGHT`:
    a dictionary rendering is a guess, the user's own words are not. `renderings`, the
    translation's (Chinese word, its English senses), make each Chinese word one group
    (`_add_renderings`); without them each English word is its own group."""
    plan = QueryPlan()
    seen: set[tuple[str, bool]] = set()
    for text, title_only in [(q.text, False)] + [(t, True) for t in q.titles]:
        _add_source(plan, an, backend, text, title_only, 1.0, seen)
    plan.phrases = [an.terms(p) for p in q.phrases if an.terms(p)]
    plan.people, plan.person_is_query = find_people(q.text, backend)
    if plan.person_is_query:
        plan.corrections.clear()  # a name is not misspelt vocabulary
    return translated_plan(plan, an, backend, translation, renderings, senses) if translation else plan


def translated_plan(plan: QueryPlan, an: Analyzer, backend: SearchBackend, translation: str,
                    renderings: Renderings = (), senses: SenseSettings = SenseSettings()) -> QueryPlan:
    """`build_plan(q, an, backend, translation, renderings)` made from `plan`, the query's own
    `build_plan(q, an, backend)` (left as it is): the searcher reads a Chinese query's words
    before its rendering, and its groups, phrases and people are the same with the rendering
    (issue 33: the query's words segmented and its people looked up once, not twice). `senses`:
    how a word's senses the titles rarely write with the other words are lowered
    (paperfind.search.sense_weights)."""
    out = QueryPlan(groups=[WordGroup(g.word, list(g.stems), g.title_only) for g in plan.groups],
                    corrections=dict(plan.corrections), people=list(plan.people),
                    person_is_query=plan.person_is_query, phrases=[list(p) for p in plan.phrases],
                    translation=translation)
    seen = {(g.stems[0][0], g.title_only) for g in out.groups}
    if renderings:
        _add_renderings(out, an, backend, renderings, seen, sense_factors(renderings, an, backend, senses))
        _add_joined_forms(out, an, backend, translation, False, TRANSLATION_WEIGHT)
    else:
        _add_source(out, an, backend, translation, False, TRANSLATION_WEIGHT, seen)
    if out.person_is_query:
        out.corrections.clear()
    return out


def _add_source(plan: QueryPlan, an: Analyzer, backend: SearchBackend, text: str, title_only: bool,
                factor: float, seen: set[tuple[str, bool]]) -> None:
    """A group for each content word of `text` whose stem no group has yet, then the joined
    forms of its hyphenated words."""
    for word in an.words(text):
        if an.is_stopword(word) or len(plan.groups) >= MAX_GROUPS:
            continue
        stem = an.stem(word)
        if (stem, title_only) in seen:
            continue
        seen.add((stem, title_only))
        plan.groups.append(_word_group(plan, an, backend, word, stem, factor, title_only))
    _add_joined_forms(plan, an, backend, text, title_only, factor)


def _word_group(plan: QueryPlan, an: Analyzer, backend: SearchBackend, word: str, stem: str,
                factor: float, title_only: bool) -> WordGroup:
    """A query word's group: its stem, and corrections when the corpus barely knows it."""
    stems = [(stem, factor)]
    if (not has_han(word) and backend.word_frequency(word) <= RARE_WORD_FREQ
            and not _is_name_word(word, backend)):
        alts, suggestion = _corrections(word, backend)
        stems += [(an.stem(w), wt * factor) for w, wt in alts if an.stem(w) != stem]
        if suggestion:
            plan.corrections[word] = suggestion
    return WordGroup(word, stems, title_only)


def _add_renderings(plan: QueryPlan, an: Analyzer, backend: SearchBackend, renderings: Renderings,
                    seen: set[tuple[str, bool]], factors: list[list[float]]) -> None:
    """A Chinese word's English senses as one group at `TRANSLATION_WEIGHT`: 精度 read as
    "precision, accuracy" is one word of the query, so a paper with both has matched one word,
    not two, and a paper with either has matched it (the minimum-should-match and the learned
    ranker's coverage count groups). A sense of several words ("multi-armed bandit") gives a
    group per word; another sense's words join the last group of the first. On the zh dev set
    (bundled corpus, hybrid) R@10 .917 -> .950, MRR@10 .725 -> .753 (bench/RESULTS.md, zh28c).
    Sense i of word n is searched at `TRANSLATION_WEIGHT` x `factors[n][i]` (`sense_factors`)."""
    for (_, senses), weights in zip(renderings, factors):
        owner: WordGroup | None = None
        for i, sense in enumerate(senses):
            weight = TRANSLATION_WEIGHT * weights[i]
            for word in an.words(sense):
                stem = an.stem(word)
                if an.is_stopword(word) or (stem, False) in seen or len(plan.groups) >= MAX_GROUPS:
                    continue
                seen.add((stem, False))
                if i == 0 or owner is None:
                    owner = _word_group(plan, an, backend, word, stem, weight, False)
                    plan.groups.append(owner)
                else:
                    owner.stems.append((stem, weight))


def _add_joined_forms(plan: QueryPlan, an: Analyzer, backend: SearchBackend, text: str,
                      title_only: bool, factor: float) -> None:
    """`auto-encoders` in a query also finds `autoencoders`: each part's group gets the joined
    stem as an alternative, split between the parts so a paper with the joined word scores
    about one word's worth (the index adds the joined stem to hyphenated papers, so the
    other direction needs nothing here)."""
    for parts, joined in an.compounds(text):
        if not backend.is_known(joined):
            continue
        stems = {an.stem(p) for p in parts if not an.is_stopword(p)}
        owners = [g for g in plan.groups if g.title_only == title_only and g.stems[0][0] in stems]
        for g in owners:
            if all(s != joined for s, _ in g.stems):
                g.stems.append((joined, factor / len(owners)))


def idf_of_groups(plan: QueryPlan, backend: SearchBackend) -> list[float]:
    out = []
    for g in plan.groups:
        stem = g.stems[0][0]
        known = backend.is_known(stem)
        df = max(backend.doc_freq("abstract", stem), backend.doc_freq("title", stem)) if known else 0
        out.append(idf(backend.n_docs, df) if known else idf(backend.n_docs, 0) * 0.5)
    return out


# A surname alone names its people with this many works, when no more than this many have them
SURNAME_MIN_WORKS = 20
SURNAME_MAX_PEOPLE = 3
# ... and is not a word the papers use: "black" (2,790) is Michael Black's surname and a word,
# "hinton" (26) and "bengio" (25) are names (the bundled corpus's frequencies)
SURNAME_MAX_WORD_FREQ = 100


def surname_min_works(n_docs: int) -> int:
    """The works a person needs to be named by a surname alone: `SURNAME_MIN_WORKS`, fewer in
    a corpus of a few thousand papers (a slice, a user's own list), where nobody has that many."""
    return max(5, min(SURNAME_MIN_WORKS, n_docs // 100))


def find_people(text: str, backend: SearchBackend) -> tuple[list[PersonMatch], bool]:
    """People named by the query: the whole text first, else any 2-4 word window.

    The name index decides; `fusion.looks_like_name` is the text-only rule for names nobody in
    the corpus has (see there why both exist).
    """
    if not text.strip():
        return [], False
    if has_han(text):
        han = "".join(c for c in text if has_han(c))
        matches = backend.people(han) if 2 <= len(han) <= 4 else []
        only_name = len(han) == len("".join(text.split()))
        return matches, bool(matches) and only_name
    tokens = fold_name(text).split()
    if (len(tokens) == 1 and len(tokens[0]) >= 3
            and backend.word_frequency(tokens[0]) <= SURNAME_MAX_WORD_FREQ):
        # a surname alone ("hinton"): the few well-known people of that name, most works first
        matches = backend.people_by_surname(tokens[0], surname_min_works(backend.n_docs),
                                            SURNAME_MAX_PEOPLE)
        if matches:
            return matches, True
    if 2 <= len(tokens) <= 4:
        matches = backend.people(" ".join(tokens))
        if matches:
            return matches, True
    found: dict[int, PersonMatch] = {}
    if len(tokens) > MAX_NAME_WINDOW_QUERY:
        return [], False  # a long description: its word pairs are not names
    namelike = [_is_author_word(t, backend) for t in tokens]
    for size in (3, 2):
        for i in range(0, max(len(tokens) - size + 1, 0)):
            if not (namelike[i] or namelike[i + size - 1]):
                continue  # a name has its surname or given name in the author vocabulary
            for m in backend.people(" ".join(tokens[i:i + size])):
                if m.kind != INITIAL and m.author_id not in found:
                    found[m.author_id] = m
    return sorted(found.values(), key=lambda m: (-m.score, m.author_id)), False
