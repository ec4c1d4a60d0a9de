"""Server-side HTML: the Jinja2 environment (autoescaping on) and the helpers templates use.

Pages work without JavaScript, so everything a page shows is decided here and in the
templates; the search-as-you-type script only puts the results the server renders for the typed
address in place.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any
from urllib.parse import quote

from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup, escape
from starlette.requests import Request
from starlette.responses import HTMLResponse

from paperfind.cards import under_review
from paperfind.limits import MAX_EXPERT_QUERY_CHARS, MAX_QUERY_CHARS
from paperfind.web.atom import ATOM_TYPE
from paperfind.web.charts import stacked_histogram, trend_layout, year_chart
from paperfind.web.feeds import feed_url
from paperfind.web.i18n import COOKIE, Translator, choose_language
from paperfind.web.institution_labels import InstitutionLabels
from paperfind.web.twins import (LANGUAGE_PARAM, Twin, link_header, page_query, query_string,
                                 twin_url)

WEB_DIR = Path(__file__).resolve().parent
TEMPLATES_DIR = WEB_DIR / "templates"
STATIC_DIR = WEB_DIR / "static"
_TAG = re.compile(r"<[^>]*>")


def request_language(request: Request) -> str:
    return choose_language(request.query_params.get(LANGUAGE_PARAM), request.cookies.get(COOKIE),
                           request.headers.get("accept-language"))


def marked(text: str | None) -> Markup:
    """Search highlights arrive escaped with <mark> tags; anything else in them is escaped."""
    if not text:
        return Markup("")
    if any(tag not in ("<mark>", "</mark>") for tag in _TAG.findall(text)) or "<" in _TAG.sub("", text):
        return escape(_TAG.sub("", text))
    return Markup(text)


def paper_url(key: str) -> str:
    return "/papers/" + quote(key, safe=":")


def author_url(slug: str) -> str:
    return "/authors/" + quote(slug, safe="")


def area_url(name: str) -> str:
    return "/areas/" + quote(name, safe="")


def same_site_path(path: str) -> str:
    """`path` as a link that stays on this site. The path of a 404 is whatever was asked for:
    `//evil.example/x` (or `/%09/evil.example/x`: browsers drop tabs and newlines, and read `\\`
    as `/`) written back into an href is a link to another host. Quoted, control characters and
    backslashes are escapes, and one leading slash is left."""
    return "/" + quote(path, safe="/-._~!$&'()*+,;=:@").lstrip("/")


def static_version(directory: Path) -> str:
    """A short hash of the static files, so browsers refetch them after an upgrade."""
    digest = hashlib.sha256()
    for path in sorted(directory.glob("*")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:10]


class Pages:
    """Renders templates with the request's language and the shared helpers."""

    def __init__(self) -> None:
        self.env = Environment(loader=FileSystemLoader(str(TEMPLATES_DIR)),
                               autoescape=select_autoescape(["html", "xml", "svg"]),
                               trim_blocks=True, lstrip_blocks=True)
        self.env.filters["marked"] = marked
        self.env.globals.update(paper_url=paper_url, under_review=under_review, author_url=author_url,
                                area_url=area_url, year_chart=year_chart, trend_layout=trend_layout,
                                stacked_histogram=stacked_histogram,
                                quote=quote, max_query_chars=MAX_QUERY_CHARS,
                                max_expert_query_chars=MAX_EXPERT_QUERY_CHARS)
        self.static_version = static_version(STATIC_DIR)

    def render(self, request: Request, template: str, context: dict[str, Any],
               status: int = 200) -> HTMLResponse:
        lang = request_language(request)
        t = Translator(lang)

        def url_with(**changes: Any) -> str:
            """This page's URL with some query parameters changed (None removes one); one value
            a name, the last."""
            params = dict(page_query(request))
            for name, value in changes.items():
                if value is None or value == "":
                    params.pop(name, None)
                else:
                    params[name] = str(value)
            return same_site_path(request.url.path) + query_string(list(params.items()))

        store = request.app.state.paperfind.store
        inst_labels = InstitutionLabels(lang, lambda slug: store().institution_name(slug))
        other = "en" if lang == "zh" else "zh"
        context.setdefault("json_url", None)
        context.setdefault("feed_url", None)
        page = self.env.get_template(template).render(
            **context, t=t, inst_labels=inst_labels, lang=lang, url_with=url_with,
            switch_url=url_with(lang=other), static_version=self.static_version)
        return HTMLResponse(page, status_code=status)

    def page(self, request: Request, template: str, context: dict[str, Any],
             twin: Twin | None = None) -> HTMLResponse:
        """A page with its JSON twin (paperfind.web.twins: the route's row unless `twin` is
        given) named in its head, its footer and its `Link` header, and the feed of its list
        (paperfind.web.feeds; none for a page shown with another twin) in its head and a
        button."""
        url = twin_url(request, twin)
        feed = feed_url(request, request_language(request)) if twin is None else None
        response = self.render(request, template, {**context, "json_url": url, "feed_url": feed})
        response.headers["link"] = link_header(url)
        if feed:
            response.headers.append("link", f'<{feed}>; rel="alternate"; type="{ATOM_TYPE}"')
        return response

    def error_page(self, request: Request, status: int, code: str, message: str,
                   links: tuple[tuple[str, str], ...] = ()) -> HTMLResponse:
        return self.render(request, "error.html", {"status": status, "code": code,
                                                   "message": message, "links": links}, status=status)
