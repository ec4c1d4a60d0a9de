"""The API's response shapes, written once for the OpenAPI schema (and so for generated clients).

The routes build their JSON directly (paperfind.web.views) and FastAPI does not re-validate it;
these models say what that JSON is. They forbid fields they do not name, so the suite's
schemathesis run (tests/web/test_contract.py) fails the day a route answers with a shape that
is not written here. `PaperCard` is paperfind.cards' card: every list of papers is made of it.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Person(Strict):
    id: str = Field(description="Public id (slug) of /api/authors/{id}; empty when the name "
                                "could not be resolved to a person.", examples=["huishuai-zhang"])
    name: str


class Version(Strict):
    """Another version of the same work (a rejected submission and its later acceptance)."""

    key: str
    venue: str
    venue_name: str
    year: int
    status: str
    track: str


class PaperCard(Strict):
    """A paper in a list, the same through every route; a work with several versions is shown
    by its best one (accepted, then under review, then rejected or withdrawn; newest acceptance
    first), its others in `versions` in that order."""

    key: str = Field(description="Paper key, `venue+year:id`.", examples=["iclr2024:7Ttk3RzDeu"])
    title: str
    authors: list[Person]
    institutions: list[str] = Field(description="Institution slugs of /api/institutions/{slug}.")
    venue: str = Field(description="Venue slug of /api/venues/{slug}.")
    venue_name: str
    year: int
    status: str = Field(description="The status true today: Oral, Poster, Accept, Reject, Withdraw, "
                                    "Under Review (only before the venue-year's decisions), "
                                    "'Decision not in the data' (a review-time status of a "
                                    "venue-year whose decisions are out), ...; may be empty. "
                                    "Status filters and facets count this value.")
    source_status: str = Field(description="What the sources said (the stored status); differs "
                                           "from `status` where that rule changed it, e.g. "
                                           "'Under Review' for an ICLR 2024 submission.")
    track: str
    area: str = Field(description="Area of /api/areas/{name}; may be empty.")
    citations: int | None
    rating: float | None = Field(description="The mean review score, on `rating_scale`; null for "
                                             "a paper whose sources give no scores (never 0).",
                                 examples=[6.5])
    review_count: int | None = Field(description="How many reviews `rating` is the mean of; null "
                                                 "where there are no scores, or where a source "
                                                 "gives the mean alone (ICLR 2026).", examples=[4])
    rating_scale: str | None = Field(description="The venue-year's rating scale: `1-10`, or the "
                                                 "values its form offers (`1,3,5,6,8,10`); null "
                                                 "when unknown or without scores.",
                                     examples=["1,3,5,6,8,10"])
    abstract: str = Field(description="The whole abstract; empty when the source has none.")
    links: dict[str, str] = Field(description="pdf, openreview, site, code, ... URLs.")
    versions: list[Version]
    also_known_as: list[str] = Field(description="Names the work goes by (its title's lead, what "
                                                 "its abstract introduces, what later papers call "
                                                 "it): a search for one of them puts it first.",
                                     examples=[["BigGAN"]])


class Highlights(Strict):
    title: str = Field(description="The title, HTML-escaped, matched words in <mark>.")
    abstract: str = Field(description="A snippet of the abstract around the matches, marked.")


class Contribution(Strict):
    feature: str
    contribution: float = Field(description="The feature's share of the model's score (SHAP).")


class Ranking(Strict):
    model: Literal["learned"]
    top_features: list[Contribution]


class SearchResult(PaperCard):
    score: float
    highlights: Highlights
    named: list[int] | None = Field(None, description=(
        "On a search for a person: the positions in `authors` of the people the query names, "
        "so a card can show them when they are not among the first authors."))
    ranking: Ranking | None = Field(None, description="With explain=1, on results the learned "
                                                      "model ordered: what placed them.")


class SimilarPaper(PaperCard):
    score: float
    reasons: list[str] = Field(description="Signals behind the match, strongest first.")
    signals: dict[str, float]
    shared_authors: list[str]
    shared_keywords: list[str]


class PersonCard(Strict):
    """A person the query names."""

    id: str = Field(description="Public id (slug) of /api/authors/{id}.")
    name: str
    institutions: list[str]
    paper_count: int = Field(description="Their papers, each version once (as `versions` of "
                                         "/api/authors/{id})")
    work_count: int = Field(description="Their works: a work's versions count once (as `works` "
                                        "of /api/authors/{id}, and what its list pages through)")
    years: list[int] = Field(description="First and last year.", min_length=2, max_length=2)


class Facet(Strict):
    value: str
    count: int
    label: str
    param: str = Field(description="The query parameter that filters on this value.")


class PageInfo(Strict):
    page: int
    size: int
    total: int
    pages: int


class TrendPoint(Strict):
    year: int
    works: int = Field(description="Matching works with a version in this year (the year facet's count)")
    of: int = Field(description="All works of the corpus in this year (of this venue, in a venue's line)")
    share: float | None = Field(description="works / of, rounded to 6 decimals; null when `of` is 0")


class VenueTrend(Strict):
    venue: str = Field(description="Venue slug, as in the venue facet")
    venue_name: str
    years: list[TrendPoint] = Field(description="The venue's own years within the query's range")


class Trend(Strict):
    unit: Literal["works"] = Field(description="A work with several versions counts once a year")
    years: list[TrendPoint] = Field(description="Every year of the corpus in the query's year range")
    venues: list[VenueTrend] = Field(description="The venues with the most matching works, most first")


class TrendResponse(Strict):
    query: str
    total: int = Field(description="Matching works, as /api/search counts them")
    filters: dict[str, list[str]]
    trend: Trend | None = Field(description="null when there is no index yet")


class UnderstoodInstitution(Strict):
    slug: str = Field(description="Its slug: the `inst` filter the search ran with", examples=["tsinghua"])
    name: str = Field(examples=["Tsinghua University"])
    name_zh: str | None = Field(description="Its Chinese name, where one is in use", examples=["清华大学"])
    written: str = Field(description="The text of the query that named it", examples=["清华"])


class Alternative(Strict):
    reading: Literal["words", "institution"] = Field(
        description="`words`: the name searched as a word of the text; `institution`: the word "
                    "read as the institution's filter")
    q: str = Field(description="The query to ask for that reading", examples=['"Meta" llama'])
    institutions: list[UnderstoodInstitution]


class Understood(Strict):
    """What the query was read as, so a client can show "Tsinghua University · 强化学习"."""

    institutions: list[UnderstoodInstitution] = Field(
        description="Institutions the query's text names, searched as `inst` filters (listed in "
                    "`filters` too)")
    text: str = Field(description="The words searched, the names taken out")
    without: str = Field(description="The query as typed without those names (what removing "
                                     "the institution asks)")
    alternative: Alternative | None = Field(
        description="The other reading of a name that is also a topic word (Meta, Stanford): "
                    "the one that matched fewer papers")


class SearchResponse(Strict):
    query: str
    total: int = Field(description="Matching works (a work with several versions counts once).")
    took_ms: float
    results: list[SearchResult]
    authors: list[PersonCard]
    facets: dict[str, list[Facet]]
    suggestion: str | None
    mode: str = Field(description="The retrieval mode used: lexical, semantic or hybrid.")
    paging: PageInfo
    filters: dict[str, list[str]]
    sort: str
    trend: Trend | None = Field(description="Matching works per year and per venue; the same as "
                                            "/api/search/trend")
    counts: Literal["exact", "approximate"] = Field(
        "exact", description="How `total`, `facets` and `trend` were counted: `approximate` when "
                             "the search engine (a Milvus cluster) counted over its top candidates "
                             "only, because the query matches more papers than it fetched.")
    understood: Understood | None = Field(
        None, description="The institutions the query names (清华, THU, Stanford), now filters, "
                          "and the words left; null when it names none")
    feed: str = Field(description="The list's Atom feed (its first page, newest first; "
                                  "/feeds/...), with the list's filters.",
                      examples=["/feeds/search.atom?q=diffusion&since=2024"])
    with_citations: int | None = Field(
        None, description="How many of the `total` works have a citation count (most recent "
                          "venue-years have none). sort=citations and sort=influence order all "
                          "of them by one standing: citations per year where counted, later "
                          "papers naming them otherwise. null when the engine counted over its "
                          "top candidates only.")


class Affiliation(Strict):
    raw: str
    slug: str
    name: str


class PaperAuthor(Person):
    affiliations: list[Affiliation]


class Source(Strict):
    path: str
    reader: str


class Standing(Strict):
    """An offline stand-in for citations, mined from the corpus by the index."""

    score: float = Field(description="0-1: the percentile of the later papers naming it per year, "
                                     "or of its citations per year where the data has them.")
    mentions: int = Field(description="Later papers (of other works) that use one of its names.")


class Review(Strict):
    rating: float
    confidence: float | None = Field(description="null where the source gives no confidences.")


class PaperReviews(Strict):
    """A paper's review scores, as the store's merge rule chose them (paperfind.store.reviews)."""

    mean: float
    count: int = Field(description="0 where the source gives the mean alone (ICLR 2026).")
    scale: str = Field(description="The venue-year's rating scale; empty when unknown.")
    decision: str = Field(description="The decision as the scores' source gave it.")
    initial: bool = Field(description="Scores from before the rebuttal (ICLR 2024's only file).")
    reviews: list[Review]


class Paper(PaperCard):
    """One paper: its card's fields, and everything else the store knows of it."""

    also_known_as: list[str] = Field(description="Names the paper goes by (as on search results).")
    standing: Standing
    authors: list[PaperAuthor]  # type: ignore[assignment]
    abstract: str
    tldr: str
    authors_ordered: bool
    paper_affiliations: list[Affiliation]
    keywords: list[str]
    bibtex: str = Field(description="The source's own BibTeX, when it gave one.")
    bibtex_text: str = Field(description="BibTeX of the paper (the source's, else built).")
    forum_id: str
    work_id: int
    sources: list[Source]
    reviews: PaperReviews | None = Field(description="Each review's score and confidence; null "
                                                     "for a paper without scores.")


