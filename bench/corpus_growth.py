"""The bundled corpus before and after a regeneration, measured in one run (issue 26).

    flock /tmp/paperfind-heavy.lock .venv/bin/python -m bench.corpus_growth --base 4aa0c4a [--no-write]

`before` is the corpus of `--base` (its single `default-corpus.jsonl.gz`, read from git, or its
shards) with the vectors that ref shipped; `after` is the working tree's `paperfind/data/corpus/`
with its vector shards assembled. Both are ingested by this tree's code, so only the data
differs. Printed and recorded in bench/RESULTS.md:

- per venue-year: papers, with abstract, with vector, with institutions, with citations, before
  and after (venue-years that did not change are summed in one line);
- every dev set in lexical and hybrid mode on both corpora (a larger corpus has more
  near-duplicates: the rows that fall are the ones to read);
- known titles of the new venues (R@1, MRR@10), chosen in the after corpus and asked of both:
  the rule, so the set is rebuilt from the data alike every time, is the 10 most cited papers of each of CVPR, ICCV, ECCV, ACL and NAACL where
  the paper lists give Google Scholar counts, and for EMNLP (no counts in any source) the 10
  papers of the smallest sha1 of their key; the query is the exact title, the target the paper;
- the seed author page (../shared/seeds/000_*.txt, Huishuai Zhang): for each of its cards that
  carries an institution tag, the first 30 words of the abstract (its opening, the rule that
  gives issue 26's "3 of 8 today") as the query; a hit is a top result whose authors include
  the card's first author;
- what fell: for each set and mode, the queries whose target ranks lower after, and where the
  papers now above it come from (a venue-year the before corpus lacks, one whose abstracts
  the regeneration filled, or one that did not change).
"""

from __future__ import annotations

import argparse
import hashlib
import re
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from bench import corpus
from bench.metrics import reciprocal_rank, score_ranked
from bench.results import append_results

NEW_VENUES = ("cvpr", "iccv", "eccv", "acl", "naacl", "emnlp")
SEEDS = corpus.REPO.parent / "shared" / "seeds"
MODES = ("lexical", "hybrid")
DEPTH = 100


def build(name: str, files: list[Path], vectors_from) -> tuple[Path, Path]:
    """(database, vector dir) of a corpus in bench/out, made once by this tree's code."""
    from paperfind.core import Paperfind
    from paperfind.settings import Settings

    db = corpus.CACHE / f"growth-{name}.db"
    vec = Path(f"{db}.vectors")
    if not db.exists():
        partial = db.with_name(db.name + ".partial")
        for stale in partial.parent.glob(partial.name + "*"):
            shutil.rmtree(stale) if stale.is_dir() else stale.unlink()
        app = Paperfind(Settings(db_path=partial, semantic=False))
        app.ingest(files, progress=False, build_index=False, vectors=False)
        app.store().close()
        shutil.move(partial, db)
        shutil.rmtree(Path(f"{partial}.index"), ignore_errors=True)
    if not vec.exists():
        vectors_from(vec)
    return db, vec


def before_files(base: str) -> tuple[list[Path], Path]:
    """The corpus files of `base` (materialised from git) and the vector folder it shipped."""
    out = corpus.CACHE / f"growth-{base}"
    out.mkdir(parents=True, exist_ok=True)
    listing = subprocess.run(["git", "-C", str(corpus.REPO), "ls-tree", "-r", "--name-only", base,
                              "paperfind/data/"], capture_output=True, text=True, check=True).stdout.split()
    wanted = [p for p in listing if p.endswith(".jsonl.gz")]
    files = []
    for rel in wanted:
        target = out / Path(rel).name
        if not target.exists():
            blob = subprocess.run(["git", "-C", str(corpus.REPO), "show", f"{base}:{rel}"],
                                  capture_output=True, check=True).stdout
            target.write_bytes(blob)
        files.append(target)
    return files, corpus.REPO / "paperfind" / "data" / "default-corpus.vectors"


def coverage(db: Path, vec: Path) -> dict[tuple[str, int], tuple[int, ...]]:
    from paperfind.index.vectors import VectorIndex

    with_vector = set(VectorIndex.open(vec, use_ann=False).keys)
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    rows = {}
    for venue, year, keys, abstracts, insts, cited in conn.execute(
            "SELECT venue, year, group_concat(key, ' '), SUM(length(abstract) > 50), "
            "SUM(EXISTS(SELECT 1 FROM paper_affiliations a WHERE a.paper_id = p.id AND a.institution IS NOT NULL)), "
            "SUM(citations IS NOT NULL) FROM papers p GROUP BY venue, year"):
        keys = keys.split(" ")
        rows[(venue, year)] = (len(keys), abstracts, sum(k in with_vector for k in keys), insts, cited)
    conn.close()
    return rows


