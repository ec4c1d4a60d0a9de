"""FastJSONResponse encodes without orjson's slower options when it can and with them when it
must: the same bytes either way (paperfind.web.fastjson)."""

from __future__ import annotations

import json

import numpy as np
import orjson

from paperfind.web.fastjson import OPTIONS, FastJSONResponse


def _reference(content) -> bytes:
    return orjson.dumps(content, option=OPTIONS)


def test_an_answer_of_str_keys_and_python_numbers_is_the_same_bytes() -> None:
    answer = {"query": "图神经网络 graph", "total": 1234, "results": [
        {"key": "iclr2023-x", "title": "A <b> & \"quoted\" title", "score": 0.1 + 0.2, "year": 2023,
         "authors": [{"id": "huishuai-zhang", "name": "Huishuai Zhang"}], "citations": None,
         "highlights": {"title": "A <mark>graph</mark>"}, "tiny": 1e-6, "big": 2**53 + 1}],
        "facets": {"venue": [{"value": "iclr", "count": 3, "label": "ICLR"}]}, "trend": None,
        "flags": [True, False], "emoji": "\U0001f600"}
    body = FastJSONResponse(answer).body
    assert body == _reference(answer)
    assert json.loads(body) == answer


def test_keys_that_are_not_strings_and_numpy_values_take_the_options() -> None:
    for content in ({1: "one", "two": 2}, {"score": np.float32(1.5)}, {"n": np.int64(7)},
                    {"score": np.float64(0.25)}, {"rows": np.arange(3)},
                    {"nested": [{"deep": {2024: np.int32(5)}}]}):
        assert FastJSONResponse(content).body == _reference(content)
    assert json.loads(FastJSONResponse({1: np.float32(0.5)}).body) == {"1": 0.5}
