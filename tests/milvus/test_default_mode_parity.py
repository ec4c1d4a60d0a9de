"""Milvus answers what the local index answers in the default (hybrid) mode, for queries of
every kind the portal gets (issue 33): titles typed with a typo or cut mid-word, descriptions,
people, Chinese. The queries are made here from the slice's own papers (COLT 2019, with title
vectors), never from the dev sets."""

from __future__ import annotations

import pytest

from paperfind.core import Paperfind
from paperfind.search.response import SearchRequest
from paperfind.search.settings import SearchSettings
from paperfind.settings import Settings
from paperfind.store import Store

CHINESE = ["多臂老虎机的遗憾界", "在线学习", "张量分解算法", "高斯过程", "非凸优化的鞍点"]


def _typo(title: str) -> str:
    """The title with two letters of its longest word swapped."""
    words = title.split()
    i = max(range(len(words)), key=lambda j: len(words[j]))
    w = words[i]
    words[i] = w[:2] + w[3] + w[2] + w[4:]
    return " ".join(words)


def _cut(title: str) -> str:
    """The first two thirds of the title, its last word cut mid-way (typed while searching)."""
    words = title.split()[:max(2, 2 * len(title.split()) // 3)]
    words[-1] = words[-1][:max(2, len(words[-1]) // 2)]
    return " ".join(words)


def queries(db) -> list[tuple[str, str]]:
    """(kind, query) of every kind, from every 16th paper of the database."""
    store = Store(db)
    papers = [(r[0], r[1], r[2]) for r in store.conn.execute(
        "SELECT title, abstract, key FROM papers ORDER BY key")][::16]
    names = [n for (n,) in store.conn.execute(
        "SELECT name FROM authors ORDER BY paper_count DESC, name LIMIT 4")]
    store.close()
    out = []
    for title, abstract, _ in papers:
        out += [("typo", _typo(title)), ("cut", _cut(title))]
        sentence = (abstract or "").split(". ")[0].split()
        if len(sentence) >= 8:
            out.append(("description", "how to " + " ".join(sentence[-12:]).rstrip(".")))
    out += [("person", n) for n in names]
    out += [("person", f"{n.split()[0][0]}. {n.split()[-1]}") for n in names[:2]]
    out += [("chinese", q) for q in CHINESE]
    return out


@pytest.fixture(scope="module")
def both(semantic_db, milvus_server):
    settings = SearchSettings(result_cache=0)
    local = Paperfind(Settings(db_path=semantic_db, search=settings))
    milvus = Paperfind(Settings(db_path=semantic_db, backend="milvus", milvus_uri=milvus_server.uri,
                                search=settings))
    return local.searcher(), milvus.searcher()


def test_the_queries_are_of_every_kind(semantic_db):
    kinds = [k for k, _ in queries(semantic_db)]
    assert {k: kinds.count(k) >= 4 for k in ("typo", "cut", "description", "person", "chinese")} \
        == dict.fromkeys(("typo", "cut", "description", "person", "chinese"), True)


def test_milvus_gives_the_local_top_10_in_the_default_mode(semantic_db, both):
    local, milvus = both
    differ = []
    modes = set()
    for kind, q in queries(semantic_db):
        ours = milvus.search(SearchRequest(q=q, limit=10)).to_json()
        theirs = local.search(SearchRequest(q=q, limit=10)).to_json()
        modes.add(theirs["mode"])
        keys = ([r["key"] for r in ours["results"]], [r["key"] for r in theirs["results"]])
        if keys[0] != keys[1] or ours["mode"] != theirs["mode"] or ours["total"] != theirs["total"]:
            differ.append((kind, q, ours["mode"], theirs["mode"], *keys))
    assert "hybrid" in modes  # the vectors served
    assert differ == []
