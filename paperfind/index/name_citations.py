"""Names the field gives a paper by citing it: "CLIP (Radford et al., 2021)", "A3C (Mnih et al.,
2016)", "the Transformer (Vaswani et al., 2017)".

Many famous names are in no title and no abstract of their own paper ("CLIP" is "Learning
Transferable Visual Models From Natural Language Supervision"), and the long form later papers
write is not the title's words either ("Contrastive Language-Image Pre-training"). What later
abstracts do write is the name followed by an author-year citation, and that citation names the
paper exactly: its first author's surname, the count of authors ("et al." is three or more,
"A and B" two) and its year (the preprint's, so the venue's year or the one before it). No
model and no list of papers: the corpus's own authors and years decide.

A citation is read as a name only when the word before it is spelt like one ("A3C", "word2vec",
or a capitalised word inside a sentence, with the capitalised words before it: "Vision
Transformer"); "a method (Smith et al., 2019)" names nothing.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Sequence

import numpy as np

from paperfind.text.names import fold_name

_PARTICLE = r"(?:(?:van|von|de|der|den|du|le|la|di|da|del|dos)\s+)*"
_SURNAME = _PARTICLE + r"[A-Z][\w'’-]+"
# "(First et al., 2017)", "[First and Second, 2019a;", "(e.g., First et al. 2016)"
_CITATION = (r"[(\[]\s*(?:e\.g\.,?\s*|see\s+)?"
             r"(?P<first>" + _SURNAME + r")(?:(?P<etal>\s+et\s*al\.?)|\s+(?:and|&)\s+(?P<second>" + _SURNAME + r"))?"
             r",?\s+(?P<year>(?:19|20)\d\d)[a-z]?\s*[;,)\]]")
# the name and its citation: "NAME (First et al., 2017)"
_CITED = re.compile(r"(?P<name>[A-Za-z][A-Za-z0-9]*(?:[-+][A-Za-z0-9]+)*)\s*" + _CITATION)
# a citation alone, which every match of _CITED holds: an abstract without one is not read by
# _CITED, whose name part is tried (and backtracked) at every letter: at a million papers that
# scan of every abstract was ~270 CPU seconds of the index build, 14x what this search costs
_CITES = re.compile(_CITATION)
_CAPITALISED = re.compile(r"[A-Z][A-Za-z0-9]*(?:[-+][A-Za-z0-9]+)*$")
_STOP = frozenset("a an the this that these those our their its we in on of for and or as by with from to at "
                  "is are be was were it such like e g eg i ie see also both".split())
MAX_NAME_WORDS = 3
OUTCITED = 10  # citations that tell the famous one of two cited papers of a year


def _last_name(name: str) -> str:
    words = fold_name(name).split()
    return words[-1] if words else ""


def _sentence_start(text: str, at: int) -> bool:
    before = text[:at].rstrip()
    return not before or before[-1] in ".!?:;" or before.endswith("||")


def cited_name(text: str, m: re.Match) -> str:
    """The name a citation follows in `text`, or "" when the word before it is not spelt like
    one: letters past the first that are capitals or digits ("A3C", "word2vec"), or a capitalised
    word inside a sentence, with the capitalised words right before it ("Vision Transformer")."""
    name, start = m.group("name"), m.start("name")
    spelt = any(c.isupper() or c.isdigit() for c in name[1:])
    if not spelt and not (name[0].isupper() and not _sentence_start(text, start)):
        return ""
    if name.lower() in _STOP:
        return ""
    words = [name]
    while len(words) < MAX_NAME_WORDS:
        head = text[:start]
        prev = re.search(r"(\S+) $", head)
        if not prev or not _CAPITALISED.match(prev.group(1)) or prev.group(1).lower() in _STOP \
                or _sentence_start(text, prev.start(1)):
            break
        words.insert(0, prev.group(1))
        start = prev.start(1)
    return " ".join(words)


def may_cite(text: str) -> bool:
    """Whether `text` holds an author-year citation, which any name `_CITED` finds is followed by."""
    return ("(" in text or "[" in text) and _CITES.search(text) is not None


def named_by_citation(titles: Sequence[str], abstracts: Sequence[str], years: np.ndarray, works: np.ndarray,
                      citations: np.ndarray, authors: Sequence[Sequence[str]], plain: Callable[[int], str],
                      fold: Callable[[str], str]) -> dict[tuple[int, str], tuple[str, set[int]]]:
    """(row, folded name) → (the name as written, the rows of the papers that cite the row by it).

    The cited paper is the one whose first author has the citation's surname, with as many
    authors as the citation says (and the second's surname where it gives one), of the cited
    year or the next (a preprint's year before the venue's), of another work than the citing
    paper and no later; among several, as `_choose` says, or none. `citations` is -1 where
    unknown."""
    by_first: dict[str, list[int]] = defaultdict(list)
    for row, names in enumerate(authors):
        if names:
            by_first[_last_name(names[0])].append(row)
    out: dict[tuple[int, str], tuple[str, set[int]]] = {}
    for writer, abstract in enumerate(abstracts):
        if not may_cite(abstract):
            continue
        for m in _CITED.finditer(abstract):
            name = cited_name(abstract, m)
            if not name:
                continue
            year = int(m.group("year"))
            second = _last_name(m.group("second")) if m.group("second") else ""
            rows = [r for r in by_first.get(_last_name(m.group("first")), ())
                    if year <= years[r] <= min(year + 1, years[writer]) and works[r] != works[writer]
                    and (len(authors[r]) >= 3 if m.group("etal") else
                         len(authors[r]) == 2 and _last_name(authors[r][1]) == second if second else
                         len(authors[r]) == 1)]
            owner = _choose(rows, year, years, works, citations, name, plain)
            if owner < 0:
                continue
            key = (owner, fold(name))
            spelling, writers = out.setdefault(key, (name, set()))
            writers.add(writer)
    return out


def _choose(rows: list[int], year: int, years: np.ndarray, works: np.ndarray, citations: np.ndarray,
            name: str, plain: Callable[[int], str]) -> int:
    """The one work of `rows` a citation of `year` means (its lowest row), or -1: the only work
    of that year; else, when every one of that year has a citation count, the one cited
    `OUTCITED` times as much as any other (two people named Vaswani published in 2017); else
    the only work, of that year and then of the next, whose own text writes the name."""
    if not rows:
        return -1
    same = [r for r in rows if years[r] == year]
    if same and len({int(works[r]) for r in same}) == 1:
        return min(same)
    if len(same) > 1 and all(citations[r] >= 0 for r in same):
        ranked = sorted(same, key=lambda r: -int(citations[r]))
        best = int(citations[ranked[0]])
        others = [int(citations[r]) for r in ranked if works[r] != works[ranked[0]]]
        if best > 0 and (not others or best >= OUTCITED * max(others[0], 1)):
            return min(r for r in same if works[r] == works[ranked[0]])
    phrase = f" {' '.join(re.findall(r'[a-z0-9]+', name.lower()))} "
    for pick in ([r for r in same if phrase in plain(r)], [r for r in rows if phrase in plain(r)]):
        if pick and len({int(works[r]) for r in pick}) == 1:
            return min(pick)
    return -1
