"""The reader registry over the real extra/ tree (realdata), and what a user sees for broken files."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from paperfind.ingest.errors import SourceError
from paperfind.ingest.readers import READERS, choose_reader, find_reader
from paperfind.model import BadRecord
from tests.realdata import EXTRA, REAL_EXTRA

FORMAT_READERS = {"paperfind-jsonl", "paperlists"}
ADAPTERS = [r for r in READERS if r.name not in FORMAT_READERS]  # the recent-venue sources


@pytest.mark.realdata
def test_every_data_file_of_extra_has_an_adapter() -> None:
    files = sorted(p for p in REAL_EXTRA.rglob("*") if p.is_file()
                   and p.name not in ("README.md", "LICENSE"))  # two sources ship their licence
    assert len(files) == 81  # README: 85 files, four of them LICENSE files
    missing = [str(p.relative_to(REAL_EXTRA)) for p in files
               if find_reader(p) is None or find_reader(p).name in FORMAT_READERS]
    assert missing == []
    used = {find_reader(p).name for p in files}
    assert used == {a.name for a in ADAPTERS}  # no adapter without a file


def test_unknown_files_have_no_adapter(tmp_path: Path) -> None:
    for rel in ("somewhere/papers.csv.gz", "papercopilot-openreview/notes.json.gz",
                "dotd-openreview-tables/README.md", "iclr2026-alickzhu/cat_1.json.gz"):
        reader = find_reader(tmp_path / rel)
        assert reader is None or reader.name in FORMAT_READERS, rel


def test_paper_lists_and_exports_are_rows_of_the_one_registry(tmp_path: Path) -> None:
    assert [r.name for r in READERS[-2:]] == ["paperfind-jsonl", "paperlists"]
    assert choose_reader(tmp_path / "iclr" / "iclr2024.json.gz").name == "paperlists"
    assert choose_reader(tmp_path / "export.jsonl.gz").name == "paperfind-jsonl"
    with pytest.raises(SourceError, match="cannot tell venue and year"):
        choose_reader(tmp_path / "papercopilot-openreview" / "notes.json.gz")
    with pytest.raises(SourceError, match="not a format paperfind reads"):
        choose_reader(tmp_path / "somewhere" / "papers.csv.gz")


def test_title_only_adapters_are_the_sources_without_forum_ids() -> None:
    title_only = {a.name for a in ADAPTERS if a.title_only}
    assert title_only == {"dotd-table-titles", "icml2024-events-lukasmosser", "neurips2024-jingshi-yang",
                          "paperlists-history", "vlm-paper-search-euisuk", "neurips2025-bsantraigi",
                          "iclr2025-whitney-house", "neurips-proceedings-titles",
                          "airas-papers-db-titles", "neurips2019-msalvaris",
                          "rajatmodi62-abstract-generator", "iclr-citations-isingmodel"}
    assert min(a.priority for a in ADAPTERS if not a.title_only) > max(
        a.priority for a in ADAPTERS if a.title_only)


def write(tmp: Path, rel: str, data: bytes) -> Path:
    path = tmp / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def test_truncated_gzip_is_a_file_error_naming_the_file(tmp_path: Path) -> None:
    real = (EXTRA / "iclr2026-zhuanxv-g/paper_info_cleaned.json.gz").read_bytes()
    path = write(tmp_path, "iclr2026-zhuanxv-g/paper_info_cleaned.json.gz", real[: len(real) // 2])
    with pytest.raises(SourceError) as err:
        list(find_reader(path).read(path))
    assert str(path) in str(err.value) and "gzip" in err.value.reason


def test_table_with_other_columns_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path, "dotd-openreview-tables/ICML_cc_2024_Conference.csv.gz",
                 gzip.compress(b"a title\tsome authors\tkw\n"))
    with pytest.raises(SourceError, match="expected 11 tab-separated columns"):
        list(find_reader(path).read(path))


def test_bad_json_line_costs_one_record(tmp_path: Path) -> None:
    with gzip.open(EXTRA / "iclr2026-imczxx-reviewtracker/iclr2026_submissions.jsonl.gz",
                   "rt", encoding="utf-8") as fh:
        real = [fh.readline().rstrip("\n") for _ in range(3)]
    lines = [real[0], real[1][:100], real[2]]
    path = write(tmp_path, "iclr2026-imczxx-reviewtracker/iclr2026_submissions.jsonl.gz",
                 gzip.compress("\n".join(lines).encode()))
    items = list(find_reader(path).read(path))
    bad = [i for i in items if isinstance(i, BadRecord)]
    assert len(items) == 3 and len(bad) == 1
    assert "record 1: line 2 is not valid JSON" in str(bad[0])


def test_author_file_without_a_companion_says_which_files_it_needs(tmp_path: Path) -> None:
    line = gzip.open(EXTRA / "papercopilot-openreview/authors_icml_icml2025.jsonl.gz", "rt").readline()
    path = write(tmp_path, "papercopilot-openreview/authors_icml_icml2025.jsonl.gz",
                 gzip.compress(line.encode()))
    with pytest.raises(SourceError, match="papercopilot-paperlists-history/icml2025.json.gz"):
        list(find_reader(path).read(path))


def test_missing_columns_are_named(tmp_path: Path) -> None:
    path = write(tmp_path, "iclr2025-whitney-house/papers.csv.gz",
                 gzip.compress(b"Title,Authors\nA paper,Someone\n"))
    with pytest.raises(SourceError, match="missing column.s. Affiliations, Decision"):
        list(find_reader(path).read(path))


def test_record_without_title_is_reported_not_kept(tmp_path: Path) -> None:
    objs = [{"id": "abc", "title": "", "authors": [], "venue": "ICLR 2026 Poster"},
            {"id": "def", "title": "Kept", "authors": ["A B"], "authorids": ["~A_B1"],
             "venue": "ICLR 2026 Poster"}]
    path = write(tmp_path, "iclr2026-zhuanxv-g/paper_info_cleaned.json.gz",
                 gzip.compress(json.dumps(objs).encode()))
    items = list(find_reader(path).read(path))
    assert str(items[0]).endswith("record 0: no title")
    assert items[1].title == "Kept" and items[1].authors[0].profile_id == "~A_B1"
