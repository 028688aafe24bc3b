"""The first pass over a streamed import: every line checked before anything is written.

A file that is cut short, corrupted or wrong anywhere must import nothing and say where
it broke, so the whole file is read once (from the spooled copy) before the database is
touched: each line decodes as a record of `domain.stream_format`, passes the API's
checks (`domain.import_checks`, a second current value of one fact among them), and
refers only to rows defined on earlier lines; the last line is the ``end`` record whose
counts match (and that names nothing else: no key but ``counts``, no count of a type of
line that does not exist). Errors are ``InvalidInput`` with ``field="line N"`` (1-based)
and say which field of that line.

What the second pass needs comes out of this one: each conversation's ``mined_seq``,
recomputed from the drawers the file brings (never read from the file), the counts, and
the ids the explicit memories' tables use (`domain.import_memories` reserves new ones for
them before writing). Memory holds integer ids per row type, never the rows. A memory's
``superseded_by`` names a later line, so it is resolved at the ``end`` line.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import msgspec

from domain.agent_access_edit import access_from_raw
from domain.import_access import check_file_access
from domain.import_checks import (
    CurrentValues,
    check_cited_turns,
    check_content,
    check_entity,
    check_leaves,
    check_relation,
    check_turn_seq,
)
from domain.import_memories import check_history, check_link, check_memory
from domain.import_proposals import check_proposal
from domain.stream_format import (
    LINE_TYPES,
    ROW_LINES,
    SUPPORTED_VERSIONS,
    AccessLine,
    AgentLine,
    ClosetLine,
    ConversationLine,
    DrawerEntityLine,
    DrawerLine,
    EndLine,
    EntityLine,
    HeaderLine,
    MemoryHistoryLine,
    MemoryLine,
    MemoryLinkLine,
    MemoryProposalLine,
    RelationLine,
    RoomLine,
    SettingsLine,
    TurnLine,
    WingLine,
    decode_line,
    line_kind,
)
from loci.errors import InvalidInput
from loci.inputs import check_id, check_speaker
from loci.models import EMBEDDING_DIM, ENTITY_KINDS, ROLES, TOP_K_MAX, WING_KINDS
from loci.settings import MemorySettings, MiningSettings
from loci.zones import check_zone

__all__ = ["Plan", "check_stream"]

TITLE_MAX = 500
"""The conversations.title column's width, as the API checks it."""


@dataclass
class Plan:
    """What the checked file holds, for the writing pass."""

    counts: Counter[str] = field(default_factory=Counter)
    watermarks: dict[int, int] = field(default_factory=dict)  # conversation id in the file -> mined_seq
    lines: int = 0
    memory_space: set[int] = field(default_factory=set)  # every memory id the file names (import_memories)
    link_ids: set[int] = field(default_factory=set)
    history_ids: set[int] = field(default_factory=set)
    proposal_ids: set[int] = field(default_factory=set)


@dataclass
class _Seen:
    limits: MiningSettings
    memory: MemorySettings
    line: int = 0
    version: int = 0  # the header's
    ids: dict[str, set[int]] = field(default_factory=dict)
    agents: set[str] = field(default_factory=set)
    turns: dict[int, tuple[int, int]] = field(default_factory=dict)  # turn -> (conversation, seq)
    seqs: dict[int, set[int]] = field(default_factory=dict)  # conversation -> its turns' seqs
    parents: dict[tuple[str, int], int] = field(default_factory=dict)  # ("room", id) -> wing, ("closet", id) -> room
    plan: Plan = field(default_factory=Plan)
    active_lineages: set[int] = field(default_factory=set)
    newer: list[tuple[int, int]] = field(default_factory=list)  # (line, superseded_by), resolved at the end
    current: CurrentValues = field(default_factory=CurrentValues)  # one current value per fact, as the index

    @property
    def where(self) -> str:
        return f"line {self.line}"

    def fail(self, message: str) -> InvalidInput:
        return InvalidInput(f"line {self.line}: {message}", field=self.where)

    def define(self, kind: str, row_id: int) -> None:
        known = self.ids.setdefault(kind, set())
        if row_id in known:
            raise self.fail(f"{kind} id {row_id} appears twice")
        known.add(row_id)

    def ref(self, kind: str, name: str, value: int | None, *, optional: bool = False) -> None:
        if value is None and optional:
            return
        if value is None or value not in self.ids.get(kind, ()):
            raise self.fail(f"{name} {value} does not refer to a {kind} on an earlier line")

    def one_of(self, value: str, allowed: tuple[str, ...], name: str) -> None:
        if value not in allowed:
            raise self.fail(f"{name} must be one of {', '.join(allowed)}")

    def access_fail(self, e: InvalidInput) -> InvalidInput:
        """A refusal of the access line, its field named below ``access.`` as the JSON file's
        (``line 4.access.agents.coder.categories[0]``)."""
        said = str(e) if str(e).startswith(f"{e.field}:") else f"{e.field}: {e}"
        return InvalidInput(f"{self.where}: {said}", field=f"{self.where}.{e.field}")

    def rule(self, check: Callable[..., None], *args: Any) -> None:
        """A row's own rule (`domain.import_checks`), its refusal naming this line."""
        try:
            check(*args)
        except InvalidInput as e:
            raise self.fail(str(e)) from e


