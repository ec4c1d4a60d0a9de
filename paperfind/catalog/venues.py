"""Venue display names and the small vocabulary of paper statuses.

Paperlists folder names are lower-case (`nips`, `iclr`) and are kept as the venue id
everywhere (they prefix paper keys); people expect to read "NeurIPS". Statuses vary by
venue and year ("Long", "Main", "Technical", "Poster Workshop", "Accept (oral)") and are
mapped onto the few values a facet can show.
"""

from __future__ import annotations

VENUE_NAMES: dict[str, str] = {
    "nips": "NeurIPS", "neurips": "NeurIPS", "iclr": "ICLR", "icml": "ICML", "colm": "COLM",
    "aistats": "AISTATS", "colt": "COLT", "uai": "UAI", "corl": "CoRL", "cvpr": "CVPR",
    "iccv": "ICCV", "eccv": "ECCV", "wacv": "WACV", "3dv": "3DV", "acl": "ACL", "naacl": "NAACL",
    "emnlp": "EMNLP", "coling": "COLING", "aaai": "AAAI", "ijcai": "IJCAI", "www": "WWW",
    "kdd": "KDD", "icra": "ICRA", "iros": "IROS", "rss": "RSS", "acml": "ACML", "alt": "ALT",
    "automl": "AutoML", "siggraph": "SIGGRAPH", "siggraphasia": "SIGGRAPH Asia", "tmlr": "TMLR",
}

# Lower-cased source value → canonical status. Anything accepted without a
# presentation type (ACL "Long"/"Short", COLING "Main", AAAI "Technical") is "Accept".
_STATUS: dict[str, str] = {
    "oral": "Oral", "accept (oral)": "Oral", "oral presentation": "Oral",
    "talk": "Oral",  # ICLR 2020's name for its orals
    "top-5%": "Oral", "notable-top-5%": "Oral",  # ICLR 2023 ranked its accepts instead
    "spotlight": "Spotlight", "accept (spotlight)": "Spotlight",
    "top-25%": "Spotlight", "notable-top-25%": "Spotlight",
    "poster": "Poster", "accept (poster)": "Poster",
    "highlight": "Highlight", "accept (highlight)": "Highlight",
    "accept": "Accept", "accepted": "Accept", "long": "Accept", "short": "Accept",
    "main": "Accept", "technical": "Accept", "conference": "Accept",
    "findings": "Findings",
    "industry": "Industry",
    "system demonstrations": "Demo", "demo": "Demo", "demos": "Demo", "demo track": "Demo",
    "workshop": "Workshop", "poster workshop": "Workshop", "oral workshop": "Workshop",
    "reject": "Reject", "rejected": "Reject",
    "desk reject": "Desk Reject", "desk rejected": "Desk Reject",
    "withdraw": "Withdraw", "withdrawn": "Withdraw",
    "active": "Under Review", "under review": "Under Review", "submitted": "Under Review",
}

STATUSES: tuple[str, ...] = (
    "Oral", "Spotlight", "Highlight", "Poster", "Accept", "Findings", "Industry", "Demo",
    "Workshop", "Under Review", "Reject", "Desk Reject", "Withdraw",
)


def display_name(venue: str) -> str:
    """The name people write for a venue id: `nips` → NeurIPS; unknown ids upper-cased."""
    key = (venue or "").strip().lower()
    return VENUE_NAMES.get(key, key.upper())


def normalize_status(status: object, track: object = "") -> str:
    """One of `STATUSES`, or "" when the source says nothing.

    A presentation status on a workshop or findings track ("Poster" in track "Workshop")
    reports the track, since that is what tells the paper apart. Unknown values are
    kept title-cased rather than dropped, so nothing a source says is lost.
    """
    raw = str(status).strip() if isinstance(status, (str, int, float)) else ""
    track_key = str(track).strip().lower() if isinstance(track, str) else ""
    canonical = _STATUS.get(raw.lower(), raw.title() if raw else "")
    if canonical in ("Oral", "Spotlight", "Poster", "Accept", "") and track_key:
        if "workshop" in track_key:
            return "Workshop"
        if "findings" in track_key:
            return "Findings"
    return canonical
