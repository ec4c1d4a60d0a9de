"""The `paperfind` command as a user runs it: real processes, real files, one-line errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.realdata import load_paperlist, write_slice


def run(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "paperfind.cli", *args], capture_output=True,
                          text=True, env={**os.environ, **(env or {})}, timeout=300)


def test_ingest_reports_bad_files_in_one_line_and_keeps_the_good(tmp_path):
    good = write_slice(tmp_path / "data", "colt", 2019, load_paperlist("colt", 2019)[:12])
    bad = tmp_path / "data" / "uai" / "uai2019.json"
    bad.parent.mkdir(parents=True)
    bad.write_text("[{\"title\": \"x\"", encoding="utf-8")
    db = tmp_path / "p.db"
    proc = run("ingest", "--db", str(db), str(tmp_path / "data"))
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "uai2019.json" in errors[0]
    assert "12 added" in proc.stdout

    stats = json.loads(run("stats", "--json", "--db", str(db)).stdout)
    assert stats["papers"] == 12
    assert [(r["venue"], r["year"], r["papers"]) for r in stats["venue_years"]] == [("colt", 2019, 12)]


def test_db_location_comes_from_the_environment(tmp_path):
    good = write_slice(tmp_path / "data", "colt", 2019, load_paperlist("colt", 2019)[:3])
    db = tmp_path / "env.db"
    proc = run("ingest", "--no-index", str(good), env={"PAPERFIND_DB": str(db)})
    assert proc.returncode == 0, proc.stderr
    assert db.exists()


def test_stats_without_a_database_says_what_to_do(tmp_path):
    proc = run("stats", "--db", str(tmp_path / "missing.db"))
    assert proc.returncode == 1
    assert "paperfind ingest" in proc.stderr and "Traceback" not in proc.stderr


def test_similar_lists_other_papers_and_refuses_unknown_keys(tmp_path):
    records = load_paperlist("colt", 2019)[:25]
    write_slice(tmp_path / "data", "colt", 2019, records)
    db = tmp_path / "p.db"
    assert run("ingest", "--db", str(db), str(tmp_path / "data")).returncode == 0
    key = f"colt2019:{records[0]['id']}"
    proc = run("similar", key, "--json", "--limit", "5", "--db", str(db),
               env={"PAPERFIND_SEMANTIC": "0"})
    assert proc.returncode == 0, proc.stderr
    found = json.loads(proc.stdout)["results"]
    assert 0 < len(found) <= 5 and key not in {p["key"] for p in found}
    assert all(p["venue_name"] == "COLT" and p["reasons"] for p in found)
    missing = run("similar", "colt2019:nope", "--db", str(db))
    assert missing.returncode == 1 and "no paper with key" in missing.stderr
    assert "Traceback" not in missing.stderr
    method = run("similar", key, "--json", "--limit", "5", "--aspect", "method", "--db", str(db),
                 env={"PAPERFIND_SEMANTIC": "0"})
    assert method.returncode == 0, method.stderr
    data = json.loads(method.stdout)
    assert data["aspect"] == "method" and key not in {p["key"] for p in data["results"]}
    assert any("aspect" in p["signals"] for p in data["results"])
    bad = run("similar", key, "--aspect", "methods", "--db", str(db))
    assert bad.returncode == 2 and "'methods' is not one of 'background', 'method', 'result'" in bad.stderr
    assert "Traceback" not in bad.stderr


def test_ingest_jobs_flag_reads_in_one_process_or_ahead_alike(tmp_path):
    for venue, year in [("colt", 2019), ("corl", 2022), ("uai", 2019)]:
        write_slice(tmp_path / "data", venue, year, load_paperlist(venue, year)[:10])
    outputs = []
    for jobs in ("1", "2"):
        proc = run("ingest", "--no-index", "--jobs", jobs, "--db", str(tmp_path / f"{jobs}.db"),
                   str(tmp_path / "data"))
        assert proc.returncode == 0, proc.stderr
        outputs.append(proc.stdout)
    assert outputs[0] == outputs[1]
    assert "30 added" in outputs[1]
    bad = run("ingest", "--jobs", "0", "--db", str(tmp_path / "x.db"), str(tmp_path / "data"))
    assert bad.returncode == 2 and "--jobs" in bad.stderr


def _numpy_huge_pages(env: dict) -> str:
    """Whether numpy asks for huge pages in a process that starts as the `paperfind` command."""
    probe = ("import paperfind.cli, numpy\n"
             "print(numpy._core.multiarray._set_madvise_hugepage(False))")  # returns the setting
    environ = {k: v for k, v in os.environ.items() if k != "NUMPY_MADVISE_HUGEPAGE"}
    return subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          env={**environ, **env}, timeout=120, check=True).stdout.strip()


def test_the_command_keeps_numpy_off_huge_pages_unless_told():
    # huge-page faults made most of a first start's system time on the project's VM
    assert _numpy_huge_pages({}) == "False"
    assert _numpy_huge_pages({"NUMPY_MADVISE_HUGEPAGE": "1"}) == "True"


def test_search_since_and_sort_by_date(tmp_path):
    write_slice(tmp_path / "data", "colt", 2019, load_paperlist("colt", 2019)[:15])
    write_slice(tmp_path / "data", "corl", 2022, load_paperlist("corl", 2022)[:15])
    db = tmp_path / "p.db"
    assert run("ingest", "--db", str(db), str(tmp_path / "data")).returncode == 0

    def years(*flags: str) -> list[int]:
        proc = run("search", "learning", "--json", "--limit", "30", "--db", str(db), *flags,
                   env={"PAPERFIND_SEMANTIC": "0"})
        assert proc.returncode == 0, proc.stderr
        return [r["year"] for r in json.loads(proc.stdout)["results"]]

    every = years("--sort", "date")
    assert set(every) == {2019, 2022} and every == sorted(every, reverse=True)
    assert set(years("--since", "2022")) == {2022}
    bad = run("search", "learning", "--since", "last year", "--db", str(db))
    assert bad.returncode == 2 and "--since" in bad.stderr and "Traceback" not in bad.stderr


def test_a_search_without_a_database_builds_none_and_says_how_to_get_one(tmp_path):
    """Issue 29: `paperfind search "LoRA"` outside the repository built a 1 GB database in the
    current folder (40 s), unasked. Only `serve` and `ingest` build one."""
    env = {k: v for k, v in os.environ.items() if k != "PAPERFIND_DB"}
    proc = subprocess.run([sys.executable, "-m", "paperfind.cli", "search", "LoRA"], cwd=tmp_path,
                          capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    assert f"paperfind: database {tmp_path / 'paperfind.db'}" in proc.stderr
    assert "paperfind serve" in proc.stderr and "paperfind ingest" in proc.stderr
    assert list(tmp_path.iterdir()) == []
    for command in (["similar", "colt2019:x"], ["export"], ["index"], ["embed"]):
        other = subprocess.run([sys.executable, "-m", "paperfind.cli", *command], cwd=tmp_path,
                               capture_output=True, text=True, env=env, timeout=120)
        assert other.returncode == 1 and "no database at" in other.stderr, (command, other.stderr)
    assert list(tmp_path.iterdir()) == []


def test_a_lexical_search_names_its_database_and_opens_no_vectors(tmp_path):
    """One line on stderr says which database answers; a lexical search leaves the vectors and
    the query model closed (opening them was 2-4 s of every CLI search)."""
    from paperfind.core import Paperfind
    from paperfind.settings import Settings

    write_slice(tmp_path / "data", "iclr", 2017, load_paperlist("iclr", 2017))
    db = tmp_path / "p.db"
    assert run("ingest", "--db", str(db), str(tmp_path / "data")).returncode == 0
    assert Paperfind(Settings(db_path=db)).copy_bundled_vectors()

    def search(mode: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-X", "importtime", "-m", "paperfind.cli", "search",
                               "recurrent networks", "--mode", mode, "--db", str(db)],
                              capture_output=True, text=True, timeout=300)

    lexical = search("lexical")
    assert lexical.returncode == 0, lexical.stderr
    said = [line for line in lexical.stderr.splitlines() if not line.startswith("import time:")]
    assert said == [f"paperfind: database {db}"]
    assert "paperfind.embed.retriever" not in lexical.stderr
    # nor scipy: only an index build needs sparse matrices (its import was a third of the start)
    assert not [line for line in lexical.stderr.splitlines() if line.split("|")[-1].strip().startswith("scipy")]
    hybrid = search("hybrid")  # the same search with vectors does open them: the test can tell
    assert "paperfind.embed.retriever" in hybrid.stderr


def test_search_names_institutions_as_the_pages_do_and_says_why_a_paper_has_no_authors(tmp_path):
    """Issue 29: the CLI printed slugs ("[microsoft-research]") where the pages show names, and
    nothing where an ICLR 2026 submission's authors are hidden."""
    import gzip

    from paperfind.settings import BUNDLED_CORPUS

    wanted = {"iclr-2022": "iclr2022:nZeVKeeFYf9", "iclr-2026": "iclr2026:PUuAzsAprm"}  # LoRA, ID-LoRA
    lines = []
    for shard, key in wanted.items():
        with gzip.open(BUNDLED_CORPUS / f"{shard}.jsonl.gz", "rt", encoding="utf-8") as fh:
            lines += [line for line in fh if json.loads(line)["key"] == key]
    assert len(lines) == 2
    (tmp_path / "lora.jsonl").write_text("".join(lines), "utf-8")
    db = tmp_path / "p.db"
    assert run("ingest", "--db", str(db), str(tmp_path / "lora.jsonl")).returncode == 0
    found = run("search", "LoRA", "--mode", "lexical", "--db", str(db))
    assert found.returncode == 0, found.stderr
    assert "[CMU] [Microsoft Research]" in found.stdout and "microsoft-research" not in found.stdout
    # the lines of the second result, its title perhaps wrapped over two, up to its key
    second = found.stdout.split("ID-LoRA", 1)[1].split("(iclr2026:PUuAzsAprm)", 1)[0]
    assert "Anonymous (under review)" in [line.strip() for line in second.splitlines()], found.stdout


