"""The portal's two languages: every UI string in Chinese and English, and how a request picks one.

Only the interface is translated; titles, abstracts and names stay in the language they were
written in. The choice comes from `?lang=` (which the response remembers in a cookie), then the
cookie, then the browser's Accept-Language, then Chinese, the language of the seed portal.
"""

from __future__ import annotations

from typing import Any

from paperfind.catalog.decisions import NO_DECISION
from paperfind.web.area_labels import AREA_LABELS_ZH

LANGUAGES = ("zh", "en")
DEFAULT_LANGUAGE = "zh"
COOKIE = "lang"

# Statuses shown in the page's language: the string key of each value a card's `status` may
# hold that is ours rather than a source's (paperfind.catalog.decisions)

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
        "with_citations": "其中 {count} 篇有引用数（共 {total} 篇）",
        "with_citations_one": "其中 {count} 篇有引用数（共 {total} 篇）",
        "no_results": "没有找到匹配的论文。",
        "did_you_mean": "您是不是要找：",
        "understood_as": "已识别机构：",
        "remove_institution": "移除机构，只按关键词检索",
        "reading_as_words": "把“{written}”当作关键词检索",
        "reading_as_institution": "只看{name}的论文",
        "et_al": "等",
        "et_al_short": "等",
        "count_works": "{works} 篇成果",
        "count_works_one": "{works} 篇成果",
        "count_versions_of_works": "{works} 篇成果（{versions} 个版本）",
        "count_versions_of_works_one": "{works} 篇成果（{versions} 个版本）",
        "works_heading": "成果",
        "list_sort_newest": "最新",
        "list_sort_citations": "引用最多（影响力）",
        "accepted_only": "只看已录用",
        "all_works": "全部",
        "coverage_line": "数据中有{what}的论文：{count} / {total} 篇",
        "coverage_none": "数据中没有{what}",
        "coverage_abstract": "摘要",
        "coverage_authors": "作者",
        "coverage_affiliations": "机构",
        "thin_years_note": "{years} 年的数据中机构信息很少：这些年份论文变少未必是真实的下降。",
        "authors_heading": "作者",
        "authors_anonymous": "匿名（评审中）",
        "authors_missing": "数据中没有作者信息",
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
        "facet_rating": "平均评分",
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
        "experts": "专家",
        "experts_title": "谁在研究这个？",
        "experts_prompt": "输入一个主题、问题或整段摘要，按本人论文的相关程度列出研究者",
        "experts_placeholder": "主题、问题或摘要……",
        "experts_before": "只计此年之前的论文",
        "experts_count": "{total} 位研究者",
        "experts_none": "没有找到研究者。",
        "experts_works": "{works} 篇可计入的论文",
        "experts_matched": "匹配",
        "experts_evidence": "代表论文",
        "experts_loading": "正在查找研究者……",
        "experts_more": "查看全部专家",
        "experts_floor": "只列出至少有 {n} 篇可计入论文的研究者",
        "experts_floor_everyone": "显示所有人（另有 {count} 位论文较少）",
        "experts_floor_none": "没有至少有 {n} 篇可计入论文的研究者；另有 {count} 位研究者论文较少。",
        "experts_floor_none_link": "显示他们",
        "experts_floor_off": "列出所有有相关论文的研究者",
        "experts_floor_default": "只看至少有 {n} 篇论文的研究者",
        "papers_tab": "论文",
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
        "reviews_n": "{count} 条评审",
        "reviews_n_one": "{count} 条评审",
        "rating_chart": "各录用结果的平均评分分布",
        "rating_bar": "平均分 {low}–{high}，{status}：{count} 篇",
        "rating_bar_one": "平均分 {low}–{high}，{status}：{count} 篇",
        "rating_group": "{count} 篇，均分 {mean}",
        "rating_group_one": "{count} 篇，均分 {mean}",
        "rating_note": "{count} 篇论文有评审分数；评分范围 {scale}",
        "rating_note_one": "{count} 篇论文有评审分数；评分范围 {scale}",
        "rating_scale": "评分范围 {scale}",
        "rating_mean_only": "平均评分（数据中只有均值）",
        "paper_reviews": "评审分数",
        "review_rating": "评分",
        "review_confidence": "置信度",
        "reviews_initial": "反驳前的初始评分",
        "sort_rating": "评分",
        "list_sort_rating": "评分最高",
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
        "with_citations": "{count} of {total} results have a citation count",
        "with_citations_one": "{count} of {total} results has a citation count",
        "no_results": "No papers match.",
        "did_you_mean": "Did you mean:",
        "understood_as": "Institution understood:",
        "remove_institution": "Remove the institution and search the other words",
        "reading_as_words": "Search “{written}” as a word instead",
        "reading_as_institution": "Only papers from {name}",
        "et_al": "et al.",
        "count_works": "{works} works",
        "count_works_one": "{works} work",
        "count_versions_of_works": "{versions} versions of {works} works",
        "count_versions_of_works_one": "{versions} versions of {works} work",
        "works_heading": "Works",
        "list_sort_newest": "Newest",
        "list_sort_citations": "Most cited (standing)",
        "accepted_only": "Accepted only",
        "all_works": "All",
        "coverage_line": "{what} in the data for {count} of {total} papers",
        "coverage_none": "no {what} in the data",
        "coverage_abstract": "abstracts",
        "coverage_authors": "authors",
        "coverage_affiliations": "affiliations",
        "thin_years_note": "Few affiliations in the data for {years}: fewer works in those years need not be a decline.",
        "et_al_short": "et al.",
        "authors_heading": "Authors",
        "authors_anonymous": "Anonymous (under review)",
        "authors_missing": "Authors not in the data",
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
        "facet_rating": "Mean rating",
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
        "experts": "Experts",
        "experts_title": "Who works on this?",
        "experts_prompt": "A topic, a question or a whole abstract: the people whose own papers match it",
        "experts_placeholder": "A topic, a question or an abstract…",
        "experts_before": "Only papers before",
        "experts_count": "{total} people",
        "experts_none": "No one found.",
        "experts_works": "{works} works counted",
        "experts_matched": "Matched",
        "experts_evidence": "Their papers",
        "experts_loading": "Finding people…",
        "experts_more": "All experts",
        "experts_floor": "People with at least {n} works that count",
        "experts_floor_everyone": "show everyone ({count} more with fewer)",
        "experts_floor_none": "No one with at least {n} works that count; {count} people with fewer.",
        "experts_floor_none_link": "Show them",
        "experts_floor_off": "Everyone with a matching paper",
        "experts_floor_default": "only people with at least {n} works",
        "papers_tab": "Papers",
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
        "reviews_n": "{count} reviews",
        "rating_chart": "Mean review score per decision",
        "rating_bar": "Mean {low}–{high}, {status}: {count} papers",
        "rating_bar_one": "Mean {low}–{high}, {status}: {count} paper",
        "rating_group": "{count} papers, mean {mean}",
        "rating_group_one": "{count} paper, mean {mean}",
        "rating_note": "{count} papers have review scores; rating scale {scale}",
        "rating_note_one": "{count} paper has review scores; rating scale {scale}",
        "reviews_n_one": "{count} review",
        "rating_scale": "rating scale {scale}",
        "rating_mean_only": "mean rating (the data has the mean alone)",
        "paper_reviews": "Review scores",
        "review_rating": "Rating",
        "review_confidence": "Confidence",
        "reviews_initial": "Initial scores, before the rebuttal",
        "sort_rating": "Rating",
        "list_sort_rating": "Highest rated",
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

