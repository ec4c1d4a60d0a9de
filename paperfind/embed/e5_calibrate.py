"""The activation peaks that the "int8mix" query encoder balances its int8 inputs with.

Why: int8 activations quantised per tensor lose the query vectors' fine detail where a few
channels of a LayerNorm output are far larger than the rest (the drift of the "int8" form,
bench/RESULTS.md). SmoothQuant moves that range into the weights: x / s and W * s with
s = sqrt(peak|x| / peak|W|) per input channel, which needs each channel's peak over typical
inputs. They are measured once, on the fp32 form, over query-side texts of the corpus (titles
and abstract sentences: never a dev query), and shipped beside this module
(e5_act_peaks.npy, [layers, 2, hidden]: the input of q/k/v, then of the FFN, per layer), so a
process builds the graph without running the model first.

    .venv/bin/python -m paperfind.embed.e5_calibrate --db DB [--texts 600] [--out FILE]
"""

from __future__ import annotations

import argparse
import random
import sqlite3
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from paperfind.embed.e5_graph import PEAKS_FILE

def measure_act_peaks(texts: Sequence[str]) -> np.ndarray:
    """Per-channel peak |x| of every q/k/v and FFN input of the fp32 form, over `texts` embedded
    as queries one at a time (no padding), as [layers, 2, hidden]."""
    import onnxruntime as ort

    from paperfind.embed.e5_graph import build_model
    from paperfind.embed.e5_weights import load_weights
    from paperfind.embed.onnx_backend import OnnxE5Embedder

    embedder = OnnxE5Embedder(form="fp32")
    tokenizer = embedder.tokenizer()
    weights = load_weights()
    model = build_model(weights, "fp32", expose_inputs=True)
    names = [output.name for output in model.graph.output][1:]
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    peaks = np.zeros((weights.layers, 2, weights.hidden), np.float32)
    for text in texts:
        content = tokenizer.content_ids(text, query=True)[:weights.max_positions - 2]
        ids = np.array([[tokenizer.bos, *content, tokenizer.eos]])
        outputs = session.run(names, {"embeddings": embedder.input_embeddings(ids),
                                      "mask": np.ones(ids.shape, np.float32)})
        for name, value in zip(names, outputs):
            layer, kind = name.split(".")[1:]
            peak = np.abs(value).reshape(-1, weights.hidden).max(axis=0)
            slot = peaks[int(layer[1:]), 0 if kind == "q" else 1]
            np.maximum(slot, peak, out=slot)
    return peaks


def corpus_texts(db: Path, count: int, seed: int = 33) -> list[str]:
    """Query-like texts of a paperfind database: titles and abstracts' first sentences (≤ 25 words)."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        rows = con.execute("SELECT title, abstract FROM papers WHERE length(abstract) > 200 ORDER BY id").fetchall()
    finally:
        con.close()
    sample = random.Random(seed).sample(rows, min(count // 2, len(rows)))
    return [t for t, _ in sample] + [" ".join(a.split(". ")[0].split()[:25]) for _, a in sample]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", type=Path, required=True, help="a paperfind database to take texts from")
    ap.add_argument("--texts", type=int, default=600, help="how many texts (half titles, half sentences)")
    ap.add_argument("--out", type=Path, default=PEAKS_FILE)
    args = ap.parse_args()
    peaks = measure_act_peaks(corpus_texts(args.db, args.texts))
    np.save(args.out, peaks.astype(np.float16))
    print(f"wrote {args.out}: {peaks.shape}, peak range {peaks.min():.3g}..{peaks.max():.3g}")


if __name__ == "__main__":
    main()
