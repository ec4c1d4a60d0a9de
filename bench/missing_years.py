"""The venue-years added from the 2019-2023 sources: what the sources hold, what we store, why
they differ. Ingests just those venue-years' files into a fresh database, in one process.

    .venv/bin/python bench/missing_years.py [--no-write]

For each venue-year: the papers of its spine (the source that lists every paper: the Paper Copilot
list with forum ids, the proceedings, airas), how many records each other source gave and how many
of those paired with no paper (the notes ingest prints), the papers stored and how many have an
abstract. A stored count above the spine's is exactly the title-only records that paired with
nothing, each reported by ingest with its title.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import append_results  # noqa: E402

EXTRA = Path(__file__).resolve().parents[2] / "shared" / "data" / "extra"
H = "papercopilot-paperlists-history"
# venue-year → (spine file, other files), relative to extra/
YEARS: dict[tuple[str, int], tuple[str, list[str]]] = {
    ("iclr", 2019): (f"{H}/iclr2019.json.gz", []),
    ("iclr", 2020): (f"{H}/iclr2020.json.gz", ["iclr2020-virtual-site/papers.json.gz",
                                               "iclr2020-virtual-site/oral_schedule.yml.gz"]),
    ("iclr", 2021): (f"{H}/iclr2021.json.gz", ["iclr2021-evanzd/paperlist.tsv.gz",
                                               "iclr2021-evanzd/ratings.tsv.gz"]),
    ("iclr", 2022): (f"{H}/iclr2022.json.gz", ["iclr2022-evanzd-pr3/paperlist-end.tsv.gz"]),
    ("iclr", 2023): (f"{H}/iclr2023.json.gz", []),
    ("icml", 2020): ("airas-papers-db/icml-2020.json.gz", [f"{H}/icml2020.json.gz"]),
    ("icml", 2021): ("airas-papers-db/icml-2021.json.gz", [f"{H}/icml2021.json.gz"]),
    ("icml", 2022): ("airas-papers-db/icml-2022.json.gz", [f"{H}/icml2022.json.gz"]),
    ("icml", 2023): ("papercopilot-openreview/venues_icml_icml2023.json.gz",
                     ["airas-papers-db/icml-2023.json.gz"]),
    ("nips", 2019): ("neurips-proceedings-thuinanutshell/neurips_abstract_2019.csv.gz",
                     [f"{H}/nips2019.json.gz", "neurips2019-msalvaris/neurips2019.csv.gz"]),
    ("nips", 2020): ("airas-papers-db/neurips-2020.json.gz",
                     ["neurips-proceedings-thuinanutshell/neurips_abstract_2020.csv.gz",
                      f"{H}/nips2020.json.gz"]),
    ("nips", 2021): (f"{H}/nips2021.json.gz",
                     ["neurips-proceedings-thuinanutshell/neurips_abstract_2021.csv.gz"]),
}


def main() -> None:
    from paperfind.catalog.venues import display_name
    from paperfind.ingest.run import ingest_paths
    from paperfind.store import Store

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    files = sorted({EXTRA / f for spine, others in YEARS.values() for f in [spine, *others]})
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / "years.db")
        started = time.perf_counter()
        report = ingest_paths(store, files, progress=False)
        took = time.perf_counter() - started
        by_source = {Path(s.path).relative_to(EXTRA.resolve()).as_posix(): s for s in report.sources}
        stored = {(v, y): (n, a) for v, y, n, a in store.conn.execute(
            "SELECT venue, year, COUNT(*), SUM(length(abstract) > 50) FROM papers GROUP BY venue, year")}
        statuses = {(v, y): Counter() for v, y in YEARS}
        for v, y, status, n in store.conn.execute("SELECT venue, year, status, COUNT(*) FROM papers "
                                                  "GROUP BY venue, year, status"):
            statuses[(v, y)][status or "none"] = n
    lines = ["| venue-year | spine: papers | other sources: records (unpaired) | stored | with abstract "
             "| stored − spine, why | statuses |", "|---|---|---|---:|---:|---|---|"]
    for (venue, year), (spine, others) in YEARS.items():
        main_source = by_source[spine]
        unpaired = {o: sum("paired with no paper" in n for n in by_source[o].notes) for o in others}
        n, with_abstract = stored[(venue, year)]
        extra = n - main_source.records
        why = ("none" if extra == 0 else
               f"{sum(unpaired.values())} title-only records paired with no paper (renamed or "
               f"not in the spine), each reported by ingest" if extra == sum(unpaired.values())
               else "see ingest notes")
        listed = "; ".join(f"`{o.split('/')[-1]}` {by_source[o].records} ({unpaired[o]})" for o in others)
        lines.append(f"| {display_name(venue)} {year} | `{spine.split('/')[-1]}` {main_source.records} "
                     f"| {listed or '—'} | {n} | {with_abstract} | {extra:+d}: {why} | "
                     f"{', '.join(f'{k} {v}' for k, v in statuses[(venue, year)].most_common())} |")
    table = "\n".join(lines)
    intro = (f"`bench/missing_years.py`: the {len(files)} files of these venue-years ingested into a fresh "
             f"database in {took:.0f} s. Abstracts: > 50 characters. Records a source skipped as "
             f"duplicates (airas lists ICML 2022 twice) or without a title (5 msalvaris rows) are "
             f"not counted as records.\n\n")
    print(intro + table)
    if not args.no_write:
        append_results("The missing years: sources vs stored (issue 14)", intro + table)


if __name__ == "__main__":
    main()
