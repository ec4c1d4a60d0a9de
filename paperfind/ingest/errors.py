"""What a reader raises when a whole file cannot be read (nothing of that file goes in).

A record-level problem is a `paperfind.model.BadRecord` in the record stream instead.
"""

from __future__ import annotations

import json


class SourceError(Exception):
    """A whole file cannot be read: truncated gzip, not JSON, not a list, ..."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason

    def __reduce__(self) -> tuple:
        # the default rebuilds from `args` (the joined message): a reader process sends these
        return (SourceError, (self.path, self.reason))


def json_problem(exc: json.JSONDecodeError, line: bool = True) -> str:
    """The decoder's complaint and where, said once: "Expecting value at line 2, column 12".

    Two of `json`'s messages end in "at" already ("Unterminated string starting at", "Invalid
    control character at"), which a message adding its own "at column" would double. `line`
    False leaves the line out, for a caller that decodes one line of a file at a time.
    """
    where = f"line {exc.lineno}, column {exc.colno}" if line else f"column {exc.colno}"
    return f"{exc.msg.removesuffix(' at')} at {where}"
