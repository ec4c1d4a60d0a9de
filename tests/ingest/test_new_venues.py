"""The sources of 2026-12-02: ML Anthology's abstracts for the recent ML years and its CVPR,
ICCV and ECCV years, the ACL Anthology crawls (ACL, EMNLP), and the ICLR 2025 profile ids.

The joins run on the slices kept in the repository (tests/data/slices, cut so that the files
of one venue-year share papers); the README's record counts on the whole files (`realdata`).
"""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import pytest

from paperfind.ingest.readers import find_reader
from paperfind.ingest.run import ingest_paths
from paperfind.model import BadRecord, Record
from paperfind.store import Store
from tests.realdata import EXTRA, REAL_EXTRA

realdata = pytest.mark.realdata
ML = "mlanthology-rbnyng"
CX = "ai-conference-paper-lists-chang-xinhai"
KO = "acl-emnlp-kostikova"


def read(path: Path) -> list[Record | BadRecord]:
    return list(find_reader(path).read(path))


def records(path: Path) -> list[Record]:
    return [r for r in read(path) if isinstance(r, Record)]


def ingest(tmp: Path, rels: list[str]) -> tuple[Store, list[str]]:
    """A real database of these slice files, and the notes the ingest told."""
    store = Store(tmp / "p.db")
    report = ingest_paths(store, [EXTRA / rel for rel in rels], progress=False)
    assert not report.failed, report.failed
    return store, [n for s in report.sources for n in s.notes]


def test_vision_years_are_keyed_by_bibtex_key_with_abstract_authors_and_links() -> None:
    got = records(EXTRA / ML / "cvpr-2021.json.gz")
    raw = json.loads(gzip.decompress((EXTRA / ML / "cvpr-2021.json.gz").read_bytes()))["papers"]
    assert len(got) == len(raw) == 5
    first, source = got[0], raw[0]
    assert (first.venue, first.year, first.source_id) == ("cvpr", 2021, source["bibtex_key"])
    assert first.abstract.startswith(source["abstract"][:40]) and not first.forum_id
    assert [a.name for a in first.authors] == [f"{a['given']} {a['family']}" for a in source["authors"]]
    assert first.links["pdf"].startswith("https://openaccess.thecvf.com/")
    assert first.links["doi"] == f"https://doi.org/{source['doi']}"
    assert {r.venue for r in records(EXTRA / ML / "eccv-2024.json.gz")} == {"eccv"}
    assert {r.venue for r in records(EXTRA / ML / "iccv-2025.json.gz")} == {"iccv"}


def test_openreview_ids_come_from_source_id_or_openreview_url() -> None:
    for name, venue in (("iclr-2025", "iclr"), ("neurips-2025", "nips"), ("icml-2025", "icml"),
                        ("neurips-2024", "nips")):
        got = records(EXTRA / ML / f"{name}.json.gz")
        assert got and all(r.venue == venue and r.forum_id and r.source_id == r.forum_id for r in got), name
        assert all(r.links["openreview"].endswith(f"id={r.forum_id}") for r in got)


def test_icml2025_abstracts_land_on_the_papers_of_the_lists_by_forum_id(tmp_path: Path) -> None:
    store, _ = ingest(tmp_path, ["papercopilot-paperlists-history/icml2025.json.gz",
                                 "papercopilot-openreview/authors_icml_icml2025.jsonl.gz",
                                 f"{ML}/icml-2025.json.gz"])
    anthology = records(EXTRA / ML / "icml-2025.json.gz")
    keys = {f"icml2025:{r.forum_id}" for r in anthology}
    rows = dict(store.conn.execute("SELECT key, abstract FROM papers WHERE venue = 'icml'"))
    assert keys <= set(rows)
    assert all(len(rows[k]) > 50 for k in keys)
    # one paper per forum id: the abstract joined an existing paper instead of adding a twin
    listed = store.conn.execute("SELECT COUNT(*) FROM records r JOIN sources s ON s.id = r.source_id "
                                "WHERE s.reader = 'papercopilot-authors'").fetchone()[0]
    assert listed > 0
    shared = store.conn.execute(
        "SELECT COUNT(DISTINCT r.paper_key) FROM records r JOIN sources s ON s.id = r.source_id "
        "WHERE s.reader = 'mlanthology' AND r.paper_key IN (SELECT r2.paper_key FROM records r2 "
        "JOIN sources s2 ON s2.id = r2.source_id WHERE s2.reader = 'papercopilot-authors')").fetchone()[0]
    assert shared > 0


