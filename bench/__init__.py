"""paperfind's benches: each `python -m bench.NAME` prints a table and records it in bench/RESULTS.md.

`BENCHES` below is the index, one entry a bench that guards a figure the product states;
`python -m bench` prints it and `python -m bench NAME [args]` runs one. A finished experiment
leaves bench/ once its conclusion is in RESULTS.md ("Retired experiments" names the commit
where its script can still be read).

Shared parts (`HELPERS`): `corpus` (the corpora as databases built by paperfind's own ingest,
and the dev sets), `metrics` (runs, scoring, percentiles), `baselines` (bm25s), `server` (a real
`paperfind serve` for the HTTP benches), `results` (the results file), `parity_worker` (one
side of bench.parity, run as a file), and `scale_corpus` / `scale_worker` (bench.scale's
generated corpus and its build, run as a file).
"""

from __future__ import annotations

from dataclasses import dataclass

LOCKS = {"heavy": "flock /tmp/paperfind-heavy.lock nice ", "timing": "flock /tmp/paperfind-timing.lock nice ",
         "nice": "nice "}


@dataclass(frozen=True)
class Bench:
    name: str  # bench/NAME.py, run as `python -m bench.NAME`
    promise: str  # the figure it guards, as the product states it
    takes: str  # how long a run takes on the 2-core machine: "(RESULTS)" measured there, "(est.)" not
    args: str = ""  # the usual arguments (each bench's --help has the rest)
    lock: str = ""  # a key of LOCKS: how RESULTS.md's figures were taken (alone on the machine)

    @property
    def command(self) -> str:
        return f"{LOCKS.get(self.lock, '')}.venv/bin/python -m bench.{self.name} {self.args}".rstrip()