def coverage_table(before: dict, after: dict) -> str:
    from paperfind.catalog.venues import display_name

    lines = ["| venue-year | papers | with abstract | with vector | with institutions | with citations |",
             "|---|---:|---:|---:|---:|---:|"]
    same = [0] * 5
    for vy in sorted(set(before) | set(after)):
        b, a = before.get(vy, (0,) * 5), after.get(vy, (0,) * 5)
        if a == b:
            same = [s + x for s, x in zip(same, a)]
            continue
        cells = " | ".join(f"{x:,}" if x == y else f"{x:,} → {y:,}" for x, y in zip(b, a))
        lines.append(f"| {display_name(vy[0])} {vy[1]} | {cells} |")
    lines.append("| the other venue-years (unchanged) | " + " | ".join(f"{x:,}" for x in same) + " |")
    total_b = [sum(v[i] for v in before.values()) for i in range(5)]
    total_a = [sum(v[i] for v in after.values()) for i in range(5)]
    lines.append("| **all** | " + " | ".join(f"{x:,} → {y:,}" for x, y in zip(total_b, total_a)) + " |")
    return "\n".join(lines)


def known_titles(db: Path) -> list[dict]:
    """The new venues' known-item title queries, by the rule of the module docstring."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    items = []
    for venue in NEW_VENUES:
        rows = conn.execute("SELECT key, title, citations FROM papers WHERE venue = ? AND length(title) > 15",
                            (venue,)).fetchall()
        cited = sorted((r for r in rows if r[2] is not None), key=lambda r: (-r[2], r[0]))
        chosen = cited[:10] if cited else sorted(rows, key=lambda r: hashlib.sha1(r[0].encode()).hexdigest())[:10]
        items += [{"qid": f"{venue}-{i}", "query": title, "key": key} for i, (key, title, _) in enumerate(chosen)]
    conn.close()
    return items


def seed_cards() -> list[dict]:
    """The tagged cards of the seed author page: the first author and the abstract's opening."""
    page = next(SEEDS.glob("000_*.txt")).read_text(encoding="utf-8").split("\n")
    cards = []
    for i, line in enumerate(page):
        if " · " in line and i + 2 < len(page) and page[i + 2].strip():
            first = line.split(" · ")[0].split(",")[0].strip()
            words = page[i + 2].split()[:30]
            cards.append({"first_author": first, "query": " ".join(words)})
    return cards


def measure(db: Path, vec: Path, label: str, titles: list[dict]) -> dict:
    from paperfind.search.response import SearchRequest
    from paperfind.search.settings import SearchSettings

    store, root = corpus.ensure_index(db.stem, cache=db.parent)
    searcher = corpus.open_searcher(root, store, SearchSettings(result_cache=0), vector_dir=vec)
    out: dict = {"papers": store.paper_count(), "sets": {}, "titles": {}, "seed": {}, "runs": {}}
    for mode in MODES:
        for name in corpus.SETS:
            items = corpus.load_set(name)
            ranked = {it["qid"]: [r["key"] for r in searcher.search(
                SearchRequest(q=it["query"], limit=DEPTH, mode=mode)).results] for it in items}
            options = ("--lenient",) if name == "author_dev" else ()
            out["sets"][(name, mode)] = score_ranked(name, ranked, *options)["metrics"]
            out["runs"][(name, mode)] = ranked
        rr = []
        for it in titles:
            keys = [r["key"] for r in searcher.search(SearchRequest(q=it["query"], limit=10, mode=mode)).results]
            rr.append(reciprocal_rank(keys, [it["key"]]))
        out["titles"][mode] = (sum(r == 1.0 for r in rr) / len(rr), sum(rr) / len(rr), len(rr))
        hits = []
        for card in seed_cards():
            top = searcher.search(SearchRequest(q=card["query"], limit=1, mode=mode)).results
            authors = [a["name"] if isinstance(a, dict) else a for a in (top[0].get("authors") or [])] if top else []
            hits.append(any(card["first_author"].casefold() == str(a).casefold() for a in authors))
        out["seed"][mode] = (sum(hits), len(hits))
        print(f"{label} {mode} done", file=sys.stderr, flush=True)
    return out