def _settings(row: SettingsLine, seen: _Seen) -> None:
    if seen.plan.counts["settings"]:
        raise seen.fail("a second settings line")
    if not 1 <= row.top_k <= TOP_K_MAX:
        raise seen.fail(f"top_k must be between 1 and {TOP_K_MAX}")
    if row.time_zone is not None:
        try:
            check_zone(row.time_zone)
        except InvalidInput as e:
            raise seen.fail(str(e)) from e


def _agent(row: AgentLine, seen: _Seen) -> None:
    check_id(row.external_id, field=f"{seen.where}.external_id")
    if seen.plan.counts["access"]:  # the access line speaks for the agents before it
        raise seen.fail(f"agent {row.external_id!r} comes after the access line; agent lines come first")
    if row.external_id in seen.agents:  # the second would silently overwrite the first
        raise seen.fail(f"agent {row.external_id!r} appears twice")
    seen.agents.add(row.external_id)


def _access(row: AccessLine, seen: _Seen) -> None:
    """One access line, configuring only agents of earlier lines (`domain.import_access`)."""
    if seen.plan.counts["access"]:
        raise seen.fail("a second access line")
    try:
        check_file_access(row, seen.agents, seen.memory.categories, "access.", seen.version)
    except InvalidInput as e:
        raise seen.access_fail(e) from e


def _conversation(row: ConversationLine, seen: _Seen) -> None:
    seen.define("conversation", row.id)
    check_id(row.external_id, field=f"{seen.where}.external_id")
    seen.one_of(row.status, ("open", "completed"), "status")
    if row.agent is not None and row.agent not in seen.agents:
        raise seen.fail(f"agent {row.agent!r} is not on an earlier agent line")
    if row.title is not None and len(row.title) > TITLE_MAX:
        raise seen.fail(f"title must be at most {TITLE_MAX} characters")
    seen.plan.watermarks[row.id] = 0
    seen.seqs[row.id] = set()


def _turn(row: TurnLine, seen: _Seen) -> None:
    seen.define("turn", row.id)
    seen.ref("conversation", "conversation_id", row.conversation_id)
    seen.one_of(row.role, ROLES, "role")
    check_speaker(row.name, field=f"{seen.where}.name")
    check_content(row.content, seen.limits, f"{seen.where}.content")
    seen.rule(check_turn_seq, row.seq)
    seqs = seen.seqs[row.conversation_id]
    if row.seq in seqs:
        raise seen.fail(f"seq {row.seq} appears twice in conversation {row.conversation_id}")
    seqs.add(row.seq)
    seen.turns[row.id] = (row.conversation_id, row.seq)


def _wing(row: WingLine, seen: _Seen) -> None:
    seen.define("wing", row.id)
    seen.one_of(row.kind, WING_KINDS, "kind")


