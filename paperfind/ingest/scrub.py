"""The last step of reading any source: no NUL, bidi or zero-width control in what is stored.

Readers clean their text their own way (paperlists and the extra sources with `clean_text`,
the export not at all, since it is normalised already), so the characters nobody sees but every
page and terminal obeys are removed here, once, for every reader: `read_source` passes each
file's prepared records through `scrub_prepared` before the store sees them. U+202E in a name
("Alice" followed by U+202E and "Evil") printed her co-authors backwards; a NUL from a JSON
"\\u0000" escape ended the text in C-based tools. See `paperfind.text.clean.strip_invisible`
for the characters, and for ZWNJ/ZWJ, which Persian, the Indic scripts and emoji need and which
are kept there.

The same step reads back the `\\u00XX` escapes of letters that a source kept as text
("Universit u00e9 de Montr u00e9al", `paperfind.text.clean.repair_lost_escapes`), in titles,
abstracts, names and affiliations, and resolves an affiliation it repaired again: the escaped
strings had become institutions of their own (`university-of-montrel`).

And it puts back the spaces a source lost at the PDF's line breaks of an abstract
("recurrent orconvolutional neural", "entirely.Experiments", `paperfind.text.joins`): every
reader's abstracts, the bundled corpus's included, which is read with them repaired without
being written again.

Ids (`source_id`, `forum_id`, `key`, profile ids) are scrubbed too: the two readers that check
ids (paperlists, the export) already refuse such an id (`usable_id`), the others did not.
"""

from __future__ import annotations

import dataclasses
import re

from paperfind.catalog.institutions import resolve_affiliation
from paperfind.model import Affiliation, AuthorSlot, BadRecord, Record, content_digest
from paperfind.store.db import Prepared
from paperfind.text.clean import INVISIBLE_CHARS, repair_lost_escapes, strip_invisible
from paperfind.text.joins import repair_joins

_TEXTS = ("title", "abstract", "tldr", "status", "track", "area", "bibtex", "source_id",
          "forum_id", "key")
_LOST_ESCAPE_HINT = re.compile(r"[A-Za-z \\\\]u00[c-f][0-9a-f]", re.IGNORECASE)
_PROSE = ("title", "abstract", "tldr")  # where a lost escape is read back (not ids, not BibTeX)
# what `strip_invisible` may take out, ZWNJ and ZWJ included (it decides about those)
_MAY_STRIP = re.compile(f"[{INVISIBLE_CHARS}\u200c\u200d]")


def scrub_prepared(prepared: Prepared, source: str) -> Prepared:
    """`prepared` with every record scrubbed (`scrub_record`), its content and hash made again.

    Told from the content JSON `prepare` made anyway, one scan a record in C: three records in
    four are ASCII (and JSON writes a NUL as the six characters of its escape), and scrubbing
    field by field in Python cost 4 s of the bundled corpus's reading, this 0.8 s (preparing
    its records takes 11 s)."""
    stored: list[tuple[Record, str, str]] = []
    changed = False
    for entry in prepared.stored:
        record, content, _ = entry
        if not (_may_hold(content) or _may_hold(record.key)):
            joined = repair_joins(record.abstract)
            if joined is not record.abstract:
                changed = True
                record.abstract = joined
                content = record.content_json()
                entry = (record, content, content_digest(content))
            stored.append(entry)
            continue
        changed = True
        scrubbed = scrub_record(record, source)
        if isinstance(scrubbed, BadRecord):
            prepared.skipped.append(scrubbed)
            continue
        content = scrubbed.content_json()
        stored.append((scrubbed, content, content_digest(content)))
    if changed:
        prepared.stored = stored
        prepared.skipped.sort(key=lambda bad: bad.index)  # file order, as `prepare` keeps them
    return prepared


def _may_hold(text: str) -> bool:
    # JSON writes a NUL as its six-character escape, printable: looked for whatever the script
    if "\\u0000" in text or "\x00" in text:
        return True
    if ("u00" in text or "U00" in text) and _LOST_ESCAPE_HINT.search(text):
        return True
    if text.isascii():
        return False
    # every character it strips is a format (Cf) one, which is not printable: the test is 2.5
    # times faster than the search, which it leaves to one text in fifty of the non-ASCII ones
    return not text.isprintable() and _MAY_STRIP.search(text) is not None


def scrub_record(record: Record, source: str) -> Record | BadRecord:
    """The record with NUL and invisible controls gone from every text it stores (changed in
    place); a `BadRecord` of file `source` when its title was nothing else. An author name,
    keyword, link or affiliation that was nothing else is dropped."""
    for name in _TEXTS:
        value = getattr(record, name)
        if value:
            value = strip_invisible(value)
            setattr(record, name, repair_lost_escapes(value) if name in _PROSE else value)
    record.abstract = repair_joins(record.abstract)
    if not record.title:
        return BadRecord(source, record.source_index,
                         "field 'title' holds only invisible characters")
    if record.authors:
        record.authors = [slot for slot in record.authors if _scrub_slot(slot)]
    record.paper_affiliations = _affiliations(record.paper_affiliations)
    keywords = [strip_invisible(k) for k in record.keywords]
    if keywords != record.keywords:
        record.keywords = list(dict.fromkeys(k for k in keywords if k))
    links = {strip_invisible(n): strip_invisible(u) for n, u in record.links.items()}
    if links != record.links:
        record.links = {n: u for n, u in links.items() if n and u}
    return record


def _scrub_slot(slot: AuthorSlot) -> bool:
    """Scrub one author slot in place; False when its name was only invisible characters."""
    name = repair_lost_escapes(strip_invisible(slot.name))
    if name != slot.name:
        if not name:
            return False
        slot.name = name
    slot.profile_id = strip_invisible(slot.profile_id)
    slot.alias_profile_id = strip_invisible(slot.alias_profile_id)
    slot.affiliations = _affiliations(slot.affiliations)
    return True


def _affiliations(affiliations: list[Affiliation]) -> list[Affiliation]:
    if not affiliations:
        return affiliations
    result = []
    for aff in affiliations:
        parts = {name: strip_invisible(value) for name, value in aff.__dict__.items()}
        repaired = {name: repair_lost_escapes(parts[name]) for name in ("raw", "name")}
        if parts != aff.__dict__ or repaired != {"raw": parts["raw"], "name": parts["name"]}:
            if not (parts["raw"] or parts["name"]):
                continue
            aff = dataclasses.replace(aff, **parts)
            if repaired["raw"] != parts["raw"] or repaired["name"] != parts["name"]:
                aff = _resolved_again(aff, repaired["raw"], repaired["name"])
        result.append(aff)
    return result


def _resolved_again(aff: Affiliation, raw: str, name: str) -> Affiliation:
    """The affiliation resolved again from its repaired raw string, its stored name read as the
    norm (as paperlists gives it) as it was, since the resolver trusts a mangled norm less
    than the raw string; the country a source gave kept, the name shown repaired."""
    resolved = resolve_affiliation(raw, aff.name, "", aff.country)
    if not resolved.slug:
        return dataclasses.replace(aff, raw=raw, name=name)
    return resolved if resolved.name != aff.name else dataclasses.replace(resolved, name=name)
