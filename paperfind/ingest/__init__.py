"""Ingest: read source files into normalised `Record`s (one reader per source format)."""
