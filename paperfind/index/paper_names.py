"""The names a paper goes by ("mixup", "ELECTRA", "BigGANs", "AdamW") and its standing, mined
from the corpus at index time.

People search a famous paper by its name, and a name is rarely in the title's words: "AdamW"
is "Decoupled Weight Decay Regularization", "BigGAN" the "models (BigGANs)" of "Large Scale GAN
Training for High Fidelity Natural Image Synthesis". The corpus says which paper a name belongs
to in three ways, each read here without a model:

- the title's lead ("mixup: Beyond Empirical Risk Minimization");
- what the abstract introduces: "we propose mixup, a ...", "a method called X", "dubbed X",
  "our models (BigGANs)", "We present ... (ACRONYM)";
- what later abstracts call it: "Adam with Decoupled Weight Decay (AdamW)", where the words
  before the parenthesis spell the acronym (Schwartz & Hearst's rule, letters matched right to
  left) and open the paper's title (or its subtitle), said by at least two papers; the paper is
  the one of the earliest year whose title opens with those words, unless a paper no later
  whose title holds the words in any order is cited three times as much per year (the field's
  "variational autoencoder (VAE)" is "Auto-Encoding Variational Bayes").
- names in words: "a technique called spectral normalization to ...", "we propose a more
  streamlined approach, prototypical networks, that ...", whose uses are counted as phrases.
- what later abstracts cite it as: "CLIP (Radford et al., 2021)" (`name_citations`);
- its own code ("github.com/loshchil/AdamW-and-SGDW", "the pix2pix software associated with
  this paper"), "our novel Focal Loss", and the name a title closes with ("... using Deep
  Ensembles") once the field took it up and nobody else used it by the paper's year.

An acronym later papers define goes first to the paper that introduced its long form as a name
("Vision Transformer") or the acronym itself while writing the long form ("NeRF: ... Neural
Radiance Fields"), before a later title that opens with the words; a title whose lead is
another acronym ("MADE: Masked Autoencoder for ...") owns none.

A name the paper introduces must be new: a word the corpus used in earlier years (ELECTRA in
2025, "attention" ever) is not that paper's name, and neither is a common word of the corpus. A
capitalised word ("Performers") is new where earlier abstracts wrote it only in lower case.

Standing is an offline stand-in for citations: how many later papers (of other works) name the
paper, per year they had to do so, or its citation count per year where the data has one, as
a percentile in [0, 1] over the corpus. It orders close matches; it never makes a paper match.
"""

from __future__ import annotations

import os
import re
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from paperfind.index.forked import can_fork, chunks_in_two
from paperfind.index.name_citations import named_by_citation
NAME = r"[A-Za-z][A-Za-z0-9]*(?:[-+][A-Za-z0-9]+)*"
_TITLE_LEAD = re.compile(r"^\s*([^:]{2,40}?)\s*:\s+\S")
_CALLED = re.compile(r"\b(?:called|named|dubbed|termed|coined|nicknamed|codenamed)\s+(?:as\s+)?[\"“‘'`]*("
                     + NAME + r")(?:[\"”’'`]*\s+or\s+[\"“‘'`]*(" + NAME + "))?")
_CALLED_WORDS = ("called", "named", "dubbed", "termed", "coined")
# the words that end a name of several words: "called spectral normalization to stabilize ..."
_FUNCTION = (r"(?:to|that|which|where|for|in|on|with|by|and|or|is|are|was|were|be|can|has|have|as|from|the|a|an|"
             r"we|it|its|their|this|these|our|because|since|after|so|not|also)")
_LOWER_WORDS = (r"((?!" + _FUNCTION + r"\b)[a-z][a-z0-9]*(?:-[a-z0-9]+)*(?:\s+(?:of\s+)?(?!" + _FUNCTION
                + r"\b)[a-z][a-z0-9]*(?:-[a-z0-9]+)*){1,3})(?=\s*[,.;:(]|\s+" + _FUNCTION + r"\b)")
# "a method called chain of thought prompting, where": a name in words, not in letters
_CALLED_PHRASE = re.compile(r"\b(?:called|named|dubbed|termed)\s+" + _LOWER_WORDS)
_APPOSITION_OF = ("approach, ", "method, ", "model, ", "framework, ", "architecture, ", "algorithm, ",
                  "technique, ", "objective, ", "procedure, ", "principle, ")
# "We" or "This paper/work" opening a word: `\b(?:[Ww]e|[Tt]his (?:paper|work))`, written with each
# alternative's first letter before its \b (looked for behind it), so the regex engine scans for
# those four letters instead of trying the pattern at every position of an abstract (the same
# matches; _PRESENTS, run on every abstract, took ~3x as long the other way)
_WE_OPENS = (r"(?:W(?<=\bW)e|w(?<=\bw)e|T(?<=\bT)his (?:paper|work)|t(?<=\bt)his (?:paper|work))")
# "We propose a more streamlined approach, prototypical networks, that learns ..."
_APPOSITIVE = re.compile(_WE_OPENS + r"\s+(?:propose|present|introduce|develop)s?\s+(?:an?|the)\s+"
                         r"(?:[\w-]+\s+){0,3}?(?:approach|method|model|framework|architecture|algorithm|technique|"
                         r"objective|procedure|principle),\s+(?:the\s+)?([\w-]+(?:\s+[\w-]+){0,3}),\s")
# "... a recently introduced technique called dropout": someone else's name
_NOT_OURS = re.compile(r"\b(?:recent(?:ly)?|existing|previous(?:ly)?|known|popular|standard|widely|"
                       r"classic(?:al)?|prior|conventional|state-of-the-art|such as|e\.g\.)\b", re.I)
_PRESENTS = re.compile(_WE_OPENS + r"\s+(?:propose|present|introduce|develop|release|"
                       r"train|build|design)s?\s+(" + NAME + r")(?=\s*(,|\(|:|\s[-–—]\s))")
