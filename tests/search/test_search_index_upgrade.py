"""An index written by an older paperfind (another format) is rebuilt, not served as empty."""

from __future__ import annotations

import json

from paperfind.index.builder import FORMAT_VERSION
from paperfind.index.manager import build_index, current_name
from paperfind.ingest.run import ingest_paths
from paperfind.search.engine import open_searcher
from paperfind.search.response import SearchRequest
from paperfind.store import Store
from tests.realdata import PAPERLISTS, load_paperlist


def test_an_index_of_an_older_format_is_rebuilt_on_first_search(tmp_path):
    store = Store(tmp_path / "p.db")
    ingest_paths(store, [PAPERLISTS / "colt" / "colt2019.json.gz"], progress=False)
    root = tmp_path / "p.db.index"
    build_index(store, root)
    params_file = root / current_name(root) / "params.json"
    params = json.loads(params_file.read_text())
    params_file.write_text(json.dumps(dict(params, format=FORMAT_VERSION - 1)))

    title = next(r["title"] for r in load_paperlist("colt", 2019) if r["title"].replace(" ", "").isalpha())
    response = open_searcher(root, store).search(SearchRequest(q=title, limit=3))
    assert response.total > 0 and response.results[0]["title"] == title
    fresh = json.loads((root / current_name(root) / "params.json").read_text())
    assert fresh["format"] == FORMAT_VERSION
