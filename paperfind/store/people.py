"""Resolve author slots into people, and papers into works.

A person is a cluster of author slots. OpenReview profile ids decide where present. Elsewhere,
slots of the same name (diacritics, case and middle initials folded) join when evidence links
them: a shared institution or a shared co-author. Nothing merges two clusters that carry
different profile ids, so two people who share a name stay apart unless a source links them.
"""

from __future__ import annotations

import re
import sqlite3
from collections import Counter, defaultdict
from types import MappingProxyType
from typing import NamedTuple

from paperfind.store.people_links import join_shared_links
from paperfind.store.transaction import immediate
from paperfind.text.fold import slugify


class Slot(NamedTuple):
    """One author slot of a paper, as `resolve_people` reads it."""

    paper_id: int
    position: int
    name: str
    name_fold: str
    profile_id: str | None
    alias_profile_id: str | None
    paper_key: str
    author_id: int | None


class _Clusters:
    """Union-find over slot indexes, refusing unions of two different profile ids."""

    def __init__(self, profile_ids: list[str]) -> None:
        self.parent = list(range(len(profile_ids)))
        self.profile = [p or None for p in profile_ids]

    def find(self, i: int) -> int:
        parent = self.parent
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    def union(self, a: int, b: int, force: bool = False) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return
        pa, pb = self.profile[ra], self.profile[rb]
        if pa and pb and pa != pb and not force:
            return
        if rb < ra:
            ra, rb = rb, ra
        self.parent[rb] = ra
        self.profile[ra] = pa or pb


# Given names and the short forms papers print for them: "Chris Pal" (26 papers) and
# "Christopher Pal" (58) were two people with the same co-authors. A short form of two given
# names (Alex: Alexander, Alexandra) is in neither.
NICKNAMES = MappingProxyType({
    "chris": "christopher", "mike": "michael", "mick": "michael", "bob": "robert", "rob": "robert",
    "bill": "william", "will": "william", "jim": "james", "jimmy": "james", "tom": "thomas",
    "tommy": "thomas", "dave": "david", "dan": "daniel", "danny": "daniel", "joe": "joseph",
    "ben": "benjamin", "nick": "nicholas", "matt": "matthew", "andy": "andrew", "drew": "andrew",
    "tony": "anthony", "greg": "gregory", "jeff": "jeffrey", "josh": "joshua", "ken": "kenneth",
    "larry": "lawrence", "pat": "patrick", "pete": "peter", "phil": "philip", "rick": "richard",
    "rich": "richard", "dick": "richard", "ron": "ronald", "tim": "timothy", "zach": "zachary",
    "fred": "frederick", "jon": "jonathan", "nate": "nathan", "charlie": "charles",
    "chuck": "charles", "ed": "edward", "ted": "edward", "liz": "elizabeth", "beth": "elizabeth",
    "kate": "katherine", "jenny": "jennifer", "jen": "jennifer", "sue": "susan", "becky": "rebecca",
    "meg": "margaret", "abby": "abigail", "doug": "douglas", "stan": "stanley", "geoff": "geoffrey",
    "jake": "jacob", "sam": "samuel", "max": "maximilian", "vince": "vincent", "art": "arthur",
})


def match_key(name_fold: str) -> str:
    """First and last name tokens: `michael i jordan` and `michael jordan` meet here, and so do
    `chris pal` and `christopher pal` (`NICKNAMES`). A name whose given names are all initials
    keeps its first (`c pal`, not the `pal` of every initial), which `_join_initial_forms` joins
    to a full given name of that initial."""
    if initial_form(name_fold):
        return initial_key(name_fold)
    tokens = [t for t in name_fold.split() if len(t) > 1] or name_fold.split()
    if len(tokens) >= 2:
        tokens[0] = NICKNAMES.get(tokens[0], tokens[0])
    if len(tokens) <= 2:
        return " ".join(tokens)
    return f"{tokens[0]} {tokens[-1]}"


def initial_form(name_fold: str) -> bool:
    """Whether the given names are all initials: `c pal`, `c v jawahar`, and written surname
    first, `jawahar c v`; not `j zico kolter`."""
    tokens = name_fold.split()
    return len(tokens) >= 2 and sum(len(t) > 1 for t in tokens) == 1 and (
        len(tokens[0]) > 1 or len(tokens[-1]) > 1)


