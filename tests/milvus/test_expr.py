"""Filter expressions: a user's value never reaches Milvus raw, checked against the real engine."""

from __future__ import annotations

import pytest

from paperfind.milvus.client import MilvusConnection
from paperfind.milvus.expr import ExpressionError, all_of, literal, none_of, one_of

HOSTILE = ['icml" or venue != "', 'iclr"]) or ((year > 0', "a || b", ")) or ((", "back\\slash",
           "trailing\\", '\\"', "[bracket]", "line\nbreak", "tab\tand\x01control", "'single'",
           "x" * 20_000, "中文 venue", "venue == venue", "true", ""]


def test_literal_escapes_quotes_and_backslashes():
    assert literal('a"b') == '"a\\"b"'
    assert literal("a\\b") == '"a\\\\b"'
    assert literal("\\") == '"\\\\"'
    assert literal(2019) == "2019"
    with pytest.raises(ExpressionError):
        literal(True)
    with pytest.raises(ExpressionError):
        literal(1.5)  # type: ignore[arg-type]


def test_unknown_fields_are_refused():
    with pytest.raises(ExpressionError):
        one_of("venue) or (year", ["x"])


def test_empty_lists_and_conjunctions():
    assert one_of("venue", []) == "false"
    assert none_of("venue", []) == "true"
    assert all_of("", None, "year >= 2019") == "year >= 2019"
    assert all_of("a", "b") == "(a) and (b)"


@pytest.fixture(scope="module")
def hostile_collection(milvus_server):
    """A small collection whose venues are the hostile strings themselves, and a plain one."""
    from pymilvus import DataType

    conn = MilvusConnection(milvus_server.uri)
    client = conn.client()
    name = "hostile_values"
    if client.has_collection(name):
        client.drop_collection(name)
    schema = client.create_schema(auto_id=False, enable_dynamic_field=False)
    schema.add_field("key", DataType.VARCHAR, max_length=64, is_primary=True)
    schema.add_field("venue", DataType.VARCHAR, max_length=30_000)
    schema.add_field("institutions", DataType.ARRAY, element_type=DataType.VARCHAR,
                     max_capacity=8, max_length=30_000)
    schema.add_field("year", DataType.INT64)
    schema.add_field("dense", DataType.FLOAT_VECTOR, dim=2)
    params = client.prepare_index_params()
    params.add_index("dense", index_type="FLAT", metric_type="IP")
    client.create_collection(name, schema=schema, index_params=params)
    rows = [{"key": f"h{i}", "venue": v, "institutions": [v], "year": 2000 + i, "dense": [1.0, 0.0]}
            for i, v in enumerate(HOSTILE)]
    rows.append({"key": "plain", "venue": "icml", "institutions": ["mit"], "year": 2020, "dense": [1.0, 0.0]})
    client.insert(name, rows)
    yield conn, name
    client.drop_collection(name)


@pytest.mark.parametrize("value", HOSTILE, ids=[repr(v[:24]) for v in HOSTILE])
def test_a_hostile_value_matches_itself_only(hostile_collection, value):
    conn, name = hostile_collection
    for expr in (one_of("venue", [value]), one_of("institutions", [value]),
                 all_of(one_of("venue", [value]), "year >= 0")):
        found = conn.call("query", name, filter=expr, output_fields=["key", "venue"], limit=100)
        assert [r["venue"] for r in found] == [value], expr[:80]
    everything_else = conn.call("query", name, filter=none_of("venue", [value]),
                                output_fields=["key"], limit=100)
    assert len(everything_else) == len(HOSTILE)  # the other hostile rows and "plain"


def test_many_values_in_one_list(hostile_collection):
    conn, name = hostile_collection
    found = conn.call("query", name, filter=one_of("venue", HOSTILE), output_fields=["key"], limit=100)
    assert len(found) == len(HOSTILE)