_AN = re.compile(r"\s*,\s*an?\s")
_CODE = r"(?:software|code|library|toolbox|package|implementation|codebase)"
# a paper's own code named in its abstract: "github.com/loshchil/AdamW-and-SGDW", "the release of
# the pix2pix software associated with this paper"
_REPOSITORY = re.compile(r"github\.com/[\w.-]+/([\w.-]+)")
_SOFTWARE = re.compile(r"\b(?:[Oo]ur\s+(" + NAME + r")\s+" + _CODE + r"|the\s+(" + NAME + r")\s+" + _CODE
                       + r"\s+(?:associated with|accompanying|of|for)\s+this\s+(?:paper|work))\b")
# "Our novel Focal Loss focuses training on ...": a name in capitals after "our novel/new/proposed"
_OUR_NEW = re.compile(r"\b[Oo]ur\s+(?:novel|new|proposed)\s+((?:[A-Z][\w-]*\s+){0,2}[A-Z][\w-]*)\b")
# what every match of `_SOFTWARE` and `_OUR_NEW` holds, found by a scan that skips to a space or
# to "ur": the two patterns try their leading word at every letter of an abstract, a fifth of
# `own_names` (of 20k abstracts, 13% hold the first and 5% the second)
_SOFTWARE_HINT = re.compile(r"\s(?:software|code|library|toolbox|package|implementation)")
_OUR_NEW_HINT = re.compile(r"ur\s+(?:novel|new|proposed)\s")
# the clause before a parenthesised name introduces something
_INTRO_BEFORE = re.compile(r"(?:\b(?:[Ww]e|[Tt]his (?:paper|work))\b[^.;()]{0,40}?\b(?:propose|present|introduce|"
                           r"call|name|term|dub)[sd]?\b[^.;()]{0,80}|\b[Oo]ur(?:\s+[\w-]+){1,3}\s*)$")
_PAREN = re.compile(r"\((" + NAME + r")\)")
_DIGIT_INSIDE = re.compile(r"[a-z]\d[a-z]")  # "seq2seq", "pix2pix": a name, though in lower case
_WORD = re.compile(r"[A-Za-z0-9]+")
_FOLD_WORD = re.compile(r"[^\W_]+")
_STOP = frozenset("a an the this that it its we our us they their is are be to of in on for and or as "
                  "by with from at into via new novel simple method model approach framework network "
                  "networks paper work which these those such because after since so also here".split())
MAX_WORDS = 4  # a lead or a name longer than this is a phrase, not a name
MAX_PRIOR_USES = 2  # papers of earlier years that may use a name before the one introducing it
COMMON_SHARE = 0.02  # a name spelt like a word ("mixup") in more of the papers is a common word
COMMON_SHARE_NAME = 0.05  # ... and one spelt like a name ("ImageNet") in more is a field's word
COMMON_FLOOR = 50  # in a small corpus no word is common below this many papers
MIN_NAMED_BY = 2  # later papers that must give a title its acronym
MIN_ADOPTED = 5  # later papers (of other works) that must use a title's closing name
OUTCITED = 3  # citations per year that let an earlier title with a long form's words own it
MIN_RATE = 10  # ... and the fewest per year that make a paper the one a long form means


def fold_paper_name(text: str) -> str:
    """The form names are compared in: lower case, letters and digits only, and the plural of a
    name spelt with capitals dropped ("BigGANs", "ResNets", "Grad-CAM", "GPT-3" → "biggan",
    "resnet", "gradcam", "gpt3"; "LORAS" and "mixups" keep their s)."""
    folded = _folded(text)
    stripped = text.rstrip()
    if (len(folded) > 3 and stripped.endswith("s") and any(c.isupper() for c in stripped[:-1])
            and not stripped.endswith("ss")):
        folded = folded[:-1]
    return folded


def _folded(text: str) -> str:
    """Letters and digits of any script, lower case; a plus is a "p" ("PointNet++" is not "PointNet")."""
    return "".join(_FOLD_WORD.findall(text.lower().replace("+", "p")))


_ARTICLE = re.compile(r"^(?:the|a|an)\s+(?=\S)", re.I)


def lookup_keys(name: str) -> set[str]:
    """The folded forms a name is found by: as written, and without a leading article ("The
    Lottery Ticket Hypothesis" is asked for as "lottery ticket hypothesis")."""
    return {fold_paper_name(name), fold_paper_name(_ARTICLE.sub("", name))}


def query_forms(text: str) -> list[str]:
    """The folded forms a query is looked up in: as typed, and without a plural s."""
    folded = _folded(text)
    forms = [folded] if folded else []
    if len(folded) > 4 and folded.endswith("s") and not folded.endswith("ss"):
        forms.append(folded[:-1])
    return forms


def _spelt_like_a_name(name: str) -> bool:
    """CamelCase, capitals or digits past the first letter: "BigGAN", "word2vec", "ELECTRA"."""
    rest = name[1:]
    return any(c.isupper() or c.isdigit() for c in rest)


def _clean(name: str) -> str:
    name = name.strip(" -").lstrip("+")  # "PointNet++" is not "PointNet"
    words = name.split()
    if not words or len(words) > MAX_WORDS or len(name) < 2 or len(name) > 40:
        return ""
    if all(w.lower() in _STOP for w in words) or fold_paper_name(name).isdigit():
        return ""
    return name


def may_name_code(abstract: str) -> bool:
    """Whether `_SOFTWARE` may match: a code word after a space, which each of its matches has."""
    return _SOFTWARE_HINT.search(abstract) is not None


def may_say_our_new(abstract: str) -> bool:
    """Whether `_OUR_NEW` may match: "ur", spaces and novel/new/proposed, then a space."""
    return _OUR_NEW_HINT.search(abstract) is not None


