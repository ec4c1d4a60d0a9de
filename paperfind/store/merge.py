"""Combine the records several sources give for one paper into the paper's fields.

A first version: the highest-priority record (the first) wins each field, and an empty
field is filled from the next record that has it. The recent-venue adapters refine the
per-field choice (abstract from one file, ordered authors and affiliations from another).
"""

from __future__ import annotations

import dataclasses

from paperfind.model import Record


def merge_records(records: list[Record]) -> Record:
    """The paper as the best available sources describe it; `records` best source first."""
    if not records:
        raise ValueError("merge_records needs at least one record")
    merged = dataclasses.replace(records[0])
    for other in records[1:]:
        for f in dataclasses.fields(Record):
            if f.name in ("source", "source_index", "key", "authors_ordered"):
                continue
            if not getattr(merged, f.name) and getattr(other, f.name):
                setattr(merged, f.name, getattr(other, f.name))
                if f.name == "authors":
                    merged.authors_ordered = other.authors_ordered
    return merged
