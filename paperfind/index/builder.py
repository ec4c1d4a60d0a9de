"""Writes one complete index directory from the store's streams.

Everything the searcher needs is derived here in one pass: vocabulary, per-field BM25
matrices, term sequences, metadata arrays, stored fields, spelling and name tables. The output
is plain .npy/.json files; nothing here depends on where the docs came from.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from paperfind.index.analysis import (KEYWORD_BREAK, Ragged, TextTerms, concat_rows, ragged,
                                      terms_of_texts)
from paperfind.index.distinct import distinct, union
from paperfind.index.docs import IndexSource
from paperfind.index.doctable import save_params
from paperfind.index.lexical import (FIELD_PARAMS, TEXT_FIELD_PARAMS, TEXT_K1, FieldMatrix,
                                     LexicalIndex, build_bm25f_matrix, build_field_matrix)
from paperfind.index.names import NameIndex
from paperfind.index.paper_name_table import save_paper_names
from paperfind.index.paper_names import mine_names, mining_processes, rows_with_all
from paperfind.index.spelling import SpellIndex
from paperfind.index.strings import JsonRecords, StringTable, save_csr
from paperfind.model import IndexDoc
from paperfind.text.analyze import Analyzer

FORMAT_VERSION = 13  # 5: stored papers carry their authors' public slugs; 6: and their track;
# 7: people's last year and same-name groups (name-query evidence); joined stems of
# hyphenated words (`auto-encoder` also indexed as `autoencod`); 8: possessive 's dropped;
# 9: the work of each row (meta.work.npy), so results list a work once; 10: stored papers
# carry their links (a result is the full paperfind.cards card); 11: the papers' names and
# standing (paper_names.json, meta.standing.npy), which a first start's first part leaves out;
# 12: statuses are the ones true today (paperfind.catalog.decisions), the sources' kept beside;
# people's cards carry their works' count; 13: each paper's mean review score (meta.rating) and its
# stored scores (mean, count, scale)


def _codes(values: list[str]) -> tuple[list[str], dict[str, int]]:
    labels = sorted(set(values))
    return labels, {v: i for i, v in enumerate(labels)}


def build_into(source: IndexSource, root: Path, prepared: TextTerms | None = None,
               text_files_written: Callable[[], int | None] | None = None,
               people_files_written: Callable[[], dict | None] | None = None,
               jobs: int | None = None) -> dict:
    """Build every index file of `source` into the (existing, empty) directory `root`.

    `prepared` may hold the analysed texts of some or all papers, made beforehand (another
    process, while the store was written): a paper whose texts it has, by digest, is not
    analysed again; the index is the same either way. `text_files_written`, if given, waits
    for another process that writes the text files (`build_text_files`) into `root` meanwhile
    and returns their vocabulary size, or None if it failed: they are then written here.
    `people_files_written` likewise for the files that name people (`build_people_files`),
    returning their params. `jobs`: the most processes the build may use (`Settings.index_jobs`;
    None: as the cores allow), as `build_text_files` takes it."""
    docs: list[IndexDoc] | None = None
    params = people_files_written() if people_files_written is not None else None
    if params is None:
        docs = index_docs(source)
        params = build_people_files(source, docs, root)
    n_terms = text_files_written() if text_files_written is not None else None
    if n_terms is None:
        n_terms = build_text_files(docs if docs is not None else index_docs(source), root, prepared,
                                   jobs=jobs)
    params["n_terms"] = n_terms
    save_params(root, params)
    return params


def index_docs(source: IndexSource) -> list[IndexDoc]:
    """The source's papers in key order, as both halves of a build read them."""
    docs = sorted(source.iter_index_docs(), key=lambda d: d.key)
    keys = [d.key for d in docs]
    if len(set(keys)) != len(keys):
        dup = next(k for k, n in Counter(keys).items() if n > 1)
        raise ValueError(f"index source yields key {dup!r} twice")
    return docs


