"""Institutions: one stable slug, display name and country for the dozens of ways sources print one.

The curated table is `institutions.tsv` beside this module (~190 institutions with the most
author slots, checked by hand); `resolve_affiliation` says how a string is matched against it.
"""

from __future__ import annotations

import html
import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from types import MappingProxyType

from anyascii import anyascii

from paperfind.model import Affiliation
from paperfind.text.fold import has_han, slugify

TABLE_FILE = "institutions.tsv"


def read_table(text: str | None = None) -> list[list[str]]:
    """The rows of the curated table (`institutions.tsv` beside this module), each: slug, display
    name, country, full names searched inside strings, exact-only forms (the last two `;`-joined)."""
    if text is None:
        text = resources.files("paperfind.catalog").joinpath(TABLE_FILE).read_text(encoding="utf-8")
    rows = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) != 5:
            raise ValueError(f"{TABLE_FILE}:{number}: expected 5 tab-separated fields, got {len(fields)}")
        rows.append(fields)
    return rows


_ROWS = read_table()



@dataclass(frozen=True)
class Institution:
    """A curated institution: what the store shows for its slug."""

    slug: str
    name: str
    country: str


_JUNK = frozenset({"", "n a", "na", "none", "null", "nil", "unknown", "unknown institution",
                   "unknown affiliation", "independent", "independent researcher", "other",
                   "no affiliation", "not applicable", "tbd"})
_ABBREVIATIONS = {"univ": "university", "dept": "department", "inst": "institute",
                  "natl": "national"}
_NON_ALNUM = re.compile(r"[^a-z0-9]+")
_PARTS = re.compile(r"[,;()/]| - ")
_PARENTHESES = re.compile(r"\([^()]*\)")
_DEPARTMENT = re.compile(r"^(?:department|dept|school of|faculty|division|graduate school|"
                         r"college of|center for|centre for|key lab|state key|lab of|"
                         r"laboratory of|laboratory for|group|program|institute of [a-z]+ engineering)\b")
_INSTITUTION_WORDS = re.compile(r"\b(?:universit\w*|universidad\w*|college|institut\w*|"
                                r"polytechnic|politecnico|academy|inc|corp\w*|ltd|gmbh|company|"
                                r"research|laborator\w*|labs|hospital)\b")
# Legal-form words a company name may end with: "Sony Corporation" is Sony.
_CORPORATE_SUFFIX = re.compile(r"(?: (?:inc|incorporated|corp|corporation|co|ltd|limited|llc|"
                               r"gmbh|ag|plc|pbc|pvt|pty|pte|bv|b v|srl|s a|sa|e v|kk))+$")
# A street address: a house number then a street word ("1200 E California Blvd").
_ADDRESS = re.compile(r"^\d+[a-z]? (?:\w+ )*?(?:blvd|boulevard|street|st|avenue|ave|road|rd|"
                      r"drive|dr|way|lane|ln|parkway|pkwy|place|pl|square|sq|highway|hwy)\b"
                      r"|^(?:p ?o box|suite|room|building|bldg) \d")
# A postcode run on after a name, or a house number before a street ("2515 Speedway").
_POSTCODE = re.compile(r"[.,;]? (?:[A-Z]{1,2}-)?\d{4,6}\b(?! ?(?:AI|ai)\b)")
_HOUSE_NUMBER = re.compile(r"^\d{3,5} [A-Z][a-z]+$")
# A town, a US state and a ZIP code, and nothing else ("Cambridge, MA 02139"): a place, whose
# town a source's norm may have kept ("Cambridge", read as the University of Cambridge).
_TOWN_STATE_ZIP = re.compile(r"^[A-Z][a-z]+(?:[ -][A-Z][a-z]+){0,2},? [A-Z]{2},? \d{5}(?:-\d{4})?(?:,? USA?)?$")
# What a submission system wrote where an affiliation belongs ("Under Review at ICLR 2022").
_NOT_AN_AFFILIATION = re.compile(r"^(?:under (?:double blind )?review|submitted to|anonymous|"
                                 r"in submission|paper under review)\b")
# A department, school or faculty alone names no institution ("Department of Computing");
# the state's departments are institutions ("Department of Defense").
_DEPARTMENT_ONLY = re.compile(r"^(?:department|dept|school|faculty|division)s? (?:of|for) "
                              r"|^(?:[a-z]+ ){1,4}department$")
