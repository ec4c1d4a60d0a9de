"""Institution + topic queries (issue 28): `清华 强化学习`, `diffusion models PKU`.

    flock /tmp/paperfind-heavy.lock .venv/bin/python -m bench.inst_topic [--build] [--no-write]

`--build` (re)writes the dev set `bench/inst_topic_dev.jsonl` from the bundled corpus by the
rule in `bench/inst_topic_dev.md`. Then, on the bundled corpus (bench/out/bundled.db, with its
vectors):

- the dev set through the HTTP API: two `paperfind serve`s of the same database, one reading
  institutions (default) and the baseline with PAPERFIND_UNDERSTAND_INSTITUTIONS=0, in the same
  run: P@10, the share of the top 10 both from the institution and on the topic;
- the zh dev set (`../shared/eval-dev`) in hybrid mode with the learned ranking on and off, and
  every dev set with institutions read and not, in process;
- server-side latency (`took_ms`) of Chinese queries (zh dev and the dev set's Chinese half),
  p50 / p95 over three rounds.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sqlite3
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

import httpx

from bench import corpus
from bench.metrics import percentile, score_ranked
from bench.results import append_results
from bench.server import free_port, start_server, stop_server

HERE = Path(__file__).parent
DEV = HERE / "inst_topic_dev.jsonl"
# (English, Chinese): topics of the field's own vocabulary, none of issue 28's examples
TOPICS = (("reinforcement learning", "强化学习"), ("diffusion models", "扩散模型"),
          ("large language models", "大语言模型"), ("graph neural networks", "图神经网络"),
          ("federated learning", "联邦学习"), ("knowledge distillation", "知识蒸馏"),
          ("object detection", "目标检测"), ("semantic segmentation", "语义分割"),
          ("contrastive learning", "对比学习"), ("domain adaptation", "域适应"),
          ("continual learning", "持续学习"), ("few-shot learning", "小样本学习"),
          ("neural architecture search", "神经架构搜索"), ("quantization", "量化"),
          ("question answering", "问答"), ("machine translation", "机器翻译"),
          ("recommendation", "推荐"), ("time series", "时间序列"), ("point cloud", "点云"),
          ("autonomous driving", "自动驾驶"), ("multimodal", "多模态"),
          ("self-supervised learning", "自监督学习"), ("image generation", "图像生成"),
          ("video generation", "视频生成"), ("speech recognition", "语音识别"),
          ("adversarial attacks", "对抗攻击"), ("instruction tuning", "指令微调"),
          ("in-context learning", "上下文学习"), ("mixture of experts", "混合专家"),
          ("pruning", "剪枝"), ("offline reinforcement learning", "离线强化学习"),
          ("text-to-image", "文生图"), ("3d reconstruction", "三维重建"),
          ("code generation", "代码生成"), ("hallucination", "幻觉"))
CHINESE_INSTITUTIONS = 14  # mainland, Hong Kong, Taiwan, Singapore: those with most works
OTHER_INSTITUTIONS = 8
PER_INSTITUTION = 2
MIN_RELEVANT = 15  # labelled keys (versions of works) both from the institution and on the topic
GREATER_CHINA = {"China", "Hong Kong", "Taiwan", "Singapore", "Macau"}
MODES = ("hybrid",)  # the mode the portal serves


def _papers_of(conn: sqlite3.Connection, slug: str, analyzer) -> list[tuple[str, int, list[str]]]:
    """(key, work, stems of title + abstract + keywords, a hyphen a space) of the institution's papers."""
    rows = conn.execute("SELECT DISTINCT p.key, p.work_id, p.title, p.abstract, p.keywords FROM papers p "
                        "JOIN paper_affiliations a ON a.paper_id = p.id WHERE a.institution = ?", (slug,))
    return [(key, work, analyzer.terms(" ".join((title, abstract, " ".join(json.loads(keywords or "[]"))))
                                        .replace("-", " ")))
            for key, work, title, abstract, keywords in rows]