def _room(row: RoomLine, seen: _Seen) -> None:
    seen.define("room", row.id)
    seen.ref("wing", "wing_id", row.wing_id)
    seen.ref("conversation", "conversation_id", row.conversation_id, optional=True)
    seen.parents["room", row.id] = row.wing_id


def _closet(row: ClosetLine, seen: _Seen) -> None:
    seen.define("closet", row.id)
    seen.ref("room", "room_id", row.room_id)
    seen.parents["closet", row.id] = row.room_id


def _drawer(row: DrawerLine, seen: _Seen) -> None:
    seen.define("drawer", row.id)
    for kind in ("wing", "room", "closet"):
        seen.ref(kind, f"{kind}_id", getattr(row, f"{kind}_id"))
    seen.ref("turn", "turn_id", row.turn_id, optional=True)
    if seen.parents["closet", row.closet_id] != row.room_id:  # one tree, as `import_checks._one_tree`
        raise seen.fail(f"room_id {row.room_id} is not the room of closet {row.closet_id}")
    if seen.parents["room", row.room_id] != row.wing_id:
        raise seen.fail(f"wing_id {row.wing_id} is not the wing of room {row.room_id}")
    seen.one_of(row.role, ROLES, "role")
    check_speaker(row.speaker, field=f"{seen.where}.speaker")
    check_content(row.content, seen.limits, f"{seen.where}.content")
    if row.embedding is not None and len(row.embedding) != EMBEDDING_DIM:
        raise seen.fail(f"embedding must have {EMBEDDING_DIM} numbers")
    if row.turn_id is not None:
        conversation, seq = seen.turns[row.turn_id]
        seen.plan.watermarks[conversation] = max(seen.plan.watermarks[conversation], seq)


def _entity(row: EntityLine, seen: _Seen) -> None:
    seen.define("entity", row.id)
    seen.one_of(row.kind, ENTITY_KINDS, "kind")
    seen.rule(check_entity, row)


def _drawer_entity(row: DrawerEntityLine, seen: _Seen) -> None:
    seen.ref("drawer", "drawer_id", row.drawer_id)
    seen.ref("entity", "entity_id", row.entity_id)


def _relation(row: RelationLine, seen: _Seen) -> None:
    seen.define("relation", row.id)
    seen.ref("entity", "subject_id", row.subject_id)
    seen.ref("entity", "object_entity_id", row.object_entity_id, optional=True)
    seen.ref("drawer", "source_drawer_id", row.source_drawer_id, optional=True)
    for drawer_id in row.sources:
        seen.ref("drawer", "sources", drawer_id)
    seen.rule(check_relation, row)
    seen.rule(seen.current.add, row, seen.where)


def _memory(row: MemoryLine, seen: _Seen) -> None:
    seen.define("memory", row.id)
    try:
        check_memory(row, seen.memory)
    except InvalidInput as e:
        raise seen.fail(str(e)) from e
    seen.ref("conversation", "conversation_id", row.conversation_id, optional=True)
    seen.rule(check_cited_turns, row, seen.seqs)
    if row.valid_until is None:
        if row.lineage_id in seen.active_lineages:
            raise seen.fail(f"lineage {row.lineage_id} has a second active row")
        seen.active_lineages.add(row.lineage_id)
    if row.superseded_by is not None:
        seen.newer.append((seen.line, row.superseded_by))
    seen.plan.memory_space.update((row.id, row.lineage_id))


def _memory_link(row: MemoryLinkLine, seen: _Seen) -> None:
    seen.define("memory_link", row.id)
    try:
        check_link(row)
    except InvalidInput as e:
        raise seen.fail(str(e)) from e
    seen.ref("memory", "from_id", row.from_id)
    seen.ref("memory", "to_id", row.to_id)
    seen.plan.link_ids.add(row.id)


def _memory_history(row: MemoryHistoryLine, seen: _Seen) -> None:
    """History may name purged memories, which no line defines (`domain.import_memories`)."""
    seen.define("memory_history", row.id)
    try:
        check_history(row)
    except InvalidInput as e:
        raise seen.fail(str(e)) from e
    seen.plan.memory_space.update(x for x in (row.lineage_id, row.old_id, row.new_id) if x is not None)
    seen.plan.history_ids.add(row.id)


