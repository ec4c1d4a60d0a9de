"""The query's code links in the expert finder, over a real index (ICLR 2018 and CVPR 2019 papers,
CVPR's abstracts linking their code on GitHub): the index's table of accounts (made from the rows
its term "github" points to) equals a scan of every abstract by hand; the people of the eligible papers linking the query's account gain exactly
`link_weight` x the best score; `before` and `exclude` are honoured; on by default and made at
start-up."""

from __future__ import annotations

import re
from dataclasses import replace

import numpy as np
import pytest

from paperfind.index.code_links import code_accounts
from paperfind.search.experts import ExpertQuery, find_experts


@pytest.fixture(scope="module")
def linked_app(tmp_path_factory):
    from paperfind.core import Paperfind
    from paperfind.search.settings import ExpertSettings, SearchSettings
    from paperfind.settings import Settings
    from tests.realdata import load_paperlist, write_slice

    root = tmp_path_factory.mktemp("code-links")
    cvpr = load_paperlist("cvpr", 2019)
    linking = [p for p in cvpr if "github" in (p.get("abstract") or "").lower()]
    write_slice(root / "a", "iclr", 2018, load_paperlist("iclr", 2018)[:40])
    write_slice(root / "b", "cvpr", 2019, linking + [p for p in cvpr[:60] if p not in linking])
    # everyone listed (`min_works` 1): the lift is the test, and the linking people have few papers
    app = Paperfind(Settings(db_path=root / "p.db", semantic=False,
                             search=SearchSettings(experts=ExpertSettings(min_works=1))))
    app.ingest([root / "a", root / "b"], progress=False)
    return app


def test_the_table_holds_every_abstract_linking_an_account(linked_app):
    local = linked_app.searcher().backend()
    docs = local.index.docs
    table = local.code_links()
    by_hand: dict[str, list[int]] = {}
    for row in range(docs.n):  # every abstract, not only those the term "github" points to
        abstract = (docs.stored_doc(row).get("abstract") or "").lower()
        for account in set(re.findall(r"github\.com/\s*([a-z0-9][a-z0-9_.-]*)", abstract)) \
                | set(re.findall(r"\b([a-z0-9][a-z0-9-]*)\.github\.io", abstract)):
            by_hand.setdefault(account.rstrip("."), []).append(row)
    assert len(by_hand) >= 10
    assert set(table.accounts) == set(by_hand)
    for account, rows in by_hand.items():
        assert table.rows_of([account]).tolist() == rows
    assert table.rows_of(["no-such-account"]).tolist() == []


def _query(local) -> tuple[str, str, int]:
    """An abstract that links no code, with a few words of a CVPR paper's (row) title and its
    account appended: the voting lists its people, below the abstract's own."""
    docs = local.index.docs
    table = local.code_links()
    account = next(a for a in table.accounts if len(table.rows_of([a])) == 1)
    row = int(table.rows_of([account])[0])
    other = next(r for r in range(docs.n) if int(docs.year[r]) == 2019 and r != row
                 and not code_accounts(docs.stored_doc(r).get("abstract") or ""))
    title = " ".join(docs.stored_doc(row)["title"].split()[:4])
    text = f"{docs.stored_doc(other)['abstract']} {title}. Code: https://github.com/{account}/new-repo"
    return text, account, row


def test_the_people_of_papers_linking_the_query_account_gain_the_lift(linked_app):
    local = linked_app.searcher().backend()
    docs = local.index.docs
    settings = linked_app.settings.search.experts
    assert settings.link_weight > 0  # on in the product
    text, account, row = _query(local)
    linked = {int(a) for a in docs.authors_of(row) if int(a) > 0}
    query = ExpertQuery(text=text, before=2020)
    on = find_experts(local, query, settings, needed=1000)
    off = find_experts(local, query, replace(settings, link_weight=0.0), needed=1000)
    before = {e.author_id: e.score for e in off.experts}
    after = {e.author_id: e.score for e in on.experts}
    assert before.keys() == after.keys() and linked <= before.keys()
    lift = settings.link_weight * max(before.values())
    for person, score in before.items():
        expected = round(score + lift, 6) if person in linked else score
        assert after[person] == pytest.approx(expected, abs=2e-6)
    # one of them leads the list now (the group spread moves the others sharing that paper down)
    assert on.experts[0].author_id in linked and off.experts[0].author_id not in linked
    rank_on = {e.author_id: i for i, e in enumerate(on.experts)}
    rank_off = {e.author_id: i for i, e in enumerate(off.experts)}
    assert all(rank_on[p] < rank_off[p] for p in linked)
    doubled = find_experts(local, query, replace(settings, link_weight=2.0), needed=1000)
    assert {e.author_id: e.score for e in doubled.experts}[min(linked)] > after[min(linked)]


def test_a_linking_paper_of_the_query_year_lifts_no_one(linked_app):
    local = linked_app.searcher().backend()
    settings = linked_app.settings.search.experts
    text, _, _ = _query(local)
    query = ExpertQuery(text=text, before=2019)  # the CVPR 2019 paper may not count
    on = find_experts(local, query, settings, needed=1000)
    off = find_experts(local, query, replace(settings, link_weight=0.0), needed=1000)
    assert [(e.author_id, e.score) for e in on.experts] == [(e.author_id, e.score) for e in off.experts]
    assert all(int(local.index.docs.year[r]) < 2019 for e in on.experts for r in e.evidence)


def test_excluded_people_stay_out_whatever_they_link(linked_app):
    local = linked_app.searcher().backend()
    docs = local.index.docs
    settings = linked_app.settings.search.experts
    text, _, row = _query(local)
    linked = frozenset(int(a) for a in docs.authors_of(row) if int(a) > 0)
    found = find_experts(local, ExpertQuery(text=text, before=2020, exclude_people=linked), settings,
                         needed=1000)
    assert found.experts and not linked & {e.author_id for e in found.experts}


def test_the_start_up_makes_the_code_links(linked_app):
    from paperfind.core import Paperfind
    from paperfind.settings import Settings

    fresh = Paperfind(Settings(db_path=linked_app.settings.db_path, semantic=False))
    fresh.warm_up()
    fresh.warm_experts_in_background().join(timeout=60)
    local = fresh.searcher().backend()
    assert local._code_links is not None  # made at the start, not by an ask
    assert fresh.warm_state()["experts"] is True
    assert np.array_equal(local.code_links().rows, linked_app.searcher().backend().code_links().rows)
