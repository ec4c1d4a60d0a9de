"""Foreign names read back from their sound (paperfind/text/sounds.py), with the real CC-CEDICT."""

from __future__ import annotations

import pytest

from paperfind.text.sounds import (SoundReader, english_skeleton, pinyin_skeleton, pinyin_skeletons,
                                   pinyin_syllables, read_name_sounds, vowel_distance, english_vowels,
                                   pinyin_vowels)
from paperfind.text.translate import ZhEnTranslator, default_cedict_path


@pytest.fixture(scope="module")
def sounds():
    return read_name_sounds(default_cedict_path())


@pytest.fixture(scope="module")
def translator() -> ZhEnTranslator:
    return ZhEnTranslator()


def _reader(sounds, counts: dict[str, int]) -> SoundReader:
    return SoundReader(sounds, counts)


def _read(reader: SoundReader, run: str) -> str | None:
    return reader.read(run, pinyin_syllables(run))


@pytest.mark.parametrize("syllables,word", [
    (["ha", "mi", "dun"], "Hamilton"),  # the l Chinese drops is not compared
    (["xiang", "nong"], "Shannon"),  # x ~ sh, ng ~ n, nn is one n
    (["xue", "ding", "e"], "Schrödinger"),  # sch ~ x, ö folded, the r dropped
    (["wa", "se", "si", "tan"], "Wasserstein"),  # w ~ v ~ w, ss is one s
    (["li", "ya", "pu", "nuo", "fu"], "Lyapunov"),  # an initial l kept, v ~ f
])
def test_a_name_and_its_chinese_spelling_share_a_skeleton(syllables, word):
    assert english_skeleton(word) in pinyin_skeletons(syllables)


def test_ji_qi_xi_may_be_a_hard_k_or_g():
    assert english_skeleton("Gibbs") in pinyin_skeletons(["ji", "bu", "si"])
    assert pinyin_skeleton(["ji", "bu", "si"]) == "SPS"  # the soft reading is one of them
    assert pinyin_skeletons(["xiang", "nong"]) == {"SN"}  # only ji, qi, xi themselves


def test_vowels_chinese_adds_cost_less_and_r_coloured_ones_match_any():
    assert pinyin_vowels(["ji", "bu", "si"]) == "Eoe"
    assert vowel_distance(pinyin_vowels(["ji", "bu", "si"]), english_vowels("Gibbs")) == 0.5
    assert english_vowels("Bernoulli") == "ROE"  # "ber" is 伯 bo
    assert vowel_distance(pinyin_vowels(["bo", "nu", "li"]), english_vowels("Bernoulli")) == 0.0


def test_transliteration_characters_and_everyday_words_come_from_cc_cedict(sounds):
    assert {"斯", "尔", "拉", "曼", "顿"} <= sounds.characters
    assert not {"模", "量", "随"} & sounds.characters
    assert {"search", "sound", "agriculture"} <= sounds.everyday_words
    assert not {"shannon", "hamiltonian", "ise"} & sounds.everyday_words  # "Wise" is no "ise"


def test_a_run_reads_as_the_field_word_it_sounds_like(sounds):
    reader = _reader(sounds, {"shannon": 76, "hamiltonian": 617, "lyapunov": 299, "entropy": 5000})
    assert _read(reader, "香农") == "Shannon"
    assert _read(reader, "哈密顿") == "Hamiltonian"  # the adjective the field writes
    assert _read(reader, "李雅普诺夫") == "Lyapunov"


def test_everyday_words_acronyms_and_rare_words_are_never_names(sounds):
    # "searching" (an everyday word's inflection) and "snn" (no vowel) share Shannon's skeleton
    assert _read(_reader(sounds, {"searching": 1075, "snn": 443}), "香农") is None
    assert _read(_reader(sounds, {"shannon": 49}), "香农") is None  # written too rarely


def test_a_close_rival_leaves_the_run_unread(sounds):
    assert _read(_reader(sounds, {"kalman": 208}), "卡尔曼") == "Kalman"
    # German sounds the same and the field writes it as often: no clear winner
    assert _read(_reader(sounds, {"kalman": 208, "german": 271}), "卡尔曼") is None


def test_chinese_names_and_other_characters_are_not_read(sounds):
    reader = _reader(sounds, {"riemannian": 1146, "shannon": 76})
    assert _read(reader, "李明") is None  # li ming: the vowels are not Riemannian's
    assert _read(reader, "香") is None  # one character is no run
    assert _read(reader, "模型") is None  # not transliteration characters


@pytest.mark.parametrize("zh,name", [("香农熵", "Shannon"), ("哈密顿量", "Hamiltonian"),
                                     ("李雅普诺夫稳定性", "Lyapunov")])
def test_the_translator_reads_a_name_no_dictionary_has(translator, zh, name):
    """Character by character 香农 was "sound agriculture", 哈密顿 "ha! secret stop"."""
    result = translator.translate(zh)
    assert (zh[:len(result.terms[0][0])], (name,)) == result.terms[0]
    assert result.english.split()[0] == name


def test_a_chinese_persons_name_is_not_read_as_a_field_word(translator):
    assert "Riemannian" not in translator.translate("李明的工作").english.split()


def test_a_names_reading_adds_the_adjective_the_field_writes(translator):
    """The field writes "Riemann" 22 times and "Riemannian" 1,146; "Lagrangian" 416."""
    assert translator.translate("黎曼").terms == (("黎曼", ("Riemann", "Riemannian")),)
    assert ("拉格朗日", ("Lagrange", "Lagrangian")) in translator.translate("拉格朗日乘子").terms
    assert "European" not in translator.translate("欧拉方程").english.split()  # 欧 alone is no name


def test_a_custom_word_count_reads_no_names_by_sound():
    counts = {"sound": 900, "agriculture": 900}
    plain = ZhEnTranslator(word_count=lambda word: counts.get(word, 0))
    assert "Shannon" not in plain.translate("香农").english


def test_a_character_common_outside_names_is_not_a_names(sounds):
    """不 is in a few foreign names (不列颠 Britain) but in hundreds of other words."""
    assert "不" not in sounds.characters and "香" in sounds.characters


def test_a_name_has_no_more_vowels_than_syllables_but_its_adjective(sounds):
    """伊藤 (two syllables) is not "ideation" (three vowel groups); 哈密顿 may be Hamiltonian."""
    assert _read(_reader(sounds, {"ideation": 58}), "伊藤") is None
    assert _read(_reader(sounds, {"gibbs": 429}), "吉布斯") == "Gibbs"  # one vowel for three syllables


def test_only_e_i_u_before_r_match_any_vowel():
    assert english_vowels("sparser") == "AR"  # the a keeps its class: 吉布斯 is no "sparser"
    assert vowel_distance(pinyin_vowels(["ji", "bu", "si"]), english_vowels("sparser")) > 0.75
