"""The institution resolver on affiliations as the bundled corpus stores them, base tree against
this one (issue 29).

    .venv/bin/python -m bench.institution_sample [--base /work/main] [--draw]

The labelled sample (tests/catalog/data/affiliations_corpus_sample.tsv, the rule in its .md) is
200 distinct stored affiliations (raw string, stored name, stored country) of the bundled
corpus, drawn with `random.Random(29).sample` from all of them sorted; `--draw` draws it again
and says whether the file holds the same strings. Each tree resolves every stored affiliation
as the corpus reader does (`resolve_affiliation(raw, name, "", country)`) in a process of its
own (`PYTHONPATH` = the tree), so the two resolvers run in one run on the same strings.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import os
import random
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

from bench.results import append_results

HERE = Path(__file__).resolve().parent
SAMPLE = HERE.parent / "tests" / "catalog" / "data" / "affiliations_corpus_sample.tsv"
CORPUS = HERE.parent / "paperfind" / "data" / "corpus"
SEED, SIZE = 29, 200

# run in each tree's own process: every distinct stored affiliation -> [slug, affiliations]
_RESOLVE_ALL = """
import gzip, json, sys
from collections import Counter
from pathlib import Path
from paperfind.catalog.institutions import resolve_affiliation
count = Counter()
for path in sorted(Path(sys.argv[1]).glob('*.jsonl.gz')):
    with gzip.open(path, 'rt', encoding='utf-8') as fh:
        for line in fh:
            r = json.loads(line)
            for f in [f for a in r['authors'] for f in a['affiliations']] + list(r.get('paper_affiliations') or []):
                count[(f.get('raw') or '', f.get('name') or '', f.get('country') or '')] += 1
json.dump([[k, resolve_affiliation(k[0], k[1], '', k[2]).slug, n] for k, n in count.items()],
          open(sys.argv[2], 'w', encoding='utf-8'))
"""


def stored_affiliations() -> dict[tuple[str, str, str], str]:
    """Every distinct (raw, stored name, stored country) of the bundled corpus -> its first paper."""
    seen: dict[tuple[str, str, str], str] = {}
    for path in sorted(CORPUS.glob("*.jsonl.gz")):
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            for line in fh:
                record = json.loads(line)
                for aff in [f for a in record["authors"] for f in a["affiliations"]] + list(
                        record.get("paper_affiliations") or []):
                    seen.setdefault((aff.get("raw") or "", aff.get("name") or "", aff.get("country") or ""),
                                    record["key"])
    return seen


def draw() -> list[tuple[str, str, str]]:
    return random.Random(SEED).sample(sorted(stored_affiliations()), SIZE)


def labelled() -> list[dict[str, str]]:
    with open(SAMPLE, encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))


def resolve_all(tree: Path, out: Path) -> dict[tuple[str, str, str], tuple[str, int]]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    subprocess.run([sys.executable, "-c", _RESOLVE_ALL, str(CORPUS), str(out)], env=env, check=True,
                   cwd=out.parent)
    return {tuple(k): (slug, n) for k, slug, n in json.loads(out.read_text("utf-8"))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--base", type=Path, default=Path("/work/main"))
    parser.add_argument("--draw", action="store_true", help="draw the sample again and compare")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    rows = labelled()
    if args.draw:
        same = draw() == [(r["raw"], r["name"], r["country"]) for r in rows]
        print(f"the sample file holds {'the same' if same else 'OTHER'} strings as the draw")
    with tempfile.TemporaryDirectory(prefix="pf-inst-") as tmp:
        results = {name: resolve_all(tree, Path(tmp) / f"{name}.json")
                   for name, tree in (("base", args.base.resolve()), ("tree", HERE.parent))}
    right = {name: sum(res[(r["raw"], r["name"], r["country"])][0] == r["expected"] for r in rows)
             for name, res in results.items()}
    base, tree = results["base"], results["tree"]
    changed = [k for k in base if base[k][0] != tree[k][0]]
    emptied = [k for k in changed if not tree[k][0]]
    slugs = {name: len({s for s, _ in res.values() if s}) for name, res in results.items()}
    wrong_after = Counter(r["expected"] or "(none)" for r in rows
                          if tree[(r["raw"], r["name"], r["country"])][0] != r["expected"])
    table = "\n".join([
        "| | base | this tree |", "|---|---:|---:|",
        f"| labelled sample: right of {len(rows)} | {right['base']} | {right['tree']} |",
        f"| bundled corpus: distinct slugs | {slugs['base']:,} | {slugs['tree']:,} |",
        f"| stored affiliations (distinct strings) | {sum(n for _, n in base.values()):,} ({len(base):,}) | same |",
        f"| ... resolved otherwise than base (distinct) | | {sum(base[k][1] for k in changed):,} ({len(changed):,}) |",
        f"| ... of which now name no institution (distinct) | | {sum(base[k][1] for k in emptied):,} ({len(emptied):,}) |",
    ]) + (f"\n\nStill wrong after, by expected slug: {dict(sorted(wrong_after.items()))}. "
          f"base = {args.base.resolve()}; `python -m bench.institution_sample`; the sample and its "
          "rule: tests/catalog/data/affiliations_corpus_sample.{tsv,md}.\n")
    print(table)
    if not args.no_write:
        append_results("Institutions: the resolver on a sample of stored affiliations (issue 29)", table)


if __name__ == "__main__":
    main()