def own_names(title: str, abstract: str) -> list[str]:
    """The names a paper gives itself, in the order found (the title's lead first)."""
    found: list[str] = []
    lead = _TITLE_LEAD.match(title)
    if lead:
        found.append(lead.group(1))
    if any(w in abstract for w in _CALLED_WORDS):
        for m in _CALLED.finditer(abstract):
            sentence = abstract[abstract.rfind(".", 0, m.start()) + 1:m.start()]
            if not _NOT_OURS.search(sentence):
                found += [n for n in m.groups() if n]
        for m in _CALLED_PHRASE.finditer(abstract):
            sentence = abstract[abstract.rfind(".", 0, m.start()) + 1:m.start()]
            if not _NOT_OURS.search(sentence):
                found.append(m.group(1))
    if ", " in abstract and any(w in abstract for w in _APPOSITION_OF):
        found += [m.group(1) for m in _APPOSITIVE.finditer(abstract)]
    for m in _PRESENTS.finditer(abstract):
        name = m.group(1)
        if (_spelt_like_a_name(name) or name[0].isupper() or m.group(2) != ","
                or _AN.match(abstract, m.end())):
            found.append(name)
    if "github.com/" in abstract:
        for m in _REPOSITORY.finditer(abstract):
            found += [w for w in re.split(r"[-_.]", m.group(1)) if _spelt_like_a_name(w)]
    if may_name_code(abstract):
        found += [n for m in _SOFTWARE.finditer(abstract) for n in m.groups() if n and _spelt_like_a_name(n)]
    if may_say_our_new(abstract):
        found += [m.group(1) for m in _OUR_NEW.finditer(abstract)]
    if "(" in abstract:
        for m in _PAREN.finditer(abstract):
            if _INTRO_BEFORE.search(abstract, max(0, m.start() - 100), m.start()):
                found.append(m.group(1))
    out, seen = [], set()
    for name in (_clean(n) for n in found):
        key = fold_paper_name(name)
        if name and key not in seen:
            seen.add(key)
            out.append(name)
    return out


_TAIL = re.compile(r"\s(?:[Uu]sing|[Ww]ith|[Vv]ia|[Tt]hrough)\s+((?:[A-Z][\w-]*\s+){0,2}[A-Z][\w-]*)\s*$")


def _title_tail(title: str) -> list[str]:
    """The capitalised words that end a title after "using", "with", "via" or "through" (at
    least two): the method a paper is about, its name when the field takes it up
    ("Simple and Scalable Predictive Uncertainty Estimation using Deep Ensembles")."""
    m = _TAIL.search(title)
    return [m.group(1)] if m and " " in m.group(1) and _clean(m.group(1)) else []


def _capitalised_word(name: str) -> bool:
    return name.isalpha() and len(name) > 2 and name[0].isupper() and name[1:].islower()


def capitalised_pattern(name: str) -> str:
    """The pattern of the word `name` or its plural: "\\bStems?\\b", written word first with its
    \\b looked for behind it. A pattern that opens with its word is searched for that word (a
    fast scan); one that opens with \\b is tried at every letter, ~15x slower on abstracts, and
    the mentions of the mined names scan millions of them at a million papers."""
    stem = re.escape(name[:-1] if name.endswith("s") else name)
    return stem + r"(?<=\b" + stem + r")s?\b"


def _writes_capitalised(text: str, name: str) -> bool:
    """Whether `text` writes the word `name` (or its plural) capitalised inside a sentence."""
    for m in re.finditer(capitalised_pattern(name), text):
        before = text[:m.start()].rstrip()
        if before and before[-1] not in ".!?:;":
            return True
    return False


def long_form(words_before: list[str], acronym: str) -> list[str]:
    """The words ending a text before "(acronym)" that spell it (Schwartz & Hearst): the
    acronym's letters are found right to left in the words, its first letter starting a word."""
    letters = [c.lower() for c in acronym if c.isalnum()]
    if len(letters) < 2:
        return []
    window = words_before[-min(len(letters) + 5, 2 * len(letters)):]
    text = " ".join(window).lower()
    i, j = len(letters) - 1, len(text) - 1
    while i >= 0:
        c = letters[i]
        at = j
        while j >= 0 and (text[j] != c or (i == 0 and j > 0 and text[j - 1].isalnum())):
            j -= 1
        if j < 0:
            if c in "24" and 0 < i < len(letters) - 1:  # "2" and "4" stand for words ("seq2seq": to)
                i, j = i - 1, at
                continue
            return []
        i, j = i - 1, j - 1
    start = j + 1
    return text[start:].split()


@dataclass
class PaperNames:
    """Per row: the names shown ("also known as") and the standing; `table` maps a folded name
    to the rows it names, best standing first."""

    names: list[list[str]]
    mentions: np.ndarray  # later papers of other works that name the row
    standing: np.ndarray  # float32 in [0, 1]
    table: dict[str, list[int]]


MASK_SHARE = 16  # `rows_with_all` masks where the rows are at least 1/16 of the other column's


def rows_with_all(columns: list[np.ndarray]) -> np.ndarray:
    """The rows in every one of `columns` (each sorted, unique): the rarest, filtered by a
    binary search in the others, or by a mask of another's rows where it is not much longer."""
    if not columns:
        return np.zeros(0, dtype=np.int64)
    columns = sorted(columns, key=len)
    rows = columns[0]
    for other in columns[1:]:
        if len(rows) == 0 or len(other) == 0:
            return rows[:0]
        if len(rows) * MASK_SHARE >= len(other):
            # as many rows as a fraction of the other's: a mask of the other's rows (a scatter and
            # a gather) costs less than a binary search a row (300k rows in 400k: 3.3 vs 11.8 ms;
            # at a million papers these searches were a tenth of the mining)
            holds = np.zeros(int(other[-1]) + 1, dtype=bool)
            holds[other] = True
            rows = rows[rows <= other[-1]]
            rows = rows[holds[rows]]
            continue
        pos = np.minimum(np.searchsorted(other, rows), len(other) - 1)
        rows = rows[other[pos] == rows]
    return rows


# the name mining in two processes (`forked.chunks_in_two`) from this many rows: below it the
# fork and the names sent back cost more than the second core saves (16.5k papers mine in seconds)
PARALLEL_FROM = 50_000
# rows a process takes at a time: ~1 s of judging at a million papers, so neither waits long
# for the other's last chunk, and few enough chunks that taking one costs nothing
CHUNK_ROWS = 4096


