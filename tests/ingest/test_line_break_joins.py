"""Issue 29, "Text and counts": spaces lost at a PDF's line breaks are put back in the scrub
step every reader's records pass ("recurrent orconvolutional neural" in NeurIPS 2017's most
famous abstract), by strict classes that leave stylised names, abbreviations, code and
compounds as they are (`paperfind.text.joins`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from paperfind.ingest.readahead import read_source
from paperfind.text.joins import CLASSES, FREQUENT, Vocabulary, join_edits, repair_joins, vocabulary

CORPUS = Path(__file__).resolve().parents[2] / "paperfind" / "data" / "corpus"
ATTENTION = ("The dominant sequence transduction models are based on complex recurrent or "
             "convolutional neural networks in an encoder and decoder configuration. The best "
             "performing such models also connect the encoder and decoder through an attention "
             "mechanisms. We propose a novel, simple network architecture based solely on an "
             "attention mechanism, dispensing with recurrence and convolutions entirely. "
             "Experiments on two machine translation tasks show these models to be superior in "
             "quality while being more parallelizable and requiring significantly less time to "
             "train. Our single model with 165 million parameters, achieves 27.5 BLEU on "
             "English-to-German translation, improving over the existing best ensemble result by "
             "over 1 BLEU. On English-to-French translation, we outperform the previous single "
             "state-of-the-art with model by 0.7 BLEU, achieving a BLEU score of 41.1.")


def test_the_bundled_corpus_reads_attention_is_all_you_need_repaired() -> None:
    """The bundled shard as it ships (not regenerated), through the one reading path."""
    prepared = read_source(CORPUS / "nips-2017.jsonl.gz", "nips-2017.jsonl.gz")
    paper = next(r for r, _, _ in prepared.stored if r.key == "nips2017:9372")
    assert paper.abstract == ATTENTION
    content = next(c for r, c, _ in prepared.stored if r.key == "nips2017:9372")
    assert "orconvolutional" not in content  # what the store is given, not only the record


@pytest.mark.parametrize(("kind", "garbled", "repaired"), [
    ("sentence", "convolutions entirely.Experiments on two", "convolutions entirely. Experiments on two"),
    ("function", "27.5 BLEU onEnglish-to-German translation", "27.5 BLEU on English-to-German translation"),
    ("rare", "complex recurrent orconvolutional neural", "complex recurrent or convolutional neural"),
    ("rare", "significantly less timeto train", "significantly less time to train"),
    ("rare", "to be superiorin quality", "to be superior in quality"),
    ("pair", "we outperform the previoussingle state", "we outperform the previous single state"),
    ("shifted", "through an attentionm echanisms. We", "through an attention mechanisms. We"),
])
def test_each_class_repairs_its_join(kind: str, garbled: str, repaired: str) -> None:
    assert repair_joins(garbled, kinds=frozenset({kind})) == repaired
    assert repair_joins(garbled) == repaired


@pytest.mark.parametrize("text", [
    "as shown, e.g.We find", "in the U.S.Army data", "a torch.Tensor of size", "see github.com/Foo",
    "improves by 3.5 points", "J.Smith and K.Lee", "Bayes.Bayes", "www.Example.com",
    "the anSwering model", "weIght sharing", "aPascal/aYahoo", "last-task accuracy (lAcc)",
    "aAcc and gAcc", "the inSight tool", "a domain shift governor.", "attracks much attention",
    "context attuning", "stereotypically gendered words", "the interpretabilities of",
    "excellent perfor- mance", "\\href https://x.org", "**P**areto **P**olicy", "image reso lution",
    "from an armchair to a chair", "nonconvex and multitask", "pretrained and finetuned",
    "a textual guidebook", "fail-safe", "the photobleaching of", "resourcefully", "couplets",
    "$\\tilde O\\big(\\frac{1}{n}\\big)$", "\\textit{Our data}", "forecasts", "a learnet",
    "state-of-the-art", "onan", "a forgiving loss", "the tendon is", "a walkthrough", "passthrough",
])
def test_what_is_no_lost_space_stays(text: str) -> None:
    if text == "onan":  # a lone token of two function words is a join; as a name it is capitalised
        assert repair_joins(text) == "on an"
        assert repair_joins("Onan") == "Onan"
        return
    assert repair_joins(text) == text, join_edits(text, vocabulary(), frozenset(CLASSES))


def test_a_split_is_remembered_by_its_vocabulary_only() -> None:
    """Splits are worked out once per token (the repair's largest cost), but per vocabulary:
    a token one word list splits is whole for another that lacks the second word."""
    knows = Vocabulary({"or": FREQUENT, "convolutional": FREQUENT})
    lacks = Vocabulary({"or": FREQUENT})
    text = "complex recurrent orconvolutional neural"
    assert repair_joins(text, knows) == "complex recurrent or convolutional neural"
    assert knows.splits["orconvolutional"] == ("rare", "or", "convolutional")
    assert repair_joins(text, knows) == "complex recurrent or convolutional neural"
    assert repair_joins(text, lacks) == text
    assert lacks.splits["orconvolutional"] is None


def test_text_without_joins_is_returned_as_it_is() -> None:
    text = "A plain abstract with nothing glued."
    assert repair_joins(text) is text
    assert repair_joins("") == ""


def test_a_real_paperlists_slice_is_stored_repaired_and_its_words_kept() -> None:
    """ICLR 2017's slice as paperlists has it: one abstract with seven joins; other venues'
    words the machine-learning vocabulary lacks ("tendon" in ICRA 2016) stay whole."""
    slices = Path(__file__).resolve().parents[1] / "data" / "slices" / "paperlists"
    prepared = read_source(slices / "iclr" / "iclr2017.json.gz", "iclr2017.json.gz")
    [paper] = [r for r, _, _ in prepared.stored if r.source_id == "rJbPBt9lg"]
    for join in ("completionfrom", "differentneural", "structuralinformation", "whichis",
                 "terminalprediction", "neuralnetwork", "developersmanage"):
        assert join not in paper.abstract
    assert "completion from" in paper.abstract and "neural network" in paper.abstract
    icra = read_source(slices / "icra" / "icra2016.json.gz", "icra2016.json.gz")
    [robot] = [r for r, _, _ in icra.stored if r.source_id == "7487157"]
    assert "tendon" in robot.abstract and "tend on" not in robot.abstract
