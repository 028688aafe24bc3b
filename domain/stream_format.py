"""The streamed export format: one JSON object a line (NDJSON), tagged by ``"type"``.

The single JSON document (`domain.export_format.ExportDoc`) has to be built, sent and
parsed whole, so a large memory outgrows the request-size limit and the server's memory.
Lines can be written from a database cursor and read back one at a time. The rows are
the same records as the JSON document's (so the two formats cannot drift), in dependency
order: a line only refers to rows on earlier lines, so an importer can remap ids as it
reads. Turns get lines of their own (with their ``conversation_id``) so that one long
conversation is not one huge line.

The first line is a ``header`` (format and version), the last an ``end`` line with the
number of rows of each type: a file cut short at a line boundary still parses line by
line, and only the missing ``end`` (or counts that do not match) shows it was truncated.

Version 3 added one ``access`` line after the agent lines: what each agent may see
(`domain.import_access`).

The explicit memories (version 2) come last: memories in id order, then their links, then
their history. A memory's ``superseded_by`` is the one reference to a *later* line (an
update's old row points at its newer row), so the check pass resolves it at the end.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

import msgspec

from domain.agent_access_edit import AccessDoc
from domain.export_format import (
    FORMAT,
    SUPPORTED_VERSIONS,
    VERSION,
    AgentDoc,
    ClosetDoc,
    DrawerDoc,
    DrawerEntityDoc,
    EntityDoc,
    MemoryDoc,
    MemoryHistoryDoc,
    MemoryLinkDoc,
    MemoryProposalDoc,
    RelationDoc,
    RoomDoc,
    SettingsDoc,
    WingDoc,
)

__all__ = [
    "FORMAT",
    "LINE_TYPES",
    "MEDIA_TYPE",
    "ROW_LINES",
    "SUPPORTED_VERSIONS",
    "VERSION",
    "AccessLine",
    "AgentLine",
    "ClosetLine",
    "ConversationLine",
    "DrawerEntityLine",
    "DrawerLine",
    "EndLine",
    "EntityLine",
    "HeaderLine",
    "Line",
    "MemoryHistoryLine",
    "MemoryLine",
    "MemoryLinkLine",
    "MemoryProposalLine",
    "RelationLine",
    "RoomLine",
    "SettingsLine",
    "TurnLine",
    "WingLine",
    "decode_line",
    "encode_line",
    "line_kind",
]

MEDIA_TYPE = "application/x-ndjson"


class HeaderLine(msgspec.Struct, tag_field="type", tag="header"):
    format: Literal["loci-export"]
    version: int
    exported_at: datetime | None = None
    embeddings: bool = True


class SettingsLine(SettingsDoc, tag_field="type", tag="settings"):
    pass


class AgentLine(AgentDoc, tag_field="type", tag="agent"):
    pass


class AccessLine(AccessDoc, tag_field="type", tag="access"):
    """Per-agent access (`GET /v1/access`'s document, version 3): one line after the agent lines,
    naming only agents on them (`domain.import_access`); strict, as `AccessDoc` is."""


class ConversationLine(msgspec.Struct, tag_field="type", tag="conversation"):
    """`ConversationDoc` without its turns, which follow as `TurnLine` s."""

    id: int
    external_id: str
    status: str = "open"
    agent: str | None = None
    title: str | None = None
    created_at: datetime | None = None
    completed_at: datetime | None = None
    mined_seq: int = 0
    mined_at: datetime | None = None


class TurnLine(msgspec.Struct, tag_field="type", tag="turn"):
    id: int
    conversation_id: int
    seq: int
    role: str
    content: str
    created_at: datetime
    name: str | None = None


class WingLine(WingDoc, tag_field="type", tag="wing"):
    pass


class RoomLine(RoomDoc, tag_field="type", tag="room"):
    pass


class ClosetLine(ClosetDoc, tag_field="type", tag="closet"):
    pass


class DrawerLine(DrawerDoc, tag_field="type", tag="drawer"):
    pass


class EntityLine(EntityDoc, tag_field="type", tag="entity"):
    pass


class DrawerEntityLine(DrawerEntityDoc, tag_field="type", tag="drawer_entity"):
    pass


class RelationLine(RelationDoc, tag_field="type", tag="relation"):
    pass


class MemoryLine(MemoryDoc, tag_field="type", tag="memory"):
    pass


class MemoryLinkLine(MemoryLinkDoc, tag_field="type", tag="memory_link"):
    pass


class MemoryHistoryLine(MemoryHistoryDoc, tag_field="type", tag="memory_history"):
    pass


class MemoryProposalLine(MemoryProposalDoc, tag_field="type", tag="memory_proposal"):
    pass


class EndLine(msgspec.Struct, tag_field="type", tag="end", forbid_unknown_fields=True):
    """The file's own check that it arrived whole, so nothing but the counts: a key it does not
    know (``"count"`` for ``"counts"``) is a line written wrong, refused naming it, where the row
    lines ignore a field a newer or older export adds."""

    counts: dict[str, int] = {}


Line = (
    HeaderLine
    | SettingsLine
    | AgentLine
    | AccessLine
    | ConversationLine
    | TurnLine
    | WingLine
    | RoomLine
    | ClosetLine
    | DrawerLine
    | EntityLine
    | DrawerEntityLine
    | RelationLine
    | MemoryLine
    | MemoryLinkLine
    | MemoryHistoryLine
    | MemoryProposalLine
    | EndLine
)

ROW_LINES: tuple[type[msgspec.Struct], ...] = (
    SettingsLine,
    AgentLine,
    AccessLine,
    ConversationLine,
    TurnLine,
    WingLine,
    RoomLine,
    ClosetLine,
    DrawerLine,
    EntityLine,
    DrawerEntityLine,
    RelationLine,
    MemoryLine,
    MemoryLinkLine,
    MemoryHistoryLine,
    MemoryProposalLine,
)
"""The lines that carry rows, in the order an export writes them."""


def line_kind(line: type[msgspec.Struct] | msgspec.Struct) -> str:
    """A line's ``type`` (its msgspec tag): the one place each kind's name is written."""
    cls = line if isinstance(line, type) else type(line)
    return str(cls.__struct_config__.tag)


LINE_TYPES: tuple[str, ...] = tuple(line_kind(cls) for cls in ROW_LINES)
"""The row types an ``end`` line counts, in the order an export writes them."""

_ENCODER = msgspec.json.Encoder()
_DECODER: msgspec.json.Decoder[Line] = msgspec.json.Decoder(Line)


def encode_line(row: Line) -> bytes:
    return _ENCODER.encode(row) + b"\n"


def decode_line(raw: bytes) -> Line:
    """One line as its record; raises ``msgspec.DecodeError`` (a ``ValidationError`` for a
    well-formed line of the wrong shape) for the caller to name the line."""
    return _DECODER.decode(raw)
