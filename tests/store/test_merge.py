"""The merge policy and the title matcher on records read from slices of the real extra/ files."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from paperfind.ingest.readers import find_reader
from paperfind.model import BadRecord, Record
from paperfind.store.merge import Ambiguous, match_by_title, merge_records
from tests.realdata import EXTRA


def records(path: Path) -> list[Record]:
    return [r for r in find_reader(path).read(path) if not isinstance(r, BadRecord)]


def slice_to(tmp: Path, rel: str, keep) -> Path:
    """The rows/objects of a real file that `keep` accepts, in a folder of the same name."""
    text = gzip.open(EXTRA / rel, "rt", encoding="utf-8").read()
    out = tmp / rel
    out.parent.mkdir(parents=True, exist_ok=True)
    if text.lstrip().startswith("["):
        body = json.dumps([o for o in json.loads(text) if keep(o)])
    else:
        lines = text.splitlines()
        head = lines[:1] if rel.endswith(".csv.gz") and "dotd" not in rel else []
        body = "\n".join(head + [l for l in lines[len(head):] if keep(l)])
    with gzip.open(out, "wt", encoding="utf-8") as fh:
        fh.write(body)
    return out


def first_lines(tmp: Path, rel: str, keep, until) -> Path:
    """The lines of a real line-based file from the first one `keep` accepts up to `until`."""
    out = tmp / rel
    out.parent.mkdir(parents=True, exist_ok=True)
    kept: list[str] = []
    with gzip.open(EXTRA / rel, "rt", encoding="utf-8") as fh:
        for line in fh:
            if kept and until(line):
                break
            if kept or keep(line):
                kept.append(line)
    with gzip.open(out, "wt", encoding="utf-8") as fh:
        fh.writelines(kept)
    return out


def by_priority(recs: list[Record]) -> list[Record]:
    """The order the store loads a paper's records in: best source first."""
    return sorted(recs, key=lambda r: -find_reader(Path(r.source)).priority)


def test_icml2024_abstract_from_one_file_affiliations_from_another(tmp_path: Path) -> None:
    fid = "Fw4fBE2rqW"
    dotd = records(slice_to(tmp_path, "dotd-openreview-tables/ICML_cc_2024_Conference.csv.gz",
                            lambda line: f"id={fid}\t" in line))
    venue = records(slice_to(tmp_path, "papercopilot-openreview/venues_icml_icml2024.json.gz",
                             lambda o: o["id"] == fid))
    assert len(dotd) == len(venue) == 1
    assert not venue[0].abstract and not any(a.affiliations for a in dotd[0].authors)
    paper = merge_records(by_priority(dotd + venue))
    assert paper.abstract == dotd[0].abstract and paper.abstract.startswith("This paper introduces")
    assert [a.name for a in paper.authors] == ["Ruochen Wang", "Ting Liu", "Cho-Jui Hsieh", "Boqing Gong"]
    assert [a.profile_id for a in paper.authors][0] == "~Ruochen_Wang2"
    assert [a.affiliations[0].slug for a in paper.authors] == [  # "University of California, Los Angeles"
        "ucla", "google-deepmind", "ucla", "google"]
    assert paper.status == "Poster" and paper.forum_id == fid
    assert set(paper.links) == {"openreview", "pdf"}
    # the field rules, not the order, decide (only provenance follows the first record)
    assert merge_records(dotd + venue).content_hash() == paper.content_hash()


def test_neurips2023_paper_joined_across_three_files(tmp_path: Path) -> None:
    fid = "009LK0vLcY"
    keep = lambda o: (o.get("id") if isinstance(o, dict) else o.split(",")[0].strip('"{ ').split('"')[-1]) == fid
    venue = records(slice_to(tmp_path, "papercopilot-openreview/venues_nips_nips2023.json.gz", keep))
    authors = records(slice_to(tmp_path, "papercopilot-openreview/authors_nips_nips2023.jsonl.gz",
                               lambda line: f'"id": "{fid}"' in line))
    abstract = records(slice_to(tmp_path, "neurips2023-openreviewdata/poster.csv.gz",
                                lambda line: line.startswith(fid + ",")))
    assert len(venue) == len(authors) == len(abstract) == 1
    paper = merge_records(by_priority(venue + authors + abstract))
    assert paper.title.startswith("Finite Population Regression Adjustment")
    assert paper.abstract == abstract[0].abstract and len(paper.abstract) > 200  # from the CSV
    assert paper.status == "Poster"
    names = [a.name for a in paper.authors]  # from the authors file, with aligned affiliations
    assert names == ["Mehrdad Ghadiri", "David Arbour", "Tung Mai", "Cameron N Musco", "Anup Rao"]
    assert paper.authors[0].affiliations[0].raw == "Georgia Institute of Technology"
    assert paper.paper_affiliations == []  # every author has an affiliation
    assert "regression adjustment" in paper.keywords


def test_title_collision_kept_apart() -> None:
    """Two NeurIPS 2024 reproducibility studies of the same paper share their title."""
    history = records(EXTRA / "papercopilot-paperlists-history/nips2024.json.gz")
    jingshi = records(EXTRA / "neurips2024-jingshi-yang/nips2024.json.gz")
    title = 'reproducibility study of "robust fair clustering: a novel fairness attack'
    twins = [r for r in history if r.title.lower().startswith(title)]
    assert len(twins) == 2
    candidates = [(f"nips2024:{r.source_id}", merge_records([r])) for r in twins]
    for record in (r for r in jingshi if r.title.lower().startswith(title)):
        key = match_by_title(record, candidates)
        own = next(k for k, p in candidates if p.authors[0].name == record.authors[0].name)
        assert key == own
    anonymous = Record(venue="nips", year=2024, source_id="", title=twins[0].title)
    result = match_by_title(anonymous, candidates)
    assert isinstance(result, Ambiguous) and set(result.keys) == {k for k, _ in candidates}
    assert "2 papers of nips 2024 have this title" in str(result)
    stranger = Record(venue="nips", year=2024, source_id="", title=twins[0].title,
                      authors=[s for s in jingshi[0].authors])
    assert match_by_title(stranger, candidates) is None


