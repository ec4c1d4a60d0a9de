"""The author-name index: every common way of writing a person's name, mapped to that person.

Name queries come as "Huishuai Zhang", "huishuai zhang", "Zhang Huishuai", "H. Zhang",
"Tim Rocktaschel" or "王晓明". Each person gets the folded forms of all their names (full,
surname first, given names joined, first + last, initial + last); a Han query is turned into
pinyin readings (every heteronym, surname of one or two characters) and looked up the same way.
Several people can share a form; the caller ranks them by evidence: paper count, and how
recently the person published (of two "X. Li"s with a few papers each, the one active now
is the likelier target of a search today).
"""

from __future__ import annotations


import itertools
from typing import NamedTuple
from pathlib import Path

import numpy as np

from paperfind.index.strings import JsonRecords, StringTable, load_array
from paperfind.model import AuthorEntry
from paperfind.text.fold import has_han
from paperfind.text.names import fold_name

# form kinds, with how much a match of that kind says "this is the person"
FULL, REVERSED, JOINED, FIRST_LAST, INITIAL, PINYIN, SURNAME = range(7)
KIND_WEIGHT = {FULL: 1.0, REVERSED: 0.95, JOINED: 0.95, FIRST_LAST: 0.85, INITIAL: 0.6, PINYIN: 0.9,
               SURNAME: 0.5}
_KIND_WEIGHTS = np.array([KIND_WEIGHT[k] for k in range(len(KIND_WEIGHT))])
MAX_PINYIN_READINGS = 64
# a look-up of more forms' entries than this is weighed with arrays (`NameIndex.lookup`)
ARRAY_LOOKUP_ENTRIES = 48
# Recency evidence: a person whose last paper is from the index's latest year counts
# (1 + RECENCY_WEIGHT) times, fading linearly to 1 for RECENCY_HORIZON years of silence.
# On author_dev "F. Last" the same figures came out for horizons 10-15 and weights 0.5-1.0.
RECENCY_WEIGHT = 0.5
RECENCY_HORIZON = 10


def name_forms(name: str) -> list[tuple[str, int]]:
    """The folded forms of one printed name with their kinds, most specific first."""
    tokens = fold_name(name).split()
    if not tokens:
        return []
    if len(tokens) == 1:
        return [(tokens[0], FULL)]
    given, last = tokens[:-1], tokens[-1]
    forms = [(" ".join(tokens), FULL), (" ".join([last] + given), REVERSED)]
    if len(given) > 1:
        forms += [("".join(given) + " " + last, JOINED), (last + " " + "".join(given), JOINED),
                  (given[0] + " " + last, FIRST_LAST)]
    forms.append((given[0][0] + " " + last, INITIAL))
    seen, out = set(), []
    for form, kind in forms:
        if form not in seen:
            seen.add(form)
            out.append((form, kind))
    return out


def load_pinyin() -> None:
    """Import pypinyin and load its tables now (a server's warm-up): the first Chinese query
    with a short run of characters that could be a name paid 0.4-0.5 s for them otherwise."""
    pinyin_readings("王小明")


def pinyin_readings(text: str) -> list[tuple[str, float]]:
    """Latin name forms a Han name may be written as: 王晓明 → `xiaoming wang`, `wang xiaoming`.

    Each reading comes with a weight: a two-character surname (欧阳) is possible but rarer.
    """
    from pypinyin import Style, pinyin  # its tables load lazily: only for Han queries

    chars = [c for c in text if has_han(c)]
    if not 2 <= len(chars) <= 4:
        return []
    readings = pinyin("".join(chars), style=Style.NORMAL, heteronym=True)
    combos = list(itertools.islice(itertools.product(*readings), MAX_PINYIN_READINGS))
    out: dict[str, float] = {}
    for cut, weight in ((1, 1.0), (2, 0.5)):
        for combo in combos:
            if cut >= len(combo):
                continue
            surname, given = "".join(combo[:cut]), "".join(combo[cut:])
            for form in (f"{given} {surname}", f"{surname} {given}"):
                out.setdefault(form, weight)
    return list(out.items())


class PersonMatch(NamedTuple):
    """One person a name query may mean. A named tuple, not a frozen dataclass: "Z. Wang" is
    ~800 people, whose frozen dataclasses took ~1 ms to make (one `object.__setattr__` per
    field), a tuple a fifth of it."""

    row: int
    author_id: int
    kind: int
    paper_count: int
    score: float
    name_group: int = -1  # people printed with the same full name share it (-1: unknown)
    last_year: int = 0


