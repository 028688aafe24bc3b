"""Snippets of text in other scripts, and right-to-left writers' direction marks (`retrieval.escape`).

The cut went to the last space before ``max_chars``: in "Latin words + Chinese" that is the space
before the Chinese, so a 130-token block showed ``user: Landlord note: …`` and ``plain("笔记: " +
Chinese, 80)`` was ``笔记: …``; a family emoji or a flag was cut mid-sequence (a trailing zero-width
joiner, a lone regional indicator). And the escaping dropped LRM, RLM and ALM, which Arabic, Hebrew
and Persian writers use, though they cannot reorder or hide text as the overrides it drops can.
"""

from __future__ import annotations

import regex

from retrieval.escape import plain, visible

CHINESE = "我们上个月搬到了里斯本新公寓在阿尔法玛区"
FAMILY, FLAG = "👨\u200d👩\u200d👧\u200d👦", "🇵🇹"
LRM, RLM, ALM, RLO, ZWSP = "\u200e", "\u200f", "\u061c", "\u202e", "\u200b"


def test_a_latin_prefix_does_not_cost_the_chinese_after_it() -> None:
    for prefix in ("笔记: ", "Landlord note: "):
        out = plain(prefix + CHINESE * 30, 80)
        assert out.startswith(prefix + CHINESE[:20]) and out.endswith(" …"), out
        assert len(out) == 80 + 2  # cut hard at max_chars: no space is near it


def test_english_is_still_cut_at_a_word() -> None:
    text = "I moved to Lisbon last spring and the rent there is 1,450 euros a month " * 3
    assert plain(text, 80) == "I moved to Lisbon last spring and the rent there is 1,450 euros a month I moved …"
    long_word = "We talked about internationalization and the implementation of everything else"
    assert plain(long_word, 40) == "We talked about internationalization …"


def test_emoji_sequences_and_flags_are_never_cut_inside() -> None:
    text = "Party " + (FAMILY + "🎉" + FLAG) * 40
    whole = {*"Party ", FAMILY, "🎉", FLAG}
    for max_chars in range(60, 140):
        body = plain(text, max_chars).removesuffix(" …")
        assert set(regex.findall(r"\X", body)) <= whole, (max_chars, body[-8:])


def test_direction_marks_stay_and_controls_go() -> None:
    said = f"שלום!{RLM} (2) اسمي سارة{ALM}، 3 {LRM}km"
    assert visible(said) == said
    assert plain(said, 200) == said
    # a run keeps its first mark only; a mark after a dropped control or invisible goes with it
    assert visible(f"a{RLM}{RLM}{LRM}{ALM}b") == f"a{RLM}b"
    assert visible(f"a{RLO}{RLM}b{ZWSP}{LRM}c") == "abc"
