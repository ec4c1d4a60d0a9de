"""Milvus filter expressions, built from escaped values only.

A Milvus filter is a string in Milvus's own expression language (`year >= 2015 and venue in
["iclr"]`). Nothing a user typed is ever pasted into one: field names come from our schema,
numbers are formatted from ints, and every string is a quoted literal whose quotes and
backslashes are escaped, so `"]) or ((` stays a venue that matches nothing. Filter values are
moreover resolved to labels the collection holds before they get here (`resolve_labels`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

# the fields a filter may name (the collection's scalar fields; see paperfind.milvus.schema)
SCALAR_FIELDS = frozenset({"key", "work", "venue", "year", "status", "area", "track",
                           "institutions", "author_ids", "citations", "rating", "has_vector"})
ARRAY_FIELDS = frozenset({"institutions", "author_ids"})
MAX_VALUES = 10_000  # longer lists are a caller's bug, not a query to send


class ExpressionError(ValueError):
    """An expression that would name an unknown field or hold a value we cannot write safely."""


def literal(value: str | int) -> str:
    """A quoted string literal, or an integer written by Python. Backslash, double quote and
    the line breaks are escaped (the escapes every Milvus parser knows: Milvus Lite has no
    `\\u`); any other character, control characters included, cannot end a literal and
    stands for itself."""
    if isinstance(value, bool):
        raise ExpressionError("booleans are written with `true`/`false` fields, not literals")
    if isinstance(value, int):
        return str(int(value))
    if not isinstance(value, str):
        raise ExpressionError(f"cannot write a {type(value).__name__} into an expression")
    out = []
    for ch in value:
        if ch == "\\":
            out.append("\\\\")
        elif ch == '"':
            out.append('\\"')
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _field(name: str) -> str:
    if name not in SCALAR_FIELDS:
        raise ExpressionError(f"{name!r} is not a filterable field of the collection")
    return name


def _values(values: Iterable[str | int]) -> list[str]:
    written = [literal(v) for v in values]
    if len(written) > MAX_VALUES:
        raise ExpressionError(f"{len(written)} values in one filter (at most {MAX_VALUES})")
    return written


def one_of(field: str, values: Sequence[str | int]) -> str:
    """`field` equals one of `values` (an array field: holds any of them). No values: false."""
    name = _field(field)
    if not values:
        return "false"
    listed = "[" + ", ".join(_values(values)) + "]"
    if name in ARRAY_FIELDS:
        return f"array_contains_any({name}, {listed})"
    return f"{name} in {listed}"


def none_of(field: str, values: Sequence[str | int]) -> str:
    """Neither of `values` (what `-term` style exclusions by key use)."""
    if not values:
        return "true"
    return f"not ({one_of(field, values)})"


def at_least(field: str, value: int) -> str:
    return f"{_field(field)} >= {int(value)}"


def at_most(field: str, value: int) -> str:
    return f"{_field(field)} <= {int(value)}"


def equals(field: str, value: str | int) -> str:
    return f"{_field(field)} == {literal(value)}"


def all_of(*parts: str | None) -> str:
    """The conjunction of the non-empty parts, each parenthesised; "" when there are none."""
    kept = [p for p in parts if p]
    if not kept:
        return ""
    if len(kept) == 1:
        return kept[0]
    return " and ".join(f"({p})" for p in kept)
