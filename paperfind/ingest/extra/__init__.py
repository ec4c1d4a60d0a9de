"""Readers of the recent-venue sources in ../shared/data/extra, one module per source shape.

Their rows (which files, priority, title-only) are in `paperfind.ingest.readers.READERS`.
"""