def test_a_title_renamed_for_the_proceedings_joins_by_its_authors(tmp_path: Path) -> None:
    store, notes = ingest(tmp_path, [f"{ML}/neurips-2025.json.gz",
                                     "neurips2025-bsantraigi/neurips_2025_full_analysis.tsv.gz"])
    key = store.conn.execute("SELECT key FROM papers WHERE title LIKE 'Domain-RAG: Retrieval-Guided%'").fetchone()[0]
    sources = {s for (s,) in store.conn.execute(
        "SELECT s.reader FROM records r JOIN sources s ON s.id = r.source_id WHERE r.paper_key = ?", (key,))}
    assert sources == {"mlanthology", "neurips2025-bsantraigi"}
    assert any("same authors under a revised title" in n and key in n for n in notes)
    assert store.conn.execute("SELECT COUNT(*) FROM papers WHERE title LIKE 'Retrieval-Guided Compositional%'"
                              ).fetchone()[0] == 0


def test_the_same_authors_with_another_title_stay_another_paper(tmp_path: Path) -> None:
    """A group's second paper of a venue-year (here: a row of the same people, its title
    changed to an unrelated one) must not merge into their first."""
    rel = "neurips2025-bsantraigi/neurips_2025_full_analysis.tsv.gz"
    lines = gzip.decompress((EXTRA / rel).read_bytes()).decode().split("\n")
    head, row = lines[0], next(l for l in lines[1:] if "\tRetrieval-Guided Compositional" in l)
    cells = row.split("\t")
    cells[1] = cells[2] = "Sparse Spectral Methods for Learning Hamiltonian Dynamics"
    (tmp_path / "neurips2025-bsantraigi").mkdir()
    (tmp_path / rel).write_bytes(gzip.compress(f"{head}\n" .encode() + "\t".join(cells).encode() + b"\n"))
    shutil.copytree(EXTRA / ML, tmp_path / ML)
    store = Store(tmp_path / "p.db")
    ingest_paths(store, [tmp_path / ML / "neurips-2025.json.gz", tmp_path / rel], progress=False)
    titles = {t for (t,) in store.conn.execute("SELECT title FROM papers WHERE venue = 'nips'")}
    assert "Sparse Spectral Methods for Learning Hamiltonian Dynamics" in titles


def test_iclr2025_profile_ids_take_their_names_from_ml_anthology(tmp_path: Path) -> None:
    ids = records(EXTRA / CX / "openreview_authorids_iclr2025.json.gz")
    anthology = {r.forum_id: r for r in records(EXTRA / ML / "iclr-2025.json.gz")}
    assert len(ids) == 10 and all(r.forum_id in anthology for r in ids)
    for r in ids:
        assert [a.name for a in r.authors] == [a.name for a in anthology[r.forum_id].authors]
        assert all(a.profile_id.startswith("~") for a in r.authors)
    # without the companion file the names are spelled from the profile ids
    alone = tmp_path / CX / "openreview_authorids_iclr2025.json.gz"
    alone.parent.mkdir(parents=True)
    shutil.copy(EXTRA / CX / "openreview_authorids_iclr2025.json.gz", alone)
    spelled = records(alone)
    assert spelled[0].authors[0].name == spelled[0].authors[0].profile_id.lstrip("~").rstrip("0123456789").replace("_", " ")
    store, _ = ingest(tmp_path, [f"{CX}/openreview_authorids_iclr2025.json.gz", f"{ML}/iclr-2025.json.gz"])
    row = store.conn.execute("SELECT COUNT(*), SUM(length(abstract) > 50) FROM papers").fetchone()
    assert row == (10, 10)
    assert store.conn.execute("SELECT COUNT(*) FROM paper_authors WHERE profile_id LIKE '~%'").fetchone()[0] > 0


@pytest.mark.parametrize("rel, venue", [(f"{CX}/acl2020.json.gz", "acl"), (f"{CX}/emnlp2020.json.gz", "emnlp"),
                                        (f"{KO}/emnlp2024.json.gz", "emnlp"), (f"{KO}/acl2023.json.gz", "acl")])
def test_acl_events_keep_their_conference_volumes_and_tell_what_they_leave_out(rel: str, venue: str) -> None:
    items = read(EXTRA / rel)
    kept = [i for i in items if isinstance(i, Record)]
    left = [str(i) for i in items if isinstance(i, BadRecord)]
    assert kept and all(r.venue == venue and r.source_id.split(".")[1] in (
        f"{venue}-main", f"{venue}-long", f"{venue}-short", f"findings-{venue}", f"{venue}-demos",
        f"{venue}-demo", f"{venue}-srw", f"{venue}-industry") for r in kept)
    assert all(r.links["site"] == f"https://aclanthology.org/{r.source_id}/" for r in kept)
    findings = [r for r in kept if "findings" in r.source_id]
    assert all(r.status == "Findings" and r.track == "findings" for r in findings)
    assert all(r.status != "Findings" for r in kept if r not in findings)
    assert left and all("co-located workshop" in m or "front matter" in m or "no ACL Anthology id" in m
                        for m in left)


