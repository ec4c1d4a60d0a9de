"""Export and re-import: paperfind's JSON Lines carry a paper through unchanged."""

from __future__ import annotations

from paperfind.ingest.run import ingest_paths
from paperfind.store import Store
from paperfind.store.export import iter_export, write_export
from tests.realdata import load_paperlist, write_slice


def test_export_round_trip_keeps_every_paper(tmp_path):
    files = [write_slice(tmp_path / "data", "nips", 2018, load_paperlist("nips", 2018)[:40]),
             write_slice(tmp_path / "data", "cvpr", 2019, load_paperlist("cvpr", 2019)[:20])]
    first = Store(tmp_path / "a.db")
    ingest_paths(first, files, progress=False)
    out = tmp_path / "papers.jsonl.gz"
    assert write_export(iter_export(first.conn), out) == 60

    second = Store(tmp_path / "b.db")
    report = ingest_paths(second, [out], progress=False)
    assert not report.failed and not report.skipped
    keys = [k for (k,) in first.conn.execute("SELECT key FROM papers ORDER BY key")]
    assert [k for (k,) in second.conn.execute("SELECT key FROM papers ORDER BY key")] == keys
    for key in keys:
        a, b = first.paper(key), second.paper(key)
        for field in ("title", "abstract", "status", "venue_name", "links", "institutions"):
            assert a[field] == b[field], (key, field)
        assert [(x["name"], x["affiliations"]) for x in a["authors"]] == \
               [(x["name"], x["affiliations"]) for x in b["authors"]]
    # the records without ids (CVPR 2019) keep their content-derived keys
    assert any(k.startswith("cvpr2019:h") for k in keys)
    # exporting twice gives the same bytes: the bundled corpus is reproducible
    again = tmp_path / "again.jsonl.gz"
    write_export(iter_export(first.conn), again)
    assert again.read_bytes() == out.read_bytes()


def test_export_filters_by_venue_and_year(tmp_path):
    files = [write_slice(tmp_path / "data", "iclr", 2017, load_paperlist("iclr", 2017)[:10]),
             write_slice(tmp_path / "data", "iclr", 2018, load_paperlist("iclr", 2018)[:10]),
             write_slice(tmp_path / "data", "uai", 2019, load_paperlist("uai", 2019)[:10])]
    store = Store(tmp_path / "a.db")
    ingest_paths(store, files, progress=False)
    chosen = list(iter_export(store.conn, venues=["iclr"], min_year=2018))
    assert {(r.venue, r.year) for r in chosen} == {("iclr", 2018)}
    assert len(chosen) == 10


def test_a_line_separator_inside_a_field_does_not_cut_the_record(tmp_path):
    """JSON Lines ends lines with \\n only; U+2028 and U+0085 may stand raw in a JSON string."""
    import json

    from paperfind.ingest.jsonl import read_export
    from paperfind.model import Record

    store = Store(tmp_path / "p.db")
    ingest_paths(store, [write_slice(tmp_path / "src", "colt", 2019, load_paperlist("colt", 2019)[:3])],
                 progress=False)
    out = tmp_path / "export.jsonl"
    write_export(iter_export(store.conn), out)
    lines = out.read_text("utf-8").split("\n")
    second = json.loads(lines[1])
    second["abstract"] = "First part.\u2028Second part\x85 and the rest."
    lines[1] = json.dumps(second, ensure_ascii=False)  # the characters raw, as JSON allows
    out.write_text("\n".join(lines), "utf-8")
    back = list(read_export(out))
    assert len(back) == 3 and all(isinstance(r, Record) for r in back)
    assert back[1].abstract == second["abstract"]