# Decisions as sources write them ("Withdraw", "Desk Reject"), by their folded form, with the
# label each language shows; a label not listed is shown as the source wrote it.
STATUS_LABELS: dict[str, dict[str, str]] = {
    "poster": {"en": "Poster", "zh": "海报"},
    "oral": {"en": "Oral", "zh": "口头报告"},
    "spotlight": {"en": "Spotlight", "zh": "焦点报告"},
    "accept": {"en": "Accepted", "zh": "已接收"},
    "accepted": {"en": "Accepted", "zh": "已接收"},
    "reject": {"en": "Rejected", "zh": "未录用"},
    "rejected": {"en": "Rejected", "zh": "未录用"},
    "desk reject": {"en": "Desk rejected", "zh": "直接拒稿"},
    "desk rejected": {"en": "Desk rejected", "zh": "直接拒稿"},
    "withdraw": {"en": "Withdrawn", "zh": "已撤稿"},
    "withdrawn": {"en": "Withdrawn", "zh": "已撤稿"},
    "under review": {"en": "Under review", "zh": "评审中"},
    "submitted": {"en": "Submitted", "zh": "已投稿"},
    "pending": {"en": "Pending", "zh": "待定"},
    "findings": {"en": "Findings", "zh": "Findings"},
    "workshop": {"en": "Workshop", "zh": "研讨会"},
    "demo": {"en": "Demo", "zh": "演示"},
    "industry": {"en": "Industry", "zh": "产业论文"},
    "conditional poster": {"en": "Conditional poster", "zh": "有条件接收（海报）"},
    # derived, not stored: an undecided status after the venue-year's decisions (catalog.decisions)
    NO_DECISION.casefold(): {"en": NO_DECISION, "zh": "数据中没有录用结果"},
}
TRACK_LABELS: dict[str, dict[str, str]] = {
    "main": {"en": "Main track", "zh": "主会"},
    "findings": {"en": "Findings", "zh": "Findings"},
    "datasets & benchmarks": {"en": "Datasets & Benchmarks", "zh": "数据集与基准"},
    "demo": {"en": "Demo", "zh": "演示"},
    "srw": {"en": "Student Research Workshop", "zh": "学生研究研讨会"},
}
# The countries of paperfind/catalog/institutions.tsv (column 3) in Chinese; English is the
# catalog's own text, and a country not listed is shown as written.
COUNTRIES_ZH: dict[str, str] = {
    "United States": "美国", "China": "中国", "Japan": "日本", "Germany": "德国",
    "United Kingdom": "英国", "Australia": "澳大利亚", "South Korea": "韩国", "Canada": "加拿大",
    "France": "法国", "Switzerland": "瑞士", "Singapore": "新加坡", "Netherlands": "荷兰",
    "Italy": "意大利", "Israel": "以色列", "Taiwan": "中国台湾", "Sweden": "瑞典", "India": "印度",
    "United Arab Emirates": "阿联酋", "Spain": "西班牙", "Saudi Arabia": "沙特阿拉伯",
    "Portugal": "葡萄牙", "New Zealand": "新西兰", "Greece": "希腊", "Finland": "芬兰",
    "Czech Republic": "捷克", "Belgium": "比利时", "Austria": "奥地利", "Hong Kong": "中国香港",
    "Denmark": "丹麦", "Norway": "挪威", "Ireland": "爱尔兰", "Poland": "波兰", "Russia": "俄罗斯",
    "Brazil": "巴西",
}