def initial_key(name_fold: str) -> str:
    """First initial and surname: where `c pal`, `chris pal`, `christopher j pal` meet, and
    `siddharth n` with `n siddharth` ("" for a name of one word)."""
    tokens = name_fold.split()
    if len(tokens) < 2:
        return ""
    if initial_form(name_fold) and len(tokens[0]) > 1:  # surname first: "Jawahar C.V."
        return f"{tokens[1]} {tokens[0]}"
    return f"{tokens[0][0]} {tokens[-1]}"


_HYPHENATED_GIVEN = re.compile(r"\w-\w.*\s\S")  # "Jun-Yan Zhu", not "Jun Zhu-Li"


def person_key(name: str, name_fold: str) -> str:
    """The key slots meet by: `match_key`, but a hyphenated given name whole ("Jun-Yan Zhu" is
    `junyan zhu`, not the Jun Zhu that `match_key` makes of it)."""
    if "-" in name and _HYPHENATED_GIVEN.search(name):
        return whole_given_key(name_fold) or match_key(name_fold)
    return match_key(name_fold)


def whole_given_key(name_fold: str) -> str:
    """The name with its given names run together: `jun yan zhu` (from "Jun-Yan Zhu") and
    `junyan zhu` meet here, which `match_key` reads as the far commoner `jun zhu`; "" for a
    name of one given name, which `match_key` already keys whole."""
    tokens = name_fold.split()
    if len(tokens) < 3 or any(len(t) == 1 for t in tokens[:-1]):
        return ""
    return f"{''.join(tokens[:-1])} {tokens[-1]}"


def resolve_people(conn: sqlite3.Connection) -> int:
    """Recompute every person from all author slots, in one transaction; returns the count."""
    slots = [Slot._make(row) for row in conn.execute(
        "SELECT pa.paper_id, pa.position, pa.name, pa.name_fold, pa.profile_id, "
        "pa.alias_profile_id, p.key, pa.author_id FROM paper_authors pa "
        "JOIN papers p ON p.id = pa.paper_id "
        "ORDER BY p.key, pa.position")]
    insts: dict[tuple[int, int], set[str]] = defaultdict(set)
    for paper_id, pos, inst in conn.execute(
            "SELECT paper_id, position, institution FROM paper_affiliations "
            "WHERE institution IS NOT NULL"):
        insts[(paper_id, pos)].add(inst)
    canonical = _canonical_profiles(slots)
    clusters = _Clusters([canonical.get(s.profile_id, s.profile_id) if s.profile_id else ""
                          for s in slots])
    by_profile: dict[str, int] = {}
    for i, slot in enumerate(slots):
        pid = canonical.get(slot.profile_id, slot.profile_id) if slot.profile_id else ""
        if pid:
            clusters.union(by_profile.setdefault(pid, i), i)
    keys = [person_key(s.name, s.name_fold) for s in slots]
    names_of_paper: dict[int, set[str]] = defaultdict(set)
    for slot, key in zip(slots, keys):
        if key:
            names_of_paper[slot.paper_id].add(key)
    # sorted once a paper, not once a slot: papers with hundreds of authors made this quadratic
    coauthors = {paper_id: sorted(names) for paper_id, names in names_of_paper.items()}
    # a shared institution or co-author joins a slot to the first slot with that link
    join_shared_links(keys, slots, insts, coauthors, clusters.union)
    _join_rare_names(keys, clusters)
    # a hyphenated or spaced given name is rare where its first part is not ("Jun-Yan Zhu",
    # "Junyan Zhu"); names of one given name keep their `match_key` (already joined above)
    _join_rare_names([whole_given_key(s.name_fold) or key for s, key in zip(slots, keys)], clusters)
    _join_initial_forms(slots, clusters)
    return _write_people(conn, slots, clusters)