_STATE_DEPARTMENT = re.compile(r"^department of (?:defense|defence|energy|veterans affairs|"
                               r"homeland security|health|agriculture|commerce|transportation|"
                               r"justice|education|the interior|state)\b")
# The founders' names German universities carry before the word ("Eberhard Karls Universität Tübingen").
_FOUNDERS = re.compile(r"^(?:eberhard karls|ludwig maximilians|albert ludwigs|julius maximilians|"
                       r"friedrich alexander|georg august|johannes gutenberg|ruprecht karls|"
                       r"rheinische friedrich wilhelms|westfalische wilhelms|christian albrechts|"
                       r"otto von guericke|carl von ossietzky|heinrich heine|martin luther|"
                       r"friedrich schiller|justus liebig|philipps|goethe|johannes kepler|leibniz) "
                       r"(?=universit\w* \w)")
# "University Tübingen", "Universidad de Zaragoza", "Università degli Studi di Milano":
# a university named by a place of one or two words is "University of <place>", in the
# languages of the data.
_NOT_A_PLACE = (r"(?!(?:of|at|in|college|hospital|medical|school|center|centre|clinic|institute|library|"
                r"press|park|campus|health|system|hospitals|medicine|research)\b)")
_UNIVERSITY_OF_PLACE = re.compile(
    r"^(?:(?:university|universitat|universitaet|universiteit) "
    r"(?:(?:of|zu|van|der|des|de) )?"
    r"|(?:universita|universite|universidad|universidade|universitet|uniwersytet|universiti|"
    r"universitas|universitatea) (?:of|de|di|do|da|degli studi di|w|we) )"
    + _NOT_A_PLACE + r"([a-z]+(?: [a-z]+)?)$")
_TECHNICAL_UNIVERSITY_PLACE = re.compile(r"^technical university " + _NOT_A_PLACE + r"([a-z]+(?: [a-z]+)?)$")
# "University of Novi Sad Faculty of Sciences": the faculty after the university's name.
_TRAILING_FACULTY = re.compile(r"^(university of [a-z]+(?: [a-z]+)?) (?:faculty|department|school|"
                               r"division|college|graduate school) of .*$")
# A university system and its campus: "University of California at Davis" is the campus.
_SYSTEM_AT_CAMPUS = re.compile(r"\b(university of (?:california|texas|illinois|maryland|"
                               r"massachusetts|wisconsin|colorado|michigan|north carolina|"
                               r"minnesota|washington|missouri|nebraska|hawaii)) at\b")
# Words of institution names whose misspellings recur ("Techonology", "Acadamy",
# "Univeristy"); only a word within one edit of these, and not a real foreign form, is
# corrected.
_SPELLED = ("university", "institute", "technology", "technological", "science", "sciences",
            "academy", "laboratory", "laboratories", "research", "national", "engineering",
            "international", "polytechnic", "corporation", "chinese", "california",
            "artificial", "intelligence", "department", "southern",
            "northern", "northwestern", "northeastern", "southeast", "southwest")
_NOT_TYPOS = frozenset({"institut", "instituto", "istituto", "universita", "universite",
                        "universiti", "nationale", "nacional", "nazionale", "sciencies",
                        "technologie", "researcher", "researchers", "engineer", "nations",
                        "academic", "laboratoire", "departement", "departamento",
                        "california's", "intelligent"})


def _one_edit(word: str, target: str) -> bool:
    """True when `word` is `target` with one letter changed, added, dropped or two swapped."""
    if word == target or abs(len(word) - len(target)) > 1:
        return False
    if len(word) == len(target):
        diff = [i for i, (a, b) in enumerate(zip(word, target)) if a != b]
        return len(diff) == 1 or (len(diff) == 2 and diff[1] == diff[0] + 1
                                  and word[diff[0]] == target[diff[1]]
                                  and word[diff[1]] == target[diff[0]])
    short, long_ = (word, target) if len(word) < len(target) else (target, word)
    i = next((k for k in range(len(short)) if short[k] != long_[k]), len(short))
    return short[i:] == long_[i + 1:]


# Every word of the curated names, to undo the German transliteration of umlauts
# ("Tuebingen", "Muenchen", "Zuerich") that anyascii does not produce ("Tübingen" → "tubingen").
_TABLE_WORDS = frozenset(_NON_ALNUM.sub(" ", anyascii(" ".join(map(" ".join, _ROWS))).lower()).split())
_UMLAUT_SPELLING = re.compile(r"(?<=[aou])e")
_FOOTNOTE_MARK = re.compile(r"\d{1,2}([a-z]{4,})|([a-z]{4,})\d{1,2}")


