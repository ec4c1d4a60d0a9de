"""The store built from slices of the real paper lists: keys, idempotence, updates, bad files, people."""

from __future__ import annotations

import gzip
import json
import sqlite3
from pathlib import Path

import pytest

from paperfind.ingest.run import ingest_paths
from paperfind.store import Store
from tests.realdata import load_paperlist, pick, write_slice

GEIGER = "~Andreas_Geiger3"  # an OpenReview profile with papers at 3DV, COLM and CoRL


def dump(db: Path) -> list[tuple]:
    """Everything a user can see, to compare databases before and after."""
    conn = sqlite3.connect(db)
    rows = []
    for table, order in [("papers", "key"), ("paper_authors", "paper_id, position"),
                         ("paper_affiliations", "paper_id, position, seq"),
                         ("authors", "id"), ("institutions", "slug"), ("records", "id")]:
        rows.extend((table,) + r for r in conn.execute(f"SELECT * FROM {table} ORDER BY {order}"))
    conn.close()
    return rows


@pytest.fixture()
def geiger_files(tmp_path: Path) -> list[Path]:
    files = []
    for venue, year, ids in [("3dv", 2025, {"1xLfRYErqk"}), ("colm", 2024, {"dkpeWQRmlc"}),
                             ("corl", 2022, {"80vpxjt3vq"})]:
        files.append(write_slice(tmp_path / "data", venue, year,
                                 pick(load_paperlist(venue, year), ids, extra=15)))
    return files


def test_keys_follow_venue_year_and_source_id(tmp_path, geiger_files):
    store = Store(tmp_path / "p.db")
    report = ingest_paths(store, [tmp_path / "data"], progress=False)
    assert not report.failed
    assert store.paper_count() == 48
    assert store.paper("colm2024:dkpeWQRmlc")["venue_name"] == "COLM"
    assert store.paper("corl2022:80vpxjt3vq")["year"] == 2022


def test_profile_id_makes_one_person_across_three_venues(tmp_path, geiger_files):
    store = Store(tmp_path / "p.db")
    ingest_paths(store, [tmp_path / "data"], progress=False)
    (slug,) = {a["id"] for key in ("3dv2025:1xLfRYErqk", "colm2024:dkpeWQRmlc",
                                   "corl2022:80vpxjt3vq")
               for a in store.paper(key)["authors"] if a["name"] == "Andreas Geiger"}
    author = store.author(slug)
    assert author["profile_id"] == GEIGER
    assert {p["venue"] for p in author["papers"]} >= {"3dv", "colm", "corl"}
    years = [p["year"] for p in author["papers"]]
    assert years == sorted(years, reverse=True)


def test_reingest_is_idempotent_and_updates_in_place(tmp_path, geiger_files):
    db = tmp_path / "p.db"
    store = Store(db)
    ingest_paths(store, [tmp_path / "data"], progress=False)
    before = dump(db)
    again = ingest_paths(store, [tmp_path / "data"], progress=False)
    assert again.unchanged_files == 3 and not again.changed
    forced = ingest_paths(store, [tmp_path / "data"], force=True, progress=False)
    assert not forced.changed
    assert dump(db) == before

    records = load_paperlist("colm", 2024)
    chosen = pick(records, {"dkpeWQRmlc"}, extra=15)
    paper_id = store.conn.execute("SELECT id FROM papers WHERE key = 'colm2024:dkpeWQRmlc'").fetchone()
    chosen[0] = dict(chosen[0], abstract="A corrected abstract that is long enough to count as a real abstract of this paper.")
    write_slice(tmp_path / "data", "colm", 2024, chosen)
    report = ingest_paths(store, [tmp_path / "data"], progress=False)
    assert sum(s.updated for s in report.sources) == 1
    assert store.paper("colm2024:dkpeWQRmlc")["abstract"] == "A corrected abstract that is long enough to count as a real abstract of this paper."
    assert store.conn.execute("SELECT id FROM papers WHERE key = 'colm2024:dkpeWQRmlc'"
                              ).fetchone() == paper_id


