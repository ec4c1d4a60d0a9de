"""A query string's %-escapes are checked for UTF-8 once as a whole, and per parameter only when
that fails: the same refusals, naming the same parameter, as a check of every parameter apart
(paperfind.web.middleware.undecodable_parameter)."""

from __future__ import annotations

from urllib.parse import quote_plus, unquote_to_bytes

import pytest

from paperfind.web import middleware
from paperfind.web.middleware import undecodable_parameter

QUERIES = [b"", b"q=graph+neural+networks&size=20&mode=hybrid", b"q=%E4%B8%AD%E6%96%87&mode=lexical",
           b"q=%E4%B8", b"q=ok&venue=%FF", b"q=%C3%28", b"%E4%B8=x", b"q=%E4&x=%B8%AD",
           b"q=%E4=%B8%AD", b"a=b=c&q=%E4%B8%AD", b"q=%2&x=%zz", b"q=%E4%B8%AD&venue=%C3",
           b"q=" + quote_plus("注意力机制 attention: is all?").encode(), b"&&=&q=", b"q=%F0%9F%98%80"]


def each_parameter(query: bytes) -> tuple[str, str] | None:
    """What the check was before: each parameter's name and value decoded apart; the first that
    fails, as (its name, its text), or None."""
    for pair in query.split(b"&"):
        for part in pair.partition(b"=")[::2]:
            try:
                unquote_to_bytes(part.replace(b"+", b" ")).decode("utf-8")
            except UnicodeDecodeError:
                return unquote_to_bytes(pair.partition(b"=")[0]).decode("utf-8", "replace"), \
                    pair.decode("latin-1")
    return None


@pytest.mark.parametrize("query", QUERIES)
def test_the_same_refusals_as_a_check_of_each_parameter(query: bytes) -> None:
    refused, expected = undecodable_parameter(query), each_parameter(query)
    if expected is None:
        assert refused is None
    else:
        name, shown = expected
        assert refused is not None and refused.status == 422
        assert f"parameter '{name[:60]}'" in refused.message and repr(shown[:80]) in refused.message


def test_a_decodable_query_string_is_decoded_once(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[bytes] = []

    def counted(data: bytes) -> bytes:
        calls.append(data)
        return unquote_to_bytes(data)

    monkeypatch.setattr(middleware, "unquote_to_bytes", counted)
    assert undecodable_parameter(b"q=%E4%B8%AD+attention&size=20&mode=hybrid&page=2") is None
    assert len(calls) == 1