@lru_cache(maxsize=50_000)
def _spelled(word: str) -> str:
    """The institution word a misspelled or transliterated word stands for, or the word itself."""
    if word in _TABLE_WORDS:
        return word
    marked = _FOOTNOTE_MARK.fullmatch(word)  # "Barbara1", "3Boston": footnote numbers glued on
    if marked and (marked.group(1) or marked.group(2)) in _TABLE_WORDS:
        return marked.group(1) or marked.group(2)
    if "e" in word and (plain := _UMLAUT_SPELLING.sub("", word)) in _TABLE_WORDS and len(plain) >= 4:
        return plain
    if len(word) < 6 or word in _NOT_TYPOS or word in _SPELLED:
        return word
    matches = [t for t in _SPELLED if _one_edit(word, t) and word not in (t + "s", t[:-1])]
    return matches[0] if len(matches) == 1 else word


# Accents typeset apart from their letter in PDF extractions ("T´el´ecom", "Ume ˚a",
# "Universit ¨at"): dropped with the space around them, so the word is whole again.
_SPACING_ACCENT = re.compile(r" ?[\u00b4\u00a8\u02da\u02c6\u02dc\u00b8\u02c7\u02d8\u02dd`] ?"
                             r"| ?[\u0300-\u030a\u0327] ?(?=[a-z])")
# ...or re-attached with a space before the accented letter ("Montr éal", "Universit é").
_SPLIT_ACCENT = re.compile(r"(?<=[a-z]) (?=[\u00e0-\u00ff][a-z]{0,2}\b)")
# Unicode escapes that lost their backslash in an export ("Universit u00e9 Laval").
_BARE_ESCAPE = re.compile(r" ?\\?u(00[0-9a-f]{2})", re.IGNORECASE)


@lru_cache(maxsize=200_000)
def _institution_key(text: str) -> str:
    """Lower-case ASCII words separated by single spaces, spelled one way per institution.

    "Univ." → "university", "Techonology" → "technology", "Chinese Academic of Science" →
    "chinese academy of science", "Universität Tübingen" → "university of tubingen",
    "University of California at Davis" → "university of california davis".
    """
    return _named_by_place(_institution_words(text))


def _institution_words(text: str) -> str:
    """`_institution_key` word by word only: the form a name has inside a longer string."""
    if not text.isascii():
        text = _SPLIT_ACCENT.sub("", _SPACING_ACCENT.sub("", text))
        # Footnote marks set as symbols ("Berkeley♢♣") would spell words in ASCII ("clubs").
        text = "".join(" " if not c.isascii() and unicodedata.category(c)[0] == "S" else c for c in text)
    elif "`" in text:
        text = _SPACING_ACCENT.sub("", text)
    if "u00" in text or "U00" in text:
        text = _BARE_ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), text)
    ascii_text = anyascii(text).lower().replace("&", " and ")
    words = _NON_ALNUM.sub(" ", ascii_text).split()
    words = [_spelled(_ABBREVIATIONS.get(w, w)) for w in words]
    words = ["academy" if w == "academic" and words[i + 1:i + 2] == ["of"] else w
             for i, w in enumerate(words)]
    if words[:1] == ["the"]:
        words = words[1:]
    folded = " ".join(words)
    return _SYSTEM_AT_CAMPUS.sub(r"\1", folded) if " at " in folded else folded


def _named_by_place(folded: str) -> str:
    """A whole name in the form "university of <place>" when it is one in another language or
    order; "technical university <place>" is "technical university of <place>" (Darmstadt's
    is written both ways, and the table holds one)."""
    if "uni" not in folded:
        return folded
    if folded.startswith("technical university "):
        return _TECHNICAL_UNIVERSITY_PLACE.sub(r"technical university of \1", folded)
    return _UNIVERSITY_OF_PLACE.sub(r"university of \1", _FOUNDERS.sub("", folded))


def _without_legal_form(folded: str) -> str:
    """A folded company name without its legal form ("sony group corporation" → "sony group")."""
    stripped = _CORPORATE_SUFFIX.sub("", folded)
    if stripped.endswith(" and"):  # "JPMorgan Chase & Co."
        stripped = stripped[:-4]
    return stripped if stripped else folded


