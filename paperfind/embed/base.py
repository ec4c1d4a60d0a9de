"""The one interface every embedding model sits behind.

Search, indexing and similar-papers code only ever see an `Embedder`, so the model can be
swapped (or faked by a different real model in tests) without touching them. Models that
distinguish queries from documents (E5: "query: " / "passage: ") get that from the `query` flag.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol, runtime_checkable

import numpy as np

Progress = Callable[[int, int], None]  # (done, total)


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into L2-normalised float32 rows of length `dim`."""

    name: str  # stable model identifier, stored beside the vectors it produced
    dim: int

    def embed(self, texts: Sequence[str], *, query: bool = False) -> np.ndarray:
        """(len(texts), dim) float32, each row of unit length; `query` selects query-side encoding."""
        ...


def embed_in_batches(embedder: Embedder, texts: Sequence[str], *, batch_size: int = 32,
                     progress: Progress | None = None) -> np.ndarray:
    """Embed many documents in batches, reporting progress after each batch."""
    out = np.empty((len(texts), embedder.dim), dtype=np.float32)
    for start in range(0, len(texts), batch_size):
        chunk = texts[start:start + batch_size]
        out[start:start + len(chunk)] = embedder.embed(chunk)
        if progress is not None:
            progress(start + len(chunk), len(texts))
    return out
