"""Adding a posting column into a per-paper array: the innermost loop of lexical scoring.

numpy's `out[docs] += values * scale` reads, adds and writes back through temporary arrays
(~10 ns a posting on this machine); scipy's compiled sparse kernel (`csc_matvec`, a column
times a scalar added into a vector) does the same in one pass (~1 ns), and gives the same
float32 sums: one multiply and one add per posting, in column order (tests/index/
test_kernels.py checks them equal bit for bit on real queries). scipy is already a dependency
(the index build's sparse matrices), but importing `scipy.sparse` takes ~0.3-1 s, which a
one-shot CLI search should not pay: the kernel is used once `load()` has run (the server's
warm-up, `Searcher.load_parts`), numpy's indexing until then.

`_sparsetools` is scipy's private module; its `csc_matvec` signature has been the same since
scipy 0.x, scipy is pinned in pyproject.toml, and a change would fail the equality test.
"""

from __future__ import annotations

import numpy as np


class ColumnAdder:
    """Adds columns into per-paper arrays, with the compiled kernel once `load()` has run."""

    def __init__(self) -> None:
        self._matvec = None
        self._ones = np.ones(0, dtype=np.float32)

    def load(self) -> bool:
        """Import the compiled kernel (scipy.sparse); False when it cannot be had."""
        if self._matvec is None:
            try:
                from scipy.sparse._sparsetools import csc_matvec
            except ImportError:  # pragma: no cover - scipy is a pinned dependency
                return False
            self._matvec = csc_matvec
        return True

    @property
    def compiled(self) -> bool:
        return self._matvec is not None

    def add(self, out: np.ndarray, docs: np.ndarray, values: np.ndarray, scale: float = 1.0) -> None:
        """`out[docs] += values * scale` in float32, for `docs` without repeats."""
        if self._matvec is None or out.dtype != np.float32 or values.dtype != np.float32:
            out[docs] += values if scale == 1.0 else values * np.float32(scale)
            return
        indptr = np.array([0, len(docs)], dtype=docs.dtype)
        self._matvec(len(out), 1, indptr, docs, values, np.array([scale], dtype=np.float32), out)

    def count(self, out: np.ndarray, docs: np.ndarray, step: float = 1.0) -> None:
        """`out[docs] += step` (float32 counts), for `docs` without repeats."""
        if self._matvec is None:
            out[docs] += np.float32(step)
            return
        ones = self._ones  # read once: the buffer may be swapped for a longer one meanwhile
        if len(ones) < len(docs):
            ones = self._ones = np.ones(max(len(docs), 2 * len(ones)), dtype=np.float32)
        self.add(out, docs, ones[:len(docs)], step)
