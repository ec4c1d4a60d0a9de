"""The team's glossary with the real segmenter and the real CC-CEDICT file: every headword is
translated as the whole word it is, never as its characters' everyday senses (具身智能 is not
"tool body intelligent", 智能体 never brings in 大's "big")."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from paperfind.text.fold import HAN
from paperfind.text.translate import (ZhEnTranslator, default_cedict_path, default_glossary_path,
                                      read_cedict, read_glossary)

_ALL_HAN = re.compile(f"[{HAN}]+")
_LOWER_WORD = re.compile(r"[a-z0-9][a-z0-9'.+]*")
_ACRONYM = re.compile(r"[A-Za-z0-9]*[A-Z][A-Za-z0-9]*")  # LLM, 3D, NeRF, fMRI, LoRA
_CAPITALISED = re.compile(r"[A-Z][a-z]+")  # "Bayesian": a word, so lower-case

# today's field vocabulary a Chinese query must reach as whole words
TODAYS_TERMS = ("具身智能", "具身", "智能体", "多智能体", "检索增强生成", "检索增强", "提示词", "提示工程",
                "对齐", "价值对齐", "世界模型", "人类反馈强化学习", "量化", "剪枝", "知识蒸馏", "蒸馏",
                "思维链", "大模型", "多模态大模型", "视觉语言模型", "扩散模型", "文生图", "文生视频",
                "视频生成", "三维重建", "神经辐射场", "高斯泼溅", "三维高斯", "自动驾驶", "机器人操作",
                "模仿学习", "离线强化学习", "奖励模型", "直接偏好优化", "指令微调", "参数高效微调",
                "低秩适配", "上下文学习", "长文本", "推理", "数学推理", "代码生成", "工具调用", "可解释性",
                "公平性", "隐私", "联邦学习", "图神经网络", "时间序列", "分子生成", "蛋白质", "药物发现",
                "推荐系统", "持续学习", "域泛化", "分布外泛化", "对抗攻击", "后门攻击", "越狱", "水印",
                "模型编辑", "混合专家", "状态空间模型", "线性注意力")


@pytest.fixture(scope="module")
def translator() -> ZhEnTranslator:
    return ZhEnTranslator()


@pytest.fixture(scope="module")
def glossary() -> dict[str, tuple[str, ...]]:
    return read_glossary(default_glossary_path())


@pytest.fixture(scope="module")
def cedict() -> dict[str, list[str]]:
    return read_cedict(default_cedict_path())


def test_no_headword_is_written_twice():
    """The reader keeps a headword's last line, so a second line silently replaces the first."""
    lines = default_glossary_path().read_text(encoding="utf-8").splitlines()
    heads = [line.partition("\t")[0].strip() for line in lines if line.strip() and not line.startswith("#")]
    assert [head for head, n in Counter(heads).items() if n > 1] == []


def test_headwords_are_han_only(glossary):
    """A Latin letter or a hyphen cuts the query into runs before the segmenter sees it, so a
    headword like 3D高斯 could never be looked up whole (3D passes through and 高斯 is looked up)."""
    assert [head for head in glossary if not _ALL_HAN.fullmatch(head)] == []


def test_today_field_terms_are_in_the_glossary(glossary):
    assert [term for term in TODAYS_TERMS if term not in glossary] == []


def test_every_headword_alone_is_one_term_with_the_glossary_renderings(translator, glossary):
    """jieba must not split a headword (the translator adds the glossary's words to it), and the
    renderings must be the glossary's, whatever CC-CEDICT says of the word or its characters."""
    wrong = {head: translator.translate(head).terms for head in glossary
             if translator.translate(head).terms != ((head, glossary[head]),)}
    assert wrong == {}