def build_text_files(docs: list[IndexDoc], root: Path, prepared: TextTerms | None = None,
                     names: bool = True, jobs: int | None = None) -> int:
    """The files of the papers' words: vocabulary, keys, BM25 matrices, term sequences,
    spelling and (with `names`) the papers' names and standing; returns the vocabulary's size.
    `jobs`: the most processes the names' mining may use (`Settings.index_jobs`, which a user
    sets to 1 where a second process's memory or core is not to be had; None: as the cores
    allow): it uses `paper_names.mining_processes`, two only from `PARALLEL_FROM` papers.

    They need the papers' texts, authors' names and venues only, not who the people are, so a
    first start builds them in a second process while this one resolves people (`TextsAhead`)."""
    an = Analyzer()
    keys = [d.key for d in docs]
    text = terms_of_texts([(d.title, d.abstract, d.keywords) for d in docs], an, prepared)
    name_terms: dict[str, list[str]] = {}  # an author's name is on many papers: cut it once
    author_terms = [[t for name in d.authors for t in (
        name_terms[name] if name in name_terms else name_terms.setdefault(name, an.name_terms(name)))]
        for d in docs]
    venue_terms = {}
    for d in docs:
        if (d.venue, d.venue_name) not in venue_terms:
            venue_terms[d.venue, d.venue_name] = list(dict.fromkeys(
                an.name_terms(f"{d.venue} {d.venue_name}")))
    doc_venue_terms = [venue_terms[d.venue, d.venue_name] for d in docs]

    own = {"title": text.title, "abstract": text.abstract,
           "keywords": text.keywords.where(text.keywords.ids != KEYWORD_BREAK)}
    added = {"title": text.title_plus, "abstract": text.abstract_plus,
             "keywords": text.keywords_plus}
    # the terms the rows use, by a sort (np.unique hashes first: ~15x slower on these ~10^8 ids at 1M)
    used = distinct(np.concatenate([r.ids for r in (*own.values(), *added.values())]))
    used_terms = [text.terms[i] for i in used.tolist()]
    vocab = sorted(set(used_terms).union(*author_terms, *venue_terms.values()))
    term_ids = {t: i for i, t in enumerate(vocab)}
    remap = np.full(len(text.terms) + 1, KEYWORD_BREAK, dtype=np.int32)  # [-1] stays a break
    remap[used] = np.fromiter((term_ids[t] for t in used_terms), dtype=np.int32, count=len(used))
    StringTable.save(vocab, root, "vocab")
    StringTable.save(keys, root, "keys")

    def global_ids(rows: Ragged) -> Ragged:
        return Ragged(rows.indptr, remap[rows.ids])

    own = {name: global_ids(rows) for name, rows in own.items()}
    own["authors"] = ragged([[term_ids[t] for t in terms] for terms in author_terms])
    own["venue"] = ragged([[term_ids[t] for t in terms] for terms in doc_venue_terms])
    fields = {}
    field_rows = {}
    lengths = {}  # the words a paper has, without the added joined stems
    for name, (k1, b) in FIELD_PARAMS.items():
        lengths[name] = own[name].lengths
        field_rows[name] = (concat_rows(own[name], global_ids(added[name])) if name in added
                            else own[name])
        fields[name] = build_field_matrix(field_rows[name], len(vocab), k1, b, lengths[name])
    fields["text"] = build_bm25f_matrix(field_rows, len(vocab), TEXT_FIELD_PARAMS, TEXT_K1, lengths)
    LexicalIndex(StringTable.load(root, "vocab"), fields, len(docs)).save(root)
    for name, rows in (("title", own["title"]), ("abstract", own["abstract"]),
                       ("keywords", global_ids(text.keywords))):
        np.save(root / f"seq.{name}.indptr.npy", rows.indptr)
        np.save(root / f"seq.{name}.indices.npy", rows.ids)
    spell_counts = np.bincount(text.spell.ids, minlength=len(text.spell_words))
    spell = Counter({w: int(c) for w, c in zip(text.spell_words, spell_counts.tolist()) if c})
    SpellIndex.build(spell, root)
    if names:
        # the name mining reads the text field and the spelling rows alone: the other fields'
        # rows and matrices (hundreds of MB at 156k papers) go before it, not after it
        text_matrix, words, word_list = fields["text"], text.spell, text.spell_words
        del text, own, added, field_rows, fields, spell, spell_counts
        written = WordPapers.of(words, word_list)
        del words  # a row per paper; the mining reads the words' papers
        build_paper_name_files(docs, root, an, text_matrix, term_ids, written, jobs)
    return len(vocab)


