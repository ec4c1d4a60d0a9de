"""The semantic route as the search backend sees it: text in, candidate rows and cosines out.

The lexical index numbers papers by row (key order); `SemanticRetriever` maps the vector index
onto those rows once, embeds the query (with its English rendering when it is Chinese, see
`QueryEncoder`) and returns the top rows under the backend's filter mask. It answers nothing,
rather than failing, when no vectors exist yet, so lexical search works while `serve` embeds.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from paperfind.embed.base import Embedder
from paperfind.embed.queries import QueryEncoder, QueryPrefetch
from paperfind.embed.runtime import DEFAULT_QUERY_FORM, make_embedder
from paperfind.index.ann import ANN_PARAMS_FILE
from paperfind.index.vectors import AlignedVectors, VectorIndex, VectorIndexError, generations
from paperfind.text.translate import ZhEnTranslator

_EMPTY = (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32))


class SemanticRetriever:
    """`vector_candidates(text, mask, k)` over the vectors in `vector_dir`, in the caller's rows."""

    def __init__(self, vector_dir: Path, row_keys: Sequence[str], *, embedder: Embedder | None = None,
                 translator: ZhEnTranslator | None = None) -> None:
        self.vector_dir = Path(vector_dir)
        self.row_keys = list(row_keys)
        self._embedder = embedder
        self._translator = translator
        self._encoder: QueryEncoder | None = None
        self._aligned: AlignedVectors | None = None
        self._generation: tuple[str, bool] | None = None
        self._lock = threading.Lock()
        self._prefetch = QueryPrefetch()
        self.reload()

    @property
    def generation(self) -> tuple[str, bool] | None:
        """The vector generation being searched and whether its graph is loaded (None until
        vectors are loaded)."""
        return self._generation

    def reload(self) -> bool:
        """Pick up a newer vector generation (the background embedder writes checkpoints) or its graph."""
        name = generations(self.vector_dir).pointer()
        if name is None:
            return False
        # the ANN graph may be built into the live generation after it went live (ensure_ann)
        generation = (name, (self.vector_dir / name / ANN_PARAMS_FILE).exists())
        if generation == self._generation:
            return False
        try:
            index = VectorIndex.open(self.vector_dir)
        except VectorIndexError:
            return False
        if self._embedder is None:
            self._embedder = make_embedder(form=DEFAULT_QUERY_FORM)
        if index.params.model != self._embedder.name or index.params.dim != self._embedder.dim:
            return False  # vectors of another model cannot be searched with this one's queries
        self._aligned = AlignedVectors(index, self.row_keys)
        self._generation = generation
        return True

    @property
    def graph_loaded(self) -> bool:
        """Whether the generation's HNSW graph is loaded; True where it has none on disk
        (below ANN_MIN_VECTORS exact search answers, and nothing is left to load)."""
        if self._generation is None or not self._generation[1]:
            return True
        return self._aligned is not None and self._aligned.approximate

    @property
    def encoder_loaded(self) -> bool:
        """Whether the query model is loaded and has run once."""
        return self._encoder is not None and self._encoder.has_run

    @property
    def coverage(self) -> float:
        """Share of the caller's rows that have a vector (below 1 while embedding runs)."""
        return self._aligned.coverage if self._aligned is not None else 0.0

    def query_vector(self, text: str, max_tokens: int | None = None) -> np.ndarray:
        """`text`'s query vector (the prefetched one if started); with `max_tokens` (not None)
        embedded with that cap on its tokens (0: all) instead of the embedder's, never from a
        prefetch (which made the capped vector)."""
        if max_tokens is not None:
            return self._query_encoder().vector(text, max_tokens)
        return self._prefetch.take(text, self._encode)

    def prefetch(self, text: str) -> None:
        """Start embedding `text` on a worker thread (`QueryPrefetch`), its tokens made here
        first (`QueryEncoder.job`); `vector_candidates` then takes the result."""
        if self._aligned is None or not text.strip():
            return
        self._prefetch.start_prepared(text, self._query_encoder())

    def prefetch_candidates(self, text: str, mask: np.ndarray | None, k: int) -> None:
        """Search `text`'s nearest `k` rows within `mask` on the worker once its started vector
        is made (`QueryPrefetch.start_after`); `vector_candidates` with the same arguments then
        takes them."""
        aligned = self._aligned
        if aligned is None or not text.strip() or k <= 0:
            return
        self._prefetch.start_after(text, (aligned, mask, k), lambda vector: aligned.candidates(vector, mask, k))

    def pending(self, text: str) -> bool:
        """Whether `text`'s prefetched vector is still being made."""
        return self._prefetch.pending(text)

    def _encode(self, text: str) -> np.ndarray:
        return self._query_encoder().vector(text)

    def _query_encoder(self) -> QueryEncoder:
        """The encoder, made on first use (loading the model takes a while)."""
        with self._lock:
            if self._encoder is None:
                self._encoder = QueryEncoder(self._embedder or make_embedder(form=DEFAULT_QUERY_FORM),
                                             self._translator or ZhEnTranslator())
            return self._encoder

    def vector_candidates(self, text: str, mask: np.ndarray | None, k: int,
                          max_tokens: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Top `k` rows by cosine to `text`, within `mask`; empty when there are no vectors.
        `max_tokens` as `query_vector`'s: a search the worker made ahead (`prefetch_candidates`)
        is of the capped vector, so only a call without a cap of its own takes it."""
        aligned = self._aligned
        if aligned is None or not text.strip() or k <= 0:
            return _EMPTY
        if max_tokens is None:
            found = self._prefetch.take_after(text, lambda asked: _same_search(asked, (aligned, mask, k)))
            if found is not None:
                return found  # type: ignore[return-value]
        return aligned.candidates(self.query_vector(text, max_tokens), mask, k)

    def similar_rows(self, row: int, mask: np.ndarray | None, k: int) -> tuple[np.ndarray, np.ndarray]:
        """Rows nearest to the paper at `row` (itself excluded); empty if it has no vector."""
        if self._aligned is None:
            return _EMPTY
        vector = self._aligned.index.vector(self.row_keys[row])
        if vector is None:
            return _EMPTY
        rows, scores = self._aligned.candidates(vector, mask, k + 1)
        keep = rows != row
        return rows[keep][:k], scores[keep][:k]


def _same_search(asked: object, wanted: tuple[AlignedVectors, np.ndarray | None, int]) -> bool:
    """Whether a prefetched search (`prefetch_candidates`) was of these vectors, mask and k."""
    aligned, mask, k = asked  # type: ignore[misc]
    if aligned is not wanted[0] or k != wanted[2]:
        return False
    if mask is None or wanted[1] is None:
        return mask is wanted[1]
    return mask is wanted[1] or bool(np.array_equal(mask, wanted[1]))