def fallen(before: dict, after: dict, changed: set[tuple[str, int]], new: set[tuple[str, int]]) -> str:
    """Per set and mode: queries whose first relevant paper ranks lower after, and the papers
    that now rank above it, by where they come from."""
    lines = ["| set | mode | queries that fell | papers now above the target: new venue-years / "
             "venue-years with new abstracts / unchanged venue-years |", "|---|---|---:|---|"]

    def venue_year(key: str) -> tuple[str, int]:
        m = re.match(r"([a-z]+)(\d{4}):", key)
        return (m.group(1), int(m.group(2))) if m else ("", 0)

    for (name, mode), runs in before["runs"].items():
        relevant = {it["qid"]: set(it["relevant"]) for it in corpus.load_set(name)}
        fell, above = 0, [0, 0, 0]
        for qid, keys in runs.items():
            after_keys = after["runs"][(name, mode)][qid]
            rb, ra = reciprocal_rank(keys, relevant[qid]), reciprocal_rank(after_keys, relevant[qid])
            if ra >= rb:
                continue
            fell += 1
            cut = next((i for i, k in enumerate(after_keys[:10]) if k in relevant[qid]), 10)
            for key in after_keys[:cut]:
                if key in keys[:10]:
                    continue  # it was above or near before too
                vy = venue_year(key)
                above[0 if vy in new else 1 if vy in changed else 2] += 1
        lines.append(f"| {name} | {mode} | {fell} of {len(runs)} | {above[0]} / {above[1]} / {above[2]} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    from paperfind.index.vector_shards import assemble, base_of

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", required=True, help="the ref whose bundled corpus is `before`")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args(argv)
    files, base_vectors = before_files(args.base)
    before = build(f"before-{args.base}", files, lambda out: shutil.copytree(
        base_vectors, out, ignore=shutil.ignore_patterns("SYNCED")))
    shards = corpus.BUNDLED_VECTORS
    after = build("after", [corpus.BUNDLED], lambda out: assemble(shards, base_of(shards), out))
    cov = coverage_table(coverage(*before), coverage(*after))
    titles = known_titles(after[0])  # the same queries of both: the before corpus lacks their venues
    results = {"before": measure(*before, "before", titles), "after": measure(*after, "after", titles)}
    b, a = results["before"], results["after"]
    lines = [f"| set | mode | metric | before ({b['papers']:,} papers) | after ({a['papers']:,}) | change |",
             "|---|---|---|---:|---:|---:|"]
    for (name, mode), fig in b["sets"].items():
        for metric in ("nDCG@10", "MRR@10", "R@10"):
            x, y = fig[metric], a["sets"][(name, mode)][metric]
            lines.append(f"| {name}{' (lenient)' if name == 'author_dev' else ''} | {mode} | {metric} | "
                         f"{x:.3f} | {y:.3f} | {y - x:+.3f} |")
    for mode in MODES:
        for label, key in (("new venues' known titles: R@1 / MRR@10", "titles"),):
            x, y = b[key][mode], a[key][mode]
            lines.append(f"| {label} ({y[2]} titles) | {mode} | R@1, MRR@10 | {x[0]:.3f}, {x[1]:.3f} | "
                         f"{y[0]:.3f}, {y[1]:.3f} | |")
        x, y = b["seed"][mode], a["seed"][mode]
        lines.append(f"| seed author page: tagged cards found by their abstract's opening, with their "
                     f"first author | {mode} | hits | {x[0]} of {x[1]} | {y[0]} of {y[1]} | |")
    quality = "\n".join(lines)
    cov_before, cov_after = coverage(*before), coverage(*after)
    new = set(cov_after) - set(cov_before)
    changed = {vy for vy in cov_after if vy in cov_before and cov_after[vy] != cov_before[vy]}
    quality += "\n\n" + fallen(b, a, changed, new)
    print(cov)
    print(quality)
    if not args.no_write:
        intro = (f"{time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC, `python -m bench.corpus_growth "
                 f"--base {args.base}`: the bundled corpus of {args.base} (before) and of the working tree "
                 "(after), each ingested by the working tree's code, with the vectors each ships; "
                 "response cache off.\n\n")
        append_results("Corpus growth: the bundled corpus before and after its regeneration (issue 26)",
                       intro + cov + "\n\n" + quality)
    return 0


if __name__ == "__main__":
    sys.exit(main())
