"""Every recent-venue adapter on its real file: the README's counts, and each source's quirks.

The counts need the whole files of ../shared/data/extra (tests marked `realdata`): files
without abstracts are read whole and must give the README's record counts; for the files with
abstracts (whose text cleaning is the slow part) the file layer is checked for the full count.
Each source's quirks are checked on the slices kept in the repository (tests/data/slices,
see tests/data/PROVENANCE.md), or on rows of them written into a folder of the same name.
"""

from __future__ import annotations

import csv
import functools
import gzip
import io
import json
from collections import Counter
from pathlib import Path
from typing import Callable

import pytest

from paperfind.ingest.extra.files import read_json_lines, read_table
from paperfind.ingest.readers import find_reader
from paperfind.model import BadRecord, Record
from tests.realdata import EXTRA, REAL_EXTRA


@functools.lru_cache(maxsize=None)  # a file read whole by two tests is read once
def read_all(path: Path) -> tuple[list[Record], list[BadRecord]]:
    adapter = find_reader(path)
    assert adapter is not None, path
    items = list(adapter.read(path))
    return ([i for i in items if isinstance(i, Record)], [i for i in items if isinstance(i, BadRecord)])


def slice_lines(tmp: Path, rel: str, keep: Callable[[int, str], bool], header: bool = False) -> Path:
    """The real file's lines kept by `keep(index, line)`, in a folder of the same name."""
    lines = gzip.open(EXTRA / rel, "rt", encoding="utf-8").read().splitlines()
    head, body = (lines[:1], lines[1:]) if header else ([], lines)
    out = tmp / rel
    out.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(out, "wt", encoding="utf-8") as fh:
        fh.write("\n".join(head + [l for i, l in enumerate(body) if keep(i, l)]) + "\n")
    return out


def slice_csv(tmp: Path, rel: str, keep: Callable[[int, list[str]], bool]) -> Path:
    text = gzip.open(EXTRA / rel, "rt", encoding="utf-8").read()
    rows = list(csv.reader(io.StringIO(text, newline="")))
    out = tmp / rel
    out.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(out, "wt", encoding="utf-8", newline="") as fh:
        csv.writer(fh).writerows([rows[0]] + [r for i, r in enumerate(rows[1:]) if keep(i, r)])
    return out


@pytest.mark.realdata
@pytest.mark.parametrize("rel, records, skipped", [
    ("iclr2025-whitney-house/papers.csv.gz", 11_672, 0),
    ("vlm-paper-search-euisuk/2024-iclr-formatted.md.gz", 7_401, 0),
    ("vlm-paper-search-euisuk/2025-iclr-formatted.md.gz", 11_665, 0),
    ("iclr2026-alickzhu/index.json.gz", 3_488, 0),
    ("iclr2026-zhuanxv-g/paper_info_cleaned.json.gz", 1_000, 0),
    ("neurips2024-jingshi-yang/nips2024.json.gz", 4_553, 0),
    ("neurips2025-bsantraigi/neurips_2025_full_analysis.tsv.gz", 5_787, 75),  # talks etc.
    ("neurips2022-openreviewdata/ratings.csv.gz", 2_795, 0),
    ("papercopilot-openreview/venues_icml_icml2023.json.gz", 1_828, 0),
    ("papercopilot-openreview/venues_icml_icml2024.json.gz", 2_610, 0),
    ("papercopilot-openreview/venues_nips_nips2022.json.gz", 2_987, 0),
    ("papercopilot-openreview/venues_nips_nips2023.json.gz", 3_733, 0),
    ("papercopilot-openreview/venues_iclr_iclr2024.init.jsonl.gz", 7_304, 0),
    ("papercopilot-openreview/authors_nips_nips2023.jsonl.gz", 3_733, 0),
    ("papercopilot-paperlists-history/icml2025.json.gz", 3_340, 0),
    ("papercopilot-paperlists-history/nips2024.json.gz", 4_553, 0),
])
def test_whole_file_gives_the_readme_count(rel: str, records: int, skipped: int) -> None:
    good, bad = read_all(REAL_EXTRA / rel)
    assert (len(good), len(bad)) == (records, skipped)
    assert all(r.title and r.year and r.venue in ("iclr", "icml", "nips") for r in good)


@pytest.mark.realdata
@pytest.mark.parametrize("rel, titled, of", [
    # No titles in these files: a paper gets its title by author list from the early
    # paperlists version, which lists fewer papers (3,340 and 4,553); the rest are reported.
    ("papercopilot-openreview/authors_icml_icml2025.jsonl.gz", 3_100, 3_518),
    ("papercopilot-openreview/authors_nips_nips2024.json.gz", 4_200, 4_762),
])
def test_author_files_without_titles_join_by_author_list(rel: str, titled: int, of: int) -> None:
    good, bad = read_all(REAL_EXTRA / rel)
    assert len(good) + len(bad) == of
    assert len(good) >= titled
    assert all("no title, the paper is not found in papercopilot-paperlists-history" in b.reason
               for b in bad)
    assert len({r.title for r in good}) == len(good)  # no title given to two papers
    assert all(r.forum_id and r.authors for r in good)


