"""What the sources name and people expect to read: venues and institutions, curated once."""
