"""The portal's two languages: every UI string in Chinese and English, and how a request picks one.

Only the interface is translated; titles, abstracts and names stay in the language they were
written in. The choice comes from `?lang=` (which the response remembers in a cookie), then the
cookie, then the browser's Accept-Language, then Chinese, the language of the seed portal.
"""

from __future__ import annotations

from typing import Any

LANGUAGES = ("zh", "en")
DEFAULT_LANGUAGE = "zh"
COOKIE = "lang"

# Authors shown on a result card before the list is cut: the seed pages show three then
# "et al." in English and up to ten then "等" in Chinese.
AUTHORS_SHOWN = {"en": 3, "zh": 10}

STRINGS: dict[str, dict[str, str]] = {
    "zh": {
        "site_name": "论文检索",
        "search_title": "论文检索",
        "search_prompt": "输入标题、作者或关键词，从 {count} 篇学术成果中精准定位",
        "search_placeholder": "标题、作者、关键词……",
        "search_button": "搜索",
        "switch_language": "English",
        "results_count": "共 {total} 条结果",
        "results_count_one": "共 {total} 条结果",
        "counts_approximate": "计数为近似值：按检索引擎的前若干候选统计",
        "results_took": "用时 {ms} 毫秒",
        "no_results": "没有找到匹配的论文。",
        "did_you_mean": "您是不是要找：",
        "understood_as": "已识别机构：",
        "remove_institution": "移除机构，只按关键词检索",
        "reading_as_words": "把“{written}”当作关键词检索",
        "reading_as_institution": "只看{name}的论文",
        "et_al": "等",
        "et_al_short": "et al.",
        "authors_heading": "作者",
        "filters": "筛选",
        "clear_filters": "清除筛选",
        "remove_filter": "移除筛选",
        "facet_venue": "会议",
        "facet_year": "年份",
        "facet_status": "状态",
        "facet_area": "领域",
        "facet_institution": "机构",
        "sort": "排序",
        "sort_relevance": "相关度",
        "sort_newest": "最新",
        "sort_date": "最新",
        "facet_since": "起始年份",
        "feed": "订阅",
        "feed_hint": "订阅这个列表的 Atom 源：新论文会出现在你的阅读器里",
        "feed_search": "论文检索 · 搜索：{q}",
        "feed_search_all": "论文检索 · 全部论文",
        "feed_author": "论文检索 · {name} 的论文",
        "feed_institution": "论文检索 · {name} 的论文",
        "feed_venue": "论文检索 · {name}",
        "feed_area": "论文检索 · 领域：{name}",
        "sort_influence": "影响力",
        "sort_citations": "引用数",
        "previous": "上一页",
        "next": "下一页",
        "page_of": "第 {page} / {pages} 页",
        "export": "导出",
        "export_bibtex": "导出 BibTeX",
        "export_csv": "导出 CSV",
        "papers_count": "{count} 篇论文",
        "papers_count_one": "{count} 篇论文",
        "paper_authors": "作者",
        "abstract": "摘要",
        "abstract_missing": "暂无摘要。",
        "tldr": "一句话总结",
        "keywords": "关键词",
        "links": "链接",
        "link_pdf": "PDF",
        "link_openreview": "OpenReview",
        "link_site": "会议页面",
        "link_code": "代码",
        "link_project": "项目主页",
        "link_arxiv": "arXiv",
        "link_oa": "开放获取",
        "link_doi": "DOI",
        "bibtex": "BibTeX",
        "copy": "复制",
        "copied": "已复制",
        "download": "下载",
        "versions": "其他版本",
        "also_in": "另见",
        "similar": "相似论文",
        "similar_in": "相似之处",
        "aspect_all": "全文",
        "aspect_background": "背景",
        "aspect_method": "方法",
        "aspect_result": "结果",
        "venue": "会议",
        "year": "年份",
        "status": "状态",
        "track": "分组",
        "area": "领域",
        "citations": "引用",
        "also_known_as": "又称",
        "standing_line": "{mentions} 篇后续论文提及其名称（影响力百分位 {score}）",
        "aliases": "别名",
        "institutions_over_time": "任职机构",
        "papers": "论文",
        "coauthors": "常见合作者",
        "venues": "发表会议",
        "papers_per_year": "每年论文数",
        "bar_papers": "{year}：{count} 篇论文",
        "bar_papers_one": "{year}：{count} 篇论文",
        "profile": "OpenReview 主页",
        "show_all_authors": "显示全部作者",
        "top_authors": "主要作者",
        "all_years": "全部年份",
        "stats_title": "收录统计",
        "stats_intro": "{papers} 篇论文 · {authors} 位作者 · {institutions} 个机构 · {venues} 个会议",
        "api_docs": "API 文档",
        "error_title": "出错了",
        "back_home": "返回首页",
        "error_not_found": "页面不存在。",
        "unknown_paper": "没有这篇论文：{key}",
        "unknown_author": "没有这位作者：{id}",
        "unknown_institution": "没有这个机构：{slug}",
        "unknown_venue": "没有这个会议：{slug}",
        "unknown_area": "没有这个领域：{name}",
        "searching": "搜索中……",
        "trend_title": "趋势：每年的匹配成果占当年全部成果的比例",
        "trend_bar": "{of} 项成果中的 {count} 项（{share}）",
        "trend_by_venue": "按会议",
        "home_indexed": "收录范围",
        "indexing_note": "正在后台建立索引（{percent}%）：",
        "home_indexed_note": "各会议每年收录的论文数；点击数字查看这些论文。",
        "home_examples": "试试这些搜索",
        "home_recent": "最新收录",
        "example_title": "标题片段",
        "example_topic": "主题",
        "example_author": "作者",
        "example_question": "中文提问",
        "example_filter": "筛选条件",
        "footer": "paperfind · 自托管的论文检索",
    },
    "en": {
        "site_name": "Paper search",
        "search_title": "Paper search",
        "search_prompt": "Search by title, author or keyword across {count} papers",
        "search_placeholder": "Title, author, keyword…",
        "search_button": "Search",
        "switch_language": "中文",
        "results_count": "{total} results",
        "results_count_one": "{total} result",
        "counts_approximate": "approximate counts: over the search engine's top candidates",
        "results_took": "in {ms} ms",
        "no_results": "No papers match.",
        "did_you_mean": "Did you mean:",
        "understood_as": "Institution understood:",
        "remove_institution": "Remove the institution and search the other words",
        "reading_as_words": "Search “{written}” as a word instead",
        "reading_as_institution": "Only papers from {name}",
        "et_al": "et al.",
        "et_al_short": "et al.",
        "authors_heading": "Authors",
        "filters": "Filters",
        "clear_filters": "Clear filters",
        "remove_filter": "Remove filter",
        "facet_venue": "Venue",
        "facet_year": "Year",
        "facet_status": "Status",
        "facet_area": "Area",
        "facet_institution": "Institution",
        "sort": "Sort",
        "sort_relevance": "Relevance",
        "sort_newest": "Newest",
        "sort_date": "Newest",
        "facet_since": "Since",
        "feed": "Feed",
        "feed_hint": "Subscribe to this list's Atom feed: new papers appear in your reader",
        "feed_search": "paperfind · Search: {q}",
        "feed_search_all": "paperfind · All papers",
        "feed_author": "paperfind · Papers by {name}",
        "feed_institution": "paperfind · Papers of {name}",
        "feed_venue": "paperfind · {name}",
        "feed_area": "paperfind · Area: {name}",
        "sort_influence": "Influence",
        "sort_citations": "Citations",
        "previous": "Previous",
        "next": "Next",
        "page_of": "Page {page} of {pages}",
        "export": "Export",
        "export_bibtex": "Export BibTeX",
        "export_csv": "Export CSV",
        "papers_count": "{count} papers",
        "papers_count_one": "{count} paper",
        "paper_authors": "Authors",
        "abstract": "Abstract",
        "abstract_missing": "Abstract not available.",
        "tldr": "TL;DR",
        "keywords": "Keywords",
        "links": "Links",
        "link_pdf": "PDF",
        "link_openreview": "OpenReview",
        "link_site": "Venue page",
        "link_code": "Code",
        "link_project": "Project page",
        "link_arxiv": "arXiv",
        "link_oa": "Open access",
        "link_doi": "DOI",
        "bibtex": "BibTeX",
        "copy": "Copy",
        "copied": "Copied",
        "download": "Download",
        "versions": "Other versions",
        "also_in": "Also",
        "similar": "Similar papers",
        "similar_in": "Similar in",
        "aspect_all": "everything",
        "aspect_background": "background",
        "aspect_method": "method",
        "aspect_result": "results",
        "venue": "Venue",
        "year": "Year",
        "status": "Status",
        "track": "Track",
        "area": "Area",
        "citations": "Citations",
        "also_known_as": "Also known as",
        "standing_line": "Named by {mentions} later papers (standing: percentile {score})",
        "aliases": "Also known as",
        "institutions_over_time": "Institutions",
        "papers": "Papers",
        "coauthors": "Frequent co-authors",
        "venues": "Venues",
        "papers_per_year": "Papers per year",
        "bar_papers": "{year}: {count} papers",
        "bar_papers_one": "{year}: {count} paper",
        "profile": "OpenReview profile",
        "show_all_authors": "Show all authors",
        "top_authors": "Top authors",
        "all_years": "All years",
        "stats_title": "What is indexed",
        "stats_intro": "{papers} papers · {authors} authors · {institutions} institutions · {venues} venues",
        "api_docs": "API docs",
        "error_title": "Something went wrong",
        "back_home": "Back to search",
        "error_not_found": "No such page.",
        "unknown_paper": "No paper with key {key}",
        "unknown_author": "No author with id {id}",
        "unknown_institution": "No institution {slug}",
        "unknown_venue": "No venue {slug}",
        "unknown_area": "No area named {name}",
        "searching": "Searching…",
        "trend_title": "Trend: matching works as a share of each year's works",
        "trend_bar": "{count} of {of} works ({share})",
        "trend_by_venue": "By venue",
        "home_indexed": "What is indexed",
        "indexing_note": "Indexing in the background ({percent}%):",
        "home_indexed_note": "Papers per venue and year; a number opens those papers.",
        "home_examples": "Try a search",
        "home_recent": "Most recent",
        "example_title": "A title fragment",
        "example_topic": "A topic",
        "example_author": "An author",
        "example_question": "A question in Chinese",
        "example_filter": "A filter",
        "footer": "paperfind · self-hosted paper search",
    },
}