def test_a_users_paper_list_with_ratings_is_searchable_by_them(tmp_path):
    data = write_slice(tmp_path / "data", "colm", 2024, load_paperlist("colm", 2024)[:20])
    db = tmp_path / "rated.db"
    assert run("ingest", "--db", str(db), str(data)).returncode == 0
    proc = run("search", "--db", str(db), "--json", "--limit", "20", "--sort", "rating",
               "--rating", "6..", "venue:colm")
    assert proc.returncode == 0, proc.stderr
    ratings = [r["rating"] for r in json.loads(proc.stdout)["results"]]
    assert ratings and all(r >= 6 for r in ratings) and ratings == sorted(ratings, reverse=True)
    bad = run("search", "--db", str(db), "--rating", "six", "x")
    assert bad.returncode == 2 and "--rating" in bad.stderr and "Traceback" not in bad.stderr


def test_experts_lists_people_with_their_papers_and_honours_before(tmp_path):
    for venue, year in (("colt", 2018), ("colt", 2019)):
        write_slice(tmp_path / "data", venue, year, load_paperlist(venue, year)[:40])
    db = tmp_path / "p.db"
    assert run("ingest", "--db", str(db), str(tmp_path / "data")).returncode == 0
    env = {"PAPERFIND_SEMANTIC": "0"}
    # everyone listed (--min-works 1): most people of 40 papers a year have one or two
    everyone = ("--min-works", "1")
    proc = run("experts", "bandits regret online learning", "--json", *everyone, "--db", str(db), env=env)
    assert proc.returncode == 0, proc.stderr
    found = json.loads(proc.stdout)
    years = {e["year"] for p in found["results"] for e in p["evidence"]}
    assert found["results"] and years == {2018, 2019}
    before = json.loads(run("experts", "bandits regret online learning", "--json", "--before", "2019",
                            *everyone, "--db", str(db), env=env).stdout)
    assert before["results"] and {e["year"] for p in before["results"] for e in p["evidence"]} == {2018}
    text = run("experts", "bandits regret online learning", *everyone, "--db", str(db), env=env)
    assert text.returncode == 0 and f"/authors/{found['results'][0]['id']}" in text.stdout
    neither = run("experts", "--db", str(db), env=env)
    assert neither.returncode == 2 and "--paper" in neither.stderr and "Traceback" not in neither.stderr
    missing = run("experts", "--paper", "colt2019:nope", "--db", str(db), env=env)
    assert missing.returncode == 1 and "no paper with key" in missing.stderr