def mining_processes(n: int, jobs: int | None = None) -> int:
    """Processes the mining of `n` rows uses: two from `PARALLEL_FROM` rows where `jobs` (the
    most the user allows the build, `Settings.index_jobs`; None: the cores) is two or more and
    the system can fork, else one. Never more than two: the mining is split in two parts."""
    most = (os.cpu_count() or 1) if jobs is None else jobs
    return 2 if n >= PARALLEL_FROM and most >= 2 and can_fork() else 1


def mine_names(titles: Sequence[str], abstracts: Sequence[str], years: np.ndarray, works: np.ndarray,
               citations: np.ndarray, rows_with: Callable[[str], np.ndarray],
               authors: Sequence[Sequence[str]] | None = None, processes: int | None = None) -> PaperNames:
    """Names and standing of every row. `rows_with(name)` gives the rows whose title or abstract
    has the name's words (the index's postings), in row order; `citations` is -1 where unknown;
    `authors` (each row's, in order) let later papers' author-year citations name a paper.

    With `processes` 2 (default: `mining_processes`) the rows' own names, their judging and the
    mentions are split by row between this process and a forked child: every answer about a row
    depends on the corpus alone, not on which rows were judged before it, so the result is the
    same as in one process (the caches of uses only save reads; the one thing they fixed by
    order, which spelling of a folded name looks its uses up, is fixed beforehand)."""
    n = len(titles)
    years = np.asarray(years, dtype=np.int64)
    works = np.asarray(works, dtype=np.int64)
    split = (mining_processes(n) if processes is None else processes) > 1 and n > 1
    uses: dict[str, _Uses] = {}
    # per folded name, the spelling whose words and phrase its uses are looked up by: the first
    # met in row order (own names, then the title's tail), as one process judging every row in
    # order meets them; a name first met later (an acronym) is looked up as met
    spelt_as: dict[str, str] = {}

    def used_by(name: str) -> _Uses:
        key = fold_paper_name(name)
        if key not in uses:
            name = spelt_as.get(key, name)
            uses[key] = _Uses(rows_with(name), _phrase_of(name) if " " in name.strip() else None, plain)
        return uses[key]

    # each row's text as `_plain` writes it, made when first read: a list by row, not a dict (at
    # a million papers the phrase tests read ~10^8 texts, and the dict's two look-ups a read, its
    # `in` and its item, were a tenth of the mining)
    texts: list[str | None] = [None] * n

    def plain(row: int) -> str:
        text = texts[row]
        if text is None:
            text = texts[row] = _plain(f"{titles[row]} . {abstracts[row]}")
        return text

    # a capitalised name: per row of its uses, whether that abstract writes it capitalised
    # (1 / 0; -1 not read yet). Every paper with the name asks about the same earlier abstracts,
    # and at 1M papers reading them again for each was half the mining's time.
    capitalised: dict[str, np.ndarray] = {}

    def new_with(row: int, used: _Uses, name: str = "") -> bool:
        """Whether a name `used` by its rows was new with `row`: few papers of earlier years use
        it. A capitalised word ("Performers") counts only where earlier abstracts write it so
        inside a sentence: "the best performer" was no earlier use of the name."""
        if not used.exact and not _capitalised_word(name):  # a phrase: its earlier writers, as few as tell
            rows = used.candidates  # (a capitalised word may share a phrase's uses: "Auto-Encoders", "Autoencoders")
            return not used.more_than(MAX_PRIOR_USES, (years[rows] < years[row]) & (works[rows] != works[row]))
        rows = used.rows()
        earlier = np.flatnonzero((years[rows] < years[row]) & (works[rows] != works[row]))
        if len(earlier) <= MAX_PRIOR_USES or not _capitalised_word(name):
            return len(earlier) <= MAX_PRIOR_USES
        marks = capitalised.setdefault(name, np.full(len(rows), -1, dtype=np.int8))
        uses = int((marks[earlier] == 1).sum())
        for at in earlier[marks[earlier] < 0].tolist():
            if uses > MAX_PRIOR_USES:
                break
            marks[at] = _writes_capitalised(abstracts[int(rows[at])], name)
            uses += int(marks[at])
        return uses <= MAX_PRIOR_USES

    def found_in(lo: int, hi: int) -> list[tuple[list[str], list[str]]]:
        """Rows lo..hi-1: the names each gives itself and its title's closing name."""
        return [(own_names(titles[row], abstracts[row]), _title_tail(titles[row])) for row in range(lo, hi)]

    def mentioned(row: int, own: list[str]) -> int:
        """How many later papers of other works use any of the names `own` of `row`."""
        later: set[int] = set()
        for name in own:
            rows = used_by(name).rows()
            naming = rows[(years[rows] >= years[row]) & (works[rows] != works[row])].tolist()
            if _capitalised_word(name):  # "Intention" is named by who writes it so, not by "intention"
                naming = [r for r in naming if _writes_capitalised(abstracts[r], name)]
            later.update(naming)
        return len(later)

    def judged(lo: int, hi: int) -> tuple[list[list[str]], np.ndarray]:
        """Rows lo..hi-1: the names of `found` that are new with the row and not common words,
        and the mentions they give it (counted here, where their uses were just looked up)."""
        out: list[list[str]] = []
        mentions = np.zeros(hi - lo, dtype=np.int32)
        for row in range(lo, hi):
            own, tail = found[row]
            kept: list[str] = []
            for name in own:
                used = used_by(name)
                if not used.more_than(0):  # the words are not in the index (stop words only): no judging them
                    continue
                if used.more_than(max(COMMON_FLOOR, (COMMON_SHARE_NAME if _spelt_like_a_name(name) else COMMON_SHARE) * n)):
                    continue
                if new_with(row, used, name):
                    kept.append(name)
            for name in tail:  # "... using Deep Ensembles": a name the field took up
                used = used_by(name)
                others = works[used.candidates] != works[row]
                # a method of others the title says it uses ("... with Stable Diffusion") is in use
                # in the paper's own year already; a name it introduces is not
                if used.more_than(MIN_ADOPTED - 1, others & (years[used.candidates] > years[row])) \
                        and not used.more_than(MAX_PRIOR_USES, others & (years[used.candidates] <= years[row])) \
                        and all(fold_paper_name(a) != fold_paper_name(name) for a in kept):
                    kept.append(name)
            out.append(kept)
            if kept:
                mentions[row - lo] = mentioned(row, kept)
        return out, mentions

    def named_by_others() -> tuple[dict, list[tuple[int, str, list[str], int]]]:
        """What later papers name rows by, before the rows' own names are known: author-year
        citations, and the acronyms they spell with an owner by the titles."""
        cited = {}
        if authors is not None:
            cited = named_by_citation(titles, abstracts, years, works, np.asarray(citations), authors, plain,
                                      fold_paper_name)
        return cited, _acronym_claims(titles, abstracts, years, works, citations)

    def each(work: Callable[[int, int], list], count: int) -> list:
        """work(0, count) as one list, by both processes in chunks where the mining is split."""
        if not split:
            return work(0, count)
        return [item for part in chunks_in_two(work, count, CHUNK_ROWS)[0] for item in part]

    found = each(found_in, n)
    for own, tail in found:
        for name in (*own, *tail):
            spelt_as.setdefault(fold_paper_name(name), name)
    if split:  # the parent first finds what others name the rows by, then judges rows too
        parts, (cited, claims) = chunks_in_two(judged, n, CHUNK_ROWS, named_by_others)
    else:
        parts = [judged(0, n)]
        cited, claims = named_by_others()
    names = [row for part, _ in parts for row in part]
    mentions = np.concatenate([np.zeros(0, dtype=np.int32), *(counts for _, counts in parts)])
    del found, parts
    grown: set[int] = set()  # rows named by others too: their mentions counted again below
    given: dict[tuple[int, str], int] = {}  # (row, name): later papers spelling it with the row's title
    introduced: dict[str, list[int]] = defaultdict(list)  # folded name: the rows that introduced it
    for row, own in enumerate(names):
        for name in own:
            introduced[fold_paper_name(name)].append(row)
    for (row, key), (name, _) in cited.items():
        introduced[key].append(row)

    def owners_in(lo: int, hi: int) -> list[int]:
        return _introduced_owners(claims[lo:hi], years, works, introduced, plain)

    acronyms = _acronyms_given_by_others(claims, each(owners_in, len(claims)))
    del claims
    # "CLIP (Radford et al., 2021)": the citation names the paper, new word or not
    citing = sorted(cited.items())
    for _, acronym, _, _ in acronyms:  # looked up as met in this order, in either process
        spelt_as.setdefault(fold_paper_name(acronym), acronym)
    for _, (name, _) in citing:
        if _clean(name):
            spelt_as.setdefault(fold_paper_name(name), name)

    def verdicts(lo: int, hi: int) -> list[bool]:
        """Of the acronyms then the citations, lo..hi-1: whether each names its row."""
        out = []
        for i in range(lo, hi):
            if i < len(acronyms):
                row, acronym = acronyms[i][:2]
                used = used_by(acronym)
                out.append(used.more_than(0) and new_with(row, used))
            else:
                name = citing[i - len(acronyms)][1][0]
                out.append(bool(_clean(name)) and used_by(name).more_than(0))
        return out

    said = each(verdicts, len(acronyms) + len(citing))
    for (row, acronym, papers, form), names_it in zip(acronyms, said):
        if names_it:
            given[(row, fold_paper_name(acronym))] = papers
            if all(fold_paper_name(a) != fold_paper_name(acronym) for a in names[row]):
                names[row].append(acronym)
                grown.add(row)
    for ((row, key), (name, writers)), names_it in zip(citing, said[len(acronyms):]):
        if names_it:
            given[(row, key)] = given.get((row, key), 0) + len(writers)
            if all(fold_paper_name(a) != key for a in names[row]):
                names[row].append(name)
                grown.add(row)
    recount = sorted(grown)

    def counted(lo: int, hi: int) -> list[int]:
        return [mentioned(row, names[row]) for row in recount[lo:hi]]

    for row, count in zip(recount, each(counted, len(recount))):
        mentions[row] = count
    table: dict[str, list[int]] = defaultdict(list)
    for row, own in enumerate(names):
        for name in own:
            for key in sorted(lookup_keys(name)):  # a set's order follows the hash seed
                table[key].append(row)
    standing = _standing(mentions, citations, years)
    # a work's versions share its standing (the card shown may be another version than the one found)
    best = np.zeros(int(works.max(initial=-1)) + 1, dtype=np.float32)
    np.maximum.at(best, works, standing)
    standing = best[works]
    # homonyms: the paper later papers spell the name for first ("dense passage retrieval (DPR)"
    # before "Dropped Pronoun Recovery"), then the best standing
    ordered = {k: sorted(set(v), key=lambda r: (-given.get((r, k), 0), -standing[r], -mentions[r], r))
               for k, v in table.items()}
    return PaperNames(names, mentions, standing, ordered)


