"""Highlights escape the data's markup before marking the matched words."""

from __future__ import annotations

from paperfind.search.highlight import Marker
from paperfind.text.analyze import Analyzer


def marker(*words):
    an = Analyzer()
    return Marker({an.stem(w) for w in words}, an, set(words))


def test_html_in_titles_is_escaped_and_matches_marked():
    out = marker("attention").mark('<script>alert(1)</script> Attention & "Memory"')
    assert "<script>" not in out and "&lt;script&gt;" in out
    assert "<mark>Attention</mark>" in out and "&amp;" in out and "&quot;Memory&quot;" in out


def test_stems_mark_inflected_forms_but_not_prefix_lookalikes():
    out = marker("learning").mark("Learners learn; learned learning. Learnability")
    assert "<mark>learn</mark>" in out and "<mark>learning</mark>" in out and "<mark>learned</mark>" in out
    assert "<mark>Learnability</mark>" not in out


def test_snippet_is_centred_on_the_matches():
    text = " ".join(["filler"] * 200) + " regret bounds for bandits " + " ".join(["tail"] * 200)
    out = marker("regret", "bandits").snippet(text)
    assert out.startswith("…") and out.endswith("…")
    assert "<mark>regret</mark>" in out and "<mark>bandits</mark>" in out and len(out) < 400


def test_no_match_gives_the_start_of_the_text():
    out = marker("zebra").snippet("Short abstract <b>bold</b>.")
    assert out == "Short abstract &lt;b&gt;bold&lt;/b&gt;."


def test_text_whose_lower_case_is_longer_still_marks_the_right_span():
    # "İ".lower() is two characters: spans found on lower-cased text would be shifted
    out = marker("bandits").mark("İstanbul bandits and Bandits")
    assert out == "İstanbul <mark>bandits</mark> and <mark>Bandits</mark>"


def test_the_scan_of_word_runs_marks_what_the_pattern_marks(searcher):
    """Real abstracts and titles, queries of their own and other papers' words (Chinese and
    digits among them): the scan for runs of letters marks exactly the spans the look-behind
    pattern marks, and takes over whenever the query's words are letters and digits."""
    docs = searcher.backend().index.docs
    texts = [docs.stored_doc(r) for r in range(0, docs.n, max(1, docs.n // 80))]
    an = Analyzer()
    checked = 0
    for i, doc in enumerate(texts):
        words = an.words(texts[(i * 7) % len(texts)]["title"])[:6] + an.words(doc["title"])[:3] + ["3d", "深度"]
        fast = Marker({an.stem(w) for w in words}, an, set(words))
        slow = Marker({an.stem(w) for w in words}, an, set(words))
        slow._starts = None  # the pattern's way
        assert fast._starts is not None
        for text in (doc["title"], doc["abstract"] or ""):
            assert fast.snippet(text) == slow.snippet(text) and fast.mark(text) == slow.mark(text)
            checked += bool(fast._matches(text))
    assert checked > 40


def test_a_prefix_inside_a_longer_one_is_scanned_once_and_marks_the_same():
    """The scan looks for the prefixes no other one begins (`class` for `class`, `classif`);
    the words marked are those of every prefix, and no pattern is compiled for plain text."""
    from paperfind.search.highlight import _shortest

    assert _shortest(["classif", "class", "distances", "distanc", "net"]) == ("net", "class", "distanc")
    m = marker("classification", "classes", "distances")
    out = m.mark("Classification of classes by distances & distance (classifier)")
    assert out == ("<mark>Classification</mark> of <mark>classes</mark> by <mark>distances</mark> "
                   "&amp; <mark>distance</mark> (classifier)")
    assert m.mark("plain classes") == "plain <mark>classes</mark>"
    assert m._pattern is None  # compiled only for a text the prefix scan cannot take


def test_a_word_begins_after_anything_but_a_letter_or_digit():
    """The scan's test of the character before a prefix (str.isalnum) is the pattern's
    [^\\W_], for every code point; so a word after `_` or `-` is marked, one inside a word not."""
    import re
    import sys

    word_char = re.compile(r"[^\W_]")
    assert all(chr(i).isalnum() == bool(word_char.match(chr(i))) for i in range(sys.maxunicode + 1))
    assert marker("attention").mark("_attention self-attention xattention 2attention") == (
        "_<mark>attention</mark> self-<mark>attention</mark> xattention 2attention")


def test_a_pages_texts_prepared_together_mark_as_each_alone(searcher):
    """`Marker.prepare` finds the matches of many texts in one scan of them joined: real
    titles and abstracts (queries of their own and other papers' words), with texts that begin
    or end with a match, hold line breaks, repeat, are empty, or lower-case longer (left to
    the text-by-text path): every mark and snippet as a marker that scans each text alone."""
    docs = searcher.backend().index.docs
    stored = [docs.stored_doc(r) for r in range(0, docs.n, max(1, docs.n // 60))]
    an = Analyzer()
    checked = 0
    for i, doc in enumerate(stored):
        words = an.words(stored[(i * 5) % len(stored)]["title"])[:5] + an.words(doc["title"])[:3]
        page = [d for d in stored[i:i + 20]]
        texts = [t for d in page for t in (d["title"], d["abstract"] or "")]
        first = an.words(doc["title"])[0]
        texts += [first, f"{first}\n{first} end", "", doc["title"], f"İstanbul {first}", "\n"]
        together = Marker({an.stem(w) for w in words}, an, set(words))
        alone = Marker({an.stem(w) for w in words}, an, set(words))
        together.prepare(texts)
        assert together._prepared
        for text in texts:
            assert together.mark(text) == alone.mark(text) and together.snippet(text) == alone.snippet(text)
            checked += "<mark>" in together.mark(text)
    assert checked > 100


def test_a_text_without_han_is_not_scanned_for_a_chinese_querys_own_words(searcher):
    """A Chinese query's Han words are prefixes beside its rendering's stems; a text without a
    Han character is scanned for the others alone (issue 33, lat33), and marks what the
    pattern's way marks, a text with Han as well (its Han words marked too)."""
    docs = searcher.backend().index.docs
    an = Analyzer()
    words = ["深度", "学习", "网络", "learning", "network", "deep"]
    fast = Marker({an.stem(w) for w in words}, an, set(words))
    assert set(fast._latin_starts) == {p for p in fast._starts if p.isascii()}
    assert len(fast._latin_starts) < len(fast._starts)
    english = [docs.stored_doc(r) for r in range(0, docs.n, max(1, docs.n // 40))]
    texts = [t for d in english for t in (d["title"], d["abstract"] or "")]
    texts += ["深度学习 (deep learning) 的网络 network", "A 网络 of deep networks: 深度"]
    fast.prepare(texts)
    marked = 0
    for text in texts:
        slow = Marker({an.stem(w) for w in words}, an, set(words))
        slow._starts = None  # the pattern's way, every prefix at every character
        assert fast.mark(text) == slow.mark(text) and fast.snippet(text) == slow.snippet(text)
        marked += "<mark>" in fast.mark(text)
    assert marked > 5
    assert "<mark>深度学习</mark>" in fast.mark("深度学习 (deep learning) 的网络 network")  # the Han run
    no_han = Marker({"learn"}, an, {"learning"})
    assert no_han._latin_starts is None  # nothing to leave out: every text gets every prefix