def test_experts_lists_people_with_three_works_unless_told(tmp_path):
    for venue, year in (("colt", 2018), ("colt", 2019)):
        write_slice(tmp_path / "data", venue, year, load_paperlist(venue, year))
    db = tmp_path / "p.db"
    assert run("ingest", "--db", str(db), str(tmp_path / "data")).returncode == 0
    env = {"PAPERFIND_SEMANTIC": "0"}
    query = ("experts", "online learning regret bandits", "--json", "--size", "100", "--db", str(db))
    default = json.loads(run(*query, env=env).stdout)
    everyone = json.loads(run(*query, "--min-works", "1", env=env).stdout)
    assert default["min_works"] == 3 and everyone["min_works"] == 1
    assert default["results"] and all(p["works"] >= 3 for p in default["results"])
    assert {p["id"] for p in default["results"]} == {p["id"] for p in everyone["results"] if p["works"] >= 3}
    assert default["fewer_works"] == everyone["total"] - default["total"] > 0
    two = json.loads(run(*query, "--min-works", "2", env=env).stdout)
    assert {p["id"] for p in two["results"]} == {p["id"] for p in everyone["results"] if p["works"] >= 2}
    # no one at a floor no one reaches: said, with the way to everyone
    none = run("experts", "online learning regret bandits", "--min-works", "500", "--db", str(db), env=env)
    assert none.returncode == 0 and "No one with at least 500 works" in none.stdout
    assert "--min-works 1" in none.stdout
    for bad in ("-1", "three"):
        proc = run("experts", "online learning", "--min-works", bad, "--db", str(db), env=env)
        assert proc.returncode == 2 and "--min-works" in proc.stderr and "Traceback" not in proc.stderr