class SimilarResponse(Strict):
    key: str
    aspect: str | None
    results: list[SimilarPaper]


class ExpertEvidence(PaperCard):
    score: float = Field(description="How well this paper matches the query, weighed for the "
                                     "person (recency, first or last author), in [0, 1].")


class Expert(Strict):
    """A person who works on the query's topic, with their best matching papers."""

    id: str = Field(description="Public id (slug) of /api/authors/{id}.", examples=["huishuai-zhang"])
    name: str
    score: float = Field(description="A decaying sum over their best matching works.")
    institutions: list[str] = Field(description="Institution slugs their papers name, latest first "
                                                "(only papers before `before`, when given).")
    works: int = Field(description="Their works that may count as evidence (within `before`, "
                                   "`venue`, `inst`, `year`; versions once).")
    evidence: list[ExpertEvidence] = Field(description="Their (up to) 3 best matching papers.")
    matched: list[str] = Field(description="Words of the query their evidence's titles hold.")


class ExpertsResponse(Strict):
    q: str = Field(description="The query as read (spaces folded); empty with `paper`.")
    paper: str | None = Field(description="The paper whose title and abstract are the query.")
    before: int | None = Field(description="Only papers published before this year count.")
    exclude: str | None = Field(description="The paper whose people and recent co-authors are "
                                            "left out.")
    min_works: int = Field(description="The floor used: only people with at least this many works "
                                       "that may count are listed (the request's, or the default).")
    page: int
    size: int
    total: int = Field(description="People listed: with at least one matching paper that may count "
                                   "and `min_works` works.")
    fewer_works: int = Field(description="People with a matching paper that may count but fewer "
                                         "than `min_works` works: not listed (`min_works=1` lists them).")
    results: list[Expert]
    matched: list[str] = Field(description="The query's words the listed people's evidence holds.")