def folded_label(raw: str) -> str:
    """A source's label compared: case and spacing do not matter ("Desk  reject")."""
    return " ".join((raw or "").casefold().split())


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

    def status(self, raw: str) -> str:
        """A decision in this language ("Withdraw" is "Withdrawn", "已撤稿")."""
        return STATUS_LABELS.get(folded_label(raw), {}).get(self.lang, raw or "")

    def track(self, raw: str) -> str:
        """A venue's track in this language ("main" is "Main track", "主会")."""
        return TRACK_LABELS.get(folded_label(raw), {}).get(self.lang, raw or "")

    def area(self, raw: str) -> str:
        """A subject area in this language (paperfind.web.area_labels; English as the source
        wrote it where no Chinese is listed)."""
        if self.lang == "zh":
            return AREA_LABELS_ZH.get(folded_label(raw), raw or "")
        return raw or ""

    def country(self, name: str) -> str:
        return COUNTRIES_ZH.get(name, name) if self.lang == "zh" else name

    def kicker(self, paper: dict[str, Any]) -> str:
        """The line above a card's title: its area, else its track and decision in this language."""
        if paper.get("area"):
            return self.area(paper["area"])
        parts = [self.track(paper.get("track", "")), self.status(paper.get("status", ""))]
        return " · ".join(dict.fromkeys(p for p in parts if p))  # "Findings" once, not twice

    def author_line(self, names: list[str]) -> str:
        """"A, B, C et al." in English, up to ten names then "等" in Chinese (as the seed pages)."""
        shown = AUTHORS_SHOWN[self.lang]
        if len(names) <= shown:
            return ", ".join(names)
        return ", ".join(names[:shown]) + " " + self.strings["et_al"]
