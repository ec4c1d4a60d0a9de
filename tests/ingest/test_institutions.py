"""Institution slugs from real affiliation strings and from the normalised names."""

from __future__ import annotations

from paperfind.ingest.institutions import (
    KNOWN_INSTITUTIONS, institution_display, institution_info, resolve_affiliation)


def _raw_affiliations(record: dict) -> list[str]:
    return [p.strip() for slot in record["aff"].split(";") for p in slot.split("+")]


def test_seed_slugs_from_real_raw_strings(raw_record):
    msra = _raw_affiliations(raw_record("acml", 2020, "5562c47685"))
    assert "Microsoft Research Asia, Beijing, China" in msra
    assert resolve_affiliation("Microsoft Research Asia, Beijing, China").slug == "microsoft-research"
    stanford = "Dept of Aeronautics and Astronautics, Stanford University, Stanford, CA"
    assert stanford in _raw_affiliations(raw_record("icra", 2016, "7487151"))
    assert resolve_affiliation(stanford).slug == "stanford"
    pku = "School of Electronic Engineering and Computer Science, Peking University, Beijing, China"
    assert pku in _raw_affiliations(raw_record("acml", 2016, "998baf80cb"))
    affiliation = resolve_affiliation(pku)
    assert (affiliation.slug, affiliation.name, affiliation.country) == ("pku", "Peking University", "China")
    assert affiliation.raw == pku


def test_peking_university_spellings_are_one_institution():
    slugs = {resolve_affiliation(s).slug for s in ("Peking University", "PKU", "Peking Univ.",
                                                   "Dept. of CS, Peking University")}
    assert slugs == {"pku"}


def test_departments_and_labs_fold_into_the_institution():
    assert resolve_affiliation("Dept. of CS, Stanford University").slug == "stanford"
    assert resolve_affiliation("IIIS, Tsinghua University").slug == "tsinghua"
    assert resolve_affiliation("Google Brain").slug == resolve_affiliation("Google Research").slug == "google"
    assert resolve_affiliation("DeepMind").slug == resolve_affiliation("Google DeepMind").slug == "google-deepmind"
    assert resolve_affiliation("Facebook AI Research").slug == "meta"


def test_similar_names_do_not_collapse():
    assert resolve_affiliation("Zhejiang University of Technology").slug != "zju"
    assert resolve_affiliation("Tokyo University of Science").slug != "utokyo"
    assert resolve_affiliation("National Tsing Hua University").slug != "tsinghua"


def test_normalised_name_wins_and_given_country_is_kept():
    affiliation = resolve_affiliation("MSR Asia", "Microsoft", "MSR", "China")
    assert (affiliation.slug, affiliation.country) == ("microsoft-research", "China")
    generic = resolve_affiliation("Uni Bonn", "University of Potsdam", "", "Germany")
    assert (generic.slug, generic.name, generic.country) == ("university-of-potsdam", "University of Potsdam", "Germany")


def test_generic_slug_from_a_raw_string_skips_the_department():
    raw = "Department of Computer Science, National Chiao Tung University, Hsinchu, Taiwan, R.O.C."
    assert resolve_affiliation(raw).slug == "national-chiao-tung-university"


def test_junk_gives_an_empty_slug():
    for junk in ("", "-", "N/A", "  ", "1", "Unknown"):
        assert resolve_affiliation(junk).slug == ""


def test_display_and_info():
    assert len(KNOWN_INSTITUTIONS) >= 150
    assert institution_display("pku") == "Peking University"
    assert institution_info("stanford").country == "United States"
    assert institution_info("university-of-potsdam") is None
    assert institution_display("university-of-potsdam") == "University Of Potsdam"


def test_html_entities_in_affiliations_are_decoded():
    """NeurIPS 2024's virtual-site export writes apostrophes as `&#x27;`."""
    aff = resolve_affiliation("King&#x27;s College London")
    assert aff.raw == "King's College London" and aff.slug == "kcl"
