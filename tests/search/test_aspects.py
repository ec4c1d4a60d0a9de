"""The sentence-aspect classifier on real abstracts (paperlists): the moves of an abstract.

Behaviour, not a score: an opening sentence that sets the context is background, "we propose /
present" sentences are method, "experiments show ... outperforms" sentences are result, and
every aspect of a real abstract yields some sentence to build an aspect query from.
"""

from __future__ import annotations

import pytest

from paperfind.search.aspects import ASPECTS, aspect_sentences, classify_abstract, classify_sentences
from paperfind.text.sentences import split_sentences
from tests.realdata import load_paperlist

PROTO_ICLR = ("iclr", 2017, "B1-Hhnslg")  # "A recent approach to few-shot classification ..."
SOFTMAX_ICML = ("icml", 2017, "762")  # "We propose ... adaptive softmax ... Our experiments ... show"


def _abstract(venue: str, year: int, paper_id: str) -> str:
    return next(r["abstract"] for r in load_paperlist(venue, year) if r["id"] == paper_id)


def _aspect_of(labelled, start: str) -> str:
    return next(s.aspect for s in labelled if s.text.startswith(start))


def test_sentences_split_like_the_embedding_text_does():
    text = "We use e.g. BERT et al. as encoders. It gains 1.5 points. [1] Done"
    assert split_sentences(text) == ["We use e.g. BERT et al. as encoders.", "It gains 1.5 points.", "[1] Done"]


def test_the_moves_of_the_prototypical_networks_abstract():
    labelled = classify_abstract(_abstract(*PROTO_ICLR))
    assert labelled[0].aspect == "background"  # "A recent approach ... has demonstrated"
    assert _aspect_of(labelled, "We propose a more streamlined approach") == "method"
    assert _aspect_of(labelled, "We empirically demonstrate") == "result"
    assert labelled[-1].aspect == "result"


def test_the_moves_of_the_adaptive_softmax_abstract():
    labelled = classify_abstract(_abstract(*SOFTMAX_ICML))
    assert _aspect_of(labelled, "Our approach, called adaptive softmax") == "method"
    assert _aspect_of(labelled, "Our experiments carried out on standard benchmarks") == "result"


@pytest.mark.parametrize("sentence,aspect", [
    ("We propose a graph neural network that encodes each molecule as a set of motifs.", "method"),
    ("Experiments on three benchmarks show that our model outperforms strong baselines by 4.2%.", "result"),
])
def test_cue_phrases_decide_a_mid_abstract_sentence(sentence, aspect):
    context = ["Reinforcement learning has attracted much attention recently.", sentence,
               "We discuss limitations."]
    assert classify_sentences(context)[1].aspect == aspect


def test_every_aspect_of_real_abstracts_has_sentences_and_is_deterministic():
    records = [r for r in load_paperlist("colt", 2019) if len(r.get("abstract") or "") > 400][:20]
    assert len(records) == 20
    for record in records:
        picked = {a: aspect_sentences(record["abstract"], a) for a in ASPECTS}
        assert all(picked.values()), record["id"]
        assert picked == {a: aspect_sentences(record["abstract"], a) for a in ASPECTS}
    labels = {s.aspect for r in records for s in classify_abstract(r["abstract"])}
    assert labels == set(ASPECTS)


def test_an_unknown_aspect_is_refused():
    with pytest.raises(ValueError, match="unknown aspect 'methods'"):
        aspect_sentences("We propose X.", "methods")