def _join_initial_forms(slots: list[Slot], clusters: _Clusters) -> None:
    """Join a name written with initials ("C. Pal", "R. Manmatha") to the one person of a full
    given name of that initial ("Christopher Pal") with whom it shares a co-author.

    The rule of the nickname join, with initials: co-authors are the evidence, a different
    OpenReview profile refuses the union (`_Clusters.union`), and a name is left alone where it
    is ambiguous: two full names, or two people of one full name, share its co-authors, or the
    full name is on the same paper. Two co-authors written in full are one only by their whole
    name ("Yisen Wang" is not "Yinqiao Wang"); one written with initials ("J. Kautz") is
    compared by its initial and surname."""
    # the few slots written with initials (a cheap test first: an initial at either end)
    abridged = {i for i, s in enumerate(slots)
                if (s.name_fold[1:2] == " " or s.name_fold[-2:-1] == " ") and initial_form(s.name_fold)}
    wanted = {initial_key(slots[i].name_fold) for i in abridged}
    surnames = {key.split(" ", 1)[1] for key in wanted}
    full: dict[str, list[int]] = defaultdict(list)  # full names of those initials and surnames
    for i, slot in enumerate(slots):
        if i not in abridged and slot.name_fold.rpartition(" ")[2] in surnames:
            key = initial_key(slot.name_fold)
            if key in wanted:
                full[key].append(i)
    papers = {slots[i].paper_id for i in abridged} | {slots[j].paper_id for js in full.values() for j in js}
    written: dict[int, tuple[set[str], set[str], set[str]]] = defaultdict(lambda: (set(), set(), set()))
    for i, slot in enumerate(slots):  # the names on those papers only
        if slot.paper_id in papers and (key := initial_key(slot.name_fold)):
            whole, short_forms, every_initial = written[slot.paper_id]
            every_initial.add(key)
            (short_forms.add(key) if i in abridged else whole.add(match_key(slot.name_fold)))

    def share_coauthor(a: int, b: int, key: str) -> bool:
        (whole_a, short_a, init_a), (whole_b, short_b, init_b) = written[a], written[b]
        return bool(whole_a & whole_b or (short_a - {key}) & (init_b - {key})
                    or (short_b - {key}) & (init_a - {key}))

    for i in sorted(abridged):
        slot = slots[i]
        key = initial_key(slot.name_fold)
        if key not in full:
            continue
        if any(slots[j].paper_id == slot.paper_id for j in full[key]):
            continue  # "C. Pal" beside a "Carl Pal" on one paper: two people
        sharing = [j for j in full[key] if share_coauthor(slot.paper_id, slots[j].paper_id, key)]
        if not sharing:
            continue
        if len({match_key(slots[j].name_fold) for j in sharing}) > 1 or \
                len({clusters.find(j) for j in sharing}) > 1:
            continue
        clusters.union(sharing[0], i)


RARE_NAME_SCORE = 0.1  # expected namesakes below which one name is taken to be one person


def _join_rare_names(keys: list[str], clusters: _Clusters) -> None:
    """Join the clusters of a rare name, which is all the evidence a rare name needs.

    "Huishuai Zhang" on two papers with no shared co-author is still one person; "Wei Wang"
    is not. A name's rarity is estimated from the corpus: how many surnames its given name
    goes with, times how many given names its surname goes with, over all names. Names that
    two profile ids carry are never joined this way.
    """
    surnames: dict[str, set[str]] = defaultdict(set)
    given: dict[str, set[str]] = defaultdict(set)
    names = {k for k in keys if " " in k and k[1] != " "}  # initials: `_join_initial_forms`
    for name in names:
        first, last = name.split(" ", 1)[0], name.rsplit(" ", 1)[1]
        surnames[first].add(last)
        given[last].add(first)
    total = max(len(names), 1)
    by_name: dict[str, list[int]] = defaultdict(list)
    for i, key in enumerate(keys):
        if key in names:
            by_name[key].append(i)
    for name, idxs in by_name.items():
        first, last = name.split(" ", 1)[0], name.rsplit(" ", 1)[1]
        if len(surnames[first]) * len(given[last]) / total >= RARE_NAME_SCORE:
            continue
        roots = {clusters.find(i) for i in idxs}
        if len({clusters.profile[r] for r in roots if clusters.profile[r]}) > 1:
            continue
        for i in idxs[1:]:
            clusters.union(idxs[0], i)


def _canonical_profiles(slots: list[Slot]) -> dict[str, str]:
    """Map each profile id to one representative of its alias group (authorids vs or_profile)."""
    parent: dict[str, str] = {}

    def find(p: str) -> str:
        while parent.get(p, p) != p:
            p = parent[p]
        return p

    for slot in slots:
        a, b = slot.profile_id, slot.alias_profile_id
        if a and b and a != b and a.startswith("~") and b.startswith("~"):
            ra, rb = find(a), find(b)
            if ra != rb:
                parent[max(ra, rb)] = min(ra, rb)
    return {p: find(p) for p in parent}


