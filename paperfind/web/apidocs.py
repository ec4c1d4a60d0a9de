"""/docs: the API reference drawn from the OpenAPI schema, as a plain page of our own.

FastAPI's default /docs loads Swagger UI from a CDN, which a self-hosted portal cannot rely on
(and our Content-Security-Policy forbids); the schema itself is served at /openapi.json.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import HTMLResponse

from paperfind.web.render import Pages


def schema_operations(schema: dict[str, Any]) -> list[dict[str, Any]]:
    """Each GET operation with its parameters, in path order."""
    ops = []
    for path, methods in sorted(schema.get("paths", {}).items()):
        for method, op in methods.items():
            params = []
            for p in op.get("parameters", []):
                s = p.get("schema", {})
                kind = s.get("type") or " | ".join(x.get("type", "") for x in s.get("anyOf", []))
                limits = [f"{name} {s[key]}" for key, name in
                          (("minimum", "≥"), ("maximum", "≤"), ("maxLength", "length ≤"))
                          if key in s]
                if s.get("enum"):
                    limits.append(" | ".join(map(str, s["enum"])))
                example = next(iter(p.get("examples", {}).values()), {}).get("value")
                params.append({"example": "" if example is None else str(example), "name": p["name"], "in": p["in"], "required": p.get("required", False),
                               "type": kind or "", "default": s.get("default"),
                               "limits": ", ".join(limits), "description": p.get("description", "")})
            ops.append({"method": method.upper(), "path": path, "summary": op.get("summary", ""),
                        "params": params, "responses": _responses(op)})
    return ops


def _responses(op: dict[str, Any]) -> list[dict[str, str]]:
    """Each documented status with what it carries: the model's name, or the media types."""
    out = []
    for status, response in sorted(op.get("responses", {}).items()):
        kinds = []
        for media, body in response.get("content", {}).items():
            ref = body.get("schema", {}).get("$ref", "")
            kinds.append(ref.rsplit("/", 1)[-1] if ref else media)
        out.append({"status": status, "carries": ", ".join(kinds),
                    "description": response.get("description", "")})
    return out


def build_docs_router(app: FastAPI, pages: Pages) -> APIRouter:
    router = APIRouter(include_in_schema=False)

    @router.get("/docs", response_class=HTMLResponse)
    def docs(request: Request) -> HTMLResponse:
        return pages.page(request, "docs.html", {"operations": schema_operations(app.openapi())})

    return router