def language_from_accept(header: str) -> str | None:
    """The first of our languages in an Accept-Language header, honouring q-values."""
    ranked: list[tuple[float, int, str]] = []
    for i, part in enumerate(header.split(",")):
        tag, _, params = part.strip().partition(";")
        quality = 1.0
        params = params.strip()
        if params.startswith("q="):
            try:
                quality = float(params[2:])
            except ValueError:
                quality = 0.0
        primary = tag.strip().lower().split("-")[0]
        if primary in LANGUAGES and quality > 0:
            ranked.append((-quality, i, primary))
    return min(ranked)[2] if ranked else None


def choose_language(query_value: str | None, cookie_value: str | None,
                    accept_language: str | None) -> str:
    for value in (query_value, cookie_value):
        if value in LANGUAGES:
            return value  # type: ignore[return-value]
    return language_from_accept(accept_language or "") or DEFAULT_LANGUAGE


class Translator:
    """The strings of one language, callable from templates as `t("key", count=...)`."""

    def __init__(self, lang: str) -> None:
        self.lang = lang if lang in LANGUAGES else DEFAULT_LANGUAGE
        self.strings = STRINGS[self.lang]

    def __call__(self, key: str, **values: Any) -> str:
        """The string `key` with `values`; its `_one` form where a count is 1 and the language
        has one ("1 paper", not "1 papers"; Chinese has no plural)."""
        text = self.strings[key]
        if any(str(v) == "1" for v in values.values()):
            text = self.strings.get(key + "_one", text)
        return text.format(**values) if values else text

    def number(self, value: int) -> str:
        return f"{value:,}"

    def author_line(self, names: list[str]) -> str:
        """"A, B, C et al." in English, up to ten names then "等" in Chinese (as the seed pages)."""
        shown = AUTHORS_SHOWN[self.lang]
        if len(names) <= shown:
            return ", ".join(names)
        return ", ".join(names[:shown]) + " " + self.strings["et_al"]

    def client_strings(self) -> dict[str, Any]:
        """What the search-as-you-type script needs to draw cards like the server does."""
        keys = ("results_count", "counts_approximate", "results_took", "no_results", "did_you_mean",
                "et_al", "abstract_missing", "searching", "papers_count", "also_in", "also_known_as",
                "understood_as", "remove_institution", "reading_as_words", "reading_as_institution",
                "feed", "feed_hint")
        strings = {k: self.strings[k] for k in keys}
        strings.update((k + "_one", self.strings[k + "_one"]) for k in keys if k + "_one" in self.strings)
        return {"lang": self.lang, "authors_shown": AUTHORS_SHOWN[self.lang], "strings": strings}
