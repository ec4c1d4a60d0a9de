"""Hostile-input probe, issue 34 item 4 (the ingest half) and 7c: no NUL, bidi or zero-width
control is stored, whatever reader a record comes from ("Alice \\u202eEvil" reversed every
co-author after her on a card). ZWNJ and ZWJ stay where a script needs them."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pytest

from paperfind.ingest.jsonl import read_export
from paperfind.ingest.readahead import read_source
from paperfind.ingest.run import ingest_paths
from paperfind.model import AuthorSlot, BadRecord, Record
from paperfind.store import Store
from paperfind.text.clean import strip_invisible, usable_id
from tests.realdata import EXTRA, REAL_EXTRA, REAL_PAPERLISTS, write_slice

# the characters of the probe: bidi embeddings, overrides, isolates and marks, zero-width
# space, word joiner, BOM as zero-width no-break space, Arabic letter mark; and NUL
STRIPPED = ["\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068",
            "\u2069", "\u200b", "\u200e", "\u200f", "\u2060", "\ufeff", "\u061c", "\x00"]
ANY = re.compile("[\x00\u061c\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufeff]|\\\\u0000")


def _stored_texts(prepared) -> str:
    """Everything the store is given for a file's records, as one text."""
    return "\n".join(content + record.key for record, content, _ in prepared.stored)


@pytest.mark.parametrize("char", STRIPPED, ids=lambda c: f"U+{ord(c):04X}")
def test_strip_invisible_takes_each_control_of_the_probe(char: str) -> None:
    assert strip_invisible(f"Alice {char}Evil") == "Alice Evil"
    assert strip_invisible(f"Alice{char}") == "Alice"
    assert strip_invisible(f"a {char} b") == "a b"  # single-spaced stays single-spaced
    assert not usable_id(f"abc{char}")


def test_zwnj_and_zwj_stay_inside_the_scripts_that_need_them() -> None:
    persian = "می\u200cخواهم"  # "I want": ZWNJ keeps the prefix unjoined
    devanagari = "क्\u200dष"  # ZWJ asks for the half form
    family = "👩\u200d👩\u200d👧"
    for text in (persian, devanagari, family, f"{persian} and {family}"):
        assert strip_invisible(text) == text
    # where the real data has them, next to ASCII, they mean nothing
    assert strip_invisible("optimization process\u200c.") == "optimization process."
    assert strip_invisible("\u200cNavigating the MIL Trade-Off") == "Navigating the MIL Trade-Off"
    assert strip_invisible("MMMG-Score\u200c of only") == "MMMG-Score of only"
    assert strip_invisible("x\u200d") == "x"
    plain = "An abstract, ascii only."
    assert strip_invisible(plain) is plain


def test_a_real_paperlists_record_is_stored_without_them(raw_record, tmp_path: Path) -> None:
    """A real OpenReview record (3DV 2025) with the probe's characters where a hostile list
    would put them: title, author names, abstract, keywords, affiliations; through the whole
    ingest into a database."""
    item = dict(raw_record("3dv", 2025, "05T81ScPFb"))
    title, abstract = item["title"], item["abstract"]
    names = item["author"].split(";")
    names[0] = names[0].replace(" ", " \u202e", 1)  # "Stanislaw \u202eSzymanowicz"
    names[1] = "\u2067" + names[1] + "\u2069\u200f"
    item["author"] = ";".join(names)
    item["title"] = "\u200b" + item["title"].replace(" ", " \u2060", 1) + "\ufeff"
    item["abstract"] = "\u202d" + item["abstract"] + "\x00\u202c"
    item["keywords"] = "\u202aNovel View Synthesis\u202c; \u200b; " + item["keywords"]
    item["aff"] = "\u061c" + item["aff"]
    item["primary_area"] = "\u2066applications\u2069"
    path = write_slice(tmp_path / "data", "3dv", 2025, [item])

    prepared = read_source(path, str(path.resolve()))
    [(record, content, _)] = prepared.stored
    assert not ANY.search(content), content
    assert record.title == title == ("Flash3D: Feed-Forward Generalisable 3D Scene "
                                     "Reconstruction from a Single Image")
    assert record.abstract == abstract
    assert record.authors[0].name == "Stanislaw Szymanowicz"
    assert record.authors[1].name == names[1][1:-2]
    assert record.keywords == ["Novel View Synthesis", "3D Gaussian Splatting",
                               "Monocular 3D Reconstruction"]
    assert [a.slug for a in record.authors[0].affiliations] == ["oxford", "google"]
    assert record.area == "applications"

    db = tmp_path / "pf.db"
    with Store(db) as store:
        report = ingest_paths(store, [path], progress=False)
        assert [s.added for s in report.sources] == [1] and not report.skipped
        [(key,)] = store.conn.execute("SELECT key FROM papers").fetchall()
        paper = store.paper(key)
    assert paper is not None
    shown = json.dumps(paper, ensure_ascii=False, default=str)
    assert not ANY.search(shown), shown
    assert "Stanislaw Szymanowicz" in shown


