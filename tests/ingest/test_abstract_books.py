"""The join-only sources of ICLR 2019/2020/2023: rajatmodi62's abstract books and isingmodel's
Scholar counts, read on their slices and joined to the Paper Copilot history lists; what pairs
with no paper is told and left out; broken files are file errors; the full files' counts."""

from __future__ import annotations

import gzip
import io
import json
import zipfile
from pathlib import Path

import pytest

from paperfind.ingest.errors import SourceError
from paperfind.ingest.extra import scholar
from paperfind.ingest.readers import Reader, find_reader
from paperfind.ingest.run import ingest_paths
from paperfind.model import BadRecord, Record
from paperfind.store import Store
from paperfind.text.joins import repair_joins
from tests.realdata import EXTRA, REAL_EXTRA

realdata = pytest.mark.realdata
BOOKS = "rajatmodi62-abstract-generator"
GS = "iclr-citations-isingmodel"
HISTORY = "papercopilot-paperlists-history"
BOOK_FILES = {2019: f"{BOOKS}/iclr_2019.txt.gz", 2020: f"{BOOKS}/iclr_2020.txt.gz",
              2023: f"{BOOKS}/iclr_2023.epub"}
GS_FILES = {2019: f"{GS}/googlescholar_iclr2019_220419.json.gz",
            2020: f"{GS}/googlescholar_iclr2020_220415.json.gz"}


def read(path: Path) -> list[Record | BadRecord]:
    return list(find_reader(path).read(path))


def records(path: Path) -> list[Record]:
    return [r for r in read(path) if isinstance(r, Record)]


def ingest(tmp: Path, paths: list[Path]):
    store = Store(tmp / "p.db")
    report = ingest_paths(store, paths, progress=False)
    return store, report


def paper(store: Store, year: int, title: str) -> dict | None:
    from paperfind.text.clean import normalize_title
    row = store.conn.execute("SELECT key, status, abstract, citations FROM papers WHERE venue = 'iclr' "
                             "AND year = ? AND title_norm = ?", (year, normalize_title(title))).fetchone()
    return dict(zip(("key", "status", "abstract", "citations"), row)) if row else None


# -- reading --------------------------------------------------------------------------------

def test_readers_are_title_only_join_only_and_below_the_other_title_only_sources() -> None:
    for rel in [*BOOK_FILES.values(), *GS_FILES.values()]:
        reader = find_reader(EXTRA / rel)
        assert reader is not None and reader.title_only and reader.join_only, rel
        assert reader.priority < 30  # iclr2025-whitney-house, the lowest of the others
    with pytest.raises(ValueError, match="join_only applies to title-only sources"):
        Reader("x", lambda p: False, lambda p: iter(()), 1, False, join_only=True)


def test_txt_books_split_title_authors_and_abstract() -> None:
    for year in (2019, 2020):
        items = read(EXTRA / BOOK_FILES[year])
        assert items and all(isinstance(r, Record) for r in items)
        for r in items:
            assert (r.venue, r.year, r.source_id, r.forum_id) == ("iclr", year, "", "")
            assert r.title and len(r.abstract) > 50 and "\n" not in r.abstract
            assert r.authors and all(a.name and not any(s in a.name for s in (",", "*", " and "))
                                     for a in r.authors), r.title
    # `A,B and C` and `Li(*)` in the authors lines of the slices
    text = gzip.decompress((EXTRA / BOOK_FILES[2019]).read_bytes()).decode()
    lines = [block.strip("\n").split("\n")[1] for block in text.split("*" * 49)[:-1]]
    anded = [(line, r) for line, r in zip(lines, records(EXTRA / BOOK_FILES[2019])) if " and " in line]
    assert anded and all(len(r.authors) == line.count(",") + line.count(" and ") + 1
                         for line, r in anded)
    marked = [r for r in records(EXTRA / BOOK_FILES[2020]) if r.title.lower().startswith("cursor-based")]
    names = [a.name for a in marked[0].authors]
    assert names[:2] == ["Bapu Li", "Yanwen Fan"] and names[-1] == "Yingze Bao"
    math = [r for r in records(EXTRA / BOOK_FILES[2020]) if "$" in r.title or "\\" in r.title]
    assert math == []  # LaTeX math in titles is turned into text, as the history list's is


