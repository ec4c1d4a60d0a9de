"""Does a first start of this branch build what the baseline's builds? Same database, same index
files, same answers.

For each of the baseline ref (main) and the working tree: its code (`git archive` of the ref
into a temporary directory, first on PYTHONPATH, with this checkout's venv, whose pins both
share) runs `paperfind serve` on a new database from the bundled corpus. When it serves, every query of
`QUERIES` is asked through /api/search in lexical and hybrid mode; then the server is stopped
and the outputs are compared:

- the database: `sqlite3`'s dump (Python's `iterdump`) with the clock columns blanked
  (`sources.ingested_at`, `migrations.applied_at`), as sha256;
- every file of the index and of the vectors' directory, by sha256;
- every answer's JSON, without `took_ms`.

Prints one line per difference and a summary; exits 1 if anything differs.

    flock /tmp/paperfind-heavy.lock .venv/bin/python -m bench.same_first_start [--baseline-ref main]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

from bench.corpus import REPO
from bench.server import free_port, wait_for_port

# the warm-up's queries and the first-query bench's, typos, filters, people, institutions,
# OR, phrases, Chinese
QUERIES = ("attention is all you need", "Geoffrey Hinton", "大语言模型的推理能力",
           "why does batch normalization make training faster?", "venue:icml year:2020",
           "author:bengio year:2019 graph", "Denoising Diffusion Probabilistic Models",
           "atention is al you ned", "transfomer lenguage model", "inst:pku", "inst:\"Peking University\"",
           "graph neural network OR message passing", "\"contrastive learning\" images",
           "diffusion -image year:2023..2024", "让大模型推理更短", "强化学习 机器人",
           "Yoshua Bengio", "huishuai zhang", "Understanding Nonlinear Implicit Bias via Region Counts in Input Space")
CLOCK_COLUMNS = (("sources", "ingested_at"), ("migrations", "applied_at"))


def first_start(ref: str | None, where: Path) -> dict:
    """Run the first start of `ref` (None: the working tree) in `where`; its outputs' digests."""
    # one place for both refs' code: the store names its source file by its path
    code = where.parent / "code"
    shutil.rmtree(code, ignore_errors=True)
    code.mkdir(parents=True)
    where.mkdir()
    if ref is None:
        shutil.copytree(REPO / "paperfind", code / "paperfind")
    else:
        archive = subprocess.run(["git", "-C", str(REPO), "archive", ref, "paperfind"],
                                 capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(code)], input=archive, check=True)
    db = where / "paperfind.db"
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAPERFIND_")}
    env.update(PYTHONPATH=str(code), PAPERFIND_DB=str(db), PAPERFIND_PORT=str(port),
               TMPDIR=str(where), PYTHONUNBUFFERED="1")
    imported = subprocess.run([sys.executable, "-c", "import paperfind; print(paperfind.__file__)"],
                              cwd=where, env=env, capture_output=True, text=True, check=True).stdout
    assert imported.startswith(str(code)), f"paperfind was imported from {imported}"
    proc = subprocess.Popen([sys.executable, "-m", "paperfind.cli", "serve"], cwd=where, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)
    answers: dict[str, dict] = {}
    try:
        for line in proc.stdout:
            if "paperfind: serving" in line:
                break
        else:
            raise RuntimeError(f"{ref or 'working tree'}: serve ended with {proc.wait()}")
        wait_for_port(port, proc, timeout=60)  # the line comes just before the port opens
        for query in QUERIES:
            for mode in ("lexical", "hybrid"):
                url = (f"http://127.0.0.1:{port}/api/search?"
                       + urllib.parse.urlencode({"q": query, "mode": mode, "size": 20}))
                with urllib.request.urlopen(url, timeout=120) as response:
                    answer = json.loads(response.read())
                answer.pop("took_ms", None)
                answers[f"{mode}: {query}"] = answer
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=60)
    files = {}
    for folder in (Path(f"{db}.index"), Path(f"{db}.vectors")):
        for path in sorted(p for p in folder.rglob("*") if p.is_file()):
            name = str(path.relative_to(where))
            # the vectors as copied from the bundle: the HNSW graph the server builds in the
            # background afterwards may or may not be there yet when it is stopped
            if folder.name.endswith(".vectors") and not (
                    code / "paperfind" / "data" / "default-corpus.vectors" / path.relative_to(folder)).exists():
                continue
            files[name] = hashlib.sha256(path.read_bytes()).hexdigest()
    return {"dump": dump_digest(db), "files": files, "answers": answers}


def dump_digest(db: Path) -> str:
    """sha256 of the database's dump, the clock columns blanked (in a copy)."""
    copy = db.with_name("dump-copy.db")
    source = sqlite3.connect(db)
    target = sqlite3.connect(copy)
    source.backup(target)
    source.close()
    for table, column in CLOCK_COLUMNS:
        target.execute(f"UPDATE {table} SET {column} = ''")
    target.commit()
    digest = hashlib.sha256()
    with open(db.with_name("dump.sql"), "wb") as out:  # kept when the dumps differ
        for statement in target.iterdump():
            line = statement.encode("utf-8") + b"\n"
            digest.update(line)
            out.write(line)
    target.close()
    copy.unlink()
    return digest.hexdigest()


def compare(base: dict, head: dict) -> list[str]:
    problems = []
    if base["dump"] != head["dump"]:
        problems.append("database dumps differ")
    for name in sorted(set(base["files"]) | set(head["files"])):
        if base["files"].get(name) != head["files"].get(name):
            problems.append(f"file differs or is missing: {name}")
    for key in base["answers"]:
        if base["answers"][key] != head["answers"].get(key):
            problems.append(f"answer differs: {key}")
    return problems


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--baseline-ref", default="main")
    args = ap.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="paperfind-same-first-start-"))
    try:
        started = time.perf_counter()
        base = first_start(args.baseline_ref, tmp / "base")
        head = first_start(None, tmp / "head")
        problems = compare(base, head)
        if base["dump"] != head["dump"]:
            diff = subprocess.run(["diff", str(tmp / "base" / "dump.sql"), str(tmp / "head" / "dump.sql")],
                                  capture_output=True, text=True).stdout.splitlines()
            problems += [f"dump: {line[:300]}" for line in diff[:20]]
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for problem in problems:
        print(problem)
    print(f"{args.baseline_ref} against the working tree: database dump "
          f"{'identical' if base['dump'] == head['dump'] else 'DIFFERENT'} (clock columns blanked), "
          f"{sum(base['files'].get(n) == h for n, h in head['files'].items())}/{len(head['files'])} "
          f"index and vector files identical, "
          f"{sum(base['answers'][k] == head['answers'].get(k) for k in base['answers'])}/"
          f"{len(base['answers'])} answers identical ({time.perf_counter() - started:.0f} s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