def _load_table() -> tuple[MappingProxyType, MappingProxyType, MappingProxyType, str]:
    """The table as: slug → Institution, exact form → slug, full name → slug, search regex
    (its source: compiled on first use, as reading a page or a query never needs it)."""
    institutions: dict[str, Institution] = {}
    exact: dict[str, str] = {}
    searchable: dict[str, str] = {}
    for slug, name, country, names, forms in _ROWS:
        institutions[slug] = Institution(slug, name, country)
        for full in filter(None, names.split(";")):
            for folded in (_institution_key(full), _institution_words(full)):  # "universite de montreal" as well
                searchable[folded] = slug
                exact[folded] = slug
        for form in filter(None, forms.split(";") + [name]):
            exact[_institution_key(form)] = slug
    ordered = sorted(searchable, key=len, reverse=True)
    pattern = r"\b(?:" + "|".join(re.escape(n) for n in ordered) + r")\b"
    return (MappingProxyType(institutions), MappingProxyType(exact),
            MappingProxyType(searchable), pattern)


_INSTITUTIONS, _EXACT, _SEARCH_SLUG, _SEARCH_SOURCE = _load_table()


@lru_cache(maxsize=1)
def _search_pattern() -> re.Pattern[str]:
    return re.compile(_SEARCH_SOURCE)
# Names written as one word ("GoogleDeepMind", "GoogleAI"): the exact forms without spaces.
_COMPACT = MappingProxyType({form.replace(" ", ""): slug for form, slug in _EXACT.items()
                             if len(form.replace(" ", "")) >= 4})
_COMPACT_SUFFIX = re.compile(r"(?:ai|research|labs?|inc)$")

KNOWN_INSTITUTIONS: MappingProxyType = _INSTITUTIONS
"""slug → `Institution` for every curated slug; the store reads names and countries here."""


def resolve_affiliation(raw: str, norm: str = "", abbr: str = "", country: str = "") -> Affiliation:
    """The `Affiliation` of one author slot: raw string kept, slug/name/country resolved.

    Sources print one institution in dozens of ways ("Dept. of CS, Stanford University",
    "Stanford Univ.", "Stanford"). The paperlists data gives a normalised name
    (`aff_unique_norm`) for most slots; raw strings come from the other sources. Both go
    through the same steps:

    1. folding: ASCII, lower case, one spelling per word. Misspelled institution words
       ("Techonology", "Univeristy", "Academic of"), German umlauts written out ("Tuebingen"),
       footnote numbers glued on ("Barbara1"), accents a PDF extraction set apart
       ("T´el´ecom", "Montr éal") and escapes that lost their backslash ("Universit u00e9")
       are undone; a whole name that is a university of a place in another language or order
       ("Universität Stuttgart", "University Tübingen", "Eberhard Karls Universität
       Tübingen", "Università degli Studi di Padova") becomes "university of <place>";
    2. an exact match of the folded string (or of one of its comma-separated parts, its legal
       form "Inc"/"Corporation"/"Co., Ltd." forgiven) against the curated table;
    3. a search for a full institution name inside each comma-separated part, leftmost
       first, so the department in front of it does not matter; a name may run on into the
       next part, since a comma also sets off a campus ("University of California, Los
       Angeles"); a name ending in "university" does not match when "of"/"at" follows
       ("Zhejiang University of Technology" is not ZJU), one starting with "university" only
       at the start of a part ("Science University of Tokyo" is not the University of Tokyo);
       then names written as one word ("GoogleDeepMind");
    4. otherwise a generic slug from the normalised name, or from the part of the raw string
       that names an institution (not a department, not a street address), without its legal
       form. A string that starts with a street address names no institution.

    Resolution is pure and cached: the 87,885 paperlists records repeat the same few
    thousand strings.

    `norm`, `abbr` and `country` are the paperlists `aff_unique_*` values of the slot when
    known. The country given wins over the table's (a Google author in London is in the
    United Kingdom). Junk ("", "-", "N/A", "Unknown") gives an empty slug.
    """
    raw_text = _unescape(raw).strip() if isinstance(raw, str) else ""
    norm = _unescape(norm) if isinstance(norm, str) else ""
    slug, name, table_country = _resolve(raw_text, norm, abbr if isinstance(abbr, str) else "")
    given = country.strip() if isinstance(country, str) else ""
    return Affiliation(raw=raw_text or (norm or "").strip(), slug=slug, name=name,
                       country=(given or table_country) if slug else given)


