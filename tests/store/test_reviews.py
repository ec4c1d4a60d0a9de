"""Review scores: read from the real files that carry them, merged by the store's rule, and
written straight from the bundled corpus's side files."""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

from paperfind.ingest.reviews import read_reviews
from paperfind.ingest.run import ingest_paths
from paperfind.model import Record
from paperfind.settings import BUNDLED_CORPUS
from paperfind.store import Store
from paperfind.store.reviews import distribution, reviews_of

SLICES = Path(__file__).resolve().parents[1] / "data" / "slices" / "extra"
PAPER = "iclr2021:1Fqg133qRaI"  # in both the evanzd ratings and Paper Copilot's ICLR 2021 list


def test_a_source_with_confidences_wins_over_the_same_scores_without(tmp_path: Path) -> None:
    store = Store(tmp_path / "a.db")
    ingest_paths(store, [SLICES / "iclr2021-evanzd"], progress=False)
    alone = reviews_of(store.conn, [PAPER])[PAPER]
    assert alone.ratings == [7.0, 7.0, 7.0, 7.0] and alone.confidences == []
    ingest_paths(store, [SLICES / "papercopilot-paperlists-history" / "iclr2021.json.gz"],
                 progress=False)
    merged = reviews_of(store.conn, [PAPER])[PAPER]
    assert merged.ratings == [7.0, 7.0, 7.0, 7.0]
    assert merged.confidences == [5.0, 4.0, 3.0, 4.0]  # Paper Copilot's: it has confidences
    assert (merged.mean, merged.scale, merged.decision) == (7.0, "1-10", "Poster")
    card = store.paper_cards([PAPER])[0]
    assert (card["rating"], card["review_count"], card["rating_scale"]) == (7.0, 4, "1-10")
    page = store.paper(PAPER)
    assert page["reviews"]["reviews"][0] == {"rating": 7.0, "confidence": 5.0}


def test_initial_scores_lose_to_final_ones_and_papers_without_scores_show_none(tmp_path: Path) -> None:
    store = Store(tmp_path / "b.db")
    ingest_paths(store, [SLICES / "papercopilot-openreview" / "venues_iclr_iclr2024.init.jsonl.gz",
                         SLICES / "papercopilot-openreview" / "venues_icml_icml2024.json.gz"],
                 progress=False)
    (key,) = store.conn.execute("SELECT paper_key FROM reviews LIMIT 1").fetchone()
    assert reviews_of(store.conn, [key])[key].initial
    icml = store.conn.execute("SELECT key FROM papers WHERE venue = 'icml' LIMIT 1").fetchone()[0]
    card = store.paper_cards([icml])[0]
    assert (card["rating"], card["review_count"], card["rating_scale"]) == (None, None, None)
    assert store.paper(icml)["reviews"] is None


