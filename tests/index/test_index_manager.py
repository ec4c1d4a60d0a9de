"""Index versions: atomic switch of CURRENT, old versions pruned, staleness, reopening."""

from __future__ import annotations

from paperfind.index.manager import (build_index, current_name, default_index_root,
                                     index_is_current, open_index)


def test_versions_switch_atomically_and_the_previous_one_is_kept(colt_store, tmp_path):
    root = tmp_path / "db.index"
    assert open_index(root) is None and current_name(root) is None
    first = build_index(colt_store, root)
    assert first.name == "v1" and current_name(root) == "v1"
    build_index(colt_store, root)
    third = build_index(colt_store, root)
    assert third.name == "v3" and current_name(root) == "v3"
    assert sorted(p.name for p in root.iterdir() if p.name.startswith("v")) == ["v2", "v3"]
    assert not (root / "CURRENT.tmp").exists()


def test_an_opened_index_keeps_working_after_newer_builds(colt_store, tmp_path):
    root = tmp_path / "db.index"
    build_index(colt_store, root)
    old = open_index(root)
    build_index(colt_store, root)
    build_index(colt_store, root)  # v1's files are gone from the directory now
    assert old.docs.stored_doc(0)["title"]
    assert open_index(root).path.name == "v3"


def test_staleness_follows_the_store_data_version(colt_store, tmp_path):
    root = tmp_path / "db.index"
    build_index(colt_store, root)
    version = colt_store.data_version()
    assert index_is_current(root, version)
    assert not index_is_current(root, version + 1)
    assert open_index(root).data_version == version


def test_index_lives_beside_the_database(tmp_path):
    assert default_index_root(tmp_path / "paperfind.db") == tmp_path / "paperfind.db.index"


def test_a_garbled_current_file_means_no_index(colt_store, tmp_path):
    root = tmp_path / "db.index"
    build_index(colt_store, root)
    (root / "CURRENT").write_text("../../etc\n")
    assert open_index(root) is None



def test_institution_names_of_the_source_serve_inst_filters(colt_store, tmp_path):
    from paperfind.index.docs import DocsSource
    from paperfind.search.engine import SearchRequest, open_searcher

    docs = list(colt_store.iter_index_docs())
    slugs = sorted({s for d in docs for s in d.institutions})
    names = {s: colt_store.institution(s)["name"] for s in slugs}
    slug, name = next((s, n) for s, n in names.items() if n and not n.lower().startswith(s[:3]))
    root = tmp_path / "named.index"
    build_index(DocsSource(docs, list(colt_store.iter_author_entries()), institutions=names), root)
    searcher = open_searcher(root)
    by_name = searcher.search(SearchRequest(q=f'inst:"{name}"', limit=100))
    by_slug = searcher.search(SearchRequest(q=f"inst:{slug}", limit=100))
    assert by_name.total == by_slug.total == sum(slug in d.institutions for d in docs) > 0
