"""The MCP tools' one-line summaries count in English: "1 drawer", not "1 drawers"."""

from __future__ import annotations

from service.mcp.calls import _recall_summary
from service.routes.recall import RecallOut


def _out(memories: int, drawers: int) -> RecallOut:
    # the summary only counts the lists, so placeholders stand for the recalled rows
    return RecallOut(items=[None] * drawers, context="ctx", timings_ms={}, preset="default", memories=[None] * memories)  # type: ignore[list-item]


def test_a_recall_summary_counts_one_in_the_singular() -> None:
    assert _recall_summary(_out(1, 1), "drawers").startswith("Found 1 memory, 1 drawer (")
    assert _recall_summary(_out(0, 1), "drawers").startswith("Found 1 drawer (")
    assert _recall_summary(_out(2, 3), "drawers").startswith("Found 2 memories, 3 drawers (")
