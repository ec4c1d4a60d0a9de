"""The two new-signal measurements of issue 17 compute what they say: the WordPiece reader of
bench/splade_rerank.py cuts words as BERT's uncased tokenizer does, and the Model 1 of
bench/translation_signal.py learns a TL;DR word's translation from co-occurrence alone."""

from __future__ import annotations

import numpy as np

from bench.splade_rerank import WordPiece, reorder
from bench.translation_signal import Model1, _translation_features

VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "un", "##aff", "##able", "runs", "!", "cafe", "学", ",", "a"]


def test_wordpiece_splits_accents_punctuation_han_and_pieces():
    wp = WordPiece({"model": {"vocab": {t: i for i, t in enumerate(VOCAB)}}}, max_tokens=64)
    ids = wp.ids("Unaffable runs! Café,学 zzz")
    assert [VOCAB[i] for i in ids] == ["[CLS]", "un", "##aff", "##able", "runs", "!", "cafe", ",", "学",
                                       "[UNK]", "[SEP]"]


def test_wordpiece_truncates_to_the_model_length_with_the_end_mark():
    wp = WordPiece({"model": {"vocab": {t: i for i, t in enumerate(VOCAB)}}}, max_tokens=5)
    assert [VOCAB[i] for i in wp.ids("a a a a a a a")] == ["[CLS]", "a", "a", "a", "[SEP]"]


def test_reorder_keeps_the_tail_and_today_wins_ties():
    keys = ["a", "b", "c", "d"]
    assert reorder(keys, [0.0, 5.0, 1.0], 3, "alone") == ["b", "c", "a", "d"]
    assert reorder(keys, [1.0, 1.0, 1.0], 3, 1.0) == keys


def test_model1_learns_a_translation_seen_only_across_the_pair():
    # "rl" is never in a paper, "reinforc" never in a TL;DR; each pair has one filler word
    pairs = [(["rl", f"x{i}"], ["reinforc", f"y{i}", "learn"]) for i in range(30)]
    pairs += [(["graph", f"x{i}"], ["graph", f"z{i}", "learn"]) for i in range(30)]
    m = Model1(pairs, iterations=8)
    row = m.table[m.vocab["rl"]].toarray().ravel()
    assert int(np.argmax(row)) == m.vocab["reinforc"]
    scores = m.scores(["rl"], [["graph", "learn"], ["reinforc", "learn"], ["learn"]], lam=0.6)
    assert int(np.argmax(scores)) == 1
    assert m.scores(["unseen"], [["graph"], ["reinforc"]], lam=0.6).tolist() == [0.0, 0.0]


def test_translation_features_are_gap_to_best_and_rank():
    f = _translation_features(np.array([-3.0, -1.0, -2.0]))
    assert f[:, 0].tolist() == [-2.0, 0.0, -1.0]
    assert f[:, 1].tolist() == [2.0, 0.0, 1.0]