def _plain(text: str) -> str:
    """Lower-case words between single spaces, a space at each end: where a phrase is a substring."""
    return " " + " ".join(_WORD.findall(text.lower())) + " "


def _phrase_of(name: str) -> str | None:
    """What a title or abstract (`_plain`) writes where it uses a name of several words: the
    words together, in the name's order (the last one maybe plural), as " w1 w2"; None for a
    name of one word (its words are its use). "spectral normalization" is a phrase, not its
    words anywhere."""
    phrase = _plain(name)[:-1]
    return phrase if phrase.count(" ") >= 2 else None


class _Uses:
    """The rows that use a name: `candidates` (the rows holding its words, ascending), those of
    them whose text writes its phrase where it has one (`_phrase_of`). A text is read only when
    a question needs it: most questions are "more than k of these?" with k of 0, 2, 4 or a
    common word's count, answered by reading until the k+1-th use (at a million papers, reading
    every candidate of every phrase was most of the mining's first pass: "language models" has
    ~200k candidates, a common phrase whose answer was known after a tenth of them)."""

    def __init__(self, candidates: np.ndarray, phrase: str | None, plain: Callable[[int], str]) -> None:
        self.phrase = phrase
        self.plain = plain
        self.exact = phrase is None or len(candidates) == 0
        # held until every candidate is read, for every phrase the mining met (~10^8 rows at a
        # million papers, where main kept only the uses): int32 halves them (rows < 2^31)
        self.candidates = candidates if self.exact else candidates.astype(np.int32)
        # per candidate: 1 writes the phrase, 0 does not, -1 not read yet
        self.marks = None if self.exact else np.full(len(candidates), -1, dtype=np.int8)
        self._used = 0  # candidates read and found writing it

    def rows(self) -> np.ndarray:
        """Every row that uses the name, ascending (every unread candidate read once)."""
        if not self.exact:
            self._read(np.flatnonzero(self.marks < 0))
            self.candidates = self.candidates[self.marks == 1].astype(np.int64)
            self.exact, self.marks = True, None
        return self.candidates

    def more_than(self, limit: float, among: np.ndarray | None = None) -> bool:
        """Whether more than `limit` rows use the name (of the candidates `among`, a mask over
        `candidates`, if given), reading unread candidates in row order only until it is known."""
        if self.exact:
            return (len(self.candidates) if among is None else int(np.count_nonzero(among))) > limit
        marks = self.marks if among is None else self.marks[among]
        used = self._used if among is None else int(np.count_nonzero(marks == 1))
        if used > limit:
            return True
        unread = np.flatnonzero(marks < 0) if among is None else np.flatnonzero(among)[marks < 0]
        if used + len(unread) <= limit:
            return False
        # in row order until the answer is known; the marks set once after the loop (a numpy
        # item a read, and a method call, were most of a read's cost beside the text's search)
        phrase, plain = self.phrase, self.plain
        found: list[bool] = []
        add = found.append
        for row in self.candidates[unread].tolist():
            writes = phrase in plain(row)
            add(writes)
            if writes:
                used += 1
                if used > limit:
                    break
        self._mark(unread[:len(found)], found)
        return used > limit

    def _read(self, at: np.ndarray) -> None:
        phrase, plain = self.phrase, self.plain
        self._mark(at, [phrase in plain(row) for row in self.candidates[at].tolist()])

    def _mark(self, at: np.ndarray, found: list[bool]) -> None:
        """Candidates `at` read: `found` says which write the phrase."""
        self.marks[at] = found
        self._used += sum(found)


