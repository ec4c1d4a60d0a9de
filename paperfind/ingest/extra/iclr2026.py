"""ICLR 2026: submissions crawled during review, accepted papers, a de-anonymised sample.

* `iclr2026-imczxx-reviewtracker/iclr2026_submissions.jsonl`: OpenReview notes (`id`,
  `withdrawn`, `content.*`) of all submissions: abstracts, no authors (still anonymous),
  no decisions, so a submission is "Under Review" unless withdrawn.
* `iclr2026-alickzhu/index.json`: topic groups of accepted papers; per paper the title,
  decision, forum URL, keywords and primary area. The `p` summary is LLM-generated and the
  topic groups LLM-made, so neither is used.
* `iclr2026-zhuanxv-g/paper_info_cleaned.json`: 1,000 submissions after de-anonymisation,
  with ordered authors and profile ids and the final venue ("Submitted to ICLR 2026" with
  a `Rejected_Submission` venue id is a rejection).
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

from paperfind.ingest.errors import SourceError
from paperfind.ingest.extra import build
from paperfind.ingest.extra.files import read_json_array, read_json_lines
from paperfind.ingest.reviews import read_reviews
from paperfind.model import AuthorSlot, BadRecord, Record
from paperfind.text.names import clean_name

VENUE, YEAR = "iclr", 2026


def matches_imczxx(path: Path) -> bool:
    return path.parent.name == "iclr2026-imczxx-reviewtracker" and ".jsonl" in path.name


def read_imczxx(path: Path) -> Iterator[Record | BadRecord]:
    for item in read_json_lines(path):
        if isinstance(item, BadRecord):
            yield item
            continue
        index, note = item
        content = note.get("content") if isinstance(note, dict) else None
        forum_id = str(note.get("id") or "").strip() if isinstance(note, dict) else ""
        if not isinstance(content, dict) or not forum_id:
            yield BadRecord(str(path), index, "not an OpenReview note with 'id' and 'content'")
            continue
        withdrawn = note.get("withdrawn") is True or "withdrawn" in str(content.get("venue", "")).lower()
        yield build.new_record(
            path, index, VENUE, YEAR, content.get("title"), source_id=forum_id, forum_id=forum_id,
            abstract=build.text(content.get("abstract")), tldr=build.text(content.get("tldr")),
            keywords=build.split_keywords(content.get("keywords")),
            area=build.format_area(content.get("primary_area")),
            status="Withdraw" if withdrawn else build.status_from_venue(content.get("venue"), False),
            links=build.openreview_links(forum_id, content.get("pdf")))


def matches_alickzhu(path: Path) -> bool:
    return path.parent.name == "iclr2026-alickzhu" and path.name.startswith("index.json")


def read_alickzhu(path: Path) -> Iterator[Record | BadRecord]:
    groups = read_json_array(path)
    index = 0
    for group in groups:
        papers = group.get("papers") if isinstance(group, dict) else None
        if not isinstance(papers, list):
            raise SourceError(str(path), "expected topic groups with a 'papers' list")
        for paper in papers:
            if not isinstance(paper, dict):
                yield BadRecord(str(path), index, "not a JSON object")
            elif not (forum_id := build.forum_id_from_url(paper.get("u"))):
                yield BadRecord(str(path), index, f"'u' is not an OpenReview forum URL: {paper.get('u')!r}")
            else:
                yield build.new_record(
                    path, index, VENUE, YEAR, paper.get("t"), source_id=forum_id, forum_id=forum_id,
                    keywords=build.split_keywords(paper.get("k")),
                    area=build.format_area(paper.get("a")),
                    status=build.status_from_venue(paper.get("v"), decided=True),
                    links=build.openreview_links(forum_id),
                    reviews=read_reviews(VENUE, YEAR, None, mean=paper.get("r")))
            index += 1


def matches_zhuanxv(path: Path) -> bool:
    return path.parent.name == "iclr2026-zhuanxv-g" and path.name.startswith("paper_info")


def read_zhuanxv(path: Path) -> Iterator[Record | BadRecord]:
    for index, obj in enumerate(read_json_array(path)):
        forum_id = str(obj.get("id") or "").strip() if isinstance(obj, dict) else ""
        if not forum_id:
            yield BadRecord(str(path), index, "not an object with an 'id'")
            continue
        names = obj.get("authors") if isinstance(obj.get("authors"), list) else []
        ids = obj.get("authorids") if isinstance(obj.get("authorids"), list) else []
        aligned = len(ids) == len(names)
        authors = [AuthorSlot(name=clean_name(n), profile_id=str(ids[i]) if aligned else "")
                   for i, n in enumerate(names) if isinstance(n, str) and n.strip()]
        venue_id = str(obj.get("venueid") or "")
        status = "Reject" if venue_id.endswith("/Rejected_Submission") else build.status_from_venue(
            obj.get("venue"), decided=True)
        yield build.new_record(
            path, index, VENUE, YEAR, obj.get("title"), source_id=forum_id, forum_id=forum_id,
            authors=authors, keywords=build.split_keywords(obj.get("keywords")),
            area=build.format_area(obj.get("primary_area")), status=status,
            links=build.openreview_links(forum_id))
