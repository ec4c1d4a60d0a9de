"""Before/after parity of a change: quality on every dev set and search latency, base vs head in one run.

    flock /tmp/paperfind-heavy.lock .venv/bin/python -m bench.parity --base s7-base [--corpus 16k,88k]
    ... -m bench.parity --base s7-base --head s7-base     # the noise: the base against itself

Each side is a source tree: the base ref checked out with `git worktree add` into a temporary
directory, and the working tree (or `--head REF`, checked out the same way). Each side runs in
its own process with its tree first on PYTHONPATH (bench/parity_worker.py, which uses only the
entry points every layout of paperfind has kept), ingests the corpus's files with its own code
into its own database (cached under <cache>/parity/ by a hash of the tree's paperfind/ sources;
the base's is reused, a changed working tree ingests afresh), builds its own index and gets a
copy of the bundled vectors. Then, for the lexical and hybrid modes:

- quality: every query of the five dev sets, 100 deep, scored by ../shared/eval-dev/score.py
  (strict, and --lenient where the set has lenient keys), and how many top-10 lists differ;
- latency: p50/p95 per query kind (bench/search_latency.py's kinds, plus Chinese), 10 results a
  page, warm, response cache off; each kind is timed in rounds, the two sides taking turns query
  by query (base then head, head then base, ...), so both see the same machine load;
- similar papers (csfcube_dev): the CSFCube papers ingested from a paperfind export file, embedded
  by `Paperfind.update_vectors` (the base's vectors are copied to the head, which re-embeds only
  papers whose text differs), each item's query paper asked for `similar` (whole paper, and its
  facet as the aspect), scored in pool mode; and the latency of those calls.

The side-by-side table is printed and appended to bench/RESULTS.md (section "Parity: ...").
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import namedtuple
from pathlib import Path

from bench import corpus, metrics
from bench.results import append_results
from bench.search_latency import make_queries

WORKER = Path(__file__).resolve().with_name("parity_worker.py")
MODES = ("lexical", "hybrid")
DEPTH = 100
STRICT = ("nDCG@10", "MRR@10", "R@1", "R@10", "R@100")
LENIENT = ("nDCG@10", "MRR@10")
LENIENT_SETS = ("tldr_dev", "author_dev", "topical_dev")  # the sets whose items list lenient keys
SIMILAR = ("nDCG@20", "MAP", "nDCG@10", "MRR@10")
KINDS = ("title fragment", "question", "author name", "typo", "filter-only", "chinese")
Doc = namedtuple("Doc", "title venue year")


def git(*args: str, cwd: Path = corpus.REPO) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


def code_hash(tree: Path) -> str:
    """A hash of a tree's paperfind/ sources (not the bundled corpus): equal code, equal database."""
    digest = hashlib.sha256()
    root = tree / "paperfind"
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        rel = path.relative_to(root).as_posix()
        if "__pycache__" in rel or rel.startswith(("data/default-corpus", "data/corpus")):
            continue
        digest.update(rel.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


class Worker:
    """One tree's paperfind in a bench/parity_worker.py process, asked one JSON line at a time:
    the client every bench that compares trees in worker processes shares."""

    def __init__(self, label: str, tree: Path, env: dict[str, str]) -> None:
        self.label, self.tree = label, tree
        self.env = dict(os.environ, PYTHONPATH=str(tree), **env)
        self.proc = self._start()

    def _start(self) -> subprocess.Popen:
        return subprocess.Popen([sys.executable, "-P", str(WORKER)], cwd=self.tree, env=self.env, text=True,
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def fresh(self) -> None:
        """A new worker process: one that ingested carries a large heap, and its searches ran
        ~7% slower than a fresh process's (base vs base at 88k)."""
        self.close()
        self.proc = self._start()

    def ask(self, op: str, **args) -> dict:
        self.proc.stdin.write(json.dumps({"op": op, **args}) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise SystemExit(f"{self.label}: the worker stopped (see its stderr above)")
        reply = json.loads(line)
        if not reply.pop("ok"):
            raise SystemExit(f"{self.label}: {op} failed: {reply['error']}")
        return reply

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.stdin.write(json.dumps({"op": "quit"}) + "\n")
            self.proc.stdin.close()
            self.proc.wait(timeout=60)


class Side(Worker):
    """One tree's paperfind over its own database of a corpus, cached by the tree's code."""

    def __init__(self, label: str, tree: Path, corpus_name: str, semantic: bool, cache: Path | None = None) -> None:
        self.dir = (cache or corpus.CACHE / "parity" / corpus_name) / code_hash(tree)
        self.db = self.dir / f"{corpus_name}.db"
        super().__init__(label, tree, {"PAPERFIND_DB": str(self.db), "PAPERFIND_SEMANTIC": "1" if semantic else "0",
                                       "PAPERFIND_EMBED_THREADS": "1"})


def prepare(side: Side, corpus_name: str, semantic: bool) -> dict:
    """Ingest the corpus into the side's own database (once per code), copy vectors, open it."""
    complete = side.dir / "COMPLETE"
    if not complete.exists():
        shutil.rmtree(side.dir, ignore_errors=True)
        side.dir.mkdir(parents=True)
        took = side.ask("ingest", files=[str(f) for f in corpus.files(corpus_name)])["seconds"]
        complete.write_text(f"{side.label}\n", encoding="utf-8")
        print(f"{side.label}: ingested {corpus_name} in {took:.0f} s", file=sys.stderr, flush=True)
        side.fresh()
    complete.touch()  # used now: `forget_unused` keeps it
    vectors = Path(str(side.db) + ".vectors")
    if semantic and not vectors.exists():
        corpus.copy_bundled_vectors(vectors)
    opened = side.ask("open")
    if Path(opened["paperfind"]) != (side.tree / "paperfind").resolve():
        raise SystemExit(f"{side.label}: imported paperfind from {opened['paperfind']}, not {side.tree}")
    if not opened["cache_off"]:  # the timed rounds repeat queries: they would time cache hits
        raise SystemExit(f"{side.label}: could not turn the response cache off (searcher.cache.size): "
                         "bench/parity_worker.py must learn where this tree keeps it")
    print(f"{side.label}: {opened['papers']:,} papers, index ready in {opened['index_seconds']:.0f} s, "
          f"warm {opened['warm']}", file=sys.stderr, flush=True)
    return opened


def csfcube_export(out: Path) -> Path:
    """The CSFCube papers as a paperfind export file (keys `csfcube<year>:<id>`, read back by
    `csfcube_key`), the format every layout of paperfind reads."""
    path = out / "csfcube.jsonl"
    if not path.exists():
        out.mkdir(parents=True, exist_ok=True)
        lines = []
        for paper in corpus.load_set("csfcube_dev_corpus"):
            year = int(paper["year"]) if str(paper.get("year", "")).isdigit() else 2000
            lines.append(json.dumps({"venue": "csfcube", "year": year, "source_id": paper["paper_id"],
                                     "title": paper["title"], "abstract": paper["abstract"],
                                     "key": f"csfcube{year}:{paper['paper_id']}"}))
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def csfcube_key(key: str) -> str:
    return "csfcube:" + key.split(":", 1)[1]


def similar(sides: list[Side], rounds: int) -> tuple[list, list]:
    """csfcube_dev through `similar` on both sides: quality (pool mode) and latency."""
    items = corpus.load_set("csfcube_dev")
    ours = {p["key"]: f"csfcube{int(p['year']) if str(p.get('year', '')).isdigit() else 2000}:{p['paper_id']}"
            for p in corpus.load_set("csfcube_dev_corpus")}
    rows, timing = [], []
    for label, aspect_of in (("whole paper", lambda it: None), ("facet as aspect", lambda it: it["facet"])):
        asked = [[it["qid"], ours[it["query_key"]], aspect_of(it)] for it in items]
        scored, ranked = [], []
        for side in sides:
            got = side.ask("similar", items=asked, limit=300)["ranked"]
            got = {q: [csfcube_key(k) for k in keys] for q, keys in got.items()}
            ranked.append(got)
            figures = metrics.score_ranked("csfcube_dev", got, "--by", "facet")
            scored.append([figures["metrics"][m] for m in SIMILAR] +
                          [figures["by"][f]["nDCG@20"] for f in ("background", "method", "result")])
        differ = sum(ranked[0][q][:10] != ranked[1][q][:10] for q, *_ in asked)
        rows.append([label, [list(pair) for pair in zip(*scored)], differ, len(asked)])
        samples = alternate(sides, len(asked), rounds, lambda side, j: side.ask(
            "similar", items=[asked[j]], limit=10, timed=True)["ms"])
        timing.append([f"similar, {label}", "hybrid", len(asked),
                       [(metrics.percentile(s, 50), metrics.percentile(s, 95)) for s in samples]])
        print(f"csfcube_dev {label}: top-10 lists differing {differ} of {len(asked)}", file=sys.stderr, flush=True)
    return rows, timing


def prepare_csfcube(sides: list[Side]) -> list[dict]:
    """Each side ingests the export and embeds it; the head starts from the base's vectors."""
    export = csfcube_export(corpus.CACHE / "parity" / "csfcube")
    opened = []
    for side in sides:
        complete = side.dir / "COMPLETE"
        if not complete.exists():
            shutil.rmtree(side.dir, ignore_errors=True)
            side.dir.mkdir(parents=True)
            side.ask("ingest", files=[str(export)])
            vectors, base_vectors = Path(str(side.db) + ".vectors"), Path(str(sides[0].db) + ".vectors")
            if side is not sides[0] and base_vectors.exists() and not vectors.exists():
                shutil.copytree(base_vectors, vectors)
            stats = side.ask("embed")
            print(f"{side.label}: csfcube embedded {stats['embedded']}, reused {stats['reused']}",
                  file=sys.stderr, flush=True)
            complete.write_text(f"{side.label}\n", encoding="utf-8")
            side.fresh()
        complete.touch()
        opened.append(side.ask("open"))
    return opened


def forget_unused(cache: Path, hours: float = 6) -> None:
    """Remove the databases of code no run has used for `hours` (a working tree's old states);
    the cache may be shared by several worktrees (PAPERFIND_BENCH_CACHE)."""
    for side_dir in cache.iterdir():
        stamp = side_dir / "COMPLETE"
        if stamp.exists() and time.time() - stamp.stat().st_mtime > hours * 3600:
            shutil.rmtree(side_dir, ignore_errors=True)


def latency_queries(db: Path, n: int) -> dict[str, list[str]]:
    """bench/search_latency.py's queries of each kind, drawn from the corpus, and Chinese ones."""
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        docs = [Doc(*row) for row in conn.execute("SELECT title, venue, year FROM papers ORDER BY key")]
    queries = make_queries(docs, n)
    queries["chinese"] = [it["query"] for it in corpus.load_set("zh_dev")][:n]
    return queries


def quality(sides: list[Side], modes: list[str], out: Path) -> list[list]:
    rows = []
    for name in corpus.SETS:
        items = corpus.load_set(name)
        queries = [[it["qid"], it["query"]] for it in items]
        for mode in modes:
            scored, ranked = [], []
            for side in sides:
                got = side.ask("rank", queries=queries, mode=mode, limit=DEPTH)["ranked"]
                run = out / f"{name}.{mode}.{side.label}.jsonl"
                metrics.write_run(run, got)
                ranked.append(got)
                scored.append((metrics.score(name, run)["metrics"],
                               metrics.score(name, run, "--lenient")["metrics"] if name in LENIENT_SETS else None))
            differ = sum(ranked[0].get(q, [])[:10] != ranked[1].get(q, [])[:10] for q, _ in queries)
            rows.append([name, mode, "strict", [[s[0][m] for s in scored] for m in STRICT], differ, len(queries)])
            if name in LENIENT_SETS:
                rows.append([name, mode, "lenient", [[s[1][m] for s in scored] for m in LENIENT], None, None])
            print(f"{name} {mode}: top-10 lists differing {differ} of {len(queries)}", file=sys.stderr, flush=True)
    return rows


def alternate(sides: list[Side], n: int, rounds: int, timed) -> list[list[float]]:
    """`timed(side, j)` (the milliseconds of item j) for every item, side and round, the sides
    taking turns item by item (base first, then head first, ...), so that a burst of load from
    the rest of the machine falls on both alike."""
    samples: list[list[float]] = [[] for _ in sides]
    for r in range(rounds):
        for j in range(n):
            order = list(range(len(sides)))
            for i in order if (r + j) % 2 == 0 else order[::-1]:
                samples[i] += timed(sides[i], j)
    return samples


def latency(sides: list[Side], queries: dict[str, list[str]], modes: list[str], rounds: int) -> list[list]:
    rows = []
    for mode in modes:
        for kind in KINDS:
            texts = queries[kind]
            for side in sides:
                side.ask("time", queries=texts, mode=mode, limit=10)  # warm: page cache, lazy loads
            samples = alternate(sides, len(texts), rounds, lambda side, j: side.ask(
                "time", queries=[texts[j]], mode=mode, limit=10)["ms"])
            figures = [(metrics.percentile(s, 50), metrics.percentile(s, 95)) for s in samples]
            rows.append([kind, mode, len(texts), figures])
            print(f"{kind} {mode}: " + ", ".join(f"{side.label} {p50:.1f}/{p95:.1f} ms"
                                                 for side, (p50, p95) in zip(sides, figures)),
                  file=sys.stderr, flush=True)
    return rows


def cell(pair: list[float]) -> str:
    base, head = pair
    return f"{base:.3f} =" if f"{base:.3f}" == f"{head:.3f}" else f"{base:.3f} → {head:.3f}"


def tables(corpus_name: str, papers: list[int], quality_rows: list, latency_rows: list) -> str:
    lines = [f"Corpus `{corpus_name}` ({papers[0]:,} papers base, {papers[1]:,} head). Quality: cells are "
             "base → head, `=` where the figure is the same to 3 decimals; last column: queries whose "
             "top 10 differ.", "",
             "| set | mode | scoring | " + " | ".join(STRICT) + " | top 10 differ |",
             "|---|---|---|" + "---:|" * (len(STRICT) + 1)]
    for name, mode, scoring, values, differ, n in quality_rows:
        cells = [cell(v) for v in values] + [""] * (len(STRICT) - len(values))
        if scoring == "lenient":  # the lenient rows carry nDCG@10 and MRR@10 only
            cells = [cell(values[0]), cell(values[1]), "", "", ""]
        lines.append(f"| {name} | {mode} | {scoring} | " + " | ".join(cells) + " | "
                     + (f"{differ} of {n}" if differ is not None else "") + " |")
    lines += ["", "| kind | mode | queries | base p50 ms | base p95 ms | head p50 ms | head p95 ms | p50 head / base |",
              "|---|---|---:|---:|---:|---:|---:|---:|"]
    for kind, mode, n, ((b50, b95), (h50, h95)) in latency_rows:
        lines.append(f"| {kind} | {mode} | {n} | {b50:.1f} | {b95:.1f} | {h50:.1f} | {h95:.1f} | "
                     f"{h50 / b50 if b50 else float('nan'):.2f} |")
    return "\n".join(lines)


def similar_table(rows: list, timing: list) -> str:
    lines = ["csfcube_dev (24 items, 1,946 papers), `similar` on each side, pool mode; cells base → head.", "",
             "| query | " + " | ".join(SIMILAR) + " | nDCG@20 background | method | result | top 10 differ |",
             "|---|" + "---:|" * (len(SIMILAR) + 4)]
    for label, values, differ, n in rows:
        lines.append(f"| {label} | " + " | ".join(cell(v) for v in values) + f" | {differ} of {n} |")
    lines += ["", "| call | vectors | calls | base p50 ms | base p95 ms | head p50 ms | head p95 ms | p50 head / base |",
              "|---|---|---:|---:|---:|---:|---:|---:|"]
    for kind, mode, n, ((b50, b95), (h50, h95)) in timing:
        lines.append(f"| {kind} | yes | {n} | {b50:.1f} | {b95:.1f} | {h50:.1f} | {h95:.1f} | "
                     f"{h50 / b50 if b50 else float('nan'):.2f} |")
    return "\n".join(lines)


def checkout(ref: str, into: Path) -> Path:
    tree = into / git("rev-parse", "--short", ref)
    git("worktree", "add", "--detach", "--quiet", str(tree), ref)
    return tree


def working_label() -> str:
    branch = git("rev-parse", "--abbrev-ref", "HEAD")
    dirty = git("status", "--porcelain", "--", "paperfind")
    return f"{branch}@{git('rev-parse', '--short', 'HEAD')}" + (" + uncommitted changes" if dirty else "")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("--base", default="s7-base", help="git ref of the 'before' side (default s7-base)")
    ap.add_argument("--head", help="git ref of the 'after' side (default: the working tree)")
    ap.add_argument("--corpus", default="16k", help="comma-separated: default|16k, full|88k, bundled")
    ap.add_argument("--modes", default=",".join(MODES), help="search modes to compare")
    ap.add_argument("--n", type=int, default=100, help="queries per latency kind")
    ap.add_argument("--rounds", type=int, default=4, help="timed rounds per kind and side, alternating")
    ap.add_argument("--no-similar", action="store_true", help="leave out csfcube_dev (similar papers, top 100)")
    ap.add_argument("--no-write", action="store_true", help="do not touch bench/RESULTS.md")
    args = ap.parse_args()
    modes = [m for m in args.modes.split(",") if m]
    semantic = any(m != "lexical" for m in modes)
    started = time.strftime("%Y-%m-%d %H:%M", time.gmtime())
    base_label = f"{args.base} ({git('rev-parse', '--short', args.base)})"
    head_label = f"{args.head} ({git('rev-parse', '--short', args.head)})" if args.head else working_label()
    sections = []
    with tempfile.TemporaryDirectory(prefix="paperfind-parity-") as tmp:
        trees = []
        try:
            base_tree = checkout(args.base, Path(tmp))
            trees.append(base_tree)
            head_tree = corpus.REPO
            if args.head:
                head_tree = checkout(args.head, Path(tmp) / "head")
                trees.append(head_tree)
            for name in [corpus.canonical(c) for c in args.corpus.split(",") if c]:
                sides = [Side("base", base_tree, name, semantic), Side("head", head_tree, name, semantic)]
                try:
                    opened = [prepare(side, name, semantic) for side in sides]
                    out = corpus.CACHE / "parity" / name / "runs"
                    out.mkdir(parents=True, exist_ok=True)
                    quality_rows = quality(sides, modes, out)
                    latency_rows = latency(sides, latency_queries(sides[0].db, args.n), modes, args.rounds)
                finally:
                    for side in sides:
                        side.close()
                sections.append(tables(name, [o["papers"] for o in opened], quality_rows, latency_rows))
                forget_unused(corpus.CACHE / "parity" / name)
            if not args.no_similar:
                cache = corpus.CACHE / "parity" / "csfcube"
                sides = [Side("base", base_tree, "csfcube", True, cache), Side("head", head_tree, "csfcube", True, cache)]
                try:
                    prepare_csfcube(sides)
                    sections.append(similar_table(*similar(sides, args.rounds)))
                finally:
                    for side in sides:
                        side.close()
        finally:
            for tree in trees:
                subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=corpus.REPO,
                               capture_output=True)
    intro = (f"{started} UTC, `python -m bench.parity {' '.join(sys.argv[1:])}`. Base: {base_label}; "
             f"head: {head_label}. Each side ingested the corpus with its own code, built its own "
             f"index and searched with the bundled vectors; 100-deep runs scored by "
             f"../shared/eval-dev/score.py; latency warm, response cache off, {args.rounds} rounds "
             f"per kind, the sides taking turns query by query, 10 results a page. Produced by bench/parity.py.")
    text = intro + "\n\n" + "\n\n".join(sections)
    print(text)
    if not args.no_write:
        corpora = ", ".join(corpus.canonical(c) for c in args.corpus.split(",") if c)
        append_results(f"Parity: {head_label} vs {base_label} ({corpora})", text)


if __name__ == "__main__":
    main()