def test_epub_records_have_plain_text_with_entities_decoded() -> None:
    got = records(EXTRA / BOOK_FILES[2023])
    assert len(got) == 23
    for r in got:
        assert (r.venue, r.year) == ("iclr", 2023) and r.title and r.authors
        assert len(r.abstract) > 50, r.title
        for markup in ("<span", "</p>", "<p ", "&amp;", "&lt;", "&#", "calibre"):
            assert markup not in r.abstract and markup not in r.title, (markup, r.title)
    suppression = next(r for r in got if r.title.startswith("Suppression helps"))
    assert [a.name for a in suppression.authors] == ["Chengyuan Zhuang", "Xiaohui Yuan", "XUAN GUO"]
    assert any("&" in r.abstract or "<" in r.abstract for r in got)  # from `&amp;` / `&lt;`
    pages = zipfile.ZipFile(EXTRA / BOOK_FILES[2023]).namelist()
    assert {"index_split_000.html", "index_split_001.html"} <= set(pages)  # records of two pages


def test_scholar_counts_are_kept_only_for_the_paper_searched_for() -> None:
    items = read(EXTRA / GS_FILES[2019])
    bad = [i for i in items if isinstance(i, BadRecord)]
    assert len(bad) == 1 and "Scholar's top hit is another title" in str(bad[0])
    kept = [i for i in items if isinstance(i, Record)]
    assert kept and all(r.citations is not None and r.citations >= 0 and not r.abstract
                        and not r.authors for r in kept)
    assert scholar.same_title("Modeling Uncertainty With Hedged Instance Embeddings",
                              "Modeling uncertainty with hedged instance embedding")
    assert scholar.same_title("SNOW: Subscribing to Knowledge via Channel Pooling for Transfer "
                              "& Lifelong Learning", "SNOW: Subscribing to Knowledge via Channel "
                              "Pooling for Transfer & Lifelong Learning of Con")
    assert not scholar.same_title("Music Transformer: Generating Music With Long-term Structure",
                                  "Music transformer")
    assert not scholar.same_title("Structured Neural Summarization", "A hierarchical structured "
                                  "self-attentive model for extractive document summarization")


def test_history_site_lists_carry_known_scholar_counts() -> None:
    raw = json.loads(gzip.decompress((EXTRA / HISTORY / "icml2025.json.gz").read_bytes()))
    got = records(EXTRA / HISTORY / "icml2025.json.gz")
    assert len(got) == len(raw)
    expected = [r["gs_citation"] if r.get("gs_citation", -1) >= 0 else None for r in raw]
    assert [r.citations for r in got] == expected
    assert any(c is not None for c in expected) and None in expected


# -- joining --------------------------------------------------------------------------------

def test_books_and_counts_join_the_history_papers(tmp_path: Path) -> None:
    histories = [EXTRA / HISTORY / f"iclr{y}.json.gz" for y in BOOK_FILES]
    spine = {y: {r.title: r for r in records(EXTRA / HISTORY / f"iclr{y}.json.gz")} for y in BOOK_FILES}
    store, report = ingest(tmp_path, histories + [EXTRA / f for f in [*BOOK_FILES.values(),
                                                                       *GS_FILES.values()]])
    assert not report.failed
    assert [n for s in report.sources for n in s.notes] == []
    assert store.paper_count() == sum(len(v) for v in spine.values())  # no paper of their own
    for year, rel in BOOK_FILES.items():
        for r in records(EXTRA / rel):
            got = paper(store, year, r.title)
            assert got is not None, (year, r.title)
            [partner] = [h for h in spine[year].values() if got["key"] == f"iclr{year}:{h.forum_id}"]
            # stored as the scrub step every reader's records pass leaves it (lost spaces back)
            assert got["abstract"] == repair_joins(r.abstract) and got["status"] == partner.status != ""
    cited = 0
    for year, rel in GS_FILES.items():
        for r in records(EXTRA / rel):
            assert paper(store, year, r.title)["citations"] == r.citations
            cited += 1
    assert cited == store.conn.execute("SELECT COUNT(*) FROM papers WHERE citations IS NOT NULL"
                                       ).fetchone()[0] > 10
    # the Scholar title cut short (`…embedding` for `…Embeddings`) still gives its count
    hedged = paper(store, 2019, "Modeling Uncertainty With Hedged Instance Embeddings")
    assert hedged is not None and hedged["citations"] is not None