@dataclass
class WordPapers:
    """Each distinct written word's papers in row order (the spelling rows turned around):
    `rows[starts[i]:starts[i + 1]]` are the papers of `word_list[i]`.

    Rows are int32 and nothing else of the turning is kept: at a million papers the spelling
    rows have ~10^8 entries, and an int64 order and row per entry were 1.6 GB of the mining."""

    ids: dict[str, int]
    starts: np.ndarray  # int64, one more than the words
    rows: np.ndarray  # int32

    @classmethod
    def of(cls, words: Ragged, word_list: list[str]) -> "WordPapers":
        order = np.argsort(words.ids, kind="stable")  # each word's papers, in row order
        rows = (np.searchsorted(words.indptr, order, side="right") - 1).astype(np.int32)
        del order
        starts = np.zeros(len(word_list) + 1, dtype=np.int64)
        np.cumsum(np.bincount(words.ids, minlength=len(word_list)), out=starts[1:])
        return cls({w: i for i, w in enumerate(word_list)}, starts, rows)

    def papers(self, word: str) -> np.ndarray:
        """The rows of `word` (written as it is; it must be one of the words), int64."""
        i = self.ids[word]
        return self.rows[self.starts[i]:self.starts[i + 1]].astype(np.int64)


def build_paper_name_files(docs: list[IndexDoc], root: Path, an: Analyzer, text: FieldMatrix,
                           term_ids: dict[str, int], written: WordPapers | None = None,
                           jobs: int | None = None) -> None:
    """The papers' names and standing (`paper_names`), their uses counted in postings: the rows
    whose title, abstract or keywords have every word of a name. A word is matched as written
    where the papers' distinct words are given (`written`, from the spelling rows: "Performers"
    is not every paper that performs), else by its stem in the text field. `jobs`: the most
    processes of the mining (`paper_names.mining_processes`)."""
    exact = written.ids if written is not None else {}

    def rows_with(name: str) -> np.ndarray:
        columns = []
        # a name spelt with capitals and a plural s ("BigGANs") is written without it too
        plural = re.fullmatch(r".*[A-Z].*[^sS]s", name) is not None and " " not in name
        for token in re.findall(r"[a-z]+|[0-9]+", name.lower()):
            forms = [f for f in (token, token[:-1]) if f in exact] if plural else [token]
            if token in exact:
                rows = [written.papers(f) for f in forms]
                # by a sort: np.union1d hashes first, 20x slower (a fifth of the mining at 1M)
                columns.append(rows[0] if len(rows) == 1 else union(*rows))
                continue
            for term in an.terms(token):
                if term not in term_ids:
                    return np.zeros(0, dtype=np.int64)
                columns.append(np.asarray(text.column(term_ids[term])[0], dtype=np.int64))
        return rows_with_all(columns)

    found = mine_names([d.title for d in docs], [d.abstract for d in docs],
                       np.asarray([d.year for d in docs], dtype=np.int64), work_groups([d.work_id for d in docs]),
                       np.asarray([d.citations if d.citations is not None else -1 for d in docs]), rows_with,
                       [d.authors for d in docs], mining_processes(len(docs), jobs))
    save_paper_names(found, root)


def build_people_files(source: IndexSource, docs: list[IndexDoc], root: Path) -> dict:
    """The files that name people and works: the papers' (`build_paper_files`) and the people's
    name tables; returns the params, to be saved (`save_params`) once `n_terms` is the text
    files' vocabulary size. `docs` as `index_docs(source)` after people were resolved."""
    people = list(source.iter_author_entries())
    params = build_paper_files(source, docs, root, {p.id: p.slug for p in people})
    NameIndex.build(people, root)
    return params


