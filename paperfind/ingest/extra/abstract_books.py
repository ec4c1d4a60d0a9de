"""The ICLR "abstract books" of rajatmodi62/ai-conf-abstract-generator (2019, 2020, 2023).

They add what Paper Copilot's early ICLR lists lack: the abstracts of the rejected papers (and,
for 2023, their authors). They carry no ids and no decisions, so the reader is title-only and
join-only: each record is matched by normalised title to the paper of its year's list
(`papercopilot-paperlists-history/iclrYYYY.json.gz`, which gives the id and the status), and a
record that pairs with none is reported, never stored as a paper of its own.

Two layouts:

* TXT (2019, 2020): records ended by a line of 49 asterisks; in each, line 1 is the title,
  line 2 the authors (joined by `,` without spaces, sometimes ` and ` before the last one, `*`
  after equal contributors), the rest the abstract. A file must end with that line, so one cut
  short is refused instead of yielding a half abstract.
* EPUB (2023): a calibre book (a ZIP) whose `index_split_NNN.html` pages hold the records, each
  ended by `<hr class="calibre2"/>`: a `<p class="calibre1">` each for title and authors, then
  the abstract, with inline `<span>`s and entities. The abstract is split over several
  paragraphs in some records and outside any paragraph in others (41), so everything after the
  authors is the abstract.
"""

from __future__ import annotations

import re
import zipfile
import zlib
from html.parser import HTMLParser
from pathlib import Path
from typing import Iterator

from paperfind.ingest.errors import SourceError
from paperfind.ingest.extra import build
from paperfind.ingest.extra.files import read_text
from paperfind.model import BadRecord, Record

FOLDER = "rajatmodi62-abstract-generator"
VENUE = "iclr"
_NAME = re.compile(r"^iclr_(?P<year>\d{4})\.(?P<kind>txt(?:\.gz)?|epub)$")
SEPARATOR = "*" * 49
_SEPARATOR_LINE = re.compile(r"^\*{49}[ \t\r]*$", re.MULTILINE)
_AND = re.compile(r"(?:^|\s+)and\s+")
_MARK = re.compile(r"\s*\(\*[^)]*\)|\*")  # equal contribution: `Li*`, `Li(*)`, `(* means ...)`
_PAGE = re.compile(r"^index_split_(\d+)\.x?html?$")


def _name(path: Path) -> re.Match[str] | None:
    return _NAME.match(path.name) if path.parent.name == FOLDER else None


def matches(path: Path) -> bool:
    return _name(path) is not None


def read(path: Path) -> Iterator[Record | BadRecord]:
    found = _name(path)
    if found is None:
        raise SourceError(str(path), f"expected a name like iclr_2019.txt.gz or iclr_2023.epub "
                                     f"in {FOLDER}/")
    year = int(found["year"])
    blocks = _epub_records(path) if found["kind"] == "epub" else _txt_records(path)
    for index, parts in enumerate(blocks):
        yield _record(path, index, year, parts)


def split_book_authors(raw: str) -> list[str]:
    """The names of an authors line: `A,B and C`, with `*` marking equal contribution."""
    names = []
    for part in _MARK.sub("", raw).split(","):
        names += [name.strip() for name in _AND.split(part.strip()) if name.strip()]
    return names


def _record(path: Path, index: int, year: int, parts: list[str]) -> Record | BadRecord:
    """A record from its pieces: title, authors, then the abstract's paragraphs."""
    if len(parts) < 2:
        return BadRecord(str(path), index, "no authors line after the title: a record is a title, "
                                           "an authors line and the abstract")
    return build.new_record(path, index, VENUE, year, parts[0], source_id="",
                            authors=build.plain_authors(split_book_authors(parts[1])),
                            abstract=build.text("\n".join(parts[2:])))


def _txt_records(path: Path) -> list[list[str]]:
    """The lines of each record of a TXT book (blank lines dropped)."""
    text = read_text(path).replace("\r\n", "\n")
    chunks = _SEPARATOR_LINE.split(text)
    if chunks[-1].strip():
        raise SourceError(str(path), f"ends inside record {len(chunks) - 1} (no closing line of "
                                     f"49 asterisks): the file looks truncated")
    records = []
    for chunk in chunks[:-1]:
        records.append([line.strip() for line in chunk.split("\n") if line.strip()])
    return records


def _epub_records(path: Path) -> list[list[str]]:
    """The text pieces of each record of the EPUB's pages, in page order."""
    try:
        with zipfile.ZipFile(path) as book:
            pages = sorted((int(m[1]), name) for name in book.namelist()
                           if (m := _PAGE.match(name)))
            if not pages:
                raise SourceError(str(path), "no index_split_NNN.html pages: not the calibre "
                                             "abstract book this reader knows")
            records: list[list[str]] = []
            for _, name in pages:
                try:
                    html = book.read(name).decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise SourceError(str(path), f"page {name} is not UTF-8 (byte {exc.start})") \
                        from None
                records.extend(_page_records(html))
            return records
    except (zipfile.BadZipFile, zlib.error, EOFError) as exc:
        raise SourceError(str(path), f"not a readable EPUB (ZIP) file ({exc})") from None
    except OSError as exc:
        raise SourceError(str(path), f"cannot read file: {exc.strerror or exc}") from None


def _page_records(html: str) -> list[list[str]]:
    parser = _Page()
    parser.feed(html)
    parser.close()
    return [[" ".join(piece.split()) for piece in record if piece.strip()]
            for record in parser.records if any(piece.strip() for piece in record)]


class _Page(HTMLParser):
    """Collects a page's records: a new one at each `<hr>`, a new piece at each paragraph, and
    text between paragraphs as a piece of its own (an abstract written outside `<p>`)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.records: list[list[str]] = [[]]
        self._in_body = False
        self._piece: list[str] | None = None  # the open piece, or None between paragraphs

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "body":
            self._in_body = True
        elif tag == "hr":
            self._close()
            self.records.append([])
        elif tag == "p":
            self._close()
            self._piece = []
        elif tag == "br" and self._piece is not None:
            self._piece.append(" ")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)  # `<hr/>`, `<br/>`: nothing to close

    def handle_endtag(self, tag: str) -> None:
        if tag == "p":
            self._close()
        elif tag == "body":
            self._close()
            self._in_body = False

    def handle_data(self, data: str) -> None:
        if not self._in_body:
            return  # the page's <title>
        if self._piece is None:
            if not data.strip():
                return
            self._piece = []
        self._piece.append(data)

    def _close(self) -> None:
        if self._piece is not None:
            self.records[-1].append("".join(self._piece))
            self._piece = None