class CoAuthor(Strict):
    id: str
    name: str
    papers: int


class AuthorInstitution(Strict):
    slug: str
    name: str
    first_year: int
    last_year: int


class VenueCount(Strict):
    name: str
    papers: int


YearCount = list[int]  # [year, papers]


_VERSIONS = Field(description="Papers of the list counting each version (a rejected ICLR "
                              "submission and its later NeurIPS paper are two)")
_WORKS = Field(description="Works of the list: a work's versions count once")
_TOTAL = Field(description="What `papers` pages through: works (a venue's: its papers, "
                           "versions), of all or, with accepted=true, the accepted ones")
ListSortName = Literal["date", "newest", "citations", "rating"]


class Coverage(Strict):
    papers: int
    with_abstract: int
    with_authors: int
    with_affiliations: int


class AuthorPage(Strict):
    id: str
    name: str
    profile_id: str
    paper_count: int = Field(description="The same as `versions`")
    versions: int = _VERSIONS
    works: int = _WORKS
    total: int = _TOTAL
    aliases: list[str]
    papers: list[PaperCard]
    coauthors: list[CoAuthor]
    institutions: list[AuthorInstitution]
    venues: list[VenueCount]
    per_year: list[YearCount]
    feed: str = Field(description="The list's Atom feed (its first page, newest first; "
                                  "/feeds/...), with the list's filters.",
                      examples=["/feeds/search.atom?q=diffusion&since=2024"])
    paging: PageInfo
    sort: ListSortName
    accepted: bool