def build_paper_files(source: IndexSource, docs: list[IndexDoc], root: Path,
                      slugs: dict[int, str]) -> dict:
    """The people files but the name tables: facets, authors per paper and the stored papers,
    which name their people by `slugs` (every person's slug by number); returns the params as
    `build_people_files`. A first start's worker writes these while another writes the name
    tables (`build_name_files`)."""
    labels = {}
    for facet, values in (("venue", [d.venue for d in docs]), ("status", [d.status for d in docs]),
                          ("area", [d.area for d in docs]),
                          ("institution", [s for d in docs for s in d.institutions])):
        labels[facet], codes = _codes(values)
        if facet == "institution":
            inst_rows = [sorted({codes[s] for s in d.institutions}) for d in docs]
            save_csr(root, "meta.inst", inst_rows)
            np.save(root / "meta.inst_row.npy", np.repeat(
                np.arange(len(docs), dtype=np.int32), [len(r) for r in inst_rows]))
        else:
            np.save(root / f"meta.{facet}.npy", np.asarray(
                [codes[getattr(d, facet)] for d in docs], dtype=np.int32))
    venue_names = {d.venue: d.venue_name for d in docs}
    np.save(root / "meta.year.npy", np.asarray([d.year for d in docs], dtype=np.int32))
    np.save(root / "meta.work.npy", work_groups([d.work_id for d in docs]))
    np.save(root / "meta.citations.npy", np.asarray(
        [d.citations if d.citations is not None and d.citations >= 0 else -1 for d in docs],
        dtype=np.int32))
    np.save(root / "meta.rating.npy", np.asarray(  # the mean review score; NaN: none
        [d.reviews["mean"] if d.reviews else np.nan for d in docs], dtype=np.float32))
    save_csr(root, "meta.author", [d.author_ids for d in docs], dtype=np.int64)
    np.save(root / "meta.author_row.npy", np.repeat(
        np.arange(len(docs), dtype=np.int32), [len(d.author_ids) for d in docs]))
    # results name people by their page's slug
    JsonRecords.save(({"title": d.title, "abstract": d.abstract,
                       "authors": [[int(i), n] for i, n in zip(d.author_ids, d.authors)],
                       "author_slugs": [slugs.get(int(i), "") for i in d.author_ids],
                       "keywords": d.keywords, "venue": d.venue, "venue_name": d.venue_name,
                       "year": d.year, "status": d.status, "source_status": d.source_status,
                       "area": d.area, "track": d.track,
                       "institutions": d.institutions, "citations": d.citations,
                       "links": d.links, "work_id": d.work_id, "reviews": d.reviews} for d in docs),
                     root, "stored")

    names_of = getattr(source, "institution_names", None)  # optional: slug -> display name
    inst_names = dict(names_of()) if callable(names_of) else {}
    params = {"format": FORMAT_VERSION, "n_docs": len(docs), "n_terms": None,
              "data_version": int(source.data_version()), "fields": FIELD_PARAMS,
              "text_fields": TEXT_FIELD_PARAMS, "text_k1": TEXT_K1, "labels": labels,
              "venue_names": [venue_names.get(v, v) for v in labels["venue"]],
              "institution_names": [inst_names.get(i, "") for i in labels["institution"]]}
    return params


def build_name_files(source: IndexSource, root: Path) -> int:
    """The name tables of the people (`NameIndex`), part of `build_people_files`' files;
    returns how many people they name."""
    people = list(source.iter_author_entries())
    NameIndex.build(people, root)
    return len(people)


def work_groups(work_ids: list[int | None]) -> np.ndarray:
    """A dense group number per row: rows of one work share it, a row without a work has its own.

    The same paper in two files (a workshop and a main-track record, a rejected submission and
    its later acceptance) is one work with several versions; search lists it once."""
    groups: dict[int, int] = {}
    out = np.empty(len(work_ids), dtype=np.int32)
    for row, work in enumerate(work_ids):
        if work is None:
            out[row] = len(groups)
            groups[-1 - row] = out[row]
        else:
            out[row] = groups.setdefault(work, len(groups))
    return out

