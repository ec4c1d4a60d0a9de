"""The index's name files, written once by the build and read lazily by a searcher.

The names are mined at index time (paperfind.index.paper_names); a searcher asks for three
things only: the rows a query names (the lookup table, which the file writes last so a search
reads it without parsing every row's names), a few rows' names for the cards a CLI search
shows, and the standing and mention arrays. Kept apart from the mining, which a searcher
never runs (its query forms are the mining's folding, `query_forms`).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from paperfind.index.paper_names import PaperNames, query_forms

NAMES_FILE = "paper_names.json"
_TABLE_KEY = ',"table":'  # `save_paper_names` writes the table after the names
_UNPARSED_LOOKUPS = 64  # rows `names_of` finds in the text before it parses every row's names
STANDING_FILE = "meta.standing.npy"
MENTIONS_FILE = "meta.mentions.npy"


def save_paper_names(found: PaperNames, root: Path) -> None:
    """The index's name files: every row's names, the lookup table and the standing."""
    payload = {"names": {str(r): names for r, names in enumerate(found.names) if names},
               "table": found.table}
    (root / NAMES_FILE).write_text(json.dumps(payload, ensure_ascii=False, separators=(",", ":")),
                                   encoding="utf-8")
    np.save(root / STANDING_FILE, found.standing.astype(np.float32))
    np.save(root / MENTIONS_FILE, found.mentions.astype(np.int32))


def _names_in_text(text: str, row: int) -> list[str] | None:
    """A row's names, found by its key in the text `save_paper_names` writes (no separator
    spaces, the names before the table; a name's own quotes are escaped, so `,"12":` is a key);
    None when the text is not of that shape."""
    end = text.find(_TABLE_KEY)
    if end < 0 or not text.startswith('{"names":{'):
        return None
    for opening in ("{", ","):  # the first row follows `{"names":{`, the others a comma
        key = f'{opening}"{row}":'
        at = text.find(key, 0, end)
        if at >= 0:
            try:
                return list(json.JSONDecoder().raw_decode(text, at + len(key))[0])
            except ValueError:
                return None
    return []


class PaperNameTable:
    """The name files of one index version, read lazily: an index built without them (a first
    start's first part) has no names, and every standing is 0."""

    def __init__(self, root: Path, n_rows: int) -> None:
        self.root = Path(root)
        self.n_rows = n_rows
        self._payload: dict | None = None
        self._table_only: dict | None = None
        self._text: str | None = None  # the file, while rows are looked up in it unparsed
        self._lookups = 0
        self._standing: np.ndarray | None = None
        self._mentions: np.ndarray | None = None

    @property
    def present(self) -> bool:
        return (self.root / NAMES_FILE).exists()

    @property
    def parsed(self) -> bool:
        """Every row's names are parsed (`load_all`, or a searcher's 65th look-up)."""
        return self._payload is not None

    def load_all(self) -> None:
        """Parse every row's names now. A searcher does after its first 64 look-ups
        (`names_of`): in a server that was 0.2-0.3 s of one early request on the bundled
        corpus, which its warm-up takes instead (`LiveIndex.load_for_serving`)."""
        self._read()

    def _read(self) -> dict:
        if self._payload is None:
            text = self._file_text()
            self._payload = json.loads(text) if text else {"names": {}, "table": {}}
            self._text = None
        return self._payload

    def _table(self) -> dict:
        """The lookup table alone: a search needs it, not every row's names, and the file
        writes it last, so the half before it is skipped unparsed (0.27 of 0.6 s of a CLI
        search on the bundled corpus's index, on a loaded machine)."""
        if self._payload is not None:
            return self._payload["table"]
        if self._table_only is None:
            text = self._file_text()
            start = text.find(_TABLE_KEY)  # the first: the names hold only digits and lists
            if start < 0:
                self._table_only = self._read()["table"]
            else:
                try:
                    self._table_only = json.JSONDecoder().raw_decode(text, start + len(_TABLE_KEY))[0]
                except ValueError:  # not the file `save_paper_names` writes: read it whole
                    self._table_only = self._read()["table"]
        return self._table_only

    def rows_named(self, query: str) -> list[int]:
        """The rows a query names, best standing first: the first folded form that names any."""
        table = self._table()
        for form in query_forms(query):
            if form in table:
                return list(table[form])
        return []

    def _file_text(self) -> str:
        if self._text is None:
            try:
                self._text = (self.root / NAMES_FILE).read_text(encoding="utf-8")
            except FileNotFoundError:
                self._text = ""
        return self._text

    def names_of(self, row: int) -> list[str]:
        """The names of one row. The first few are found in the file's text by their key (a CLI
        search names its ten cards, and parsing every row's names was 0.2-0.4 s of its start);
        a process that asks for more (a server) parses the names once."""
        self._lookups += 1
        if self._payload is None and self._lookups <= _UNPARSED_LOOKUPS:
            found = _names_in_text(self._file_text(), int(row))
            if found is not None:
                return found
        return list(self._read()["names"].get(str(int(row)), []))

    def _array(self, name: str, dtype) -> np.ndarray:
        path = self.root / name
        return np.load(path) if path.exists() else np.zeros(self.n_rows, dtype=dtype)

    @property
    def standing(self) -> np.ndarray:
        if self._standing is None:
            self._standing = self._array(STANDING_FILE, np.float32)
        return self._standing

    @property
    def mentions(self) -> np.ndarray:
        if self._mentions is None:
            self._mentions = self._array(MENTIONS_FILE, np.int32)
        return self._mentions
