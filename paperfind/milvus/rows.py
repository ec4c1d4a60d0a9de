"""One paper as a row of the collection: the store's `IndexDoc`, analysed, plus its vector.

The terms are cut by the same `Analyzer` calls as the local index's builder
(paperfind.index.builder), so both backends score the same terms; tests/milvus checks the
sequences against the local index's.
"""

from __future__ import annotations

import hashlib
import json
import zlib

import numpy as np

from paperfind.model import IndexDoc
from paperfind.text.analyze import Analyzer
from paperfind.milvus.schema import (DIM, KEYWORD_BREAK, KEYWORD_REPEAT, MAX_ARRAY, MAX_VARCHAR,
                                     SEQUENCE_END, TITLE_REPEAT, author_token)

NO_VECTOR = [0.0] * DIM
MAX_STORED_CHARS = 20_000  # an abstract longer than this is cut in the stored card (none so far)


def _cut(text: str, limit: int = MAX_VARCHAR) -> str:
    """`text` within `limit` UTF-8 bytes, cut at a space (a term is never split)."""
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text
    head = data[:limit].decode("utf-8", "ignore")
    return head[:head.rfind(" ")] if " " in head else head


def _joined(terms: list[str], extra: list[str]) -> str:
    head = " ".join(terms)
    return head + SEQUENCE_END + " ".join(extra) if extra else head


def work_number(doc: IndexDoc) -> int:
    """The work a row groups under: the store's work id, or (none) a number of the key's own
    below zero, so a paper without a work is a group of one."""
    if doc.work_id is not None:
        return int(doc.work_id)
    return -1 - zlib.crc32(doc.key.encode("utf-8"))


def paper_row(doc: IndexDoc, an: Analyzer, vector: np.ndarray | None,
              author_slugs: dict[int, str], versions: list[str] | None = None) -> dict:
    """The collection row of `doc` (`vector`: its stored e5 vector, or None; `versions`: the
    keys of its work's papers, in key order), with its hash."""
    title = an.terms(doc.title)
    abstract = an.terms(doc.abstract)
    keyword_terms = [an.terms(k) for k in doc.keywords]
    # each keyword's terms then a break, as the local index's sequences (a trailing one too)
    keywords = " ".join(t for terms in keyword_terms for t in terms + [KEYWORD_BREAK.strip()])
    title_plus = [j for _, j in an.compounds(doc.title)]
    abstract_plus = [j for _, j in an.compounds(doc.abstract)]
    keyword_plus = [j for k in doc.keywords for _, j in an.compounds(k)]
    flat_keywords = [t for terms in keyword_terms for t in terms]
    text = " ".join([" ".join(title + title_plus)] * TITLE_REPEAT
                    + [" ".join(flat_keywords + keyword_plus)] * KEYWORD_REPEAT
                    + [" ".join(abstract + abstract_plus)])
    authors = [t for name in doc.authors for t in an.name_terms(name)]
    venue = list(dict.fromkeys(an.name_terms(f"{doc.venue} {doc.venue_name}")))
    stored = {"title": doc.title, "abstract": doc.abstract[:MAX_STORED_CHARS],
              "authors": [[int(i), n] for i, n in zip(doc.author_ids, doc.authors)],
              "author_slugs": [author_slugs.get(int(i), "") for i in doc.author_ids],
              "keywords": doc.keywords, "venue": doc.venue, "venue_name": doc.venue_name,
              "year": doc.year, "status": doc.status, "source_status": doc.source_status,
              "area": doc.area, "track": doc.track,
              "institutions": doc.institutions, "citations": doc.citations, "links": doc.links,
              "work_id": doc.work_id, "reviews": doc.reviews}
    has_vector = vector is not None
    row = {
        "key": doc.key, "work": work_number(doc), "venue": doc.venue, "year": int(doc.year),
        "status": doc.status, "area": doc.area, "track": doc.track,
        "institutions": list(dict.fromkeys(doc.institutions))[:MAX_ARRAY],
        "author_ids": [int(a) for a in doc.author_ids][:MAX_ARRAY],
        "citations": int(doc.citations) if doc.citations is not None and doc.citations >= 0 else -1,
        "rating": float(doc.reviews["mean"]) if doc.reviews else -1.0,
        "versions": sorted(versions or [doc.key])[:MAX_ARRAY],
        "text": _cut(" ".join(text.split())),
        "title": _cut(_joined(title, title_plus)),
        "authors": _cut(" ".join(authors)),
        "venue_terms": _cut(" ".join(venue)),
        "author_tokens": _cut(" ".join(dict.fromkeys(author_token(a) for a in doc.author_ids))),
        "abstract": _cut(_joined(abstract, abstract_plus)),
        "keywords": _cut(_joined([keywords] if keywords else [], keyword_plus)),
        "stored": stored,
        "has_vector": has_vector,
        "dense": np.asarray(vector, dtype=np.float32).tolist() if has_vector else NO_VECTOR,
    }
    row["row_hash"] = row_hash(row)
    return row


def row_hash(row: dict) -> str:
    """What `sync` compares to tell a changed paper: every field but the hash, vector rounded
    to float32 bytes (a re-embedded paper is a changed paper)."""
    h = hashlib.sha256()
    plain = {k: v for k, v in row.items() if k not in ("dense", "row_hash")}
    h.update(json.dumps(plain, sort_keys=True, ensure_ascii=False).encode("utf-8"))
    h.update(np.asarray(row["dense"], dtype=np.float32).tobytes())
    return h.hexdigest()[:32]