def _write_people(conn: sqlite3.Connection, slots: list[Slot], clusters: _Clusters) -> int:
    members: dict[int, list[int]] = defaultdict(list)
    for i in range(len(slots)):
        members[clusters.find(i)].append(i)
    people = []
    for root, idxs in members.items():
        if len(idxs) == 1:  # most people: one slot, so no vote on the name
            slot = slots[idxs[0]]
            display, names, papers, first_key = slot.name, [slot.name], 1, slot.paper_key
        else:
            counts = Counter(slots[i].name for i in idxs)
            display = sorted(counts.items(), key=lambda kv: (-kv[1], -len(kv[0]), kv[0]))[0][0]
            names = sorted(counts)
            papers = len({slots[i].paper_id for i in idxs})
            first_key = min(slots[i].paper_key for i in idxs)
        people.append((slugify(display, empty="author"), -papers, first_key, display, slots[idxs[0]].name_fold,
                       clusters.profile[root] or "", papers, names, idxs))
    people.sort()
    with immediate(conn):
        # a person keeps their number while their slug stays, so few slots need rewriting
        old_ids = dict(conn.execute("SELECT slug, id FROM authors"))
        next_id = max(old_ids.values(), default=0) + 1
        conn.execute("DELETE FROM author_aliases")
        conn.execute("DELETE FROM authors")
        taken: set[str] = set()
        author_rows, alias_rows, slot_rows = [], [], []
        for base, _, _, display, fold, pid, count, names, idxs in people:
            slug, k = base, 1
            while slug in taken:  # namesakes: wei-wang, wei-wang-2, ... (never a taken slug)
                k += 1
                slug = f"{base}-{k}"
            taken.add(slug)
            n = old_ids.get(slug)
            if n is None:
                n, next_id = next_id, next_id + 1
            author_rows.append((n, slug, display, fold, pid, count))
            alias_rows.extend((n, name) for name in names if name != display)
            slot_rows += [(n, slots[i].paper_id, slots[i].position) for i in idxs if slots[i].author_id != n]
        conn.executemany("INSERT INTO authors(id, slug, name, name_fold, profile_id, paper_count) "
                         "VALUES (?,?,?,?,?,?)", author_rows)
        conn.executemany("INSERT INTO author_aliases(author_id, alias) VALUES (?, ?)", alias_rows)
        slot_rows.sort(key=lambda row: (row[1], row[2]))  # in table order: each page once
        bulk = len(slot_rows) > 20_000
        if bulk:  # one index build beats maintaining it through a mass update
            conn.execute("DROP INDEX IF EXISTS paper_authors_author")
        conn.executemany("UPDATE paper_authors SET author_id = ? WHERE paper_id = ? AND position = ?",
                         slot_rows)
        if bulk:
            conn.execute("CREATE INDEX paper_authors_author ON paper_authors(author_id)")
        _link_works(conn)
        conn.execute("INSERT INTO meta(key, value) SELECT 'people_version', value FROM meta "
                     "WHERE key = 'data_version' ON CONFLICT(key) DO UPDATE SET value = excluded.value")
    return len(author_rows)


def _link_works(conn: sqlite3.Connection) -> None:
    """Papers with the same normalised title and a shared author are versions of one work."""
    conn.execute("UPDATE papers SET work_id = id")
    groups = conn.execute("SELECT title_norm, group_concat(id) FROM papers "
                          "WHERE length(title_norm) >= 12 GROUP BY title_norm HAVING COUNT(*) > 1")
    updates = []
    for _, ids in groups.fetchall():
        paper_ids = sorted(int(x) for x in ids.split(","))
        authors = {pid: {row[0] for row in conn.execute(
            "SELECT author_id FROM paper_authors WHERE paper_id = ?", (pid,))} for pid in paper_ids}
        for pid in paper_ids[1:]:
            for earlier in paper_ids:
                if earlier >= pid:
                    break
                if authors[pid] & authors[earlier]:
                    updates.append((earlier, pid))
                    break
    # chains resolve to the earliest paper of the work
    root = {}
    for earlier, pid in updates:
        root[pid] = root.get(earlier, earlier)
    conn.executemany("UPDATE papers SET work_id = ? WHERE id = ?",
                     [(r, pid) for pid, r in root.items()])
