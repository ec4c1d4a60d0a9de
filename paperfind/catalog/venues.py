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

# The venue's full name in English and in Chinese, as the venues and Chinese researchers
# write them (the venue page's subtitle, in the page's language).
VENUE_TITLES: dict[str, tuple[str, str]] = {
    "nips": ("Conference on Neural Information Processing Systems", "神经信息处理系统大会"),
    "icml": ("International Conference on Machine Learning", "国际机器学习大会"),
    "iclr": ("International Conference on Learning Representations", "国际学习表征会议"),
    "colm": ("Conference on Language Modeling", "语言建模会议"),
    "aistats": ("International Conference on Artificial Intelligence and Statistics",
                "人工智能与统计国际会议"),
    "colt": ("Conference on Learning Theory", "学习理论会议"),
    "uai": ("Conference on Uncertainty in Artificial Intelligence", "人工智能不确定性会议"),
    "corl": ("Conference on Robot Learning", "机器人学习会议"),
    "cvpr": ("IEEE/CVF Conference on Computer Vision and Pattern Recognition",
             "IEEE/CVF 计算机视觉与模式识别会议"),
    "iccv": ("IEEE/CVF International Conference on Computer Vision", "IEEE/CVF 国际计算机视觉大会"),
    "eccv": ("European Conference on Computer Vision", "欧洲计算机视觉国际会议"),
    "acl": ("Annual Meeting of the Association for Computational Linguistics", "国际计算语言学协会年会"),
    "emnlp": ("Conference on Empirical Methods in Natural Language Processing",
              "自然语言处理中的经验方法会议"),
    "naacl": ("Annual Conference of the North American Chapter of the Association for "
              "Computational Linguistics", "国际计算语言学协会北美分会年会"),
}


def full_name(venue: str, lang: str = "en") -> str:
    """The venue's full name in `lang` (en or zh); "" for venues without one here."""
    names = VENUE_TITLES.get((venue or "").strip().lower())
    if names is None:
        return ""
    return names[1] if lang == "zh" else names[0]


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