def test_title_only_record_joins_an_anonymous_submission(tmp_path: Path) -> None:
    dotd = records(slice_to(tmp_path, "dotd-openreview-tables/ICLR_cc_2024_Conference.csv.gz",
                            lambda line: line.startswith("Breaking Physical and Linguistic Borders")))
    init = [r for r in records(EXTRA / "papercopilot-openreview/venues_iclr_iclr2024.init.jsonl.gz")
            if r.title.startswith("Breaking Physical and Linguistic Borders")]
    assert len(dotd) == len(init) == 1 and not init[0].authors
    key = f"iclr2024:{init[0].forum_id}"
    assert match_by_title(dotd[0], [(key, merge_records(init))]) == key
    paper = merge_records(by_priority(dotd + init))
    assert paper.status == "Poster"  # a decision beats the review-time "Under Review"
    assert paper.forum_id == init[0].forum_id and paper.authors == dotd[0].authors
    other_forum = Record(venue="iclr", year=2024, source_id="x", title=dotd[0].title, forum_id="other")
    assert match_by_title(other_forum, [(key, merge_records(init))]) is None


def test_alphabetical_authors_give_way_to_an_ordered_list(tmp_path: Path) -> None:
    whitney = records(first_lines(tmp_path, "iclr2025-whitney-house/papers.csv.gz",
                                  lambda line: True, lambda line: line.startswith("A Feature-Aware")))
    assert len(whitney) == 1
    whitney = whitney[0]
    euisuk, = records(first_lines(tmp_path, "vlm-paper-search-euisuk/2025-iclr-formatted.md.gz",
                                  lambda line: line.startswith("## ") and whitney.title in line,
                                  lambda line: line.startswith("## ")))
    assert not whitney.authors_ordered and merge_records([whitney]).authors_ordered is False
    paper = merge_records(by_priority([whitney, euisuk]))
    assert paper.authors_ordered and [a.name for a in paper.authors][:2] == ["Aastha Kachhi", "Shashank Ojha"]
    assert paper.status == "Withdraw"
    assert [a.raw for a in paper.paper_affiliations] == ["Indian Institute of Technology Mandi"]


def test_iclr2026_status_and_anonymity(tmp_path: Path) -> None:
    fid = "DM0Y0oL33T"  # an oral in alickzhu's list
    sub = records(first_lines(tmp_path, "iclr2026-imczxx-reviewtracker/iclr2026_submissions.jsonl.gz",
                              lambda line: f'"id": "{fid}"' in line, lambda line: True))
    accepted = [r for r in records(EXTRA / "iclr2026-alickzhu/index.json.gz") if r.forum_id == fid]
    assert len(sub) == len(accepted) == 1
    paper = merge_records(by_priority(sub + accepted))
    assert paper.status == "Oral" and paper.authors == [] and len(paper.abstract) > 200
    assert merge_records(sub).status == "Under Review"


def test_abstract_choice_prefers_real_complete_text() -> None:
    base = dict(venue="icml", year=2024, source_id="", title="T")
    short = Record(**base, abstract="N/A")
    cut = Record(**base, abstract="A long abstract that the source cut off in the middle of a ...")
    full = Record(**base, abstract="A long abstract that the source kept whole, every word of it.")
    assert merge_records([short, cut, full]).abstract == full.abstract
    assert merge_records([short]).abstract == ""
    assert merge_records([full, cut]) == merge_records([full, cut])


def test_a_middle_initial_does_not_keep_one_author_apart() -> None:
    from paperfind.model import AuthorSlot
    from paperfind.store.merge import author_overlap

    listed = [AuthorSlot(name="Bruce W McIntosh")]
    assert author_overlap(listed, [AuthorSlot(name="Bruce McIntosh")]) == 1
    assert author_overlap(listed, [AuthorSlot(name="Bruce Wayne")]) == 0


def test_title_join_falls_back_to_letters_and_digits_and_reports_strays(tmp_path: Path) -> None:
    from paperfind.model import AuthorSlot
    from paperfind.store import Store

    store = Store(tmp_path / "p.db")
    spine = Record(venue="nips", year=2019, source_id="a" * 32, title="Schrödinger's Bridge Sampling",
                   authors=[AuthorSlot(name="Ann Lee")])
    store.write_source("spine", "1", 1, "test", [spine], 70, False)
    renamed = Record(venue="nips", year=2019, source_id="site_1", title="Schrodingers Bridge Sampling",
                     authors=[AuthorSlot(name="Ann Lee")], status="Oral")
    stray = Record(venue="nips", year=2019, source_id="site_2", title="A Paper Nobody Else Lists",
                   source_index=1)
    summary = store.write_source("status", "2", 1, "test", [renamed, stray], 36, True)
    assert store.conn.execute("SELECT status FROM papers WHERE key = ?",
                              (f"nips2019:{'a' * 32}",)).fetchone()[0] == "Oral"
    assert store.paper_count() == 2
    assert summary.notes == ["record 1 ('A Paper Nobody Else Lists'): paired with no paper (no paper "
                             "of its venue-year has this title); stored as a paper of its own"]
