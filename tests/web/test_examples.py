"""Every example search of the home page finds papers on the bundled corpus (the database a
fresh `scripts/serve` builds), through the real server, in each page language.

The database is the session's `bundled_db` (tests/conftest.py), shared with
tests/test_bundled_corpus.py; lexical search only, so the examples must work without the
vectors too.
"""

from __future__ import annotations

import pytest

from paperfind.settings import BUNDLED_CORPUS
from paperfind.web.examples import EXAMPLES


@pytest.fixture(scope="module")
def bundled(corpus_portal):
    return corpus_portal  # the session's bundled_db, served without vectors


@pytest.mark.parametrize("lang", sorted(EXAMPLES))
def test_each_example_finds_what_it_shows(bundled, lang):
    for label, q in EXAMPLES[lang]:
        data = bundled.get("/api/search", params={"q": q}).json()
        assert data["total"] > 0, (lang, label, q)
        first = data["results"][0]
        if label == "example_title":  # the fragment's paper comes first
            assert q.lower() in first["title"].lower(), first["title"]
        elif label == "example_author":
            assert data["authors"] and data["authors"][0]["name"] == q
            assert any(a["name"] == q for a in first["authors"])
        elif label == "example_filter":
            parts = dict(part.split(":") for part in q.split())
            venue, year = parts["venue"], int(parts["year"])
            assert all((r["venue"], r["year"]) == (venue, year) for r in data["results"])
            assert data["trend"]["years"] == [p for p in data["trend"]["years"] if p["year"] == year]
        elif label in ("example_question", "example_topic"):  # several venues, several years
            assert len(data["facets"]["venue"]) > 1 and len(data["facets"]["year"]) > 1
        # the home page links to the same search, and its page shows the results
        page = bundled.get("/", params={"q": q, "lang": lang})
        assert page.status_code == 200 and f'data-key="{first["key"]}"' in page.text
