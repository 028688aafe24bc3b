"""Sentences and long turns in scripts other than Latin (`loci.sentences`, `ingest.segment`).

A 305-character Chinese turn used to become 4 drawers: no sentence end was read in it (``。``
has no space after it), so it was halved by characters wherever the middle fell, one part
ending mid-number (``四千五`` | ``百元``), and the odd character left over became a drawer of
its own, a lone ``。`` that later ranked third in an unrelated recall. Chinese sentences also
got no vector of their own: a sentence with no spaces counted as one word.
"""

from __future__ import annotations

from collections.abc import Sequence

import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from ingest.segment import sentence_pieces, split_sentences, split_text

TURN = (
    "我们上个月搬到了里斯本，新公寓在阿尔法玛区，离河边很近，每天早上都能看到电车经过。"
    "房东是一位很友善的老太太，她说房租每个月四千五百元，包括水电和网络，但是暖气要另外付钱。"
    "我的妻子在一家设计公司找到了工作，她每天坐地铁上班，大概需要二十五分钟，她很喜欢那里的同事。"
    "孩子们下个学期会去国际学校读书，学费比我们想象的要贵一些，所以我们正在考虑申请奖学金。"
    "周末我们通常去海边散步，或者去市场买新鲜的鱼和水果，葡萄牙的食物真的很好吃，尤其是蛋挞。"
    "我现在还在学习葡萄牙语，每周上两次课，老师说我的发音进步很快，但是语法还需要多练习。"
)


def chars(texts: Sequence[str]) -> list[int]:
    """A stand-in for WordPiece on Chinese: a token per character, plus [CLS]/[SEP]."""
    return [len(t) + 2 for t in texts]


def test_chinese_sentences_end_at_their_full_stops_without_a_space() -> None:
    text = "我去年春天搬到了里斯本。房租每月一千四百五十欧元！你觉得我应该搬家吗？他说：“好的。”然后走了。"
    assert split_sentences(text) == [
        "我去年春天搬到了里斯本。",
        "房租每月一千四百五十欧元！",
        "你觉得我应该搬家吗？",
        "他说：“好的。”",  # the closing quote stays with its sentence
        "然后走了。",
    ]
    assert split_sentences("わかった。。。本当？！うん。") == ["わかった。。。", "本当？！", "うん。"]


def test_arabic_and_devanagari_sentence_ends() -> None:
    assert split_sentences("هل ستأتي غدا؟ سأذهب إلى البيت.") == ["هل ستأتي غدا؟ ", "سأذهب إلى البيت."]
    assert split_sentences("मैं घर जा रहा हूँ। फिर मिलेंगे।") == ["मैं घर जा रहा हूँ। ", "फिर मिलेंगे।"]


def test_chinese_sentences_get_vectors_of_their_own_and_short_ones_do_not() -> None:
    text = "我去年春天搬到了里斯本。你觉得我应该搬家吗？好的，谢谢！"
    # eight characters or more make a sentence worth a vector (a word is under two of them);
    # "好的，谢谢！" ("OK, thanks!") is as short as "Sounds good." and gets none
    assert sentence_pieces(text) == ["我去年春天搬到了里斯本。", "你觉得我应该搬家吗？"]


def test_english_sentences_are_read_as_before() -> None:
    text = "Dr. Smith said hi. Then he left!  Was it late?\nYes… it was 3 a.m. there"
    assert split_sentences(text) == [
        "Dr. Smith said hi. ",
        "Then he left!  ",
        "Was it late?\n",
        "Yes… ",
        "it was 3 a.m. ",  # as the rule always read it
        "there",
    ]


def test_a_long_chinese_turn_is_cut_at_its_sentences() -> None:
    parts = split_text(TURN, chars, 128)
    assert "".join(parts) == TURN and len(parts) == 3
    assert all(p.endswith("。") for p in parts) and max(chars(parts)) <= 128
    assert not any(p.endswith("四千五") for p in parts)


def test_a_run_without_sentence_ends_is_cut_after_punctuation_and_never_leaves_a_lone_mark() -> None:
    clause = TURN.replace("。", "，")[:-1] + "。"  # one sentence of clauses, 259 characters
    parts = split_text(clause, chars, 128)
    assert "".join(parts) == clause and max(chars(parts)) <= 128
    assert all(p.endswith(("，", "。")) for p in parts), parts  # not mid-word, not mid-number
    assert all(regex.search(r"\p{L}", p) for p in parts)  # no drawer of punctuation alone


def test_a_run_without_punctuation_is_cut_between_grapheme_clusters() -> None:
    family, flag = "👨\u200d👩\u200d👧\u200d👦", "🇵🇹"
    text = (family + flag) * 101  # odd: the old halving left a character over
    parts = split_text(text, lambda ts: [len(t) // 2 + 2 for t in ts], 100)
    assert "".join(parts) == text and len(parts) > 1
    assert all(regex.fullmatch(f"(?:{family}|{flag})+", p) for p in parts), [p[-3:] for p in parts]
    devanagari = "नमस्ते" * 300  # न म स्ते: a cut inside स्ते would leave a virama or a vowel sign alone
    parts = split_text(devanagari, chars, 100)
    assert "".join(parts) == devanagari and all(regex.fullmatch("(?:न|म|स्ते)+", p) for p in parts)


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet=st.sampled_from("好的。，！a \u200d👩🇵"), min_size=0, max_size=2000), st.integers(8, 60))
def test_parts_of_any_text_concatenate_back_and_fit(text: str, limit: int) -> None:
    parts = split_text(text, chars, limit)
    assert "".join(parts) == text
    assert max(chars(parts)) <= limit