def _title_phrases(title: str) -> list[str]:
    """The word runs of a title (and of its lead and subtitle) a long form may be: every opening
    of two words or more. (Inner runs made owners of follow-ups: "Coupled Generative Adversarial
    Networks" of GAN.)"""
    lead = _TITLE_LEAD.match(title)
    out: list[str] = []
    for part in ([title[:lead.end() - 1], title[lead.end() - 1:]] if lead else [title]):
        words = _WORD.findall(part.rstrip(": ").lower())
        out += [" ".join(words[:k]) for k in range(2, len(words) + 1)]
    return out


def _endings(words: list[str], acronym: str) -> list[str]:
    """The endings of a long form a title may open with, longest first: the whole, and shorter
    ones whose dropped words are spelt out in the acronym ("Adam with Decoupled Weight Decay
    (AdamW)" → "decoupled weight decay", as "adamw" holds "adam"), never one that drops a word
    the acronym stands for ("graph convolutional networks (GCN)" is not "Convolutional Networks
    on Graphs")."""
    spelt = acronym.lower()
    out = [" ".join(words)]
    for i in range(1, len(words) - 1):
        if not all(w in _STOP or w in spelt for w in words[:i]):
            break
        out.append(" ".join(words[i:]))
    return out


class _TitleStems:
    """The papers whose titles hold every content word of a long form, by stem: "variational
    autoencoder (VAE)" is in "Auto-Encoding Variational Bayes", "residual networks (ResNets)" in
    "Deep Residual Learning for Image Recognition", whatever the order."""

    def __init__(self, titles: Sequence[str]) -> None:
        from paperfind.text.analyze import Analyzer

        self.analyzer = Analyzer()
        rows: dict[str, list[int]] = defaultdict(list)
        for row, title in enumerate(titles):
            for stem in self.stems(title):
                rows[stem].append(row)
        self.rows = {stem: np.asarray(r, dtype=np.int64) for stem, r in rows.items()}
        self._found: dict[tuple[str, ...], np.ndarray] = {}
        self._by_text: dict[str, np.ndarray] = {}

    def stems(self, text: str) -> set[str]:
        """Content stems of a text, a hyphenated word also joined ("auto-encoding" → "autoencod")."""
        words = _WORD.findall(text.lower()) + ["".join(w.split("-")) for w in re.findall(r"\w+(?:-\w+)+", text.lower())]
        return {self.analyzer.stem(w) for w in words if w not in _STOP and not self.analyzer.is_stopword(w)}

    def holding(self, words: list[str]) -> np.ndarray:
        text = " ".join(words)
        if text in self._by_text:
            return self._by_text[text]
        key = tuple(sorted(self.stems(text)))
        if key not in self._found:
            self._found[key] = rows_with_all([self.rows.get(s, np.zeros(0, dtype=np.int64)) for s in key]) \
                if key else np.zeros(0, dtype=np.int64)
        self._by_text[text] = self._found[key]
        return self._found[key]


