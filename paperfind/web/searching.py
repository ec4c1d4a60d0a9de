"""The search page's data: validated parameters in, the search response plus display fields out.

The searcher answers with the JSON contract of paperfind.search (authors by the slug of
/authors/{id}, each card's track); the portal adds the venue names facets show.
/api/search returns exactly this dict, and the page and the search-as-you-type script draw it.
"""

from __future__ import annotations

from itertools import chain
from typing import Any

from paperfind.core import Paperfind
from paperfind.web.params import SearchParams
from paperfind.web.views import page_info

FACET_PARAMS = {"venue": "venue", "year": "year", "status": "status", "area": "area",
                "institution": "inst"}


def search_view(pf: Paperfind, params: SearchParams, leftovers: list | None = None) -> dict[str, Any]:
    """The search's answer with the portal's display fields; `leftovers` as the searcher's
    (`Searcher.search`: what to free once the answer is sent)."""
    from paperfind.search.response import SearchRequest

    request = SearchRequest(q=params.q, limit=params.paging.size, offset=params.paging.offset, sort=params.sort,
                            filters=params.filters, explain=params.explain, include=params.include)
    if params.mode:
        request.mode = params.mode
    data = pf.searcher().search(request, leftovers).to_json()
    if data["facets"] or data["trend"]:
        # venues and institutions by name, as the page shows them (it keeps the slug in its links):
        # from the names the store has read when they name every slug shown, else read anew
        facets, trend = data["facets"], data["trend"]
        venue_names, institutions = pf.store().facet_names(
            chain((v for v, _ in facets.get("venue", ())), (v["venue"] for v in (trend or {}).get("venues", ()))),
            (i for i, _ in facets.get("institution", ())))
        data["facets"], data["trend"] = named_parts(facets, trend, venue_names, institutions)
    data["paging"] = page_info(params.paging, data["total"])
    data["filters"] = with_understood(params.chosen, data.get("understood"))
    data["sort"] = params.sort
    return data


def named_parts(facets: dict[str, list], trend: dict[str, Any] | None, venue_names: dict[str, str],
                institutions: dict[str, str]) -> tuple[dict[str, list[dict[str, Any]]], dict[str, Any] | None]:
    """(the facets labelled, the trend named) by these names (a slug without a name as itself)."""
    names = {"venue": venue_names, "institution": institutions}
    return ({name: labelled(pairs, FACET_PARAMS.get(name, name), names.get(name))
             for name, pairs in facets.items()}, named_trend(trend, venue_names))


def labelled(pairs: list, param: str, names: dict[str, str] | None) -> list[dict[str, Any]]:
    """A facet's (value, count) pairs as the page draws them: the value by its name where the
    facet has names (a venue, an institution; its slug when it has none), else as written."""
    return [{"value": str(v), "count": c, "label": str(v) if names is None else names.get(v) or v,
             "param": param} for v, c in pairs]


def with_understood(chosen: dict[str, list[str]], understood: dict[str, Any] | None) -> dict[str, list[str]]:
    """The filters a search ran with: those chosen, and the institutions its query named."""
    filters = {name: list(values) for name, values in chosen.items()}
    for inst in (understood or {}).get("institutions", []):
        if inst["slug"] not in filters.setdefault("inst", []):
            filters["inst"].append(inst["slug"])
    return filters


def named_trend(trend: dict[str, Any] | None, venue_names: dict[str, str]) -> dict[str, Any] | None:
    """The searcher's trend with each venue's display name (a copy: the searcher caches its own)."""
    if trend is None:
        return None
    return {**trend, "venues": [{**v, "venue_name": venue_names.get(v["venue"], v["venue"])}
                                for v in trend["venues"]]}


def trend_view(pf: Paperfind, params: SearchParams) -> dict[str, Any]:
    """A query's trend alone: the `trend` of the search it belongs to (the same cached search
    when the page just ran it), with the query and filters it was computed for."""
    data = search_view(pf, params)
    return {"query": data["query"], "total": data["total"], "filters": data["filters"],
            "trend": data["trend"]}
