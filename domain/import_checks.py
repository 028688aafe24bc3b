"""An import is checked like the API checks what it stores, and trusts no derived number.

A file is only another way in: it could carry a turn dated in the year 9999 (a mining
job that fails forever), a NUL byte (PostgreSQL's own error back to the caller), an id
no route can address, or a ``mined_seq`` past its turns, which would hide unmined turns
from mining for good. So:

* every string in the file is checked for control characters and every time for the
  year range (`loci.inputs.check_text`, `loci.timexpr.check_in_range`), walking the
  document, so a field added to the export later is covered too;
* ids, titles, turn content and its length follow the API's rules and
  ``MiningSettings``' limits (``max_turn_chars``; ``max_turns_per_request`` bounds one
  request's turns, not a conversation's, so an export of long conversations still imports);
* `mined_seqs` recomputes each conversation's watermark from the drawers the file brings.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Any

import msgspec

from domain.export_format import ExportDoc
from loci.errors import InvalidInput, PayloadTooLarge
from loci.inputs import check_id, check_speaker, check_text
from loci.settings import MiningSettings
from loci.timexpr import check_in_range

__all__ = ["check_content", "check_leaves", "check_like_the_api", "mined_seqs"]


def _leaves(value: Any, path: str) -> Iterator[tuple[str, Any]]:
    """Every string and time in the document with its path (``drawers[3].tags.topic``).

    Lists of numbers (embeddings) are skipped: nothing in them can be a string or a time.
    """
    if isinstance(value, msgspec.Struct):
        for name in value.__struct_fields__:
            yield from _leaves(getattr(value, name), f"{path}.{name}" if path else name)
    elif isinstance(value, list | tuple):
        if value and isinstance(value[0], int | float):
            return
        for i, item in enumerate(value):
            yield from _leaves(item, f"{path}[{i}]")
    elif isinstance(value, dict):
        for key, item in value.items():
            yield path, str(key)
            yield from _leaves(item, f"{path}.{key}")
    else:
        yield path, value


def check_leaves(doc: msgspec.Struct, path: str = "") -> None:
    """Every string free of control characters, every time in the year range (module doc)."""
    for where, value in _leaves(doc, path):
        if isinstance(value, str):
            check_text(value, field=where)
        elif isinstance(value, datetime):
            check_in_range(value, field=where)


def check_content(content: str, limits: MiningSettings, field: str) -> None:
    if not content.strip():
        raise InvalidInput("content must not be empty", field=field)
    if len(content) > limits.max_turn_chars:
        raise PayloadTooLarge(
            f"content is {len(content)} characters, over the limit of {limits.max_turn_chars} "
            "(LOCI_MINING_MAX_TURN_CHARS)",
            field=field,
        )


def check_like_the_api(doc: ExportDoc, limits: MiningSettings) -> None:
    """The API's rules over the whole file, before anything is written (see the module doc)."""
    check_leaves(doc)
    for i, a in enumerate(doc.agents):
        check_id(a.external_id, field=f"agents[{i}].external_id")
    for i, c in enumerate(doc.conversations):
        check_id(c.external_id, field=f"conversations[{i}].external_id")
        if c.title is not None and len(c.title) > 500:  # the column's width, as the API checks
            raise InvalidInput("title must be at most 500 characters", field=f"conversations[{i}].title")
        for j, t in enumerate(c.turns):
            check_content(t.content, limits, f"conversations[{i}].turns[{j}].content")
            check_speaker(t.name, field=f"conversations[{i}].turns[{j}].name")
    for i, d in enumerate(doc.drawers):
        check_content(d.content, limits, f"drawers[{i}].content")
        check_speaker(d.speaker, field=f"drawers[{i}].speaker")


def mined_seqs(doc: ExportDoc) -> dict[int, int]:
    """Each conversation's watermark (by its id in the file): the last seq of its turns that a
    drawer in the file was mined from, 0 when none was. The file's own ``mined_seq`` is never
    read: one past the turns would keep them from mining forever."""
    mined_turns = {d.turn_id for d in doc.drawers if d.turn_id is not None}
    return {c.id: max((t.seq for t in c.turns if t.id in mined_turns), default=0) for c in doc.conversations}
