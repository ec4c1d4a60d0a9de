"""What a reader raises when a whole file cannot be read (nothing of that file goes in).

A record-level problem is a `paperfind.model.BadRecord` in the record stream instead.
"""

from __future__ import annotations


class SourceError(Exception):
    """A whole file cannot be read: truncated gzip, not JSON, not a list, ..."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason

    def __reduce__(self) -> tuple:
        # the default rebuilds from `args` (the joined message): a reader process sends these
        return (SourceError, (self.path, self.reason))