def _unescape(text: str) -> str:
    """HTML entities decoded, twice escaped ones too ("Queen&amp;#x27;s" → "Queen's")."""
    once = html.unescape(text)
    return html.unescape(once) if "&" in once else once


def institution_info(slug: str) -> Institution | None:
    """The curated record of a slug, or None for a generic (uncurated) slug."""
    return _INSTITUTIONS.get(slug)


def institution_display(slug: str) -> str:
    """The display name of a slug; generic slugs are turned back into words.

    For generic slugs the store should prefer the `Affiliation.name` it has seen, which
    keeps the original capitalisation; this is the fallback.
    """
    known = _INSTITUTIONS.get(slug)
    if known:
        return known.name
    return " ".join(w.capitalize() for w in slug.split("-"))


@lru_cache(maxsize=100_000)
def _resolve(raw: str, norm: str, abbr: str) -> tuple[str, str, str]:
    """(slug, name, table country) for one raw/normalised/abbreviated triple."""
    if _names_a_town(raw) or _NOT_AN_AFFILIATION.match(_institution_key(raw or norm)):
        return "", "", ""
    norm_folded = _institution_key(norm.strip())
    if _names_a_department_only(norm_folded):
        norm, norm_folded = "", ""  # the raw string may name the institution
    if norm_folded and norm_folded not in _JUNK and not norm_folded.isdigit():
        slug = (_exact(norm_folded) or _search(_split(norm)) or _compact(norm_folded)
                or _EXACT.get(_institution_key(abbr)))
        if not slug:
            # A norm cut at the campus comma ("University of California") names the
            # system; the raw string of the slot may still name the campus.
            from_raw = _curated_in_raw(raw) if raw else ""
            if from_raw and (_institution_key(_INSTITUTIONS[from_raw].name).startswith(norm_folded)
                             or _BARE_ESCAPE.search(norm)):
                slug = from_raw  # or a norm whose escapes were mangled ("Montr u00eal")
        if slug:
            return _curated(slug)
        plain_norm = _PARENTHESES.sub(" ", norm)  # "... de Toulouse (IRIT)"
        return _generic(_without_address(plain_norm) or norm)
    raw_folded = _institution_key(raw)
    if raw_folded in _JUNK or not any(c.isalpha() for c in raw_folded):
        return "", "", ""
    slug = _curated_in_raw(raw)
    if slug:
        return _curated(slug)
    parts = _split(_PARENTHESES.sub(" ", raw)) or _split(raw)
    if _ADDRESS.match(_institution_key(parts[0])):
        return "", "", ""  # a postal address names no institution
    if _HOUSE_NUMBER.match(parts[0]):
        return "", "", ""  # "2515 Speedway, Austin": a house number and a street
    best = _institution_part(parts) or raw
    if _names_a_department_only(_institution_key(best)) or len(_institution_key(best)) < 2:
        return "", "", ""
    return _generic(_without_address(best) or best)


def _names_a_town(raw: str) -> bool:
    """"Cambridge, MA 02139": a town, a state and a ZIP code (not "Princeton University, NJ 08544")."""
    return bool(_TOWN_STATE_ZIP.match(raw)) and not _INSTITUTION_WORDS.search(_institution_key(raw))


def _names_a_department_only(folded: str) -> bool:
    """"department of computing": a unit of some institution that the string does not name
    ("UCLA Computer Science Department" names one)."""
    return bool(_DEPARTMENT_ONLY.match(folded)) and not _INSTITUTION_WORDS.search(folded) \
        and not _STATE_DEPARTMENT.match(folded) and not _exact(folded.split(" ", 1)[0])


def _generic(name: str) -> tuple[str, str, str]:
    """(slug, name, country) of a name the curated table lacks: the institution an alternative
    name of the alias table (`institution_aliases.tsv`) names when it is one, else a slug of
    its own. "Canadian Institute for Advanced Research" is CIFAR, "Quebec Artificial
    Intelligence Institute" Mila, whichever form a source printed."""
    folded = _institution_key(name)
    short = folded.replace("artificial intelligence", "ai")  # "Quebec Artificial Intelligence Institute"
    curated = _exact(short) if short != folded else ""
    if curated:
        return _curated(curated)
    named = _alias_names().get(folded) or _alias_names().get(short)
    if not named and " and " in folded and "&" in name:
        # "Anthropic & U Toronto": two institutions, the first one known by name
        first = _institution_key(name.split("&", 1)[0])
        curated = _exact(first)
        if curated:
            return _curated(curated)
        named = _alias_names().get(first)
    if named:
        slug, english = named
        return _curated(slug) if slug in _INSTITUTIONS else (slug, english, "")
    return _generic_slug(folded), " ".join(name.split()), ""