def _acronym_claims(titles: Sequence[str], abstracts: Sequence[str], years: np.ndarray, works: np.ndarray,
                    citations: np.ndarray | None = None) -> list[tuple[int, str, list[str], int]]:
    """(writer, acronym, the long form's words, owner) for every acronym an abstract spells with
    a long form ("denoising diffusion probabilistic models (DDPM)"), in the writers' order: the
    owner by the titles alone (-1 for none), before any paper's own names are known. The
    owner is the one paper of the earliest year whose title opens with those words: with two
    works of that year, nobody owns it. A paper no later than that one whose title holds the
    long form's words in another order and is cited `OUTCITED` times as much per year owns it
    instead (the field's "variational autoencoders (VAE)" are "Auto-Encoding Variational Bayes",
    not a later title that opens with the words). `_acronyms_given_by_others` then lets the
    papers that introduced a name have it first."""
    spelt: list[tuple[int, str, list[str]]] = []  # (writer, acronym, the long form's words)
    for writer, abstract in enumerate(abstracts):
        if "(" not in abstract:
            continue
        for m in _PAREN.finditer(abstract):
            acronym = m.group(1)
            if sum(c.isupper() for c in acronym) < 2 and not _DIGIT_INSIDE.search(acronym):
                continue
            words = long_form(_WORD.findall(abstract[max(0, m.start() - 200):m.start()]), acronym)
            if len(words) >= 2:
                spelt.append((writer, acronym, words))
    endings = {id(words): _endings(words, acronym) for _, acronym, words in spelt}
    wanted = {ending for e in endings.values() for ending in e}
    phrases: dict[str, list[int]] = defaultdict(list)
    lead_names: dict[int, str] = {}  # "MADE: Masked Autoencoder for ...": its acronym is MADE
    for row, title in enumerate(titles):
        for phrase in set(_title_phrases(title)) & wanted:
            phrases[phrase].append(row)
        lead = _TITLE_LEAD.match(title) if ":" in title else None
        if lead and _spelt_like_a_name(lead.group(1)) and " " not in lead.group(1).strip():
            lead_names[row] = fold_paper_name(lead.group(1))
    rate = _per_year(citations, years) if citations is not None else None
    stems = _TitleStems(titles) if rate is not None else None
    by_year: dict[tuple[str, str], list[tuple[int, list[int], set[int]]]] = {}
    best_of: dict[tuple[int, str], _BestByYear] = {}
    claims: list[tuple[int, str, list[str], int]] = []
    for writer, acronym, words in spelt:
        folded = fold_paper_name(acronym)
        # the longest ending that is words of a title: "Adam with Decoupled Weight Decay
        # (AdamW)" spells AdamW, and "decoupled weight decay" opens the paper's title
        owner = -1
        for ending in endings[id(words)]:
            # titles whose lead is another acronym ("MADE: Masked Autoencoder ...") are not
            # this one's owners; grouped by year once per long form and acronym
            if (ending, folded) not in by_year:
                rows = [r for r in phrases.get(ending, ()) if lead_names.get(r, folded) == folded]
                by_year[(ending, folded)] = _year_groups(rows, years, works)
            found = _earliest_owner(by_year[(ending, folded)], int(years[writer]), int(works[writer]), works)
            if found is not None:
                owner = found
                break
        if stems is not None and _spells_a_title_word(words, acronym, stems):
            holding = stems.holding(words)  # one array per set of words, kept by `stems`
            key = (id(holding), folded)
            if key not in best_of:
                if lead_names:
                    holding = holding[[lead_names.get(int(r), folded) == folded for r in holding.tolist()]]
                best_of[key] = _BestByYear(holding, rate, years, works)
            owner = _outcited(owner, best_of[key], rate, years, works, writer)
        claims.append((writer, acronym, words, owner))
    return claims


def _introduced_owners(claims: list[tuple[int, str, list[str], int]], years: np.ndarray, works: np.ndarray,
                       introduced: dict[str, list[int]], plain: Callable[[int], str] | None) -> list[int]:
    """Each claim's owner once the papers that introduced a name have it first (`_introducer`)."""
    if not introduced:
        return [owner for _, _, _, owner in claims]
    return [_introducer(owner, words, acronym, introduced, years, works, writer, plain)
            for writer, acronym, words, owner in claims]


def _acronyms_given_by_others(claims: list[tuple[int, str, list[str], int]],
                              owners: list[int]) -> list[tuple[int, str, int, str]]:
    """(row, acronym, papers, long form) where at least `MIN_NAMED_BY` papers of the same or later
    years, of other works, write words of the row's title followed by the acronym ("denoising
    diffusion probabilistic models (DDPM)", "Adam with decoupled weight decay (AdamW)"): the
    claims of `_acronym_claims` by their `owners` (`_introduced_owners`)."""
    said: dict[tuple[int, str], set[int]] = defaultdict(set)
    spelling: dict[tuple[int, str], str] = {}
    forms: dict[tuple[int, str], str] = {}
    for (writer, acronym, words, _), owner in zip(claims, owners):
        if owner >= 0:
            named = (owner, fold_paper_name(acronym))
            said[named].add(writer)
            spelling.setdefault(named, acronym[:-1] if acronym.endswith("s") and acronym[:-1].isupper() else acronym)
            forms.setdefault(named, " ".join(words))
    return sorted((owner, spelling[(owner, a)], len(writers), forms[(owner, a)])
                  for (owner, a), writers in said.items() if len(writers) >= MIN_NAMED_BY)


def _introducer(owner: int, words: list[str], acronym: str, introduced: dict[str, list[int]],
                years: np.ndarray, works: np.ndarray, writer: int, plain: Callable[[int], str] | None) -> int:
    """The owner of an acronym a writer spells: the paper that introduced the long form as its
    name ("Vision Transformer", which later papers write "(ViT)", though no title holds it), else
    the one that introduced the acronym itself ("NeRF: Representing Scenes ..."), when it is no
    later than `owner` (by its title's opening: "NeRF in the Wild: Neural Radiance Fields ..."
    is a follow-up) and the one work of its year that did; else `owner`. An acronym's introducer
    must write the long form (`plain`: its words): the MOCO of 2013 is no momentum contrast."""
    long = fold_paper_name(" ".join(words))
    phrase = " " + " ".join(words).rstrip("s")
    for key in (long, long[:-1] if long.endswith("s") else "", fold_paper_name(acronym)):
        rows = [r for r in introduced.get(key, ()) if years[r] <= years[writer] and works[r] != works[writer]]
        if key == fold_paper_name(acronym):  # the acronym's introducer writes the long form too
            rows = [r for r in rows if plain is not None and phrase in plain(r)]
        if not rows:
            continue
        first = min(int(years[r]) for r in rows)
        earliest = [r for r in rows if years[r] == first]
        if len({int(works[r]) for r in earliest}) == 1 and (owner < 0 or first <= years[owner]):
            return min(earliest)
    return owner


