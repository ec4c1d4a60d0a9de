"""Store: the SQLite database that is the record of every paper, person and institution."""

from paperfind.store.db import SourceSummary, Store

__all__ = ["SourceSummary", "Store"]