class NameIndex:
    """Sorted (form → person row) table plus the author cards."""

    def __init__(self, forms: StringTable, form_rows: np.ndarray, form_kinds: np.ndarray,
                 ids: np.ndarray, paper_counts: np.ndarray, cards: JsonRecords,
                 last_years: np.ndarray, name_groups: np.ndarray) -> None:
        self.forms = forms
        self.form_rows = form_rows
        self.form_kinds = form_kinds
        self.ids = ids
        self.paper_counts = paper_counts
        self.cards = cards
        self.last_years = last_years
        self.name_groups = name_groups
        self.latest_year = int(last_years.max()) if len(last_years) else 0

    def recency(self, row: int) -> float:
        """1 + RECENCY_WEIGHT x (1 for a paper in the latest year .. 0 after RECENCY_HORIZON years)."""
        last = int(self.last_years[row])
        if last <= 0:
            return 1.0
        return 1.0 + RECENCY_WEIGHT * max(0.0, 1.0 - (self.latest_year - last) / RECENCY_HORIZON)

    def lookup(self, query: str) -> list[PersonMatch]:
        """People whose name has `query` as one of its forms, most likely first.

        Evidence is the match kind times log paper count times recency: of two people called
        "H. Zhang", the one with more papers, and then the one still publishing, is the more
        likely target.

        A form held by many entries is weighed with arrays: an initial and a common surname
        ("Z. Wang") holds ~800 people, which a Python step per entry and per person took 4-8 ms
        to weigh (the slowest author queries over HTTP); a few entries (nearly every look-up)
        one at a time, where the arrays' fixed cost is the larger. The same weights, scores
        and order either way.
        """
        keys = ([(r, PINYIN, w) for r, w in pinyin_readings(query)] if has_han(query)
                else [(fold_name(query), None, 1.0)])
        spans = []
        for key, forced_kind, reading_weight in keys:
            if key:
                lo, hi = self.forms.range(key)
                if hi > lo:  # most look-ups: a window of a query's words that is nobody's name
                    spans.append((lo, min(hi, lo + 2000), forced_kind, reading_weight))
        entries = sum(end - lo for lo, end, _, _ in spans)
        if not entries:
            return []
        if entries > ARRAY_LOOKUP_ENTRIES:
            return self._weighed_as_arrays(spans)
        best: dict[int, tuple[int, float]] = {}
        for lo, end, forced_kind, reading_weight in spans:
            for row, own in zip(self.form_rows[lo:end].tolist(), self.form_kinds[lo:end].tolist()):
                if forced_kind is not None and own == INITIAL:
                    continue
                kind = own if forced_kind is None else forced_kind
                weight = KIND_WEIGHT[kind] * reading_weight
                if row not in best or best[row][1] < weight:
                    best[row] = (kind, weight)
        out = []
        for row, (kind, weight) in best.items():
            count = int(self.paper_counts[row])
            out.append(PersonMatch(row, int(self.ids[row]), kind, count,
                                   weight * float(np.log1p(count) + 1.0) * self.recency(row),
                                   int(self.name_groups[row]), int(self.last_years[row])))
        out.sort(key=lambda m: (-m.score, m.author_id))
        return out

    def _weighed_as_arrays(self, spans: list[tuple[int, int, int | None, float]]) -> list[PersonMatch]:
        """`lookup`'s people of the forms' entries `spans` ((first, end, the kind a Han reading
        forces or None, the reading's weight)), counted with arrays."""
        rows, kinds, weights = [], [], []
        for lo, end, forced_kind, reading_weight in spans:
            kind = self.form_kinds[lo:end].astype(np.int64)
            row = self.form_rows[lo:end].astype(np.int64)
            if forced_kind is not None:  # a reading of a Han name: any form but an initial's
                row = row[kind != INITIAL]
                kind = np.full(len(row), forced_kind, dtype=np.int64)
            rows.append(row)
            kinds.append(kind)
            weights.append(_KIND_WEIGHTS[kind] * reading_weight)
        row, kind, weight = np.concatenate(rows), np.concatenate(kinds), np.concatenate(weights)
        if not len(row):
            return []
        # per person, the first of its entries with the highest weight (as a running best
        # replaced only by a higher one)
        order = np.lexsort((np.arange(len(row)), -weight, row))
        first = order[np.r_[True, row[order][1:] != row[order][:-1]]]
        row, kind, weight = row[first], kind[first], weight[first]
        count = self.paper_counts[row].astype(np.int64)
        score = weight * (np.log1p(count) + 1.0) * self.recencies(row)
        ids = self.ids[row]
        ranked = np.lexsort((ids, -score))
        return [PersonMatch(r, i, k, c, s, g, y) for r, i, k, c, s, g, y in zip(
            row[ranked].tolist(), ids[ranked].tolist(), kind[ranked].tolist(), count[ranked].tolist(),
            score[ranked].tolist(), self.name_groups[row[ranked]].tolist(),
            self.last_years[row[ranked]].tolist())]

    def recencies(self, rows: np.ndarray) -> np.ndarray:
        """`recency` of each of `rows`."""
        last = self.last_years[rows].astype(np.int64)
        faded = np.maximum(0.0, 1.0 - (self.latest_year - last) / RECENCY_HORIZON)
        return np.where(last <= 0, 1.0, 1.0 + RECENCY_WEIGHT * faded)

    def by_surname(self, surname: str, min_works: int, max_people: int) -> list[PersonMatch]:
        """The well-known people of a surname alone ("hinton", "bengio"): those with at least
        `min_works` papers, most papers first; none when more than `max_people` have that many
        ("wang" names no one in particular). Read from the reversed forms ("bengio yoshua")."""
        key = fold_name(surname)
        if not key or " " in key:
            return []
        lo, hi = self.forms.bisect_left(key + " "), self.forms.bisect_left(key + "!")
        rows = {int(self.form_rows[i]) for i in range(lo, min(hi, lo + 20_000))
                if int(self.form_kinds[i]) in (REVERSED, JOINED)}
        known = [r for r in rows if int(self.paper_counts[r]) >= min_works]
        if not known or len(known) > max_people:
            return []
        known.sort(key=lambda r: (-int(self.paper_counts[r]), int(self.ids[r])))
        return [PersonMatch(r, int(self.ids[r]), SURNAME, int(self.paper_counts[r]),
                            KIND_WEIGHT[SURNAME] * float(np.log1p(int(self.paper_counts[r])) + 1.0),
                            int(self.name_groups[r]), int(self.last_years[r])) for r in known]

    def card(self, row: int) -> dict:
        return self.cards.get(row)

    # -- build / persistence ----------------------------------------------------------------
    @staticmethod
    def build(authors: list[AuthorEntry], root: Path) -> None:
        authors = sorted(authors, key=lambda a: a.id)
        triples = []
        for row, entry in enumerate(authors):
            seen: set[str] = set()
            for name in [entry.name] + list(entry.aliases):
                for form, kind in name_forms(name):
                    if form not in seen:
                        seen.add(form)
                        triples.append((form, row, kind))
        triples.sort()
        StringTable.save((f for f, _, _ in triples), root, "names.forms")
        np.save(root / "names.rows.npy", np.asarray([r for _, r, _ in triples], dtype=np.int32))
        np.save(root / "names.kinds.npy", np.asarray([k for _, _, k in triples], dtype=np.int8))
        np.save(root / "names.ids.npy", np.asarray([a.id for a in authors], dtype=np.int64))
        np.save(root / "names.paper_counts.npy",
                np.asarray([a.paper_count for a in authors], dtype=np.int32))
        np.save(root / "names.last_years.npy", np.asarray([a.years[1] for a in authors], dtype=np.int32))
        groups: dict[str, int] = {}
        np.save(root / "names.groups.npy", np.asarray(
            [groups.setdefault(fold_name(a.name), len(groups)) for a in authors], dtype=np.int32))
        JsonRecords.save(({"id": a.id, "slug": a.slug, "name": a.name, "aliases": a.aliases,
                           "paper_count": a.paper_count, "work_count": a.work_count,
                           "institutions": a.institutions,
                           "years": list(a.years)} for a in authors), root, "names.cards")

    @classmethod
    def load(cls, root: Path) -> "NameIndex":
        return cls(StringTable.load(root, "names.forms"),
                   load_array(root / "names.rows.npy"),
                   load_array(root / "names.kinds.npy"),
                   load_array(root / "names.ids.npy"),
                   load_array(root / "names.paper_counts.npy"),
                   JsonRecords.load(root, "names.cards"),
                   load_array(root / "names.last_years.npy"),
                   load_array(root / "names.groups.npy"))