class InstitutionPage(Strict):
    slug: str
    name: str
    country: str
    paper_count: int = Field(description="The same as `works`")
    versions: int = _VERSIONS
    works: int = _WORKS
    total: int = _TOTAL
    papers: list[PaperCard]
    per_year: list[YearCount]
    top_authors: list[CoAuthor]
    thin_affiliation_years: list[int] = Field(
        description="Years of `per_year` in which under half of the corpus's papers have an "
                    "affiliation in the data: fewer works there may be the data's gap, not a decline.")
    paging: PageInfo
    feed: str = Field(description="The list's Atom feed (its first page, newest first; "
                                  "/feeds/...), with the list's filters.",
                      examples=["/feeds/search.atom?q=diffusion&since=2024"])
    sort: ListSortName
    accepted: bool


class RatingGroup(Strict):
    status: str = Field(description="The decision (the status true today) of these papers.")
    papers: int
    mean: float = Field(description="Their mean of mean review scores.")
    counts: list[int] = Field(description="Papers per bin, the bins of `lows`.")


class RatingDistribution(Strict):
    """The venue-year's mean review scores per decision, in bins (its page's chart)."""

    papers: int = Field(description="Papers with review scores.")
    scale: str = Field(description="The venue-year's rating scale; empty when unknown.")
    step: float = Field(description="The width of a bin.")
    lows: list[float] = Field(description="Each bin's lower edge (a bin is [low, low + step)).")
    groups: list[RatingGroup]
    initial: bool = Field(description="Scores from before the rebuttal (ICLR 2024).")
    mean_only: bool = Field(description="The sources give each paper's mean alone (ICLR 2026).")


class VenuePage(Strict):
    slug: str
    name: str
    full_name: str = Field(description="The venue's full name; empty where none is known.",
                           examples=["Conference on Empirical Methods in Natural Language Processing"])
    full_name_zh: str = Field(description="Its Chinese name.", examples=["自然语言处理中的经验方法会议"])
    year: int | None
    years: list[YearCount]
    versions: int = _VERSIONS
    works: int = _WORKS
    total: int = _TOTAL
    coverage: Coverage = Field(description="What the data holds for the venue (or the year): "
                                           "papers with an abstract, authors, affiliations")
    papers: list[PaperCard]
    paging: PageInfo
    feed: str = Field(description="The list's Atom feed (its first page, newest first; "
                                  "/feeds/...), with the list's filters.",
                      examples=["/feeds/search.atom?q=diffusion&since=2024"])
    sort: ListSortName
    accepted: bool
    ratings: RatingDistribution | None = Field(default=None, description=(
        "On a venue-year with review scores, their distribution per decision; else null."))


class AreaPage(Strict):
    name: str
    total: int
    papers: list[PaperCard]
    paging: PageInfo
    per_year: list[YearCount] = Field(description="[year, papers] of the area, for its chart")
    feed: str = Field(description="The list's Atom feed (its first page, newest first; "
                                  "/feeds/...), with the list's filters.",
                      examples=["/feeds/search.atom?q=diffusion&since=2024"])


class VenueYear(Strict):
    venue: str
    venue_name: str
    year: int
    papers: int
    with_abstract: int
    with_authors: int
    with_affiliations: int
    with_citations: int


class Backend(Strict):
    store: str = Field(description="Where the papers are kept.", examples=["sqlite"])
    search: str = Field(description="What answers searches: the index beside the database, or a "
                                    "Milvus collection.", examples=["local-index", "milvus"])
    healthy: bool = Field(description="Whether that engine answers now (a Milvus that is down: "
                                      "false, and searches answer 503).")
    collection: str | None = Field(None, description="The Milvus collection (milvus only).",
                                   examples=["paperfind_paperfind"])
    semantic: bool = Field(description="Whether vector (semantic) search is available.")


class IndexingVenue(Strict):
    venue: str
    venue_name: str
    years: list[int] = Field(description="[first, last] year still being indexed", examples=[[2013, 2025]])


class Indexing(Strict):
    """A first start serves the machine-learning venues at once and indexes the others in the
    background: what is still to come."""

    files_pending: int
    files_total: int
    done_percent: int = Field(examples=[40])
    venues: list[IndexingVenue]


class Stats(Strict):
    version: str = Field(description="paperfind's version, as in the OpenAPI info.")
    backend: Backend
    papers: int
    works: int
    authors: int
    institutions: int
    venues: int
    records: int
    sources: int
    venue_years: list[VenueYear]
    indexing: Indexing | None = Field(None, description="What the first start is still indexing "
                                      "in the background; null once the whole corpus is in.")


class ErrorDetail(Strict):
    status: int
    code: str = Field(examples=["not_found"])
    message: str


class Error(Strict):
    """Every failure has this shape."""

    error: ErrorDetail