# `paperfind ARGS` in a process that counts its forks (printed last on stderr), with the name
# mining's threshold at 2 papers and two cores whatever the machine has: a build that mines in
# two processes forks, one that mines in one does not
COUNTING_FORKS = """
import os, sys
import paperfind.index.paper_names as paper_names
paper_names.PARALLEL_FROM = 2
os.cpu_count = lambda: 2
made = []
fork = os.fork
def counting():
    made.append(os.getpid())
    return fork()
os.fork = counting
from paperfind.cli import main
try:
    main(sys.argv[1:], prog_name="paperfind")
finally:
    print(f"forks: {len(made)}", file=sys.stderr)
"""


def run_counting_forks(*args: str, env: dict | None = None) -> tuple[subprocess.CompletedProcess, int]:
    environ = {k: v for k, v in os.environ.items() if k != "PAPERFIND_INDEX_JOBS"}
    proc = subprocess.run([sys.executable, "-c", COUNTING_FORKS, *args], capture_output=True, text=True,
                          env={**environ, **(env or {})}, timeout=300)
    return proc, int(proc.stderr.strip().splitlines()[-1].removeprefix("forks: "))


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork here: one process mines")
def test_index_jobs_reach_the_name_mining_of_index_and_ingest(tmp_path):
    for venue, year in [("colt", 2019), ("corl", 2022), ("uai", 2019)]:
        write_slice(tmp_path / "data", venue, year, load_paperlist(venue, year)[:10])
    db = str(tmp_path / "p.db")
    # ingest reads in this process (--jobs 1): its forks are the index build's
    proc, forks = run_counting_forks("ingest", "--jobs", "1", "--index-jobs", "1", "--db", db, str(tmp_path / "data"))
    assert proc.returncode == 0 and "30 added" in proc.stdout and forks == 0, proc.stderr
    proc, forks = run_counting_forks("ingest", "--jobs", "1", "--db", str(tmp_path / "q.db"), str(tmp_path / "data"))
    assert proc.returncode == 0 and forks > 0, proc.stderr  # the default: two processes
    for args, env, forked in [(["--jobs", "1"], {}, False), ([], {"PAPERFIND_INDEX_JOBS": "1"}, False),
                              ([], {}, True), (["--jobs", "2"], {"PAPERFIND_INDEX_JOBS": "1"}, True)]:
        proc, forks = run_counting_forks("index", "--db", db, *args, env=env)
        assert proc.returncode == 0 and "index written" in proc.stdout, proc.stderr
        assert (forks > 0) is forked, (args, env, forks)
    for bad in ("0", "-1", "two"):
        proc = run("index", "--db", db, env={"PAPERFIND_INDEX_JOBS": bad})
        assert proc.returncode == 2 and "Traceback" not in proc.stderr
        assert f"PAPERFIND_INDEX_JOBS must be a number of processes, 1 or more, not '{bad}'" in proc.stderr
    proc = run("index", "--db", db, "--jobs", "0")
    assert proc.returncode == 2 and "--jobs" in proc.stderr