@pytest.mark.realdata
@pytest.mark.parametrize("rel, delimiter, header, rows", [
    ("dotd-openreview-tables/ICML_cc_2024_Conference.csv.gz", "\t", False, 2_610),
    ("dotd-openreview-tables/ICLR_cc_2024_Conference.csv.gz", "\t", False, 2_260),
    ("neurips2022-openreviewdata/papers.csv.gz", ",", True, 2_795),
    ("neurips2023-openreviewdata/oral.csv.gz", ",", True, 67),
    ("neurips2023-openreviewdata/spotlight.csv.gz", ",", True, 378),
    ("neurips2023-openreviewdata/poster.csv.gz", ",", True, 2_773),
])
def test_tables_with_abstracts_have_the_readme_row_count(rel, delimiter, header, rows) -> None:
    quoting = csv.QUOTE_NONE if delimiter == "\t" else csv.QUOTE_MINIMAL
    _, body = read_table(REAL_EXTRA / rel, delimiter, header=header, quoting=quoting)
    assert len(body) == rows


@pytest.mark.realdata
def test_json_lines_files_have_the_readme_count() -> None:
    lines = list(read_json_lines(REAL_EXTRA / "iclr2026-imczxx-reviewtracker/iclr2026_submissions.jsonl.gz"))
    assert len(lines) == 19_630 and not any(isinstance(x, BadRecord) for x in lines)
    assert sum(1 for _, note in lines if note.get("withdrawn") is True) == 2_351


def test_dotd_icml_rows_carry_abstract_authors_and_forum_id(tmp_path: Path) -> None:
    path = slice_lines(tmp_path, "dotd-openreview-tables/ICML_cc_2024_Conference.csv.gz",
                       lambda i, _: i < 40)
    good, bad = read_all(path)
    assert len(good) == 40 and not bad
    first = good[0]
    assert (first.forum_id, first.title) == ("Fw4fBE2rqW", "On Discrete Prompt Optimization for Diffusion Models")
    assert [a.name for a in first.authors] == ["Ruochen Wang", "Ting Liu", "Cho-Jui Hsieh", "Boqing Gong"]
    assert first.status == "Poster" and first.abstract.startswith("This paper introduces")
    assert all(r.forum_id and len(r.abstract) > 50 for r in good)


def test_dotd_iclr_has_no_ids_so_it_is_title_only(tmp_path: Path) -> None:
    path = slice_lines(tmp_path, "dotd-openreview-tables/ICLR_cc_2024_Conference.csv.gz",
                       lambda i, _: i < 30)
    good, _ = read_all(path)
    assert find_reader(path).title_only
    assert all(not r.forum_id and r.area and r.status in ("Poster", "Spotlight", "Oral") for r in good)
    assert good[0].area == "societal considerations including fairness, safety, privacy"


def test_neurips_openreviewdata_quoted_newlines_and_status_from_file(tmp_path: Path) -> None:
    path = slice_csv(tmp_path, "neurips2023-openreviewdata/oral.csv.gz", lambda i, _: True)
    good, bad = read_all(path)
    assert len(good) == 67 and not bad
    assert {r.status for r in good} == {"Oral"}
    assert sum(1 for r in good if len(r.abstract) > 50) == 66  # README: 66 of 67
    assert good[0].keywords[:2] == ["Diffusion Model", "Evidence Lower Bound"]


@pytest.mark.realdata
def test_events_export_skips_what_is_not_a_paper() -> None:
    # read whole: 2,682 entries, 2,634 posters
    good, bad = read_all(REAL_EXTRA / "icml2024-events-lukasmosser/ICML_2024_Events.json.gz")
    assert len(good) == 2_634
    assert Counter(b.reason for b in bad) == Counter({"not a paper: a Workshop event": 30,
                                                       "not a paper: a Tutorial event": 12,
                                                       "not a paper: a Invited Talk event": 6})
    assert all(not r.forum_id for r in good)
    assert good[0].links["site"] == "https://ICML.cc/virtual/2024/poster/35005"


@pytest.mark.realdata
def test_whitney_house_authors_are_not_an_order_and_decisions_are_final() -> None:
    good, _ = read_all(REAL_EXTRA / "iclr2025-whitney-house/papers.csv.gz")
    assert all(not r.authors_ordered for r in good)
    assert Counter(r.status for r in good) == Counter({
        "Reject": 4_959, "Poster": 3_113, "Withdraw": 2_937, "Spotlight": 380, "Oral": 213,
        "Desk Reject": 70})
    minnesota = next(r for r in good if r.title.startswith("Synergistic Approach for Simultaneous"))
    assert [a.raw for a in minnesota.paper_affiliations] == [
        "Research", "Google", "University of Minnesota, Minneapolis", "National Chiao Tung University"]
    assert all(not a.affiliations for r in good for a in r.authors)
    latex_title = next(r for r in good if r.source_index == 208)  # typed as "\title{...}"
    assert latex_title.title.startswith("The Logical Reasoning Dilemma of LLMs")


