"""The collection one paperfind database becomes in Milvus: its fields, indexes and analyzer.

One row per paper, keyed by the paper key. Text goes in already analysed by paperfind's own
`Analyzer` (stemmed terms, jieba-segmented Han words, joined stems of hyphenated words, folded
name words), joined by spaces, so Milvus's BM25 counts the very terms the local index counts;
its tokenizer only has to split on spaces. Term sequences that the re-ranker reads
(title/abstract/keyword terms in order) are the part of each analysed string before ` | `: what
follows is what BM25 scores but no sequence holds (the joined stems). `|` and `,` are no word
characters, so the tokenizer drops them.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass

SCHEMA_VERSION = "4"  # 3: statuses true today (catalog.decisions); 4: rating; a different one in a collection's properties: `sync` rebuilds it
DIM = 384  # multilingual-e5-small, the vectors beside the database
# analysed text fields with a BM25 function each: field -> (k1, b), as paperfind.index.lexical.
# `text` is the first stage's field (title x3, keywords x2, abstract: paperfind's BM25F weights
# 3 / 1.5 / 1 written as repetitions); the others serve `title:`, names and venues.
BM25_FIELDS: dict[str, tuple[float, float]] = {
    "text": (1.2, 0.6),
    "title": (1.2, 0.3),
    "authors": (1.2, 0.1),
    "venue_terms": (1.2, 0.0),
    # a paper's author ids as words (`a123`): "papers of these people" is then a look-up in a
    # sparse inverted index, one engine search, where `array_contains_any(author_ids, ...)`
    # is evaluated row by row by an engine without an index on arrays (Milvus Lite: 2 s at
    # 16.5k papers; bench/RESULTS.md, Milvus per-query profile). Its scores mean nothing.
    "author_tokens": (1.2, 0.0),
}
AUTHOR_TOKEN = "a"  # prefix of an author id's word in `author_tokens`
# scalar fields with an inverted index: filters (venue, year, status, area) and the versions
# of a work are then index look-ups, not a test of every row
SCALAR_INDEXES = ("work", "year", "venue", "status", "area")
TITLE_REPEAT, KEYWORD_REPEAT = 3, 2
SEQUENCE_FIELDS = ("title", "abstract", "keywords")  # analysed, stored for the re-ranker
SEQUENCE_END = " | "  # terms after it are scored, not part of the sequence
KEYWORD_BREAK = " , "  # after each keyword's terms
MAX_VARCHAR = 65_535  # bytes, Milvus's limit for one VARCHAR value
MAX_ARRAY = 4_096  # elements of an array field (author ids, institutions)
PROP_SCHEMA = "paperfind.schema"
PROP_DATA_VERSION = "paperfind.data_version"  # the store's data version the last sync completed
PROP_VECTORS = "paperfind.vectors"  # ... and the vector generation it pushed
PROP_ANALYZER = "paperfind.analyzer"
PROP_AVG_LENGTHS = "paperfind.avg_lengths"  # JSON: mean terms per field over all papers (BM25's avgdl)
# a Milvus Standalone/Distributed server splits on spaces with `whitespace`; Milvus Lite knows
# only `standard` (\w+ runs, lower-cased), which splits our terms identically: every term is a
# \w+ run already, Han words included (one run, as jieba cut it)
ANALYZERS = ({"tokenizer": "whitespace"}, {"tokenizer": "standard"})
_NAME = re.compile(r"[^A-Za-z0-9_]")


@dataclass(frozen=True)
class CollectionName:
    """The collection of one database (`paperfind.db` -> `paperfind_paperfind`)."""

    name: str

    @classmethod
    def for_database(cls, db_name: str) -> "CollectionName":
        stem = db_name.split(".")[0] or "db"
        return cls(("paperfind_" + _NAME.sub("_", stem))[:200])

    @classmethod
    def checked(cls, name: str) -> "CollectionName":
        """A name given by a person: letters, digits and underscores, not starting with a digit."""
        if not name or len(name) > 200 or _NAME.search(name) or name[0].isdigit():
            raise ValueError(f"collection name {name!r}: use letters, digits and underscores "
                             "(at most 200, not starting with a digit)")
        return cls(name)


def build_schema(client, analyzer: dict):
    """The collection schema (pymilvus objects; imported here, where Milvus is wanted)."""
    from pymilvus import DataType, Function, FunctionType

    schema = client.create_schema(auto_id=False, enable_dynamic_field=False)
    schema.add_field("key", DataType.VARCHAR, max_length=512, is_primary=True)
    schema.add_field("work", DataType.INT64)
    schema.add_field("venue", DataType.VARCHAR, max_length=256)
    schema.add_field("year", DataType.INT64)
    schema.add_field("status", DataType.VARCHAR, max_length=256)
    schema.add_field("area", DataType.VARCHAR, max_length=1024)
    schema.add_field("track", DataType.VARCHAR, max_length=1024)
    schema.add_field("institutions", DataType.ARRAY, element_type=DataType.VARCHAR,
                     max_capacity=MAX_ARRAY, max_length=512)
    schema.add_field("author_ids", DataType.ARRAY, element_type=DataType.INT64, max_capacity=MAX_ARRAY)
    schema.add_field("citations", DataType.INT64)  # -1: unknown
    schema.add_field("rating", DataType.FLOAT)  # the mean review score; -1: no scores
    # the keys of every paper of this paper's work (its own included): a result's versions are
    # then fetched by key, one keyed get, instead of a filtered query over `work`
    schema.add_field("versions", DataType.ARRAY, element_type=DataType.VARCHAR,
                     max_capacity=MAX_ARRAY, max_length=512)
    for name in BM25_FIELDS:
        schema.add_field(name, DataType.VARCHAR, max_length=MAX_VARCHAR, enable_analyzer=True,
                         analyzer_params=analyzer)
        schema.add_field(f"{name}_sparse", DataType.SPARSE_FLOAT_VECTOR)
        schema.add_function(Function(name=f"{name}_bm25", function_type=FunctionType.BM25,
                                     input_field_names=[name], output_field_names=[f"{name}_sparse"]))
    for name in ("abstract", "keywords"):  # title's sequence is in `title` itself
        schema.add_field(name, DataType.VARCHAR, max_length=MAX_VARCHAR)
    schema.add_field("stored", DataType.JSON)  # what a result card shows
    schema.add_field("has_vector", DataType.BOOL)
    schema.add_field("dense", DataType.FLOAT_VECTOR, dim=DIM)
    schema.add_field("row_hash", DataType.VARCHAR, max_length=64)  # what sync compares
    return schema


def build_index_params(client):
    params = client.prepare_index_params()
    for name, (k1, b) in BM25_FIELDS.items():
        params.add_index(f"{name}_sparse", index_type="SPARSE_INVERTED_INDEX", metric_type="BM25",
                         params={"bm25_k1": k1, "bm25_b": b})
    for name in SCALAR_INDEXES:
        params.add_index(name, index_type="INVERTED")
    # exact inner product (unit vectors: cosine); a cluster takes HNSW here (docs/scale-out.md)
    params.add_index("dense", index_type="FLAT", metric_type="IP")
    return params


def create_collection(client, name: str) -> str:
    """Create the collection with the first analyzer the server accepts; returns that
    analyzer's tokenizer name."""
    last: Exception | None = None
    for analyzer in ANALYZERS:
        try:
            _create(client, name, analyzer)
        except Exception as exc:  # pymilvus raises MilvusException for an unknown tokenizer
            _drop_refused(client, name)
            if "tokenizer" in str(exc):
                last = exc
                continue
            if "already exists" not in str(exc):
                raise
            # Milvus Lite once kept an index of a collection of this name dropped just before
            # (its sync rebuilt it for a new schema): a second attempt after the drop
            time.sleep(1.0)
            _create(client, name, analyzer)
        client.alter_collection_properties(name, properties={
            PROP_SCHEMA: SCHEMA_VERSION, PROP_ANALYZER: analyzer["tokenizer"]})
        return analyzer["tokenizer"]
    raise RuntimeError(f"the Milvus server accepts none of the tokenizers paperfind can use: {last}")


def _drop_refused(client, name: str, attempts: int = 50) -> None:
    """Drop what a refused attempt left behind. For a moment after refusing a tokenizer, Milvus
    Lite may answer a look at that name with the refusal itself (seen in CI on a loaded machine:
    the sync stopped there); such an answer is waited out, any other error is raised."""
    for attempt in range(attempts):
        try:
            if client.has_collection(name):
                client.drop_collection(name)
            return
        except Exception as exc:
            if "tokenizer" not in str(exc) or attempt == attempts - 1:
                raise
            time.sleep(0.1)


def _create(client, name: str, analyzer: dict) -> None:
    client.create_collection(name, schema=build_schema(client, analyzer),
                             index_params=build_index_params(client))


def author_token(author_id: int) -> str:
    """The word of one author id in `author_tokens`."""
    return f"{AUTHOR_TOKEN}{int(author_id)}"


def sequence(value: str) -> list[str]:
    """The terms in order of an analysed sequence field (without what follows ` | `)."""
    head = value.split(SEQUENCE_END, 1)[0]
    return head.split()
