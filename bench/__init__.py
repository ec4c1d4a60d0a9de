"""paperfind's benches: each `python -m bench.NAME` prints a table and records it in bench/RESULTS.md.

Shared parts: `corpus` (the corpora as databases built by paperfind's own ingest, and the dev
sets), `metrics` (runs, scoring, percentiles), `baselines` (bm25s), `server` (a real
`paperfind serve` for the HTTP benches) and `results` (the results file).
"""
