"""The search served by Milvus: the collection a database becomes, its sync, its filters, and the
`MilvusBackend` the searcher asks for candidates (`paperfind serve --backend milvus`).

Optional: needs the `milvus` extra (pymilvus; milvus-lite for a local file). Nothing here is
imported unless a Milvus URI is given.
"""