def _memory_proposal(row: MemoryProposalLine, seen: _Seen) -> None:
    """Its memories may be absent (purged, or not in the file): the import drops those references."""
    seen.define("memory_proposal", row.id)
    seen.plan.proposal_ids.add(row.id)
    try:
        check_proposal(row, seen.memory)
    except InvalidInput as e:
        raise seen.fail(str(e)) from e
    seen.ref("conversation", "conversation_id", row.conversation_id, optional=True)


_CHECKS: dict[type[Any], Callable[[Any, _Seen], None]] = {
    SettingsLine: _settings,
    AgentLine: _agent,
    AccessLine: _access,
    ConversationLine: _conversation,
    TurnLine: _turn,
    WingLine: _wing,
    RoomLine: _room,
    ClosetLine: _closet,
    DrawerLine: _drawer,
    EntityLine: _entity,
    DrawerEntityLine: _drawer_entity,
    RelationLine: _relation,
    MemoryLine: _memory,
    MemoryLinkLine: _memory_link,
    MemoryHistoryLine: _memory_history,
    MemoryProposalLine: _memory_proposal,
}
assert set(_CHECKS) == set(ROW_LINES)


def _refused_access(raw: bytes, seen: _Seen) -> None:
    """An access line msgspec refused, refused naming the field by its keys (msgspec says
    ``agents[...]``, not which agent)."""
    line = msgspec.json.decode(raw)
    if isinstance(line, dict) and line.pop("type", None) == "access":
        try:
            access_from_raw(line, "access")
        except InvalidInput as e:
            raise seen.access_fail(e) from e


def _decode(raw: bytes, seen: _Seen) -> Any:
    try:
        return decode_line(raw)
    except msgspec.ValidationError as e:
        _refused_access(raw, seen)
        raise seen.fail(f"not a valid record: {e}") from e
    except msgspec.DecodeError as e:
        raise seen.fail(f"not a complete JSON line (a truncated or corrupted file?): {e}") from e
    except RecursionError as e:  # a value thousands of arrays deep, even in a field the line ignores: was a 500
        raise seen.fail(
            "not a valid record: it nests arrays and objects deeper than the decoder reads"
            " (a little under 1,000 levels)"
        ) from e


def _end(row: EndLine, seen: _Seen) -> None:
    memories = seen.ids.get("memory", set())
    for line, newer in seen.newer:
        if newer not in memories:
            message = f"line {line}: superseded_by {newer} does not refer to a memory in this file"
            raise InvalidInput(message, field=f"line {line}")
    if unknown := sorted(set(row.counts) - set(LINE_TYPES)):
        raise seen.fail(
            f"the end line counts {', '.join(unknown)}: no type of line (those are {', '.join(LINE_TYPES)})"
        )
    counts = {kind: n for kind, n in row.counts.items() if n}
    if counts != dict(seen.plan.counts):
        raise seen.fail(f"the end line counts {counts} but the file holds {dict(seen.plan.counts)}")


def check_stream(lines: Iterable[bytes], limits: MiningSettings, memory: MemorySettings) -> Plan:
    """Check every line (module doc); the `Plan` for writing, or InvalidInput naming the line."""
    seen = _Seen(limits, memory)
    ended = False
    for seen.line, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        if ended:
            raise seen.fail("a line after the end line")
        row = _decode(raw, seen)
        check_leaves(row, seen.where)
        if seen.line == 1:
            if not isinstance(row, HeaderLine) or row.version not in SUPPORTED_VERSIONS:
                versions = " or ".join(map(str, SUPPORTED_VERSIONS))
                raise seen.fail(f"the first line must be the header of a loci-export version {versions}")
            seen.version = row.version
        elif isinstance(row, HeaderLine):
            raise seen.fail("a second header line")
        elif isinstance(row, EndLine):
            _end(row, seen)
            ended = True
        else:
            _CHECKS[type(row)](row, seen)
            seen.plan.counts[line_kind(row)] += 1
    seen.plan.lines = seen.line
    if not ended:
        seen.line += 1
        raise seen.fail("the file ends without its end line: it was cut short")
    return seen.plan