def test_the_bundled_side_file_goes_straight_into_the_table(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    shutil.copy(BUNDLED_CORPUS / "corl-2021.jsonl.gz", corpus)
    (tmp_path / "corpus.reviews").mkdir()
    shutil.copy(BUNDLED_CORPUS.with_name("corpus.reviews") / "corl-2021.jsonl.gz",
                tmp_path / "corpus.reviews")
    store = Store(tmp_path / "c.db")
    ingest_paths(store, [corpus / "corl-2021.jsonl.gz"], progress=False)
    origins = store.conn.execute("SELECT origin, COUNT(*) FROM reviews GROUP BY origin").fetchall()
    assert origins == [("bundled", 153)]  # every CoRL 2021 paper, none as a record
    assert store.conn.execute("SELECT COUNT(*) FROM records WHERE data LIKE '%\"reviews\"%'"
                              ).fetchone()[0] == 0
    key = store.conn.execute("SELECT paper_key FROM reviews LIMIT 1").fetchone()[0]
    assert store.paper_cards([key])[0]["rating_scale"] == "1,4,6,10"


def test_side_file_keys_are_corpus_keys() -> None:
    import json

    side = BUNDLED_CORPUS.with_name("corpus.reviews")
    for path in sorted(side.glob("*.jsonl.gz"))[:4]:
        with gzip.open(BUNDLED_CORPUS / path.name, "rt", encoding="utf-8") as fh:
            keys = {json.loads(line)["key"] for line in fh}
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            assert {json.loads(line)["key"] for line in fh} <= keys


def test_blank_slots_are_no_scores_and_records_without_scores_hash_as_before() -> None:
    padded = read_reviews("alt", 2025, "0;0;7;7;7", "0;4;3;5;5", [4.2, 3.43])
    assert padded.ratings == [7.0, 7.0, 7.0] and padded.confidences == [3.0, 5.0, 5.0]
    assert read_reviews("iclr", 2022, "2;7", "") is None  # both off ICLR 2022's 1,3,5,6,8,10
    assert read_reviews("iclr", 2026, None, mean=0) is None
    assert read_reviews("colm", 2024, "n/a", "") is None
    record = Record(venue="iclr", year=2021, source_id="x", title="A paper")
    assert '"reviews"' not in record.content_json() and "reviews" not in record.to_json()


def test_a_database_built_before_the_scores_shipped_gains_them_once(tmp_path: Path) -> None:
    from paperfind.core import Paperfind
    from paperfind.settings import Settings

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    shutil.copy(BUNDLED_CORPUS / "corl-2022.jsonl.gz", corpus)
    settings = Settings(db_path=tmp_path / "old.db", semantic=False, corpus_path=corpus)
    pf = Paperfind(settings)
    ingest_paths(pf.store(), [corpus / "corl-2022.jsonl.gz"], progress=False)  # no side file yet
    version = pf.store().data_version()
    assert pf.add_bundled_reviews() == 0
    (tmp_path / "corpus.reviews").mkdir()
    shutil.copy(BUNDLED_CORPUS.with_name("corpus.reviews") / "corl-2022.jsonl.gz",
                tmp_path / "corpus.reviews")
    assert pf.add_bundled_reviews() == 197
    assert pf.store().data_version() == version + 1  # the index is built again
    assert pf.add_bundled_reviews() == 0  # once
    key = pf.store().conn.execute("SELECT key FROM papers LIMIT 1").fetchone()[0]
    assert pf.store().paper_cards([key])[0]["rating"] is not None


def test_the_venue_year_chart_stacks_decisions_best_first(tmp_path: Path) -> None:
    store = Store(tmp_path / "d.db")
    ingest_paths(store, [SLICES / "papercopilot-paperlists-history" / "iclr2021.json.gz"],
                 progress=False)
    chart = distribution(store.conn, "iclr", 2021)
    shown = [g["status"] for g in chart["groups"]]
    assert shown == ["Oral", "Spotlight", "Poster", "Reject", "Withdraw"]  # not by size
    assert sum(g["papers"] for g in chart["groups"]) == chart["papers"]
    assert all(sum(g["counts"]) == g["papers"] for g in chart["groups"])


def test_a_database_built_in_another_clone_gains_this_corpus_scores(tmp_path: Path) -> None:
    from paperfind.core import Paperfind
    from paperfind.settings import Settings

    elsewhere = tmp_path / "old-clone" / "corpus"  # no corpus.reviews beside it
    elsewhere.mkdir(parents=True)
    shutil.copy(BUNDLED_CORPUS / "corl-2023.jsonl.gz", elsewhere)
    pf = Paperfind(Settings(db_path=tmp_path / "old.db", semantic=False))
    ingest_paths(pf.store(), [elsewhere / "corl-2023.jsonl.gz"], progress=False)
    assert pf.add_bundled_reviews() == 199  # this clone's shard of that name is the same file
    other = Paperfind(Settings(db_path=tmp_path / "other.db", semantic=False))
    changed = tmp_path / "changed" / "corl-2023.jsonl.gz"
    changed.parent.mkdir()
    with gzip.open(elsewhere / "corl-2023.jsonl.gz", "rt", encoding="utf-8") as fh:
        lines = fh.readlines()[:5]
    with gzip.open(changed, "wt", encoding="utf-8") as fh:  # the same name, not the same shard
        fh.writelines(lines)
    ingest_paths(other.store(), [changed], progress=False)
    assert other.store().paper_count() == 5 and other.add_bundled_reviews() == 0