# (group, benches): the promise a group keeps, then its benches
GROUPS: tuple[tuple[str, tuple[Bench, ...]], ...] = (
    ("quality per dev set (../shared/eval-dev, bm25s in the same run)", (
        Bench("search_quality", "lexical nDCG@10 / MRR@10 / R@k of every dev set above bm25s",
              "~1 min at 16k once its database is built (est.)", "[--corpus full] [--sets tldr_dev,...]"),
        Bench("modes_quality", "lexical, semantic and hybrid (the default) per dev set: hybrid at least "
              "lexical everywhere; hybrid p95 <= 80 ms with the query embedding; with --switch, a "
              "search setting off vs on, with --base-tree, a base checkout's code against this tree's "
              "(issue 33: no set falls by more than .003)",
              "~2 min at 16k (est.); --switch or --base-tree at 156k ~5-10 min (RESULTS)",
              "[--corpus default|bundled] [--db DB --switch lexical_certain | --db DB --base-tree BASE]"),
        Bench("learned_ranking", "the learned re-ranker on vs off per dev set and query kind: it is "
              "applied only to the kinds it lifts (SearchSettings.learned_kinds); its latency",
              "~1-2 min at 16k (RESULTS: two corpora in 19:03-19:04)", "[--corpus default|bundled]", "heavy"),
        Bench("similar_quality", "similar papers on CSFCube (nDCG@20, target >= .65, not met: .591) "
              "above bm25s; similar_papers latency", "~2 min, + ~1-2 min to embed CSFCube once (est.)",
              "[--embed-only | --append-results]", "timing"),
    )),
    ("latency per query kind", (
        Bench("search_latency", "warm p50 / p95 per kind (title fragment, question, author, typo, "
              "filter-only): at 88k p50 <= 10 ms, p95 <= 50 ms; with --http, the portal over HTTP "
              "against a base checkout in one run (issue 33: HTTP layer <= 1 ms p50, HTTP p95 <= 10 "
              "ms lexical, <= 30 ms default)", "~3 min for both corpora (est.); --http ~6 min",
              "[--corpus default|full|both | --http DB --base-tree BASE]", "timing"),
        Bench("scale", "issue 33: the bundled corpus grown to 250k, 500k and 1M papers (real records "
              "plus deterministic copies): build time per step, disk, serving RSS and HTTP p95 per "
              "kind at each size against the bundled corpus in the same run (at 1M: lexical <= 20 ms, "
              "hybrid <= 40 ms, RSS <= 8 GB, index build <= 20 min)",
              "~15 min at 250k; 1M ~1 h (est.)", "[--sizes 250k,500k,1m] [--tree PATH] [--reuse]"),
        Bench("index_build", "issue 33: the index build of one database by base and tree, alternating: "
              "seconds, CPU seconds, peak memory (the process tree's PSS) and peak RSS, and every index "
              "file byte-identical to the base's; with --jobs 1,default, the tree once per "
              "PAPERFIND_INDEX_JOBS; with --people, the "
              "ingest's people step the same way (its tables the same row for row); with --bm25, the BM25F "
              "text matrix alone from an index's term sequences (the memory it adds, the same bytes)",
              "~1 min at 16.5k, ~6-12 min at 156k (RESULTS); --people, --bm25 ~1-2 min at 156k (est.)",
              "--db DB --base-tree BASE [--rounds N] [--jobs 1,default] | --people DB | --bm25 INDEX_DIR "
              "(with --base-tree BASE)",
              "heavy"),
    )),
    ("the lexical engine (issue 33)", (
        Bench("lexical_engine", "the compiled column kernel gives the reference's first 100 keys on every "
              "dev set (0 lists differ, lexical and default mode) and its scoring time per kind, at two "
              "corpus sizes; candidates' field scores looked up instead of a full scoring; where a "
              "search's time goes; in-process latency per kind against a base tree",
              "~15 min on the bundled corpus at load 5-7 (RESULTS); --phases ~1 min, --base-tree ~2 min "
              "(RESULTS)", "[--db DB --small-db DB] [--n 0] [--phases | --base-tree BASE]", "timing"),
        Bench("lexical_skips", "what a MaxScore / minimum-should-match top-k could leave unread at the "
              "engine's pool size (share of postings per kind, at each corpus size given), and the time of "
              "exact look-up paths against the exhaustive kernel, each checked equal to it",
              "~2 min at the 16.5k and 156k corpora, 60 queries a set (RESULTS)",
              "[--db DB ...] [--n 60]", "timing"),
        Bench("facet_counts", "the facets and the trend's works of real match sets counted by a base "
              "tree and this one, in turns: the same counts, and the counting's CPU time per kind (at "
              "1M papers a common-word query's 60k-580k matches)",
              "~1-2 min on the bundled corpus, ~3 min at 1M (RESULTS)",
              "--db DB --base-tree BASE [--n 60]", "heavy"),
    )),
    ("a change against its base: quality and latency together", (
        Bench("parity", "a change against a base ref in one run: every dev set (lexical, hybrid, similar) "
              "and p50 / p95 per kind, each side with its own code: nothing moves unless meant to",
              "~10 min at 16k (est.); longer with --corpus 88k", "--base REF [--corpus 16k,88k]", "heavy"),
    )),
    ("load and soak (HTTP, 2 cores)", (
        Bench("web_load", "/api/search req/s and p50 / p95 at 1, 8, 32 clients: >= 300 req/s at "
              "p95 <= 100 ms (issue 5)", "~4 min at --seconds 30 (6 rows + start, est.)",
              "--db DB --seconds 30 [--workers 2]", "nice"),
        Bench("web_soak", "50 clients for minutes: 0 errors, p50-max latency, anonymous memory flat "
              "in the last minutes", "--seconds + ~1 min (RESULTS: 600 s run)", "--db DB --seconds 600",
              "nice"),
    )),
    ("the API answers every request", (
        Bench("api_contract", "schemathesis --checks all against /openapi.json: 0 failures",
              "~2 min (RESULTS: 104 s) + the server's start", "--db DB"),
        Bench("query_fuzz", "100,000 generated queries in process, 5,000 over HTTP: 0 exceptions, "
              "no 500", "~12 min (RESULTS: 659 s + 64 s)", "--db DB", "nice"),
        Bench("probe", "issue 34: hostile parameters and request lines on both backends, hostile "
              "records, Milvus killed and hung, a mixed query sequence against the local index: "
              "0 failures", "~4 min at --cases 1500 (est.)", "[--cases 1500]", "nice"),
    )),
    ("first start", (
        Bench("first_minute", "fresh clone -> scripts/serve -> first answered query within 60 s, "
              "its steps, against a baseline ref", "~2 min a run (RESULTS: two clones of ~55 s)",
              "--cold --runs 6", "heavy"),
        Bench("cli_start", "a lexical `paperfind search` from the shell, start-up included: well "
              "under a second of wall time (issue 29), against the base tree",
              "~1 min: 5 runs of 3 queries, two trees (est.)", "[--db bench/out/bundled.db] [--runs 5]"),
        Bench("first_query", "the first query of each kind after `serve` starts is as fast as later "
              "ones (issue 13)", "~2 min once the database exists (est.)", "[--restarts 5]", "heavy"),
        Bench("same_first_start", "a first start builds the baseline's database, index files and "
              "answers, byte for byte", "~3 min: two first starts (est.)", "[--baseline-ref main]", "heavy"),
    )),
    ("ingest", (
        Bench("joins", "issue 29: spaces lost at line breaks put back, per class: abstracts and "
              "words changed in the bundled corpus, papers embedded again, the repair's CPU; the "
              "hand-checked samples' false edits (0 per enabled class)", "~1 min (est.)",
              "[--sample CLASS --size 60]"),
        Bench("institution_sample", "the institution resolver on a labelled sample of the bundled "
              "corpus's stored affiliations, and what it changes in the corpus, against the base tree "
              "(issue 29)", "~1 min: every stored affiliation resolved by two trees (est.)", "[--base /work/main] [--draw]"),
        Bench("ingest_scale", "issue 33: a fresh database's ingest at 250k / 500k papers (bench.scale's "
              "corpus) and the bundled corpus's first start, a base tree and this one in one run: wall, "
              "CPU, peak RSS, WAL peak, database size, and every table the same row for row",
              "~3 min for bundled, ~15 min at 250k + 500k (est.)",
              "--base-tree BASE [--sizes bundled,250k,500k]", "heavy"),
        Bench("ingest", "wall time and peak memory of `paperfind ingest`: paperlists < 60 s "
              "(README: about 30 s on two free cores)",
              "~4 min; --with-extra ~10 min (RESULTS, summed steps)", "[--with-extra]", "timing"),
    )),
    ("crash safety", (
        Bench("crash_ingest", "kill -9 during ingest: the database intact after every kill, the "
              "re-run reaches the reference", "~20 min at --kills 20 (RESULTS, before ingest got faster)",
              "--kills 20", "nice"),
        Bench("readers_during_writes", "search and HTTP keep answering, complete, while another process "
              "ingests: 0 errors or half-updated answers", "~35 min on the full data (RESULTS); "
              "--small: seconds", "[--small]", "nice"),
    )),
    ("Milvus backend (issue 16)", (
        Bench("milvus", "the same metrics as the local index on every dev set; latency per set, "
              "facets and sync against the local index", "~5 min at 16.5k (RESULTS); 88k: 10-17 min "
              "a set (RESULTS)", "--corpora default", "heavy"),
        Bench("milvus_http", "issue 33: Milvus within .01 of the local index on every dev set through "
              "the HTTP API, default (hybrid) and lexical modes, with the share of queries whose top "
              "10 is the local one's and why the others differ; a base checkout's servers in the same run",
              "~25 min at 16.5k with --base-tree (RESULTS: 10:22-10:48 on the shared machine)", "--corpus default [--base-tree BASE]", "heavy"),
    )),
    ("open issues", (
        Bench("query_form", "issue 33: the query encoder's faster weight forms against q4 (the stored "
              "document vectors' form) on corpus texts, no dev query: cosine, top-10 agreement over the "
              "stored vectors, p50 / p95 a query; int8mix ~0.65x q4's time at cosine 0.9994",
              "~2 min at 400 texts on the bundled corpus (est.)", "--db DB [--texts 400]", "timing"),
        Bench("nicknames", "issue 27: papers by their names (R@1 .253 -> .716), other dev sets and "
              "latency unchanged", "~10 min on the bundled corpus (est.)", "[--build]", "heavy"),
        Bench("inst_topic", "issue 28: institution + topic queries (P@10 .030 -> .964), zh dev with "
              "the learned ranking, Chinese latency", "~10 min on the bundled corpus (est.)",
              "[--build]", "heavy"),
        Bench("feeds", "issue 31: a feed's size and p50 / p95 against the same list's JSON (broad "
              "search, venue-year, author), and the 304s of a repeated poll (every one)",
              "~75 s once the database exists (RESULTS: 74 s)", "--db bench/out/bundled.db", "nice"),
        Bench("review_scores", "issue 31: papers with review scores per venue-year against the source "
              "records that carry them (38,568 of 38,568), and the build's cost of writing them "
              "straight to their table against the baseline build and a second record per paper",
              "~3-5 min (est.)", "[--data ../shared/data]", "heavy"),
        Bench("experts", "issue 30: who works on this, dev R@10 / MRR@10 / nDCG@10 through the HTTP "
              "API against search voting (held-out target R@10 >= .40), an ablation, latency of a "
              "topic and of an abstract, the profiles' build", "~15 min on the bundled corpus (est.)",
              "--db bench/out/bundled.db [--build]", "heavy"),
        Bench("experts_tune", "issue 30: the expert finder's variants (signature phrases on / off and "
              "their settings) in process on both dev sets, R@10 / MRR@10 / nDCG@10, the baseline in "
              "the same run", "~6 min on the bundled corpus (est.)", "--db bench/out/bundled.db [--only 0,1]",
              "heavy"),
        Bench("experts_train_tune", "issue 30: the expert finder's settings chosen on 1,000 leave-one-out "
              "training queries (no dev or judge paper): a coordinate search over cached routes, R@10 / "
              "MRR@10 with a paired bootstrap interval, per venue family against search voting",
              "~20 min on the bundled corpus (RESULTS)", "--db bench/out/bundled.db [--routes FILE] [--families]",
              "heavy"),
        Bench("experts_whatif", "issue 30: what-if changes of the expert finder its settings cannot "
              "express (the vector route's query form, the score's shape, query-term weights, the last "
              "year's evidence, paper=KEY's stored vector) on both dev sets, the baseline in the same run",
              "~20 min on the bundled corpus (est.)", "--db bench/out/bundled.db [--only 0,1]", "heavy"),
        Bench("experts_recall", "issue 30: where the relevant people are on both dev sets, per route "
              "(the voting's order, the lexical and vector routes' papers, people's profile vectors): "
              "the share of queries ranked < 10 / 100 / 300 / 1000 or found at all",
              "~4.5 min on the bundled corpus (RESULTS: 266 s at load 4-6)", "--db bench/out/bundled.db", "heavy"),
        Bench("glossary_coverage", "issue 28: the corpus's top 600 keywords a Chinese query reaches "
              "through the glossary (586 of 600)", "< 1 min (est.)", "[--missing] [--record]"),
        Bench("zh_quality", "issue 28: both zh dev sets' R@10 / MRR@10 (held-out target .97 / .90), hybrid "
              "and lexical, learned ranking on and off, and Chinese latency, against a base tree and "
              "--variant trees in one run",
              "~3 min at 16k (RESULTS); ~1 min a side and learned setting on the bundled corpus (RESULTS)",
              "--db DB --base-tree BASE [--modes hybrid,lexical] [--learned on,off] [--variant NAME=TREE]",
              "heavy"),
        Bench("zh_dev2", "issue 28: the second and third Chinese dev sets follow their rule "
              "(bench/zh_dev2.md, bench/zh_dev3.md: papers drawn by a seeded rule away from zh_dev's "
              "venue-years, of the bundled corpus and of the 16.5k one, 10-30 Han characters)",
              "~10 s on the bundled corpus (est.)",
              "--db bench/out/bundled.db --check  (--set zh_dev3 --db bench/out/default.db --check)"),
    )),
)
BENCHES: tuple[Bench, ...] = tuple(bench for _, group in GROUPS for bench in group)
HELPERS = ("baselines", "corpus", "machine", "metrics", "parity_worker", "results", "scale_corpus",
           "scale_worker", "server")
