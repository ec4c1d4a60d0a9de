"""A Chinese word's English senses weighed by the company the corpus's titles keep them in.

The translator gives a word every sense the field writes (精度 "precision, accuracy"; a
glossary term's alternates, CC-CEDICT's readings) and the plan searches them as one group at
the translation's weight. Some are readings of the word that no paper on the query's topic
uses: 中心 of 聚类中心 read "heart" beside "center". Which reading the user meant is told by the
corpus: the titles that hold a sense and also hold one of the query's other words
(paperfind.index.title_company). A sense whose titles keep that company under
`SenseSettings.below` (.65) as often as its word's best-kept sense's is searched at a lower
weight, never 0 (zh28n: the alternates find targets); in the modes with vectors only
(paperfind.search.engine: in lexical mode it failed its keep rule). In titles only: in
abstracts every pair of senses co-occurs (bench/RESULTS.md, zh28p, which measured the rule in
a harness; zh28q built it).
"""

from __future__ import annotations

from collections.abc import Callable

from paperfind.search.backend import SearchBackend
from paperfind.search.settings import SenseSettings
from paperfind.text.analyze import Analyzer

# a translated query's (Chinese word, its English senses), as `ZhEnTranslator.translate` reads them
Renderings = tuple[tuple[str, tuple[str, ...]], ...]


def sense_terms(an: Analyzer, sense: str) -> tuple[str, ...]:
    """A sense's content stems, as the plan searches them."""
    return tuple(an.stem(w) for w in an.words(sense) if not an.is_stopword(w))


def company_shares(scores: list[tuple[int, int]]) -> list[float]:
    """Each sense's company (papers of the other words among its titles, per title it has, the
    one added keeping a sense of few titles from winning by chance) as a share of the word's best."""
    kept = [shared / (titles + 1) for titles, shared in scores]
    best = max(kept, default=0.0)
    return [k / best for k in kept] if best > 0 else [1.0] * len(kept)


def with_implied_senses(renderings: Renderings, an: Analyzer,
                        implied_sense: Callable[[str], str]) -> Renderings:
    """`renderings` with each word's implied sense (`ZhEnTranslator.implied_sense`: 场景 "scene"
    beside CC-CEDICT's "setting") added after its senses, unless it searches the stems of one
    of them: one more sense for `sense_factors` to weigh by its titles' company, so a wrong
    implied sense is lowered like any other (put first instead, it cost the lexical mode and
    left 16.5k flat: bench/RESULTS.md, zh28r)."""
    out = []
    for word, senses in renderings:
        extra = implied_sense(word) if senses else ""
        terms = sense_terms(an, extra) if extra else ()
        if terms and all(sense_terms(an, sense) != terms for sense in senses):
            senses = senses + (extra,)
        out.append((word, senses))
    return tuple(out)


def sense_factors(renderings: Renderings, an: Analyzer, backend: SearchBackend,
                  settings: SenseSettings) -> list[list[float]]:
    """Per rendered word, per sense: the factor its stems' translation weight is multiplied by
    (1: as before; a sense well under its word's best-kept one gets share ** alpha, at least
    `floor`). A query with no word of two distinct senses, or one word, asks the backend nothing."""
    factors = [[1.0] * len(senses) for _, senses in renderings]
    if settings.below <= 0 or len(renderings) < 2:
        return factors
    words = [[sense_terms(an, sense) for sense in senses] for _, senses in renderings]
    # a word is asked about when its senses are searched as different stems ("mask, masked" is
    # one stem: nothing to weigh); its distinct readings are asked once each
    distinct = [list(dict.fromkeys(w)) for w in words]
    if not any(len(d) >= 2 for d in distinct):
        return factors
    asked = [d if len(d) >= 2 else d[:1] for d in distinct]
    for i, scores in enumerate(backend.title_company(asked)):
        if len(scores) < 2:
            continue
        share_of = dict(zip(asked[i], company_shares(scores)))
        for k, sense in enumerate(words[i]):
            if share_of[sense] < settings.below:
                factors[i][k] = max(settings.floor, share_of[sense] ** settings.alpha)
    return factors