def test_a_join_only_record_without_a_paper_is_told_and_not_stored(tmp_path: Path) -> None:
    text = gzip.decompress((EXTRA / BOOK_FILES[2019]).read_bytes()).decode()
    first = text.split("*" * 49 + "\n")[0] + "*" * 49 + "\n"
    ghost = "A Paper No List Has\nNobody Atall,Someone Else\n" + "An abstract. " * 10 + "\n" + "*" * 49 + "\n"
    path = tmp_path / "data" / BOOKS / "iclr_2019.txt.gz"
    path.parent.mkdir(parents=True)
    path.write_bytes(gzip.compress((first + ghost).encode()))
    store, report = ingest(tmp_path, [EXTRA / HISTORY / "iclr2019.json.gz", path])
    papers = store.paper_count()
    assert papers == len(records(EXTRA / HISTORY / "iclr2019.json.gz"))
    [summary] = [s for s in report.sources if s.path.endswith("iclr_2019.txt.gz")]
    assert summary.unjoined == 1 and summary.added == 1
    assert ("record 1 ('A Paper No List Has'): paired with no paper of iclr 2019 (none has this "
            "title); not stored") in summary.notes
    assert "1 of 2 record(s) paired with no paper and were not stored" in summary.notes
    assert paper(store, 2019, "A Paper No List Has") is None
    assert paper(store, 2019, first.split("\n")[0])["abstract"]


def test_without_the_list_nothing_of_a_join_only_source_is_stored(tmp_path: Path) -> None:
    store, report = ingest(tmp_path, [EXTRA / GS_FILES[2020]])
    [summary] = report.sources
    assert store.paper_count() == 0 and summary.added == 0
    assert summary.unjoined == len(records(EXTRA / GS_FILES[2020])) > 0
    assert all("paired with no paper of iclr 2020" in n for n in summary.notes[:-1])


# -- broken files ---------------------------------------------------------------------------

def _write(root: Path, rel: str, data: bytes) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def _epub(entries: dict[str, str]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as book:
        for name, text in entries.items():
            book.writestr(name, text)
    return out.getvalue()


@pytest.mark.parametrize("data, reason", [
    (b"this is not a zip file", "not a readable EPUB"),
    (_epub({"mimetype": "application/epub+zip", "content.opf": "<package/>"}), "no index_split_NNN.html"),
    ((EXTRA / BOOK_FILES[2023]).read_bytes()[:20_000], "not a readable EPUB"),
], ids=["not-a-zip", "no-chapters", "truncated-book"])  # ids, as a zip's bytes hold the time it was made
def test_broken_epub_is_a_file_error_naming_the_file(tmp_path: Path, data: bytes, reason: str) -> None:
    path = _write(tmp_path, BOOK_FILES[2023], data)
    with pytest.raises(SourceError) as err:
        read(path)
    assert err.value.path == str(path) and reason in err.value.reason
    store, report = ingest(tmp_path, [path])
    assert [f.path for f in report.failed] == [str(path)] and store.paper_count() == 0


def test_truncated_txt_book_is_a_file_error(tmp_path: Path) -> None:
    text = gzip.decompress((EXTRA / BOOK_FILES[2020]).read_bytes())
    cut = _write(tmp_path, BOOK_FILES[2020], gzip.compress(text[: len(text) // 2]))
    with pytest.raises(SourceError, match="the file looks truncated") as err:
        read(cut)
    assert err.value.path == str(cut)
    half = _write(tmp_path / "b", BOOK_FILES[2020], (EXTRA / BOOK_FILES[2020]).read_bytes()[:3000])
    with pytest.raises(SourceError, match="gzip"):
        read(half)


def test_scholar_file_that_is_not_an_object_is_a_file_error(tmp_path: Path) -> None:
    path = _write(tmp_path, GS_FILES[2019], gzip.compress(b"[1, 2]"))
    with pytest.raises(SourceError, match="expected one JSON object keyed by title"):
        read(path)


# -- the full files -------------------------------------------------------------------------

@realdata
def test_full_books_have_the_readmes_record_counts() -> None:
    counts = {}
    for year, rel in BOOK_FILES.items():
        items = read(REAL_EXTRA / rel)
        assert all(isinstance(i, Record) for i in items), year
        counts[year] = (len(items), sum(len(r.abstract) > 50 for r in items))
    assert counts[2019] == (1419, 1419) and counts[2020] == (2213, 2213)
    # README: 3,766 of 3,807 with an abstract > 50 chars, counting the abstracts in a paragraph
    # of their own; the 41 written outside one are read too
    assert counts[2023] == (3807, 3807)
    titles = [r.title for r in read(REAL_EXTRA / BOOK_FILES[2023])]
    assert len(set(titles)) == 3807


@realdata
def test_full_scholar_files_keep_the_counts_whose_hit_is_the_paper() -> None:
    for year, total, other in ((2019, 502, 8), (2020, 687, 53)):
        items = read(REAL_EXTRA / GS_FILES[year])
        assert len(items) == total
        bad = [i for i in items if isinstance(i, BadRecord)]
        assert len(bad) == other and all("another title" in str(b) for b in bad), year
