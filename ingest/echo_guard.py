"""Strip what Loci itself put into a prompt before a transcript is mined.

Apps place Loci's ``<memory_context>`` block (recall) and ``<user_memory>`` block (the
session-start block) in the prompt; some echo the whole prompt, or the model quotes the
block back, and the transcript posted for mining then contains it. Mined as it is, every
recalled memory would come back as a new drawer and a "new" extracted memory that
confirms itself: memory re-learned from memory, growing with every conversation. So both
blocks are cut out of every turn before mining sees it (the stored turn stays verbatim).

The tag names are written here, not imported: `ingest` does not depend on `retrieval` or
`domain`, which render the blocks; a unit test renders real blocks with both and checks
they are stripped, so a renamed tag fails there.
"""

from __future__ import annotations

import re

__all__ = ["strip_echoed_blocks"]

_BLOCK = re.compile(
    r"<(?P<tag>memory_context|user_memory)\b[^>]*>.*?(?:</(?P=tag)\s*>|\Z)",
    re.DOTALL | re.IGNORECASE,
)
"""An opening tag through its closing tag, or through the end of the text when the echo
was cut off before it closed (a truncated prompt)."""


def strip_echoed_blocks(text: str) -> str:
    """``text`` without Loci's blocks; unchanged (the same object) when it has none."""
    if "<" not in text:
        return text
    stripped = _BLOCK.sub("", text)
    if stripped is text or stripped == text:
        return text
    return re.sub(r"\n{3,}", "\n\n", stripped).strip()
