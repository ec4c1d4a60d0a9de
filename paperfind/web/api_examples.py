"""Example values of the API's path parameters, shown in /openapi.json and /docs.

Each names something in the bundled corpus (paperfind/data/corpus/), from
venue-years that stay in it when it is rebuilt with more years (ICLR 2024, NeurIPS 2017), so a
client trying the examples gets real answers; tests/web/test_contract.py checks them against the
corpus.
"""

from __future__ import annotations

EXAMPLES = {
    "paper": "iclr2024:2dnO3LLiJ1",  # "Vision Transformers Need Registers", ICLR 2024 Oral
    "author": "huishuai-zhang",  # 30 papers, two works with an ICLR and an ICML version
    "institution": "tsinghua",
    "venue": "iclr",
    "area": "reinforcement learning",  # an ICLR 2024 area
}