def test_acl_findings_are_a_track_of_the_venue_in_the_store(tmp_path: Path) -> None:
    store, _ = ingest(tmp_path, [f"{KO}/acl2024.json.gz"])
    tracks = dict(store.conn.execute("SELECT track, COUNT(*) FROM papers WHERE venue = 'acl' GROUP BY track"))
    assert set(tracks) == {"main", "findings"}
    assert store.conn.execute("SELECT name FROM venues WHERE slug = 'acl'").fetchone()[0] == "ACL"


def test_a_list_without_its_records_array_is_a_file_error(tmp_path: Path) -> None:
    from paperfind.ingest.errors import SourceError

    for rel, blob in ((f"{ML}/cvpr-2023.json.gz", b'{"venue": "cvpr", "year": "2023"}'),
                      (f"{CX}/cvpr2020.json.gz", b"[1, 2]")):
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(gzip.compress(blob))
        with pytest.raises(SourceError, match="expected a JSON object with a '(papers|records)' array") as err:
            read(path)
        assert str(path) in str(err.value)


@realdata
@pytest.mark.parametrize("name, papers, abstracts", [
    ("iclr-2023", 1573, 1573), ("iclr-2024", 2260, 2260), ("iclr-2025", 3703, 3703),
    ("icml-2025", 3330, 3330), ("neurips-2024", 4494, 4494), ("neurips-2025", 5823, 5823),
    ("cvpr-2021", 1660, 1660), ("cvpr-2022", 2074, 2071), ("cvpr-2023", 2353, 2353),
    ("cvpr-2024", 2716, 2715), ("cvpr-2025", 2871, 2871), ("iccv-2021", 1612, 1612),
    ("iccv-2023", 2156, 2156), ("iccv-2025", 2701, 2701), ("eccv-2024", 2387, 2385)])
def test_ml_anthology_files_give_the_readme_counts(name: str, papers: int, abstracts: int) -> None:
    got = records(REAL_EXTRA / ML / f"{name}.json.gz")
    assert (len(got), sum(len(r.abstract) > 50 for r in got)) == (papers, abstracts)
    assert len({r.source_id for r in got}) == papers  # every paper its own key


@realdata
@pytest.mark.parametrize("rel, kept, records_in_file", [
    (f"{CX}/acl2020.json.gz", 778 + 43 + 42, 1238), (f"{CX}/emnlp2020.json.gz", 751 + 447 + 29, 1885),
    (f"{CX}/cvpr2020.json.gz", 1466, 1466), (f"{KO}/acl2023.json.gz", 910 + 902 + 164 - 1, 1977),
    (f"{KO}/acl2024.json.gz", 976 + 863 + 77 - 1, 1916), (f"{KO}/emnlp2022.json.gz", 823 + 549 - 1, 1372),
    (f"{KO}/emnlp2023.json.gz", 1060 + 1047 - 1, 2107), (f"{KO}/emnlp2024.json.gz", 1269 + 1004 - 2, 2273),
    (f"{CX}/openreview_authorids_iclr2025.json.gz", 3703, 3703)])
def test_anthology_lists_keep_the_conference_volumes(rel: str, kept: int, records_in_file: int) -> None:
    """The README's volume counts, less the front matter (paper 0) of each volume."""
    items = read(REAL_EXTRA / rel)
    assert len(items) == records_in_file
    assert sum(isinstance(i, Record) for i in items) == kept


def test_an_accepted_paper_only_ml_anthology_joins_is_accepted_not_under_review(tmp_path: Path) -> None:
    """ICLR 2024's review-time list says "Active" for all 7,304 submissions; ML Anthology's
    proceedings join 2,260 of them by forum id. The 69 that no file with a presentation type
    joins stayed "Under Review"; they are accepted."""
    store, _ = ingest(tmp_path, ["papercopilot-openreview/venues_iclr_iclr2024.init.jsonl.gz",
                                 f"{ML}/iclr-2024.json.gz"])
    status = dict(store.conn.execute("SELECT forum_id, status FROM papers"))
    assert status["RzNlECeoOB"] == status["pszewhybU9"] == "Accept"
    accepted = {p["source_id"] for p in json.loads(gzip.decompress(
        (EXTRA / ML / "iclr-2024.json.gz").read_bytes()))["papers"]}
    assert {f for f, s in status.items() if s == "Under Review"}.isdisjoint(accepted)
    assert "Under Review" in status.values()  # the others have no decision in these files
