"""A stranger's first minute: fresh clone → `scripts/serve` → the first answered query.

For each of the baseline ref (main) and this branch, in one run: `git clone` into a temporary
directory (timed apart, it is the user's download), then `scripts/serve` there with nothing
else set, timing every line it prints until the port answers a search. The breakdown comes
from the build's own lines: `paperfind: building ...` ends the venv and pip install, `paperfind:
built N papers in T s (corpus read .., store writes .., people .., index .., vector copy ..)`
gives the build's parts, `paperfind: serving ..., warmed up in W s` the warm-up. Main prints no
parts, so its build is one figure. After the first answer the server is left running until it
says its vectors are up to date (the HNSW graph, built after the port opened) or `--graph-wait`
seconds pass. Per-paper rates are printed so the figures can be carried to a larger corpus.

    flock /tmp/paperfind-heavy.lock .venv/bin/python -m bench.first_minute --cold --runs 6
"""

from __future__ import annotations

import argparse
import os
import queue
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from pathlib import Path

from bench.corpus import REPO
from bench.results import append_results
from bench.server import free_port

QUERY = "Denoising Diffusion Probabilistic Models"
BUILT = re.compile(r"paperfind: built (\d+) papers in ([\d.]+) s \((.*)\)")
PART = re.compile(r"([a-z ]+) ([\d.]+) s")
WARMED = re.compile(r"warmed up in ([\d.]+) s")
VECTORS = re.compile(r"vectors up to date in ([\d.]+) s")
REST = re.compile(r"the rest of the corpus indexed in ([\d.]+) s \((\d+) files, (\d+) papers")


def _pump(stream, tag: str, lines: queue.Queue) -> None:
    for line in stream:
        lines.put((time.perf_counter(), tag, line.rstrip("\n")))


