"""clean_text / clean_title / normalize_title on real titles and abstracts."""

from __future__ import annotations

from paperfind.text.clean import clean_text, clean_title, normalize_title


def test_math_in_a_real_abstract_becomes_unicode(raw_record):
    abstract = raw_record("colt", 2011, "e196dc913d")["abstract"]
    assert "$\\ell_1$" in abstract
    cleaned = clean_text(abstract)
    assert "ℓ₁-norm" in cleaned
    assert "$" not in cleaned and "\\" not in cleaned
    assert "  " not in cleaned


def test_emph_in_a_real_abstract_is_dropped(raw_record):
    cleaned = clean_text(raw_record("aistats", 2001, "33d36ec2de")["abstract"])
    assert "infection with Toxoplasma Gondii." in cleaned


def test_html_entities_in_a_real_abstract_are_decoded(raw_record):
    cleaned = clean_text(raw_record("colm", 2025, "mxcCg9YRqj")["abstract"])
    assert "dimensions—efficiency" in cleaned
    assert "&mdash;" not in cleaned


def test_latex_in_real_titles(raw_record):
    assert clean_title(raw_record("acml", 2019, "906549ec18")["title"]).startswith("𝒳-Armed Bandits")
    assert clean_title(raw_record("acml", 2017, "d546a38e65")["title"]).endswith("ε-insensitive losses")


def test_unbalanced_dollar_keeps_the_text(raw_record):
    title = raw_record("colm", 2025, "EFxC34XbDh")["title"]
    assert clean_title(title) == "$100K or 100 Days: Trade-offs when Pre-Training with Academic Resources"


def test_literal_specials_survive():
    assert clean_text("a < b & c, 50% of R&D") == "a < b & c, 50% of R&D"
    assert clean_text("50% of $x$ and {BERT}") == "50% of x and BERT"
    assert clean_text("unbalanced {brace and \\emph{x}") == "unbalanced {brace and \\emph{x}"
    assert clean_text("&lt;tag&gt; &amp; &#x27;q&#x27;") == "<tag> & 'q'"


def test_accents_scripts_and_whitespace():
    assert clean_text('Schr\\"odinger {\\"u}ber') == "Schrödinger über"
    assert clean_text("$O(n^2)$ time\n\n  and\tspace") == "O(n²) time and space"
    assert clean_text("\\frac12 stays readable") == "\\frac12 stays readable"
    assert clean_text(None) == ""
    assert clean_text(12) == "12"


def test_clean_title_strips_period_and_outer_braces():
    assert clean_title("{Deep Learning}.") == "Deep Learning"
    assert clean_title("A Survey, et al.") == "A Survey, et al."


def test_normalize_title_folds_case_accents_punctuation():
    assert normalize_title("Schrödinger's   Bridge.") == normalize_title("schrodinger s bridge")
    assert normalize_title("$\\ell_1$-Regression") == normalize_title("L1 regression") == "l1 regression"


def test_escapes_that_lost_their_backslash_are_letters_again():
    """Issue 29: real strings of the bundled corpus's sources."""
    from paperfind.text.clean import repair_lost_escapes

    assert repair_lost_escapes("Universitu00e9 de Montru00e9al") == "Université de Montréal"
    assert repair_lost_escapes("HEC Montru00e9al") == "HEC Montréal"
    assert repair_lost_escapes("Universit u00e9 Laval") == "Université Laval"
    assert repair_lost_escapes("Technische Universit\\u00e4t Darmstadt") == "Technische Universität Darmstadt"
    assert repair_lost_escapes("CNRS / Universitu00e9 du2019Auvergne") == "CNRS / Université d\u2019Auvergne"
    # ids, BibTeX keys and URLs that only look like escapes stay
    for text in ("liu2025adversarial", "https://github.com/Tongzhou0101/ArchLock", "u00e9 alone"):
        assert repair_lost_escapes(text) == text
