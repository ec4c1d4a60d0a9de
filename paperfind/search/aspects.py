"""Which aspect of a paper each abstract sentence speaks to: background, method or result.

"Papers like this one *for its method*" (faceted query by example) needs the paper's method
sentences, but stored abstracts carry no labels. Abstracts follow a well-known arc: context
and problem first, then what the authors did, then what they found. So each sentence is scored
by hand-written cue phrases of each move (our own rules from how abstracts are written; no
model, no labelled data) plus a prior from its position in the abstract, and takes the aspect
with the highest score. A statement of the paper's aim ("we study / address the problem of")
counts as background: it says which problem the paper is about, not how it solves it.
Deterministic and cheap: a few regular expressions per sentence, a few tenths of a ms per
abstract (0.26 ms on default.db abstracts, nice'd on the shared machine).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from paperfind.text.sentences import split_sentences

ASPECTS = ("background", "method", "result")


def require_aspect(aspect: str) -> None:
    """Raise `ValueError` naming the aspects for anything else: one message wherever it is asked."""
    if aspect not in ASPECTS:
        raise ValueError(f"unknown aspect {aspect!r}; expected one of {', '.join(ASPECTS)}")


def _cues(*patterns: str) -> re.Pattern[str]:
    return re.compile(r"\b(?:" + "|".join(patterns) + r")")  # matched against the lowercased text


# each cue adds its weight once per sentence; the position prior is added to every sentence
_CUES: dict[str, list[tuple[re.Pattern[str], float]]] = {
    "background": [
        (_cues(r"recent(ly)?\b", r"has (been|become|attracted|received)", r"have (been|become|attracted)",
               r"is (an? )?(important|fundamental|challenging|crucial|key|central|critical|popular)",
               r"remains?\b", r"however\b", r"existing\b", r"previous(ly)?\b", r"prior work",
               r"traditional(ly)?\b", r"conventional\b", r"widely\b", r"challeng", r"difficult",
               r"problem of\b", r"task of\b", r"lack of\b", r"limited\b", r"suffer", r"despite\b",
               r"many\b", r"most\b", r"often\b", r"typically\b", r"usually\b"), 1.0),
        (_cues(r"we (study|address|investigate|consider|tackle|explore|examine|focus on|ask)",
               r"this (paper|work|article|study) (studies|addresses|investigates|considers|tackles|"
               r"explores|examines|focuses)",
               r"(the|our) (aim|goal|objective|purpose) (of|is)", r"in this (paper|work|article)"), 1.0),
    ],
    "method": [
        (_cues(r"we (propose|present|introduce|develop|describe|design|formulate|devise|build|construct)",
               r"(this|the) (paper|work|article) (proposes|presents|introduces|develops|describes)",
               r"we (use|employ|apply|adopt|leverage|exploit|combine|extend|train|learn|model|"
               r"represent|encode|define|incorporate|augment|treat|cast|frame|rely)"), 1.5),
        # naming the paper's own method is also how result sentences open ("our method outperforms")
        (_cues(r"(our|the proposed|a novel|a new) (approach|method|model|system|framework|algorithm|"
               r"architecture|technique)"), 0.5),
        (_cues(r"based on\b", r"using\b", r"by (using|combining|learning|modeling|modelling)",
               r"algorithm", r"framework", r"architecture", r"neural", r"network", r"features?\b",
               r"trained\b", r"learns?\b", r"approach\b", r"method\b", r"technique", r"corpus",
               r"dataset", r"annotat", r"consists? of", r"composed of", r"which\b"), 0.5),
    ],
    "result": [
        # reporting a finding ("we empirically show", "experiments on X show")
        (_cues(r"(our |the )?(experimental |empirical |evaluation )?results (show|demonstrate|indicate|"
               r"suggest|confirm|reveal)", r"we (\w+ly )?(show|demonstrate|find|found|observe|obtain|report|achieve)",
               r"experiments?\b[^.;]* (show|demonstrate|indicate|confirm|reveal)", r"experiments? (on|with)"), 1.0),
        # comparing with others or with a measure
        (_cues(r"outperform", r"state[- ]of[- ]the[- ]art",
               r"significant(ly)?\b", r"improve(s|d|ments?)?\b", r"achiev", r"better than",
               r"compared (to|with)", r"competitive\b", r"accuracy", r"\bf1\b", r"f-?(score|measure)",
               r"bleu\b", r"error rate", r"baselines?\b", r"gains?\b", r"surpass"), 1.0),
        (_cues(r"evaluat", r"performance", r"effective", r"results?\b", r"empirical", r"experiment",
               r"benchmark", r"reduc", r"increas", r"points?\b"), 0.5),
        (re.compile(r"\d+(\.\d+)?\s*%|\b\d+\.\d+\b"), 1.0),
    ],
}

# position prior over the relative position 0 (first sentence) .. 1 (last)
_FIRST_BACKGROUND = 1.5  # the opening sentence sets the context in most abstracts


def _position_prior(aspect: str, where: float) -> float:
    if aspect == "background":
        return 1.0 - 1.5 * where
    if aspect == "result":
        return -0.75 + 1.5 * where
    return 0.5 - abs(where - 0.45)


@dataclass(frozen=True)
class Sentence:
    """One abstract sentence, its aspect and the score of each aspect (for explanations)."""

    text: str
    aspect: str
    scores: dict[str, float]


def aspect_scores(sentence: str, position: int, count: int) -> dict[str, float]:
    """Each aspect's score for the sentence at `position` (0-based) of `count` sentences."""
    where = position / (count - 1) if count > 1 else 0.0
    sentence = sentence.lower()
    scores = {}
    for aspect in ASPECTS:
        score = _position_prior(aspect, where)
        score += sum(weight for pattern, weight in _CUES[aspect] if pattern.search(sentence))
        scores[aspect] = round(score, 6)
    if position == 0 and count > 1:
        scores["background"] += _FIRST_BACKGROUND
    return scores


def classify_abstract(abstract: str) -> list[Sentence]:
    """The abstract's sentences in order, each with its aspect (ties go to the earlier aspect)."""
    return classify_sentences(split_sentences(abstract))


def classify_sentences(sentences: list[str]) -> list[Sentence]:
    """Already split sentences of one abstract, in order, each with its aspect."""
    out = []
    for i, text in enumerate(sentences):
        scores = aspect_scores(text, i, len(sentences))
        best = max(ASPECTS, key=lambda a: (scores[a], -ASPECTS.index(a)))
        out.append(Sentence(text, best, scores))
    return out


def aspect_sentences(abstract: str, aspect: str) -> list[str]:
    """The abstract's sentences of `aspect`; when none is, the one sentence scoring best for it
    (every abstract has something to say about each aspect, if only in passing)."""
    require_aspect(aspect)
    labelled = classify_abstract(abstract)
    chosen = [s.text for s in labelled if s.aspect == aspect]
    if chosen or not labelled:
        return chosen
    best = max(range(len(labelled)), key=lambda i: (labelled[i].scores[aspect], -i))
    return [labelled[best].text]
