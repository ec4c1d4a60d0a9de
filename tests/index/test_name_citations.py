"""Which abstracts the citation names are read from (paperfind.index.name_citations): only those
holding an author-year citation, a search 14x cheaper than the name-and-citation pattern itself
(at a million papers the full scan of every abstract was minutes of the index build), and no
abstract the full pattern finds a name in is left out."""

from __future__ import annotations

from paperfind.index.name_citations import _CITED, may_cite
from paperfind.store import Store

# the first as in tests/index/test_paper_names.py (a real abstract), the others in its shapes
CITING = ["We report the surprising empirical finding that CLIP (Radford et al., 2021), a cross-modal model, "
          "can be used for evaluation; the Transformer (Vaswani et al., 2017) helps.",
          "We build on BERT [Devlin et al., 2019; Liu et al. 2019] and on the word2vec (e.g., Mikolov and Chen 2013b) "
          "embeddings."]
NOT_CITING = ["Gradient clipping (CLIP) of a method (smith, 2019).", "A bandit algorithm (see Section 3).",
              "Results on ImageNet [1] and CIFAR-10 (2019)."]


def test_an_abstract_is_read_for_names_only_where_it_holds_a_citation(colt_store: Store) -> None:
    abstracts = [d.abstract for d in colt_store.iter_index_docs()] + CITING + NOT_CITING
    skipped = [a for a in abstracts if not may_cite(a)]
    assert all(not list(_CITED.finditer(a)) for a in skipped)  # nothing the full scan would find
    assert all(may_cite(a) and list(_CITED.finditer(a)) for a in CITING)
    assert not any(may_cite(a) for a in NOT_CITING)
    with_brackets = [a for a in abstracts if "(" in a or "[" in a]
    assert len(skipped) > len(abstracts) // 2 and set(with_brackets) & set(skipped)
