"""The search index: derived from the store, rebuilt from it at any time (index/ of the pipeline)."""
