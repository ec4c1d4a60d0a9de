"""paperfind: a self-hostable, bilingual search portal for academic papers."""
__version__ = "0.1.0"