def _spells_a_title_word(words: list[str], acronym: str, stems: "_TitleStems") -> bool:
    """Whether a long form says enough to be found in titles by its words in any order: two
    content words, or one the acronym spells the start of ("residual networks (ResNets)"; not
    "out-of-distribution (OOD)", whose one word would make "Distributed Representations of
    Words" its owner)."""
    content = [w for w in words if w not in _STOP and not stems.analyzer.is_stopword(w)]
    if len(content) >= 2:
        return True
    return len(content) == 1 and content[0][:3] in acronym.lower()


def _per_year(citations: np.ndarray, years: np.ndarray) -> np.ndarray:
    """Citations per year since publication; -1 where unknown."""
    years = np.asarray(years, dtype=np.int64)
    span = np.maximum(int(years.max(initial=0)) - years + 1, 1).astype(np.float64)
    cited = np.asarray(citations, dtype=np.float64)
    return np.where(cited >= 0, cited / span, -1.0)


def _year_groups(rows: Sequence[int], years: np.ndarray, works: np.ndarray
                 ) -> list[tuple[int, list[int], set[int]]]:
    """(year, its rows in row order, their works) of the titles opening with an ending, by year."""
    groups: dict[int, list[int]] = defaultdict(list)
    for r in rows:
        groups[int(years[r])].append(r)
    return [(year, sorted(rs), {int(works[r]) for r in rs}) for year, rs in sorted(groups.items())]


def _earliest_owner(groups: list[tuple[int, list[int], set[int]]], year: int, work: int,
                    works: np.ndarray) -> int | None:
    """Of the titles no later than a writer's (`year`) and of other works than its (`work`):
    None when there are none; else the one paper of the earliest year that has one, or -1 when
    that year has papers of two works. One look at the earliest years instead of a pass over
    every title with the words for every writer: a long form as common as "convolutional
    neural networks" is written by thousands of abstracts, each of which made that pass."""
    for group_year, rows, group_works in groups:
        if group_year > year:
            return None
        others = group_works - {work}
        if not others:
            continue
        if len(others) > 1:
            return -1
        return next(r for r in rows if int(works[r]) != work)
    return None


class _BestByYear:
    """The paper of highest citation rate among the titles that hold a long form's words, up to
    each year, and the best of another work: what `_outcited` asks of every writer, answered by
    a binary search instead of a pass over those titles (ties: the lowest row, as np.argmax)."""

    def __init__(self, holding: np.ndarray, rate: np.ndarray, years: np.ndarray, works: np.ndarray) -> None:
        rows = holding[rate[holding] > 0]
        rows = rows[np.lexsort((rows, years[rows]))]  # by year, then row
        self.years = years[rows]
        self.best: list[int] = []  # per prefix: the best row
        self.other: list[int] = []  # per prefix: the best row of another work than `best`'s
        best, other = -1, -1
        for r in rows.tolist():
            if best < 0 or _better(r, best, rate):
                if best >= 0 and works[best] != works[r]:
                    other = best
                elif other >= 0 and works[other] == works[r]:
                    other = -1
                best = r
            elif works[r] != works[best] and (other < 0 or _better(r, other, rate)):
                other = r
            self.best.append(best)
            self.other.append(other)
        self.works = works

    def __len__(self) -> int:
        return len(self.best)

    def best_until(self, year: int, work: int) -> int:
        """The best row of a year up to `year` whose work is not `work`; -1 for none."""
        end = int(np.searchsorted(self.years, year, side="right"))
        if end == 0:
            return -1
        best = self.best[end - 1]
        return best if self.works[best] != work else self.other[end - 1]


def _better(r: int, than: int, rate: np.ndarray) -> bool:
    return rate[r] > rate[than] or (rate[r] == rate[than] and r < than)


def _outcited(owner: int, holding: _BestByYear, rate: np.ndarray, years: np.ndarray, works: np.ndarray,
              writer: int) -> int:
    """The owner of a long form a writer spells: `owner` (by its title's opening; -1 for none)
    unless a paper no later, whose title holds the long form's words, is cited `OUTCITED` times
    as much per year. An owner without a count (the years the data has none) keeps the name: a
    famous earlier paper with the same words may be another thing of the same letters ("Masked
    Autoencoder for Distribution Estimation" is not the "masked autoencoders (MAE)" of 2022)."""
    if len(holding) == 0 or (owner >= 0 and rate[owner] < 0):
        return owner
    limit = years[owner] if owner >= 0 else years[writer]
    best = holding.best_until(int(limit), int(works[writer]))
    if best < 0:
        return owner
    floor = float(rate[owner]) if owner >= 0 else 0.0
    if best != owner and rate[best] >= OUTCITED * max(floor, MIN_RATE):
        return best
    return owner


def _percentile(values: np.ndarray) -> np.ndarray:
    """Each positive value's share of the positive values at or below it; 0 for the others."""
    out = np.zeros(len(values), dtype=np.float32)
    positive = np.flatnonzero(values > 0)
    if len(positive):
        order = np.argsort(values[positive], kind="stable")
        ranks = np.empty(len(positive))
        ranks[order] = np.arange(1, len(positive) + 1)
        # equal values share the highest rank of their run
        sorted_vals = values[positive][order]
        last = np.searchsorted(sorted_vals, sorted_vals, side="right")
        ranks[order] = last
        out[positive] = ranks / len(positive)
    return out


def _standing(mentions: np.ndarray, citations: np.ndarray, years: np.ndarray) -> np.ndarray:
    if len(years) == 0:
        return np.zeros(0, dtype=np.float32)
    span = np.maximum(int(years.max()) - years + 1, 1).astype(np.float64)
    cited = np.maximum(np.asarray(citations, dtype=np.float64), 0)
    return np.maximum(_percentile(mentions / span), _percentile(cited / span)).astype(np.float32)