def test_a_nul_beside_other_non_ascii_text_is_taken_out(raw_record, tmp_path: Path) -> None:
    """JSON writes a NUL as its six-character escape, which is printable: a record with a NUL
    and any non-ASCII character but no other control was stored with its NUL, and one whose
    title was NUL alone was stored with that title rather than reported (found by
    tests/robustness/test_record_fuzz.py)."""
    item = dict(raw_record("3dv", 2025, "05T81ScPFb"))
    item["abstract"] = item["abstract"] + " Schr\u00f6dinger\x00"
    bare = dict(item, title="\x00")
    path = write_slice(tmp_path / "data", "3dv", 2025, [item, bare])

    prepared = read_source(path, str(path.resolve()))
    [(record, content, _)] = prepared.stored
    assert not ANY.search(content), content
    assert record.abstract.endswith(" Schr\u00f6dinger")
    assert [bad.index for bad in prepared.skipped] == [1]
    assert "title" in prepared.skipped[0].reason


def test_an_export_line_is_stored_without_them_and_an_id_with_them_is_refused(tmp_path: Path) -> None:
    record = Record(venue="iclr", year=2024, source_id="p1", title="Evil\u0000 title \u202eright",
                    abstract="An \u0000abstract\u2068.", key="iclr2024:p1",
                    keywords=["\u200bgraphs", "graphs", "\u2060"],
                    links={"pdf": "https://example.org/\u202ep.pdf"},
                    authors=[AuthorSlot(name="Alice \u202eEvil"), AuthorSlot(name="Bob Jones"),
                             AuthorSlot(name="\u200b")])
    lines = [json.dumps(record.to_json())]
    for field, value in (("source_id", "p2\u200b"), ("key", "iclr2024:p3\u0000"),
                         ("forum_id", "F\u202e4")):
        lines.append(json.dumps(record.to_json() | {"source_id": f"q{len(lines)}",
                                                    "key": f"iclr2024:q{len(lines)}", field: value}))
    lines.append(json.dumps(record.to_json() | {"source_id": "p9", "key": "iclr2024:p9",
                                                "title": "\u202e\u200b"}))
    path = tmp_path / "mine.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")

    prepared = read_source(path, str(path))
    [(stored, content, _)] = prepared.stored
    assert not ANY.search(content), content
    assert stored.title == "Evil title right" and stored.abstract == "An abstract."
    assert [a.name for a in stored.authors] == ["Alice Evil", "Bob Jones"]
    assert stored.keywords == ["graphs"]
    assert stored.links == {"pdf": "https://example.org/p.pdf"}
    reasons = [(bad.index, bad.reason.split(" (")[0]) for bad in prepared.skipped]
    assert reasons == [(2, "field 'source_id' must be an id without spaces, slashes, '?', '#', "
                           "'%', backslashes or control or invisible characters, at most 200 "
                           "characters"),
                       (3, "field 'key' must look like 'iclr2024:abc123'"),
                       (4, "field 'forum_id' must be an id without spaces, slashes, '?', '#', "
                           "'%', backslashes or control or invisible characters, at most 200 "
                           "characters"),
                       (5, "field 'title' holds only invisible characters")]
    assert "iclr2024:p3\\x00" in prepared.skipped[1].reason  # shown escaped, not raw


def test_an_extra_source_record_is_stored_without_them(tmp_path: Path) -> None:
    """ICML 2024's event list, where the real file has a Google Scholar copy of a name:
    "\\u202aAvi Caciularu\\u202c\\u200f"."""
    source = EXTRA / "icml2024-events-lukasmosser" / "ICML_2024_Events.json.gz"
    events = json.loads(gzip.decompress(source.read_bytes()))
    events[0]["speakers/authors"] = "\u202aAvi Caciularu\u202c\u200f, " + events[0]["speakers/authors"]
    events[0]["name"] += "\u200b"
    path = tmp_path / "icml2024-events-lukasmosser" / "ICML_2024_Events.json.gz"
    path.parent.mkdir()
    path.write_bytes(gzip.compress(json.dumps(events).encode()))
    prepared = read_source(path, str(path))
    assert not ANY.search(_stored_texts(prepared))
    first = next(r for r, _, _ in prepared.stored if r.source_index == 0)
    assert [a.name for a in first.authors][:2] == ["Avi Caciularu", "Philipp Holl"]


@pytest.mark.realdata
def test_the_real_files_that_carry_them_are_stored_without_them() -> None:
    """Of the real data: the COLM 2025 abstract that starts with two zero-width spaces, and
    the extra files with Scholar-style names (LRE ... PDF RLM) and stray ZWNJ in English."""
    files = [REAL_PAPERLISTS / "colm" / "colm2025.json.gz",
             REAL_EXTRA / "icml2024-events-lukasmosser" / "ICML_2024_Events.json.gz",
             REAL_EXTRA / "neurips2025-bsantraigi" / "neurips_2025_full_analysis.tsv.gz"]
    for path in files:
        raw = gzip.decompress(path.read_bytes()).decode("utf-8")
        # still the file this test is about (raw, or as a JSON escape)
        assert re.search("[\u200b\u202a]|\\\\u200b|\\\\u202a", raw, re.IGNORECASE), path
        prepared = read_source(path, str(path))
        assert prepared.stored
        left = ANY.findall(_stored_texts(prepared))
        assert not left, (path, left)
    colm = read_source(files[0], str(files[0]))
    [quantization] = [r for r, _, _ in colm.stored if r.source_id == "a201nfn3xX"]
    assert quantization.abstract.startswith("Post-training quantization reduces")
