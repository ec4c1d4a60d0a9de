"""What a reader reports when a file or a record cannot be read.

A file-level problem raises `SourceError` (nothing of that file goes in); a record-level
problem is yielded as a `BadRecord` in the record stream (the other records go in), so one
bad record never costs a file and the user is told which record and why.
"""

from __future__ import annotations

from dataclasses import dataclass


class SourceError(Exception):
    """A whole file cannot be read: truncated gzip, not JSON, not a list, ..."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason

    def __reduce__(self) -> tuple:
        # the default rebuilds from `args` (the joined message): a reader process sends these
        return (SourceError, (self.path, self.reason))


@dataclass(frozen=True)
class BadRecord:
    """One record of a file that was skipped, with the reason a user can act on."""

    source: str
    index: int
    reason: str

    def __str__(self) -> str:
        return f"{self.source}: record {self.index}: {self.reason}"
