"""The sources of the missing years (ICLR 2019-2023, ICML 2020-2022, NeurIPS 2019-2021).

Each reader's quirk is checked on its whole real file (marked `realdata`), and the joins
of each venue-year on the slices kept in the repository: by forum id, by proceedings hash,
by title; what pairs with nothing is told.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
from pathlib import Path

import pytest

from paperfind.catalog.venues import normalize_status
from paperfind.ingest.readers import find_reader
from paperfind.ingest.run import ingest_paths
from paperfind.model import BadRecord, Record
from paperfind.store import Store
from tests.realdata import EXTRA, REAL_EXTRA

realdata = pytest.mark.realdata
HISTORY = "papercopilot-paperlists-history"
# venue-year → (spine file, other files), relative to extra/ (what the retired missing_years bench ingested, bench/RESULTS.md;
# its figures: bench/RESULTS.md, "The missing years")
YEARS: dict[tuple[str, int], tuple[str, list[str]]] = {
    ("iclr", 2019): (f"{HISTORY}/iclr2019.json.gz", []),
    ("iclr", 2020): (f"{HISTORY}/iclr2020.json.gz", ["iclr2020-virtual-site/papers.json.gz",
                                                     "iclr2020-virtual-site/oral_schedule.yml.gz"]),
    ("iclr", 2021): (f"{HISTORY}/iclr2021.json.gz", ["iclr2021-evanzd/paperlist.tsv.gz",
                                                     "iclr2021-evanzd/ratings.tsv.gz"]),
    ("iclr", 2022): (f"{HISTORY}/iclr2022.json.gz", ["iclr2022-evanzd-pr3/paperlist-end.tsv.gz"]),
    ("iclr", 2023): (f"{HISTORY}/iclr2023.json.gz", []),
    ("icml", 2020): ("airas-papers-db/icml-2020.json.gz", [f"{HISTORY}/icml2020.json.gz"]),
    ("icml", 2021): ("airas-papers-db/icml-2021.json.gz", [f"{HISTORY}/icml2021.json.gz"]),
    ("icml", 2022): ("airas-papers-db/icml-2022.json.gz", [f"{HISTORY}/icml2022.json.gz"]),
    ("icml", 2023): ("papercopilot-openreview/venues_icml_icml2023.json.gz",
                     ["airas-papers-db/icml-2023.json.gz"]),
    ("nips", 2019): ("neurips-proceedings-thuinanutshell/neurips_abstract_2019.csv.gz",
                     [f"{HISTORY}/nips2019.json.gz", "neurips2019-msalvaris/neurips2019.csv.gz"]),
    ("nips", 2020): ("airas-papers-db/neurips-2020.json.gz",
                     ["neurips-proceedings-thuinanutshell/neurips_abstract_2020.csv.gz",
                      f"{HISTORY}/nips2020.json.gz"]),
    ("nips", 2021): (f"{HISTORY}/nips2021.json.gz",
                     ["neurips-proceedings-thuinanutshell/neurips_abstract_2021.csv.gz"]),
}


def read(path: Path) -> list[Record | BadRecord]:
    return list(find_reader(path).read(path))


def records(path: Path) -> list[Record]:
    return [r for r in read(path) if isinstance(r, Record)]


def write(root: Path, rel: str, data: bytes) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(gzip.compress(data))
    return path


def raw_text(rel: str) -> str:
    return gzip.decompress((REAL_EXTRA / rel).read_bytes()).decode("utf-8")


def test_iclr_rankings_and_talks_are_our_statuses() -> None:
    assert normalize_status("Top-5%") == "Oral"
    assert normalize_status("Top-25%") == "Spotlight"
    assert normalize_status("Talk") == "Oral"
    assert normalize_status("Poster") == "Poster"


@realdata
def test_forum_id_history_years_are_keyed_by_their_openreview_ids() -> None:
    got = records(REAL_EXTRA / HISTORY / "iclr2023.json.gz")
    assert len(got) == 4955
    assert all(r.forum_id and r.forum_id == r.source_id for r in got)
    statuses = {r.status for r in got}
    assert "Oral" in statuses and "Spotlight" in statuses and not any("%" in s for s in statuses)
    authored = [r for r in got if r.authors]
    assert len(authored) == 1574  # ICLR 2023 names the field `authors`
    assert got[0].links["openreview"] == f"https://openreview.net/forum?id={got[0].forum_id}"


@realdata
def test_twice_escaped_entities_do_not_cut_an_author_name() -> None:
    got = records(REAL_EXTRA / HISTORY / "nips2019.json.gz")
    names = {a.name for r in got for a in r.authors}
    assert "Cyprien de Masson d'Autume" in names
    assert not any("&" in n or n.startswith("#x27") for n in names)


@realdata
def test_evanzd_tsv_is_read_with_quoting_off(tmp_path: Path) -> None:
    text = raw_text("iclr2021-evanzd/paperlist.tsv.gz")
    header, *lines = text.splitlines()
    quoted = next(line for line in lines if '"' in line)
    path = write(tmp_path, "iclr2021-evanzd/paperlist.tsv.gz", "\n".join([header, quoted]).encode())
    [record] = read(path)
    assert record.abstract.count('"') == quoted.split("\t")[4].count('"') > 0
    assert record.forum_id == quoted.split("\t")[0] and record.venue == "iclr" and record.year == 2021
    assert len(records(REAL_EXTRA / "iclr2021-evanzd/paperlist.tsv.gz")) == 2966
    assert len(records(REAL_EXTRA / "iclr2022-evanzd-pr3/paperlist-end.tsv.gz")) == 2692


@realdata
def test_evanzd_unknown_decision_means_withdrawn() -> None:
    rows = list(csv.reader(io.StringIO(raw_text("iclr2021-evanzd/ratings.tsv.gz")), delimiter="\t"))
    unknown = {r[0] for r in rows[1:] if r[-1] == "Unknown"}
    got = records(REAL_EXTRA / "iclr2021-evanzd/ratings.tsv.gz")
    assert {r.forum_id for r in got if r.status == "Withdraw"} == unknown
    assert {r.status for r in got} == {"Withdraw", "Reject", "Poster", "Spotlight", "Oral"}


def test_a_short_evanzd_row_is_reported_with_its_columns(tmp_path: Path) -> None:
    path = write(tmp_path, "iclr2022-evanzd-pr3/paperlist-end.tsv.gz",
                 b"paper_id\ttitle\tlink\tkeywords\tabstract\nabc\tA title\n")
    [bad] = read(path)
    assert isinstance(bad, BadRecord) and "2 columns instead of 5" in str(bad)


@realdata
def test_virtual_site_object_keyed_by_forum_id() -> None:
    notes = json.loads(raw_text("iclr2020-virtual-site/papers.json.gz"))
    got = records(REAL_EXTRA / "iclr2020-virtual-site/papers.json.gz")
    assert len(got) == len(notes) == 687
    assert {r.forum_id for r in got} == set(notes)
    assert all(len(r.abstract) > 50 and r.authors for r in got)
    assert sum(1 for r in got if r.tldr) == 541
    assert all(r.links["pdf"].startswith("https://openreview.net/pdf/") for r in got)


@realdata
def test_oral_schedule_gives_session_themes_never_a_status() -> None:
    got = records(REAL_EXTRA / "iclr2020-virtual-site/oral_schedule.yml.gz")
    assert len(got) == 48 + 108  # the orals and the spotlight talks
    assert all(r.status == "" and r.area and r.forum_id for r in got)
    assert "Reliable RL" in {r.area for r in got}


@realdata
def test_proceedings_csv_keeps_abstract_newlines_and_keys_by_hash() -> None:
    got = records(REAL_EXTRA / "neurips-proceedings-thuinanutshell/neurips_abstract_2019.csv.gz")
    assert len(got) == 1427
    assert all(len(r.source_id) == 32 for r in got)
    devin = next(r for r in got if r.title == "Compositional Plan Vectors")
    assert "learned quickly" in devin.abstract and [a.name for a in devin.authors][:2] == [
        "Coline Devin", "Daniel Geng"]
    assert find_reader(REAL_EXTRA / "neurips-proceedings-thuinanutshell/neurips_abstract_2021.csv.gz"
                        ).title_only  # 2021 papers carry OpenReview ids: joined by title


@realdata
def test_msalvaris_bare_comma_authors_and_empty_titles_reported() -> None:
    items = read(REAL_EXTRA / "neurips2019-msalvaris/neurips2019.csv.gz")
    bad = [i for i in items if isinstance(i, BadRecord)]
    assert len(bad) == 5 and all(str(b).endswith("no title") for b in bad)
    first = next(i for i in items if isinstance(i, Record))
    assert [a.name for a in first.authors] == ["Risto Vuorio", "Shao-Hua Sun", "Hexiang Hu",
                                               "Joseph J. Lim"]
    assert first.status == "" and first.links["pdf"].startswith("http")


@realdata
def test_airas_duplicates_go_on_id_and_title_together() -> None:
    icml22 = read(REAL_EXTRA / "airas-papers-db/icml-2022.json.gz")
    assert sum(isinstance(i, Record) for i in icml22) == 1233
    assert sum(isinstance(i, BadRecord) for i in icml22) == 1233  # every row twice
    icml23 = records(REAL_EXTRA / "airas-papers-db/icml-2023.json.gz")
    assert len(icml23) == 1865
    ids = [r.source_id for r in icml23]
    assert len(ids) - len(set(ids)) == 8  # 8 ids shared by two different papers: both kept


def _ingest(root: Path, files: list[str], data: Path = REAL_EXTRA) -> Store:
    store = Store(root / "p.db")
    report = ingest_paths(store, [data / f for f in files], progress=False)
    assert not report.failed
    store.notes = [n for s in report.sources for n in s.notes]  # type: ignore[attr-defined]
    return store


def _counts(store: Store, venue: str, year: int) -> tuple[int, int]:
    return store.conn.execute(
        "SELECT COUNT(*), SUM(length(abstract) > 50) FROM papers WHERE venue = ? AND year = ?",
        (venue, year)).fetchone()


@realdata
def test_iclr2021_abstracts_join_every_submission_by_forum_id(tmp_path: Path) -> None:
    store = _ingest(tmp_path, [f"{HISTORY}/iclr2021.json.gz", "iclr2021-evanzd/paperlist.tsv.gz",
                               "iclr2021-evanzd/ratings.tsv.gz"])
    assert _counts(store, "iclr", 2021) == (3014, 2966)
    assert store.notes == []


@realdata
def test_neurips2020_joins_on_the_proceedings_hash_even_when_renamed(tmp_path: Path) -> None:
    store = _ingest(tmp_path, [f"{HISTORY}/nips2020.json.gz", "airas-papers-db/neurips-2020.json.gz",
                               "neurips-proceedings-thuinanutshell/neurips_abstract_2020.csv.gz"])
    assert _counts(store, "nips", 2020) == (1899, 1899)
    statuses = dict(store.conn.execute("SELECT status, COUNT(*) FROM papers GROUP BY status"))
    assert statuses == {"Poster": 1513, "Spotlight": 280, "Oral": 106}


@realdata
def test_icml2023_abstracts_join_by_title_and_the_rest_is_told(tmp_path: Path) -> None:
    store = _ingest(tmp_path, ["papercopilot-openreview/venues_icml_icml2023.json.gz",
                               "airas-papers-db/icml-2023.json.gz"])
    total, with_abstract = _counts(store, "icml", 2023)
    unpaired = [n for n in store.notes if "paired with no paper" in n]
    assert total == 1828 + len(unpaired) and with_abstract == total
    assert 0 < len(unpaired) < 50  # JMLR-track talks the venue file does not list


def test_every_new_venue_year_joins_on_the_slices(tmp_path: Path) -> None:
    """The slices keep records that pair across their files: each venue-year stores just its
    spine's papers, each abstract or status source finds its paper, nothing is left unpaired."""
    files = sorted({f for spine, others in YEARS.values() for f in [spine, *others]})
    store = _ingest(tmp_path, files, data=EXTRA)
    assert store.notes == []
    spine_records = {Path(s).name: len(records(EXTRA / s)) for s, _ in YEARS.values()}
    for (venue, year), (spine, others) in YEARS.items():
        total, with_abstract = _counts(store, venue, year)
        assert total == spine_records[Path(spine).name], (venue, year)
        abstract_sources = [f for f in [spine, *others] if any(
            len(r.abstract) > 50 for r in records(EXTRA / f))]
        expected = len({r.title.casefold() for f in abstract_sources for r in records(EXTRA / f)
                        if len(r.abstract) > 50})
        assert (with_abstract or 0) == expected, (venue, year)
        unset = store.conn.execute("SELECT COUNT(*) FROM papers WHERE venue = ? AND year = ? AND "
                                   "status = ''", (venue, year)).fetchone()[0]
        assert unset == 0, (venue, year)