def test_euisuk_shifted_labels() -> None:
    good, _ = read_all(EXTRA / "vlm-paper-search-euisuk/2024-iclr-formatted.md.gz")
    second = good[1]
    assert second.title.startswith("Meta Continual Learning Revisited")
    assert second.area == "transfer learning, meta learning, and lifelong learning"
    assert [a.name for a in second.authors][:2] == ["Yichen Wu", "Long-Kai Huang"]
    assert second.authors_ordered
    assert second.paper_affiliations[0].raw == "City University of Hong Kong"
    later, _ = read_all(EXTRA / "vlm-paper-search-euisuk/2025-iclr-formatted.md.gz")
    shifted = next(r for r in later if r.title.startswith("Neuroacoustic Patterns"))  # "Authors: -"
    assert shifted.area == "applications to neuroscience & cognitive science"
    assert [a.name for a in shifted.authors][:2] == ["Aastha Kachhi", "Shashank Ojha"]
    assert [a.raw for a in shifted.paper_affiliations] == ["Indian Institute of Technology Mandi"]


def test_jingshi_yang_unescapes_names_and_affiliations() -> None:
    good, _ = read_all(EXTRA / "neurips2024-jingshi-yang/nips2024.json.gz")
    truth = next(r for r in good if r.title == "Truth is Universal: Robust Detection of Lies in LLMs")
    assert truth.authors[0].name == "Lennart Bürger"
    glinsat = good[0]
    assert glinsat.authors[1].affiliations[0].raw == "Xi'an Jiaotong University"
    assert glinsat.authors[2].affiliations == []  # empty in the source


def test_authors_file_affiliations_follow_or_profile_order() -> None:
    good, _ = read_all(EXTRA / "papercopilot-openreview/authors_nips_nips2023.jsonl.gz")
    paper = next(r for r in good if r.forum_id == "009LK0vLcY")
    by_name = {a.name: a for a in paper.authors}
    assert [a.name for a in paper.authors][0] == "Mehrdad Ghadiri"  # `author` order kept
    ghadiri = by_name["Mehrdad Ghadiri"]
    assert [a.raw for a in ghadiri.affiliations] == ["Georgia Institute of Technology"]
    assert (ghadiri.profile_id, ghadiri.alias_profile_id) == ("~Mehrdad_Ghadiri2", "~Mehrdad_Ghadiri1")
    assert [a.raw for a in by_name["David Arbour"].affiliations] == ["Adobe Systems"]
    assert paper.title.startswith("Finite Population Regression Adjustment")


def test_venue_file_affiliations_that_do_not_line_up_stay_with_the_paper() -> None:
    good, _ = read_all(EXTRA / "papercopilot-openreview/venues_icml_icml2024.json.gz")
    paper = next(r for r in good if r.forum_id == "01ahsMovBx")  # 3 authors, 2 affiliations
    assert [a.profile_id for a in paper.authors] == ["~Xu_Yang10", "~Huaxiu_Yao1", "~Ying_Wei1"]
    assert all(not a.affiliations for a in paper.authors)
    assert {a.raw for a in paper.paper_affiliations} == {
        "Department of Computer Science, University of North Carolina at Chapel Hill",
        "Nanyang Technological University"}
    lined_up = next(r for r in good if r.forum_id == "01M0N8VgfB")
    assert [a.affiliations[0].raw for a in lined_up.authors] == [
        "Institute of Science and Technology", "Apple"]


def test_iclr2026_anonymous_submissions_and_decisions(tmp_path: Path) -> None:
    path = slice_lines(tmp_path, "iclr2026-imczxx-reviewtracker/iclr2026_submissions.jsonl.gz",
                       lambda i, line: i < 20 or '"withdrawn": true' in line[:300] and i < 400)
    good, bad = read_all(path)
    assert not bad and all(not r.authors for r in good)  # anonymous: no fake authors
    assert {r.status for r in good} == {"Under Review", "Withdraw"}
    assert good[0].forum_id == "h7qdCvhMdb" and good[0].abstract.startswith("Scaling inference")
    decided, _ = read_all(EXTRA / "iclr2026-zhuanxv-g/paper_info_cleaned.json.gz")
    assert decided[0].authors[0].profile_id == "~Fahmida_Haque_Fariha1"


@pytest.mark.realdata
def test_iclr2026_decisions_of_the_whole_zhuanxv_file() -> None:
    decided, _ = read_all(REAL_EXTRA / "iclr2026-zhuanxv-g/paper_info_cleaned.json.gz")
    assert Counter(r.status for r in decided) == Counter({
        "Reject": 460, "Withdraw": 287, "Poster": 177, "Desk Reject": 67, "Oral": 8,
        "Conditional Poster": 1})