def first_start(ref: str, where: Path, graph_wait: float, cold: bool = False) -> dict:
    """Clone `ref` into `where`, run its scripts/serve, and time it until the first answer.

    `cold`: with empty caches, as on a new machine: pip's and uv's (XDG_CACHE_HOME) and the
    temporary folder (jieba keeps its dictionary's cache there)."""
    t = time.perf_counter()
    subprocess.run(["git", "clone", "-q", "--branch", ref, str(REPO), str(where)], check=True)
    out: dict = {"clone": time.perf_counter() - t, "parts": {}, "commit": subprocess.run(
        ["git", "-C", str(where), "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
        check=True).stdout.strip()}
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PAPERFIND_", "VIRTUAL_ENV"))}
    env.update(PAPERFIND_PORT=str(port), PYTHONUNBUFFERED="1")
    if cold:
        caches = where.with_name(where.name + "-caches")
        for name in ("cache", "tmp"):
            (caches / name).mkdir(parents=True, exist_ok=True)
        env.update(XDG_CACHE_HOME=str(caches / "cache"), TMPDIR=str(caches / "tmp"))
    cpu_before = _children_cpu()
    steal_before = _steal()
    started = time.perf_counter()
    proc = subprocess.Popen(["bash", "scripts/serve"], cwd=where, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    lines: queue.Queue = queue.Queue()
    for stream, tag in ((proc.stdout, "out"), (proc.stderr, "err")):
        threading.Thread(target=_pump, args=(stream, tag, lines), daemon=True).start()
    marks: dict[str, float] = {}
    answered = None
    try:
        while answered is None or (graph_wait and "vectors" not in marks
                                   and time.perf_counter() - answered < graph_wait):
            try:
                at, _, line = lines.get(timeout=0.05)
            except queue.Empty:
                at, line = None, ""
            if proc.poll() is not None and lines.empty():
                raise RuntimeError(f"{ref}: scripts/serve exited with {proc.returncode}")
            if line:
                if "paperfind: building" in line:
                    marks["building"] = at
                elif (m := BUILT.search(line)):
                    marks["built"] = at
                    out["papers"] = int(m.group(1))
                    out["parts"] = {k.strip(): float(v) for k, v in PART.findall(m.group(3))}
                elif "paperfind: serving" in line:
                    marks["serving"] = at
                    if (m := WARMED.search(line)):
                        out["warm-up"] = float(m.group(1))
                elif (m := REST.search(line)):  # a staged first start's background part
                    marks["corpus"] = at
                    out["papers in all"] = int(m.group(3))
                elif (m := VECTORS.search(line)):
                    marks["vectors"] = at
                    out["vectors"] = float(m.group(1))
            if answered is None and "serving" in marks:
                answered = _ask(port)
                if answered is not None:
                    out["total"] = answered - started
                    out["after serving line"] = answered - marks["serving"]
    finally:
        os.killpg(proc.pid, 15)
        proc.wait(timeout=30)
    # CPU seconds of scripts/serve and everything it waited for (pip, the build's workers), to
    # the kill: the figure a shared machine's load moves least
    out["cpu"] = _children_cpu() - cpu_before
    steal = _steal()
    if steal is not None and steal_before is not None:
        out["steal"] = steal - steal_before
    out["venv+pip"] = marks.get("building", started) - started
    out["build"] = marks["serving"] - marks.get("building", started)
    if "vectors" in marks:
        out["vectors after answer"] = marks["vectors"] - answered
    if "corpus" in marks:
        out["whole corpus"] = marks["corpus"] - started
    return out


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _steal() -> float | None:
    """CPU seconds the hypervisor gave to other guests, both cores together (/proc/stat's
    `steal`): a slow start with much of it was a busy host, not slow code. None off Linux."""
    try:
        with open("/proc/stat") as fh:
            fields = fh.readline().split()
        return int(fields[8]) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


def _ask(port: int) -> float | None:
    """The time the search page answered, or None while the port is closed."""
    url = f"http://127.0.0.1:{port}/?" + urllib.parse.urlencode({"q": QUERY})
    try:
        with urllib.request.urlopen(url, timeout=120) as response:
            response.read()
        return time.perf_counter()
    except (ConnectionError, urllib.error.URLError):
        return None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--baseline-ref", default="main")
    ap.add_argument("--ref", default=None, help="the branch to measure (default: the current one)")
    ap.add_argument("--graph-wait", type=float, default=180.0,
                    help="seconds to wait after the first answer for the vectors' graph (0: none)")
    ap.add_argument("--cold", action="store_true",
                    help="empty installer caches and temporary folder for each clone, as on a new machine")
    ap.add_argument("--runs", type=int, default=1,
                    help="pairs of first starts; the order alternates, the baseline first in odd runs")
    args = ap.parse_args(argv)
    ref = args.ref or subprocess.run(["git", "-C", str(REPO), "branch", "--show-current"],
                                     capture_output=True, text=True, check=True).stdout.strip()
    if ref == args.baseline_ref:
        ap.error(f"--ref and --baseline-ref are both {ref}: nothing to compare")
    tmp = Path(tempfile.mkdtemp(prefix="paperfind-first-minute-"))
    runs: list[dict[str, dict]] = []
    try:
        for run in range(args.runs):
            # whichever start goes second in a pair was slower (the machine's caches, its
            # neighbours): alternating keeps that from favouring one side
            order = (args.baseline_ref, ref) if run % 2 == 0 else (ref, args.baseline_ref)
            results: dict[str, dict] = {}
            for place, name in enumerate(order):
                results[name] = first_start(name, tmp / name, args.graph_wait, args.cold)
                results[name]["place"] = place + 1
                print(f"run {run + 1}", name, results[name], flush=True)
                shutil.rmtree(tmp / name, ignore_errors=True)
                shutil.rmtree(tmp / f"{name}-caches", ignore_errors=True)
            runs.append({name: results[name] for name in (args.baseline_ref, ref)})
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    table = render(runs, args.baseline_ref, args.cold)
    print(table)
    append_results("Start-up: fresh clone to the first answered query (bench/first_minute.py, issue 13)",
                   table)
    return 0


def median_result(results: list[dict]) -> dict:
    """Each step's median over the runs (a table of medians, not one run's figures)."""
    keys = {k for r in results for k in r
            if isinstance(r[k], (int, float)) and k not in ("place", "papers", "papers in all")}
    parts = {p for r in results for p in r["parts"]}
    out = {k: statistics.median(r[k] for r in results if k in r) for k in keys}
    out["parts"] = {p: statistics.median(r["parts"][p] for r in results if p in r["parts"])
                    for p in parts}
    out["commit"] = results[0]["commit"]
    if "papers" in results[0]:
        out["papers"] = results[0]["papers"]
    return out


def render(runs: list[dict[str, dict]], baseline: str, cold: bool = False) -> str:
    names = list(runs[0])
    medians = {n: median_result([run[n] for run in runs]) for n in names}
    parts: list[str] = []
    for run in runs:
        for r in run.values():
            parts += [p for p in r["parts"] if p not in parts]
    rows = [("git clone (not counted)", "clone"), ("venv + pip install", "venv+pip"),
            ("`building` line → `serving` line", "build")] + [(f"— {p}", p) for p in parts] + [
            ("— warm-up (before the port opens)", "warm-up"),
            ("serving line → first answer", "after serving line"),
            ("**clone → first answered query**", "total"),
            ("CPU seconds (user + sys) of scripts/serve to the first answer, all processes", "cpu"),
            ("CPU seconds the host took from this machine meanwhile (steal, both cores)", "steal"),
            ("vectors' update and HNSW graph, after the first answer (not counted)", "vectors"),
            ("clone → the whole corpus indexed (the background part of a staged start)", "whole corpus")]
    papers = next((r["papers"] for r in medians.values() if "papers" in r), None)
    several = len(runs) > 1
    lines = [f"{len(runs)} pair(s) of fresh clones, `scripts/serve` until the search page answers "
             f"({time.strftime('%Y-%m-%d %H:%M')}, `python -m bench.first_minute"
             f"{' --cold' if cold else ''}{f' --runs {len(runs)}' if several else ''}`, under "
             "the heavy lock; the machine is shared"
             + ("; the order alternates, the baseline first in odd runs" if several else "")
             + f"). Seconds{', medians over the runs' if several else ''}; ms per paper of the "
             f"{papers} bundled papers in brackets, to carry to a larger corpus.", "",
             "| step | " + " | ".join(f"{n} {medians[n]['commit']}{' (baseline)' if n == baseline else ''}"
                                      for n in names)
             + " |", "|---|" + "---:|" * len(names)]
    for label, key in rows:
        cells = []
        for r in medians.values():
            value = r.get(key, r["parts"].get(key))
            if value is None:
                cells.append("–")
            elif papers and key not in ("clone", "venv+pip", "total", "cpu", "steal", "whole corpus"):
                cells.append(f"{value:.1f} ({1000 * value / papers:.2f})")
            else:
                cells.append(f"{value:.1f}")
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    if several:
        other = next(n for n in names if n != baseline)
        ratios = [run[other]["total"] / run[baseline]["total"] for run in runs]
        lines += ["", f"| run | {baseline} (baseline) | {other} | {other} / {baseline} | first | "
                      "steal s (baseline, branch) |", "|---:|---:|---:|---:|---|---:|"]
        for i, (run, ratio) in enumerate(zip(runs, ratios), 1):
            first = baseline if run[baseline]["place"] == 1 else other
            steal = ", ".join(f"{run[n]['steal']:.1f}" if "steal" in run[n] else "–"
                              for n in (baseline, other))
            lines.append(f"| {i} | {run[baseline]['total']:.1f} | {run[other]['total']:.1f} | "
                         f"{ratio:.2f} | {first} | {steal} |")
        under = sum(run[other]["total"] <= 60 for run in runs)
        lines += ["", f"Median ratio {statistics.median(ratios):.2f}; {other} answered within "
                      f"60 s of the clone in {under} of {len(runs)} runs (slowest "
                      f"{max(run[other]['total'] for run in runs):.1f} s)."]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