def test_multi_character_headwords_never_fall_to_a_characters_sense(translator, glossary, cedict):
    """A multi-character headword gets the glossary's renderings, also where CC-CEDICT has the
    word with other senses, and never a lone character's CEDICT sense the glossary does not give
    it (the first sense, the one a lone character gets: 具 "tool", 身 "body", 大 "big")."""
    char_sense = {c: senses[0] for c, senses in cedict.items() if len(c) == 1}
    wrong = {}
    for head, renderings in glossary.items():
        if len(head) < 2:
            continue
        got = {r for _, rs in translator.translate(head).terms for r in rs}
        stray = {char_sense[c] for c in head if c in char_sense} - set(renderings)
        if got != set(renderings) or got & stray:
            wrong[head] = (sorted(got), sorted(got & stray))
    assert wrong == {}


def test_without_the_glossary_cedict_alone_would_split_them(tmp_path):
    """Why the glossary must hold them: CC-CEDICT has neither word, so they fall to characters."""
    empty = tmp_path / "empty.tsv"
    empty.write_text("# nothing\n", encoding="utf-8")
    bare = ZhEnTranslator(glossary_path=empty)
    assert [part for part, _ in bare.translate("具身智能").terms] == ["具", "身", "智能"]
    assert [part for part, _ in bare.translate("大模型").terms] == ["大", "模型"]


def test_headwords_stay_whole_inside_a_query(translator, glossary):
    """In a sentence too: "基于…的方法" around each multi-character headword keeps it one term."""
    split = {}
    for head, renderings in glossary.items():
        if len(head) > 1 and renderings:
            terms = translator.translate(f"基于{head}的方法").terms
            if (head, renderings) not in terms:
                split[head] = terms
    assert split == {}


@pytest.mark.parametrize("query", ["智能体", "具身智能", "具身智能 智能体", "多智能体协作", "具身智能的大模型",
                                   "大模型智能体的工具调用", "检索增强生成 智能体", "多模态大模型 具身智能"])
def test_abbreviated_compounds_are_not_split_into_characters(translator, query):
    """大 alone is "big"; 智能体, 具身智能 and the 大模型 family must never bring it in, nor any
    lone character of theirs."""
    result = translator.translate(query)
    assert "big" not in result.english.split()
    assert [part for part, _ in result.terms if len(part) == 1 and part not in "的 "] == []
    assert result.untranslated == ()


@pytest.mark.parametrize("head", ["大模型", "大语言模型", "多模态大模型", "智能体", "具身智能"])
def test_no_glossary_term_next_to_a_common_head_breaks_it(translator, glossary, head):
    """The head stays whole (alone or inside a longer headword such as 智能体系统). 大 is a frequent
    character of jieba's own dictionary: a headword 模型X would win 大 + 模型X over 大模型 + X
    ("big model quantization"), so a 模型X form needs its own 大模型X line (模型编辑 / 大模型编辑)."""
    broken = []
    for word in glossary:
        for query in (head + word, word + head, f"{head}的{word}"):
            result = translator.translate(query)
            if "big" in result.english.split() or not any(head in part for part, _ in result.terms):
                broken.append((query, [part for part, _ in result.terms]))
    assert broken == []


def test_embodied_and_agent_terms_render_as_the_field_writes_them(translator):
    assert translator.translate("具身智能").english == "embodied intelligence embodied AI"
    assert translator.translate("智能体").english == "agent agents"
    assert translator.translate("多智能体强化学习").english == "multi-agent reinforcement learning MARL"


def test_renderings_are_lower_case_ascii_words_except_acronyms(glossary):
    def bad_piece(piece: str) -> bool:
        if _LOWER_WORD.fullmatch(piece):
            return False
        return not (_ACRONYM.fullmatch(piece) and not _CAPITALISED.fullmatch(piece))

    bad = {}
    for head, renderings in glossary.items():
        for english in renderings:
            pieces = [p for word in english.split(" ") for p in word.split("-")]
            if not english.isascii() or english != english.strip() or "  " in english or any(
                    bad_piece(p) for p in pieces):
                bad[head] = renderings
        if len(set(renderings)) != len(renderings):
            bad[head] = renderings
    assert bad == {}


def test_function_words_carry_no_english(translator):
    for word in ("相关", "有关", "论文", "研究", "方面", "最新", "工作"):
        result = translator.translate(word)
        assert result.english == "" and result.untranslated == ()
    assert translator.translate("关于具身智能的最新论文").english == "embodied intelligence embodied AI"
