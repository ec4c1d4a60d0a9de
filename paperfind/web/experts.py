"""Who works on this, for the web: the parameters of /api/experts and /experts, and the view
both render (the JSON twin is the page's data). No search logic: paperfind.search.expert_results."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Query

from paperfind.core import Paperfind
from paperfind.limits import MAX_EXPERT_QUERY_CHARS, MAX_MIN_WORKS, MAX_PAGE_SIZE
from paperfind.search.expert_results import ExpertsRequest
from paperfind.search.filters import Filters
from paperfind.search.settings import ExpertSettings
from paperfind.search.similar import UnknownPaper
from paperfind.web.api_examples import EXAMPLES
from paperfind.web.errors import not_found
from paperfind.web.params import YEAR_PATTERN, PageParam, clean_values, year_range

KeyParam = Annotated[str, Query(max_length=300)]
DEFAULT_SIZE = 10
# the floor a request without `min_works` gets, as the OpenAPI document states it (the searcher
# reads its own settings: a server configured otherwise answers with, and echoes, its own)
DEFAULT_MIN_WORKS = ExpertSettings().min_works


def experts_params(
    q: Annotated[str, Query(description="A topic, a question or a whole abstract, in English or "
                                        f"Chinese (the first {MAX_EXPERT_QUERY_CHARS} characters "
                                        "are read). Without `q` or `paper`, no one.",
                            openapi_examples={"topic": {"value": "diffusion models for protein design"},
                                              "chinese": {"value": "扩散模型 蛋白质设计"}})] = "",
    paper: Annotated[str, Query(max_length=300, description="A paper key: its title and abstract "
                                                            "are the query (`q`'s words added).",
                                openapi_examples={"paper": {"value": EXAMPLES["paper"]}})] = "",
    before: Annotated[int | None, Query(ge=1900, le=2100, description="Only papers published "
                                                                      "before this year count.")] = None,
    exclude: Annotated[str, Query(max_length=300, description="A paper key: its people and everyone "
                                                              "who wrote with them from 3 years before "
                                                              "its year on are left out (conflicts).",
                                  openapi_examples={"paper": {"value": EXAMPLES["paper"]}})] = "",
    venue: Annotated[list[str], Query(max_length=20, description="Only papers of this venue count "
                                                                 "(repeatable).")] = [],  # noqa: B006
    inst: Annotated[list[str], Query(max_length=20, description="Only papers of this institution "
                                                                "count (repeatable).")] = [],  # noqa: B006
    year: Annotated[str | None, Query(pattern=YEAR_PATTERN, description="Only papers of 2024 or "
                                                                        "2017..2019 count.")] = None,
    min_works: Annotated[int | None, Query(ge=0, le=MAX_MIN_WORKS, description=(
        "Only people with at least this many works that may count (before `before`, within "
        "`venue`, `inst`, `year`; a work's versions once: the `works` each person shows) are "
        f"listed. Default {DEFAULT_MIN_WORKS}: an expert has a track record; 1 (or 0) lists "
        "everyone with a matching paper."), openapi_examples={"everyone": {"value": 1}})] = None,
    page: PageParam = 1,
    size: Annotated[int, Query(ge=1, le=MAX_PAGE_SIZE, description="People per page.")] = DEFAULT_SIZE,
) -> ExpertsRequest:
    _, year_from, year_to = year_range(year)
    filters = Filters(venues=clean_values(venue), insts=clean_values(inst), year_from=year_from,
                      year_to=year_to)
    return ExpertsRequest(q=q[:MAX_EXPERT_QUERY_CHARS], paper=paper.strip(), before=before,
                          exclude=exclude.strip(), filters=filters, min_works=min_works, page=page,
                          size=size)


def experts_view(pf: Paperfind, request: ExpertsRequest) -> dict[str, Any]:
    """/api/experts and the /experts page: an unknown paper is a 404."""
    try:
        return pf.searcher().experts(request)
    except UnknownPaper as exc:
        raise not_found(f"no paper with key {exc.key!r}") from None


def experts_search_query(request: ExpertsRequest) -> str:
    """The query string of the papers' tab for the same query and filters (/?q=...)."""
    from urllib.parse import urlencode

    f = request.filters
    pairs = [("q", request.q)] if request.q else []
    pairs += [("venue", v) for v in f.venues] + [("inst", i) for i in f.insts]
    if f.year_from is not None:
        pairs.append(("year", str(f.year_from) if f.year_to == f.year_from else f"{f.year_from}..{f.year_to}"))
    return urlencode(pairs)