def test_bad_files_are_reported_and_cost_nothing_else(tmp_path, geiger_files):
    db = tmp_path / "p.db"
    store = Store(db)
    good = geiger_files[0]
    truncated = tmp_path / "data" / "iclr" / "iclr2018.json.gz"
    truncated.parent.mkdir(parents=True)
    blob = gzip.compress(json.dumps(load_paperlist("iclr", 2018)[:30]).encode())
    truncated.write_bytes(blob[: len(blob) // 2])
    not_json = tmp_path / "data" / "uai" / "uai2019.json"
    not_json.parent.mkdir(parents=True)
    not_json.write_text("this is not JSON {", encoding="utf-8")
    report = ingest_paths(store, [good, truncated, not_json], progress=False)
    failed = {Path(f.path).name: f.reason for f in report.failed}
    assert set(failed) == {"iclr2018.json.gz", "uai2019.json"}
    assert all(reason for reason in failed.values())
    assert store.paper_count() == 16
    assert not store.conn.execute("SELECT 1 FROM papers WHERE venue IN ('iclr', 'uai')").fetchone()


def test_record_without_title_is_skipped_with_its_index(tmp_path):
    records = load_paperlist("corl", 2022)[:10]
    records[3] = {k: v for k, v in records[3].items() if k != "title"}
    path = write_slice(tmp_path / "data", "corl", 2022, records)
    store = Store(tmp_path / "p.db")
    report = ingest_paths(store, [path], progress=False)
    assert [(bad.index, "title" in bad.reason) for bad in report.skipped] == [(3, True)]
    assert store.paper_count() == 9


def test_namesakes_with_different_profiles_stay_apart(tmp_path):
    wanted = {"Weijie Wang"}
    files = []
    for venue, year in [("corl", 2021), ("corl", 2022), ("corl", 2023), ("corl", 2024),
                        ("corl", 2025), ("colm", 2024), ("colm", 2025), ("3dv", 2025)]:
        recs = [r for r in load_paperlist(venue, year)
                if wanted & {n.strip() for n in (r.get("author") or "").split(";")}]
        if recs:
            files.append(write_slice(tmp_path / "data", venue, year, recs))
    store = Store(tmp_path / "p.db")
    ingest_paths(store, files, progress=False)
    people = store.conn.execute("SELECT slug, profile_id FROM authors WHERE name = 'Weijie Wang' "
                                "ORDER BY slug").fetchall()
    assert len({pid for _, pid in people}) >= 2
    assert len(people) >= 2


def test_several_affiliations_of_one_author_are_kept(tmp_path):
    records = load_paperlist("nips", 2018)
    multi = next(r for r in records if "+" in (r.get("aff") or "").split(";")[0]
                 and r.get("aff_unique_index"))
    path = write_slice(tmp_path / "data", "nips", 2018, [multi])
    store = Store(tmp_path / "p.db")
    ingest_paths(store, [path], progress=False)
    first = store.paper(f"nips2018:{multi['id']}")["authors"][0]
    assert len(first["affiliations"]) >= 2
    assert all(a["slug"] for a in first["affiliations"])


def test_a_rare_name_is_one_person_without_shared_coauthors(tmp_path):
    """Huishuai Zhang's papers at ICLR 2018, ICML 2016 and NeurIPS 2015 share no co-author or
    institution, yet a name this rare is one person."""
    files = []
    for venue, year, ident in [("iclr", 2018, "SJ19eUg0-"), ("icml", 2016, "9388669fbe"),
                               ("nips", 2015, "5619"), ("nips", 2018, "11630")]:
        files.append(write_slice(tmp_path / "data", venue, year,
                                 pick(load_paperlist(venue, year), {ident}, extra=5)))
    store = Store(tmp_path / "p.db")
    ingest_paths(store, files, progress=False)
    slugs = {a["id"] for key in ("iclr2018:SJ19eUg0-", "icml2016:9388669fbe", "nips2015:5619",
                                 "nips2018:11630")
             for a in store.paper(key)["authors"] if a["name"] == "Huishuai Zhang"}
    assert len(slugs) == 1
    assert store.author(slugs.pop())["paper_count"] == 4


@pytest.fixture(scope="module")
def pal_and_zhu_store(tmp_path_factory) -> Store:
    """The real slices of ICLR 2017 (every paper), ICLR 2018 and NeurIPS 2018 (with every paper
    of Chris Pal, Christopher Pal, Jun-Yan Zhu and Jun Zhu), built as ingest builds them."""
    tmp = tmp_path_factory.mktemp("pal")
    files = [write_slice(tmp / "data", venue, year, load_paperlist(venue, year))
             for venue, year in [("iclr", 2017), ("iclr", 2018), ("nips", 2018)]]
    store = Store(tmp / "p.db")
    ingest_paths(store, files, progress=False)
    return store


def _people_named(store: Store, *names: str) -> set[int]:
    marks = ",".join("?" * len(names))
    return {aid for (aid,) in store.conn.execute(
        f"SELECT DISTINCT author_id FROM paper_authors WHERE name IN ({marks})", names)}


def test_a_nickname_and_the_full_given_name_are_one_person(pal_and_zhu_store):
    """Issue 29: "Chris Pal" (26 papers) and "Christopher Pal" (58) were two people with the
    same co-authors (Tegan Maharaj, Yoshua Bengio, Aaron Courville)."""
    people = _people_named(pal_and_zhu_store, "Chris Pal", "Christopher Pal")
    assert len(people) == 1
    (person,) = people
    names = {n for (n,) in pal_and_zhu_store.conn.execute(
        "SELECT DISTINCT name FROM paper_authors WHERE author_id = ?", (person,))}
    assert {"Chris Pal", "Christopher Pal"} <= names


def test_a_hyphenated_given_name_is_not_its_commoner_first_part(pal_and_zhu_store):
    """Jun-Yan Zhu is one person across the slices; Jun Zhu (Tsinghua), who shares his surname,
    initial and `match_key` but none of his co-authors, is another."""
    zhu = _people_named(pal_and_zhu_store, "Jun-Yan Zhu")
    assert len(zhu) == 1
    assert _people_named(pal_and_zhu_store, "Jun Zhu").isdisjoint(zhu)
    # and Arka Pal, of the same surname, is not Christopher Pal
    assert _people_named(pal_and_zhu_store, "Arka Pal").isdisjoint(
        _people_named(pal_and_zhu_store, "Christopher Pal"))


INITIAL_FORMS = {  # papers of the bundled corpus: names written with initials, and in full
    "iclr-2020": {"iclr2020:Hklz71rYvS"},  # "M Arbel, A Gretton, W Li, G Montufar"
    "iclr-2019": {"iclr2019:Bye5OiR5F7"},  # Wuchen Li with Guido Montufar
    "iclr-2018": {"iclr2018:r1lUOzWCW"},  # Michael Arbel with Arthur Gretton
    "iclr-2021": {"iclr2021:yvzMA5im3h"},  # Lu Bai with Tiantian He, Yew-Soon Ong
    "nips-2021": {"nips2021:SMU_hbhhEQ"},  # "L Bai" with them
    # R.D. Lin, whose co-authors only share initials with Rongmei Lin's (Yinqiao, Yisen Wang)
    "cvpr-2025": {"cvpr2025:lin2025cvpr-hilots"},
    "cvpr-2018": {"cvpr2018:f493bbef5b"},
}


@pytest.fixture(scope="module")
def initials_store(tmp_path_factory) -> Store:
    from paperfind.settings import BUNDLED_CORPUS

    tmp = tmp_path_factory.mktemp("initials")
    lines = []
    for shard, keys in INITIAL_FORMS.items():
        with gzip.open(BUNDLED_CORPUS / f"{shard}.jsonl.gz", "rt", encoding="utf-8") as fh:
            lines += [line for line in fh if json.loads(line)["key"] in keys]
    assert len(lines) == sum(map(len, INITIAL_FORMS.values()))
    (tmp / "initials.jsonl").write_text("".join(lines), "utf-8")
    store = Store(tmp / "p.db")
    assert not ingest_paths(store, [tmp / "initials.jsonl"], progress=False).failed
    return store


@pytest.mark.parametrize("short, full", [("W Li", "Wuchen Li"), ("M Arbel", "Michael Arbel"),
                                         ("A Gretton", "Arthur Gretton"),
                                         ("G Montufar", "Guido Montufar"), ("L Bai", "Lu Bai")])
def test_a_name_written_with_initials_is_the_full_name_it_shares_co_authors_with(
        initials_store, short, full):
    """Issue 29: initial forms ("C. Pal") with a shared co-author and no conflicting OpenReview
    profile are one person; the person is shown by the full name."""
    people = _people_named(initials_store, short, full)
    assert len(people) == 1
    (person,) = people
    assert initials_store.conn.execute("SELECT name FROM authors WHERE id = ?",
                                       (person,)).fetchone()[0] == full


def test_initials_shared_by_co_authors_written_in_full_are_no_evidence(initials_store):
    """R. D. Lin and Rongmei Lin have co-authors of the same initial and surname (Yinqiao Wang,
    Yisen Wang), who are two people: R. D. Lin stays apart."""
    assert _people_named(initials_store, "R.D. Lin").isdisjoint(
        _people_named(initials_store, "Rongmei Lin"))


def test_facet_names_are_read_once_per_data_version(tmp_path: Path) -> None:
    """The search's facets name venues and institutions from a memo (`Store.facet_names`): the
    same tables' names, re-read when an ingest has changed the data, not on every request."""
    store = Store(tmp_path / "p.db")
    ingest_paths(store, [write_slice(tmp_path / "a", "colt", 2019, load_paperlist("colt", 2019)[:20])],
                 progress=False)
    first = store.facet_names()
    assert first == (store.venue_names(), store.institution_names()) and first[1]
    assert store.facet_names()[1] is first[1]  # no query while the data is the same
    ingest_paths(store, [write_slice(tmp_path / "b", "corl", 2022, load_paperlist("corl", 2022)[:20])],
                 progress=False)
    after = store.facet_names()
    assert after == (store.venue_names(), store.institution_names())
    assert set(after[0]) > set(first[0]) and set(after[1]) > set(first[1])


def test_facet_names_of_known_slugs_need_no_query(tmp_path: Path) -> None:
    """Names are never rewritten (`INSERT OR IGNORE`), so a search whose every venue and
    institution is in the memo is named without asking SQLite even for the data version, also
    after an ingest; a slug missing from the memo has the memo checked (and re-read) as before."""
    store = Store(tmp_path / "p.db")
    ingest_paths(store, [write_slice(tmp_path / "a", "colt", 2019, load_paperlist("colt", 2019)[:20])],
                 progress=False)
    venues, institutions = store.facet_names()
    known = (set(venues), set(list(institutions)[:5]))
    statements: list[str] = []
    store.conn.set_trace_callback(statements.append)
    assert store.facet_names(*known) == (venues, institutions) and statements == []
    ingest_paths(store, [write_slice(tmp_path / "b", "corl", 2022, load_paperlist("corl", 2022)[:20])],
                 progress=False)
    del statements[:]
    assert store.facet_names(*known)[1] is institutions and statements == []  # still no query
    after = store.facet_names({"corl"}, ())  # a venue the memo has not seen: read again
    assert statements and after == (store.venue_names(), store.institution_names())
    assert "corl" in after[0] and after[0]["colt"] == venues["colt"]
    del statements[:]
    assert store.facet_names() == after and statements  # without slugs: checked every time


def test_facet_names_read_the_slugs_lazily_and_once(tmp_path: Path) -> None:
    """A search passes its slugs as generators over its facets (their sets cost ~15 µs a request):
    every slug in the memo, nothing is asked; the first missing one stops the reading and has
    the memo checked; empty generators name nothing, so the memo is answer enough."""
    store = Store(tmp_path / "p.db")
    ingest_paths(store, [write_slice(tmp_path / "a", "colt", 2019, load_paperlist("colt", 2019)[:20])],
                 progress=False)
    first = store.facet_names(iter(()), iter(()))  # nothing in the memo yet: read
    assert first == (store.venue_names(), store.institution_names())
    statements: list[str] = []
    store.conn.set_trace_callback(statements.append)
    pulled: list[str] = []

    def slugs(values):
        for value in values:
            pulled.append(value)
            yield value

    assert store.facet_names(slugs(["colt"]), slugs(list(first[1])[:3]))[1] is first[1]
    assert statements == [] and pulled == ["colt", *list(first[1])[:3]]
    assert store.facet_names(iter(()), iter(()))[0] is first[0] and statements == []
    ingest_paths(store, [write_slice(tmp_path / "b", "corl", 2022, load_paperlist("corl", 2022)[:20])],
                 progress=False)
    del statements[:], pulled[:]
    after = store.facet_names(slugs(["corl", "colt"]), slugs(["never-read"]))
    assert pulled == ["corl"] and statements  # stopped at the first missing slug, then checked
    assert "corl" in after[0] and after == (store.venue_names(), store.institution_names())
