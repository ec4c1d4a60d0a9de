"""Author splitting and name keys on real author fields."""

from __future__ import annotations

from paperfind.text.names import clean_name, initial_form, name_key, name_tokens, split_authors


def test_openreview_semicolons(raw_record):
    names = split_authors(raw_record("3dv", 2025, "05T81ScPFb")["author"])
    assert names[0] == "Stanislaw Szymanowicz" and names[-1] == "Andrea Vedaldi"
    assert len(names) == 7


def test_cvpr_semicolon_and_two_spaces(raw_record):
    title = '"Double-DIP": Unsupervised Image Decomposition via Coupled Deep-Image-Priors'
    raw = raw_record("cvpr", 2019, title, field="title")["author"]
    assert ";  " in raw
    assert split_authors(raw) == ["Yosef Gandelsman", "Assaf Shocher", "Michal Irani"]


def test_comma_separated_list(raw_record):
    assert split_authors(raw_record("nips", 2017, "9161")["author"]) == ["Tim Rocktäschel", "Sebastian Riedel"]


def test_empty_slots_keep_positions_trailing_dropped():
    assert split_authors("A B;;C D;") == ["A B", "", "C D"]
    assert split_authors("") == [] and split_authors(None) == []
    assert split_authors("Only Author") == ["Only Author"]


def test_clean_name():
    assert clean_name("  Rocktäschel,  Tim ") == "Tim Rocktäschel"
    assert clean_name("John Smith, Jr.") == "John Smith, Jr."
    assert clean_name("Ren&eacute; Vidal") == "René Vidal"


def test_fold_and_initials():
    assert name_key("Tim Rocktäschel") == "tim rocktaschel" == name_key("tim  ROCKTASCHEL")
    assert name_key("Jean-François Lafleche") == "jean francois lafleche"
    assert name_key("E.J. Chichilnisky") == "e j chichilnisky"
    assert name_tokens("Huishuai Zhang") == ["huishuai", "zhang"]
    assert initial_form("Huishuai Zhang") == "h zhang" == initial_form("H. Zhang")
    assert initial_form("Madonna") == "madonna"