@lru_cache(maxsize=1)
def _alias_names() -> dict[str, tuple[str, str]]:
    """Folded English name or alias (acronyms too: whole strings only) → (slug, English name)."""
    from paperfind.catalog.aliases import read_aliases  # the query-side table, read once

    names: dict[str, tuple[str, str]] = {}
    for row in read_aliases():
        for form in (row.name, *row.aliases):
            folded = _institution_key(form)
            if folded and not has_han(form):
                names.setdefault(folded, (row.slug, row.name))
    return names


def _without_address(name: str) -> str:
    """A name without the postal address run on after it ("Université de Rouen. 768000 Saint
    Etienne du Rouvray"): cut before a postcode, a number of four digits or more standing
    alone."""
    return _POSTCODE.split(name, maxsplit=1)[0].strip(" .,;-")


def _split(text: str) -> list[str]:
    """The non-empty comma/semicolon/parenthesis/slash/dash parts of a string."""
    return [p.strip() for p in _PARTS.split(text) if p.strip()]


def _curated_in_raw(raw: str) -> str:
    """The curated slug a raw string names: whole, by one of its parts, or inside a part.

    Run-together forms ("GoogleDeepMind") are the last resort: a full name inside an
    earlier part ("MIT-IBM Watson AI Lab, Boston University") comes first.
    """
    whole = _exact(_institution_key(raw))
    if whole:
        return whole
    parts = _split(raw)
    for part in parts:
        slug = _exact(_institution_key(part))
        if slug:
            return slug
    return _search(parts) or next(filter(None, (_compact(_institution_key(p)) for p in parts)), "")


def _exact(folded: str) -> str:
    """The curated slug of a whole folded name, its legal form forgiven."""
    if not folded:
        return ""
    return _EXACT.get(folded) or _EXACT.get(_without_legal_form(folded), "")


def _compact(folded: str) -> str:
    """The curated slug of a name written as one word, footnote digits and "AI"/"Research" forgiven."""
    compact = folded.replace(" ", "").strip("0123456789")  # footnote marks: "1Microsoft"
    if len(compact) < 4:
        return ""
    return _COMPACT.get(compact) or _COMPACT.get(_COMPACT_SUFFIX.sub("", compact), "")


def _search(parts: list[str]) -> str:
    """The slug of the leftmost full institution name inside the parts of a string, or "".

    A name may run on into the next part: "University of California, Los Angeles" is
    one name whose campus the comma sets off.
    """
    folded_parts = [_institution_key(p) for p in parts]
    for i, folded in enumerate(folded_parts):
        if not folded:
            continue
        text = " ".join(filter(None, [folded, folded_parts[i + 1] if i + 1 < len(parts) else ""]))
        for match in _search_pattern().finditer(text):
            if match.start() >= len(folded):
                break  # starts in the next part: that part's own turn
            found = match.group(0)
            if found.endswith("university") and text[match.end():].startswith((" of ", " at ")):
                continue  # "Tianjin University of Technology" is not Tianjin University
            if found.startswith("university") and match.start() > 0:
                continue  # "Science University of Tokyo" is not the University of Tokyo
            return _SEARCH_SLUG[found]
    return ""


def _institution_part(parts: list[str]) -> str:
    """The comma part of a raw string that names the institution, not the department."""
    candidates = [p for p in parts if not _DEPARTMENT.match(_institution_key(p)) and not _ADDRESS.match(_institution_key(p))
                  and not _CORPORATE_SUFFIX.fullmatch(" " + _institution_key(p))
                  and not _names_a_department_only(_institution_key(p))]
    for part in candidates:
        if _INSTITUTION_WORDS.search(_institution_key(part)):
            return part
    return candidates[0] if candidates else (parts[0] if parts else "")


def _curated(slug: str) -> tuple[str, str, str]:
    known = _INSTITUTIONS[slug]
    return known.slug, known.name, known.country


def _generic_slug(folded: str) -> str:
    """A URL-safe slug of at most ~60 characters, cut at a word boundary, legal form dropped."""
    return slugify(_TRAILING_FACULTY.sub(r"\1", _without_legal_form(folded)), max_chars=60)
