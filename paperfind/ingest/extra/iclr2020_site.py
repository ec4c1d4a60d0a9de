"""The ICLR 2020 virtual-conference site's data (`iclr2020-virtual-site/`).

`papers.json`: one JSON object keyed by forum id, each value an OpenReview note of an
accepted paper (`content`: title, abstract, authors, keywords, TL;DR, pdf, code). No
decision: the status comes from the Paper Copilot list of the year, by forum id.
`oral_schedule.yml`: the talks by day and session theme. It lists the spotlight talks as
well as the orals, so it says nothing of a paper's status; the session theme is the
organisers' subject area for the paper, which no other ICLR 2020 source has.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

from paperfind.ingest.errors import SourceError
from paperfind.ingest.extra import build
from paperfind.ingest.extra.files import read_json, read_text
from paperfind.model import BadRecord, Record

FOLDER = "iclr2020-virtual-site"
VENUE, YEAR = "iclr", 2020


def matches_papers(path: Path) -> bool:
    return path.parent.name == FOLDER and path.name.startswith("papers.json")


def matches_schedule(path: Path) -> bool:
    return path.parent.name == FOLDER and path.name.startswith("oral_schedule.y")


def _notes(path: Path) -> dict[str, Any]:
    data = read_json(path)
    if not isinstance(data, dict):
        raise SourceError(str(path), f"expected a JSON object keyed by forum id, found "
                                     f"{type(data).__name__}")
    return data


def _strings(value: object) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def read_papers(path: Path) -> Iterator[Record | BadRecord]:
    for index, (key, note) in enumerate(_notes(path).items()):
        content = note.get("content") if isinstance(note, dict) else None
        if not isinstance(content, dict):
            yield BadRecord(str(path), index, f"forum id {key}: no 'content' object")
            continue
        forum_id = str(note.get("forum") or note.get("id") or key).strip()
        links = build.openreview_links(forum_id, content.get("pdf"))
        code = content.get("code")
        if isinstance(code, str) and code.startswith(("https://", "http://")):
            links["code"] = code.strip()
        yield build.new_record(
            path, index, VENUE, YEAR, content.get("title"), source_id=forum_id, forum_id=forum_id,
            abstract=build.text(content.get("abstract")), tldr=build.text(content.get("TL;DR")),
            authors=build.plain_authors(_strings(content.get("authors"))),
            keywords=build.split_keywords(_strings(content.get("keywords"))), links=links)


def _talks(path: Path, schedule: Any) -> Iterator[tuple[str, str]]:
    """(forum id, session theme) of every talk, in schedule order."""
    if not isinstance(schedule, list):
        raise SourceError(str(path), "expected a list of days with 'section' lists")
    for day in schedule:
        sections = day.get("section") if isinstance(day, dict) else None
        for section in sections if isinstance(sections, list) else []:
            if not isinstance(section, dict):
                continue
            theme = str(section.get("theme") or "").strip()
            for forum_id in section.get("ids") or []:
                yield str(forum_id).strip(), theme


def read_schedule(path: Path) -> Iterator[Record | BadRecord]:
    """The session theme of each talk, as the paper's area; titled from papers.json beside it."""
    import yaml

    suffix = ".gz" if path.name.endswith(".gz") else ""
    papers = path.with_name(f"papers.json{suffix}")
    if not papers.is_file():
        raise SourceError(str(path), f"needs {papers.name} beside it for the titles")
    try:
        schedule = yaml.safe_load(read_text(path))
    except yaml.YAMLError as exc:
        raise SourceError(str(path), f"not valid YAML ({str(exc).splitlines()[0]})") from None
    notes = _notes(papers)
    for index, (forum_id, theme) in enumerate(_talks(path, schedule)):
        note = notes.get(forum_id)
        content = note.get("content") if isinstance(note, dict) else None
        if not isinstance(content, dict):
            yield BadRecord(str(path), index, f"talk {forum_id!r} is not in {papers.name}")
            continue
        yield build.new_record(path, index, VENUE, YEAR, content.get("title"), source_id=forum_id,
                               forum_id=forum_id, area=build.text(theme))
