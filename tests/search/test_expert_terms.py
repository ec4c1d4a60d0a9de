"""The expert finder's lexical query over a real index: each of the query's terms counts once,
so a word the query repeats does not outweigh a rarer word it says once."""

from __future__ import annotations

from dataclasses import replace

from paperfind.search.experts import ExpertQuery, find_experts, query_terms
from paperfind.text.analyze import Analyzer


def _words(local, analyzer: Analyzer) -> tuple[str, str, int]:
    """(a word many papers use, a word one paper uses that has not the first, that paper's row)."""
    docs = local.index.docs
    seen: dict[str, str] = {}
    for row in range(docs.n):
        for word in docs.stored_doc(row)["abstract"].split():
            word = "".join(c for c in word if c.isalpha()).lower()
            terms = analyzer.terms(word)
            if len(word) > 3 and len(terms) == 1:
                seen.setdefault(terms[0], word)
    common = max(seen, key=lambda t: (local.doc_freq("text", t), t))
    assert local.doc_freq("text", common) >= 10
    for term, word in sorted(seen.items()):
        if local.doc_freq("text", term) == 1:
            query = Analyzer().terms(f"{seen[common]} {word}")
            hits = [r for r in range(docs.n) if term in analyzer.terms(docs.stored_doc(r)["abstract"])
                    + analyzer.terms(docs.stored_doc(r)["title"])]
            if len(hits) == 1 and common not in analyzer.terms(docs.stored_doc(hits[0])["abstract"]) \
                    and common not in analyzer.terms(docs.stored_doc(hits[0])["title"]) \
                    and any(int(a) > 0 for a in docs.authors_of(hits[0])) and len(query) == 2:
                return seen[common], word, hits[0]
    raise AssertionError("no rare word apart from the common one in the slice")


def test_each_query_term_counts_once(colt_years_app):
    local = colt_years_app.searcher().backend()
    analyzer = Analyzer()
    common, rare, _ = _words(local, analyzer)
    text = " ".join([common] * 6 + [rare])
    settings = colt_years_app.settings.search.experts
    once = dict(query_terms(local, analyzer, text, settings))
    assert once == {analyzer.terms(common)[0]: 1.0, analyzer.terms(rare)[0]: 1.0}
    counted = dict(query_terms(local, analyzer, text, replace(settings, term_counts=True)))
    assert counted[analyzer.terms(common)[0]] == 6.0 and counted[analyzer.terms(rare)[0]] == 1.0


def test_a_repeated_word_does_not_outweigh_a_rarer_one(colt_years_app):
    local = colt_years_app.searcher().backend()
    docs = local.index.docs
    common, rare, row = _words(local, Analyzer())
    query = ExpertQuery(text=" ".join([common] * 30 + [rare]))
    settings = replace(colt_years_app.settings.search.experts, phrase_weight=0.0, group_discount=0.0)
    own = {int(a) for a in docs.authors_of(row) if int(a) > 0}
    first = find_experts(local, query, settings).experts[0]
    assert first.author_id in own and first.evidence[0] == row  # the one paper with the rare word
    counted = find_experts(local, query, replace(settings, term_counts=True)).experts[0]
    assert row not in counted.evidence[:1]  # thirty times the common word: its papers first