def _topic_works(conn: sqlite3.Connection, papers: list[tuple[str, int, list[str]]], english: str,
                 analyzer) -> dict[str, int]:
    """The labels: every key of the works of the institution's papers that hold the topic's
    stems in order (a hit on any version of a work counts, as the cards show one version)."""
    want = analyzer.terms(english.replace("-", " "))
    works = {work for _, work, text in papers
             if any(text[i:i + len(want)] == want for i in range(len(text) - len(want) + 1))}
    keys = {}
    for work in sorted(works):
        for (key,) in conn.execute("SELECT key FROM papers WHERE work_id = ? ORDER BY key", (work,)):
            keys[key] = 1
    return keys


def _order(slug: str, topic: str) -> str:
    return hashlib.sha1(f"{slug}|{topic}".encode()).hexdigest()


def build_dev(db: Path) -> list[dict]:
    from paperfind.catalog.aliases import alias_table, is_acronym
    from paperfind.text.analyze import Analyzer

    table, analyzer = alias_table(), Analyzer()
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    ranked = conn.execute("SELECT a.institution, i.country, COUNT(DISTINCT p.work_id) FROM paper_affiliations a "
                          "JOIN papers p ON p.id = a.paper_id JOIN institutions i ON i.slug = a.institution "
                          "GROUP BY 1 ORDER BY 3 DESC, 1").fetchall()
    chinese = [s for s, c, _ in ranked if c in GREATER_CHINA and s in table.by_slug
               and table.by_slug[s].short_zh][:CHINESE_INSTITUTIONS]
    others = [s for s, c, _ in ranked if c not in GREATER_CHINA and s in table.by_slug
              and table.by_slug[s].name_zh][:OTHER_INSTITUTIONS]
    items = []
    for n, slug in enumerate(chinese + others):
        names = table.by_slug[slug]
        acronyms = [a for a in names.aliases if is_acronym(a)]
        chosen = 0
        papers = _papers_of(conn, slug, analyzer)
        for english, zh in sorted(TOPICS, key=lambda t: _order(slug, t[0])):
            if chosen == PER_INSTITUTION:
                break
            relevant = _topic_works(conn, papers, english, analyzer)
            if len(relevant) < MIN_RELEVANT:
                continue
            chosen += 1
            if (n + chosen) % 2:  # Chinese: the short form first, or the full name last
                query = f"{names.short_zh[0]} {zh}" if chosen == 1 or not names.name_zh else f"{zh} {names.name_zh}"
                lang = "zh"
            else:  # English: an acronym first, or the name last
                query = f"{acronyms[0]} {english}" if acronyms and chosen == 1 else f"{english} {names.aliases[0] if names.aliases else names.name}"
                lang = "en"
            items.append({"qid": f"inst-{slug}-{chosen}", "query": query, "institution": slug,
                          "topic": english, "lang": lang, "relevant": relevant})
    conn.close()
    return items


def load_dev() -> list[dict]:
    with open(DEV, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def precision(ranked: list[str], relevant: dict[str, int], k: int = 10) -> float:
    return sum(1 for key in ranked[:k] if key in relevant) / k


def over_http(db: Path, items: list[dict], understand: bool) -> tuple[dict[str, list[str]], list[float]]:
    """Each query's top 10 keys through a real server, and its server-side time per query."""
    port = free_port()
    proc = start_server(db, port, env={"PAPERFIND_UNDERSTAND_INSTITUTIONS": "1" if understand else "0"})
    try:
        ranked, took = {}, []
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60) as client:
            for it in items:
                body = client.get("/api/search", params={"q": it["query"], "size": 10}).json()
                ranked[it["qid"]] = [r["key"] for r in body["results"]]
                took.append(body["took_ms"])
        return ranked, took
    finally:
        stop_server(proc)


