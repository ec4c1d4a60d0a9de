"""Plain-text rendering of a search response for `paperfind search` (the CLI's non-JSON output)."""

from __future__ import annotations

import shutil
import textwrap
from collections.abc import Callable

from paperfind.cards import under_review
from paperfind.search.response import SearchResponse

MAX_AUTHORS = 3
MAX_TAGS = 3


def author_line(names: list[str], named: list[int] = ()) -> str:
    """`A, B, C et al.` for long lists, all names for short ones; the people a search names
    (positions `named`) shown even after the first three: `A, B, C, …, Yoshua Bengio et al.`"""
    if len(names) <= MAX_AUTHORS:
        return ", ".join(names)
    line, last = ", ".join(names[:MAX_AUTHORS]), MAX_AUTHORS - 1
    for i in sorted(i for i in named if MAX_AUTHORS <= i < len(names)):
        line += (", … " if i > last + 1 else ", ") + names[i]
        last = i
    return line + (" et al." if last < len(names) - 1 else "")


def format_results_text(response: SearchResponse, width: int | None = None,
                        label: Callable[[str], str] = str) -> str:
    """Numbered results (title, authors, venue year, institution tags), author cards first.

    `label` names an institution by its slug, as the pages do ("Microsoft Research", "CMU";
    the slug itself by default)."""
    width = width or min(shutil.get_terminal_size((100, 24)).columns, 120)
    lines: list[str] = []
    understood = response.understood or {}
    if understood.get("institutions"):
        names = ", ".join(i["name"] + (f" ({i['name_zh']})" if i["name_zh"] else "")
                          for i in understood["institutions"])
        lines.append(f"institution: {names}" + (f" · {understood['text']}" if understood["text"] else ""))
    if understood.get("alternative"):
        lines.append(f"or search: {understood['alternative']['q']}")
    if response.suggestion:
        lines.append(f"Did you mean: {response.suggestion}")
    for card in response.authors:
        insts = ", ".join(map(label, card["institutions"][:MAX_TAGS]))
        works, versions = card.get("work_count") or card["paper_count"], card["paper_count"]
        counted = f"{versions:,} versions of {works:,} works" if versions != works else \
            f"{works:,} work{'s' if works != 1 else ''}"
        lines.append(f"person: {card['name']} ({counted}"
                     + (f"; {insts}" if insts else "") + ")")
    if response.authors or response.suggestion or understood:
        lines.append("")
    if not response.results:
        lines.append(f"No results for {response.query!r}." if response.query else "No results.")
        return "\n".join(lines)
    cited = "" if response.with_citations is None else \
        f"; {response.with_citations:,} of {response.total:,} have a citation count"
    lines.append(f"{response.total:,} results ({response.took_ms:.0f} ms{cited})")
    for n, r in enumerate(response.results, start=1):
        lines.append("")
        lines.extend(textwrap.wrap(f"{n}. {r['title']}", width, subsequent_indent="   "))
        names = [a["name"] for a in r["authors"]]
        if names:
            lines.extend(textwrap.wrap(author_line(names, r.get("named", [])), width, initial_indent="   ",
                                       subsequent_indent="   "))
        else:  # as the pages say it
            lines.append("   " + ("Anonymous (under review)" if under_review(r.get("source_status") or r.get("status", ""))
                                  else "Authors not in the data"))
        meta = f"{r.get('venue_name') or r['venue']} {r['year']}"
        if r.get("status"):
            meta += f" · {r['status']}"
        tags = " ".join(f"[{label(t)}]" for t in r["institutions"][:MAX_TAGS])
        lines.append(f"   {meta}" + (f"  {tags}" if tags else "") + f"  ({r['key']})")
        if r.get("versions"):
            lines.append("   also: " + ", ".join(f"{v['venue_name']} {v['year']} ({v['key']})"
                                               for v in r["versions"]))
        if r.get("ranking"):  # --explain: what decided a learned-ranking position
            lines.append("   ranked by the learned model: " + ", ".join(
                f"{f['feature']} {f['contribution']:+.3f}" for f in r["ranking"]["top_features"]))
    return "\n".join(lines)