def main(argv: list[str] | None = None) -> int:
    from paperfind.search.response import SearchRequest
    from paperfind.search.settings import SearchSettings
    from paperfind.text.fold import has_han

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", action="store_true", help="rewrite bench/inst_topic_dev.jsonl first")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args(argv)
    db = corpus.database("bundled")
    vec = corpus.vectors("bundled")
    store, root = corpus.ensure_index("bundled")
    if args.build:
        items = build_dev(db)
        DEV.write_text("".join(json.dumps(it, ensure_ascii=False) + "\n" for it in items), encoding="utf-8")
        print(f"wrote {DEV} ({len(items)} queries)", file=sys.stderr)
    items = load_dev()
    http = {flag: over_http(db, items, flag) for flag in (False, True)}

    def p10(part: list[dict], flag: bool) -> float:
        return statistics.fmean(precision(http[flag][0][it["qid"]], it["relevant"]) for it in part)

    lines = ["| institution + topic dev set, HTTP API | queries | P@10, read as words (baseline) | "
             "P@10, institution understood |", "|---|---:|---:|---:|"]
    for label, part in (("all", items), ("Chinese", [i for i in items if i["lang"] == "zh"]),
                        ("English", [i for i in items if i["lang"] == "en"])):
        lines.append(f"| {label} | {len(part)} | {p10(part, False):.3f} | {p10(part, True):.3f} |")

    base = SearchSettings(result_cache=0)
    searchers = {name: corpus.open_searcher(root, store, settings, vector_dir=vec) for name, settings in (
        ("now", base), ("words", replace(base, understand_institutions=False)),
        ("unlearned", replace(base, learned_ranking=False)))}
    sets = {}
    for name in corpus.SETS:
        dev = corpus.load_set(name)
        for mode in MODES:
            for variant in (("now", "words", "unlearned") if name == "zh_dev" and mode == "hybrid" else ("now", "words")):
                ranked = {it["qid"]: [r["key"] for r in searchers[variant].search(
                    SearchRequest(q=it["query"], limit=100, mode=mode)).results] for it in dev}
                options = ("--lenient",) if name == "author_dev" else ()
                sets[(name, mode, variant)] = score_ranked(name, ranked, *options)["metrics"]
    lines += ["", "| zh_dev, hybrid | learned ranking off | learned ranking on (as shipped) | change |",
              "|---|---:|---:|---:|"]
    for metric in ("R@10", "MRR@10", "nDCG@10"):
        x, y = sets[("zh_dev", "hybrid", "unlearned")][metric], sets[("zh_dev", "hybrid", "now")][metric]
        lines.append(f"| {metric} | {x:.3f} | {y:.3f} | {y - x:+.3f} |")
    lines += ["", "| set | mode | metric | institutions as words | understood | change |",
              "|---|---|---|---:|---:|---:|"]
    for name in corpus.SETS:
        for mode in MODES:
            for metric in ("nDCG@10", "MRR@10", "R@10"):
                x, y = sets[(name, mode, "words")][metric], sets[(name, mode, "now")][metric]
                lines.append(f"| {name}{' (lenient)' if name == 'author_dev' else ''} | {mode} | {metric} | "
                             f"{x:.3f} | {y:.3f} | {y - x:+.3f} |")
    chinese = [it["query"] for it in corpus.load_set("zh_dev")] + [it["query"] for it in items if has_han(it["query"])]
    took = []
    for _ in range(3):
        for text in chinese:
            took.append(searchers["now"].search(SearchRequest(q=text, limit=10)).took_ms)
    lines += ["", "| Chinese queries (zh dev + the dev set's Chinese half) x 3, in process, cache off | "
                  "queries | p50 ms | p95 ms |", "|---|---:|---:|---:|",
              f"| server-side took_ms | {len(chinese)} | {statistics.median(took):.1f} | {percentile(took, 95):.1f} |"]
    table = "\n".join(lines)
    print(table)
    for it in items:
        got = precision(http[True][0][it["qid"]], it["relevant"])
        if got < 0.8:
            print(f"low: {it['query']!r} P@10 {got:.1f}", file=sys.stderr)
    if not args.no_write:
        intro = (f"{time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC, `python -m bench.inst_topic`: the bundled "
                 f"corpus ({store.paper_count():,} papers), the dev set of bench/inst_topic_dev.md; the baseline is "
                 "the same tree with PAPERFIND_UNDERSTAND_INSTITUTIONS=0 (the institution read as words).\n\n")
        append_results("Institution + topic queries (issue 28): dev set, zh with and without the learned "
                       "ranking, other sets, latency", intro + table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
