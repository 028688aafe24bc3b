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
* `mined_seqs` recomputes each conversation's watermark from the drawers the file brings;
* `check_values` checks what msgspec's types cannot express (ids used twice, kinds, roles,
  vector sizes, a drawer's wing and room agreeing with its closet's, an agent listed twice,
  a turn's seq, an entity's counts and dates, a relation's span, a second current value
  of one fact: `CurrentValues`), before the import touches the database.

The rules one row obeys on its own (`check_turn_seq`, `check_entity`, `check_relation`,
`check_cited_turns`) raise ``InvalidInput`` naming the row's own field (``mention_count``),
so the JSON import names it in the document (``entities[3].mention_count``) and the NDJSON
import names the line, as each does for the memories' rules
(`domain.import_memories.check_memory`). Each keeps out a value mining never writes and the
pages would show as it is: -3 mentions, a person last seen before first seen, a turn 0 (seqs
start at 1: ``mined_seq`` 0 means nothing mined), a fact that ended before it began, a memory
citing turns its conversation does not have (as `domain.memory_citations` refuses a save: it
cites nothing, and no purge of the conversation would ever take the seq out).
"""

from __future__ import annotations

import string
from collections.abc import Container, Iterator, Mapping
from datetime import UTC, datetime
from typing import Any

import msgspec

from domain.export_format import EntityDoc, ExportDoc, MemoryDoc, RelationDoc, TurnDoc
from domain.import_memories import INTEGER_MAX
from domain.memory_citations import missing_turns
from domain.stream_format import TurnLine
from ingest import is_multi_valued
from loci.errors import InvalidInput, PayloadTooLarge
from loci.inputs import check_id, check_speaker, check_text
from loci.models import EMBEDDING_DIM, ENTITY_KINDS, ROLES, TOP_K_MAX, WING_KINDS
from loci.settings import MiningSettings
from loci.timexpr import check_in_range, utc_offset_minutes
from loci.zones import check_zone

__all__ = [
    "CurrentValues",
    "check_cited_turns",
    "check_content",
    "check_entity",
    "check_leaves",
    "check_like_the_api",
    "check_relation",
    "check_turn_seq",
    "check_values",
    "mined_seqs",
    "turn_fields",
]


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


def _utc(at: datetime) -> datetime:
    """Naive means UTC, as everywhere times come in (`loci.timexpr.parse_timestamp`)."""
    return at if at.tzinfo is not None else at.replace(tzinfo=UTC)


def turn_fields(t: TurnDoc | TurnLine) -> dict[str, Any]:
    """A file's turn as ``Turn`` columns (both importers'): its time with the offset it was
    exported with, kept as ``turns.utc_offset``, so the import reads "tomorrow" and gives the
    time back as the first service did."""
    return {
        "seq": t.seq, "role": t.role, "name": t.name, "content": t.content,
        "created_at": t.created_at, "utc_offset": utc_offset_minutes(t.created_at),
    }  # fmt: skip


def check_turn_seq(seq: int) -> None:
    """A turn's place in its conversation: 1 up (``mined_seq`` 0 means none mined), in the column."""
    if not 1 <= seq <= INTEGER_MAX:
        raise InvalidInput(f"seq must be between 1 and {INTEGER_MAX}", field="seq")


def check_entity(e: EntityDoc) -> None:
    """A count of mentions is not negative, and an entity is not last seen before it was first seen."""
    if not 0 <= e.mention_count <= INTEGER_MAX:
        raise InvalidInput(f"mention_count must be between 0 and {INTEGER_MAX}", field="mention_count")
    if e.first_seen is not None and e.last_seen is not None and _utc(e.last_seen) < _utc(e.first_seen):
        raise InvalidInput("last_seen must not be before first_seen", field="last_seen")


def check_relation(r: RelationDoc) -> None:
    """A fact does not end before it began (it may end the instant it began: superseded at once)."""
    if r.valid_to is not None and _utc(r.valid_to) < _utc(r.valid_from):
        raise InvalidInput("valid_to must not be before valid_from", field="valid_to")


def check_cited_turns(m: MemoryDoc, seqs: Mapping[int, Container[int]]) -> None:
    """``turn_seqs`` name turns of the memory's conversation in the file (``seqs``: conversation
    id -> its turns' seqs); seqs without a conversation cite nothing, as the write API says. A
    conversation the file lacks is left to the check of ``conversation_id``, which names it."""
    if not m.turn_seqs:
        return
    if m.conversation_id is None:
        raise InvalidInput("turn_seqs are turns of a conversation: name its conversation_id", field="turn_seqs")
    if (have := seqs.get(m.conversation_id)) is None:
        return
    if missing := sorted({seq for seq in m.turn_seqs if seq not in have}):
        refusal = missing_turns(str(m.conversation_id), missing)  # the write API's words, named:
        raise InvalidInput(f"turn_seqs: {refusal}", field="turn_seqs")  # an NDJSON refusal names only the line


_ASCII_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)


class CurrentValues:
    """The current relations (``valid_to`` null) seen so far, keyed as the database's unique
    indexes key them (`loci.models.graph.Relation`, migration 0016), so that a file holding a
    second current value of one fact is refused with the value checks, naming the row, not by
    the index once the rows are written (a 400 naming ``body``, after a large import had done
    all its work). The user is the importer; the subject is the file's entity id, which maps to
    one new id; the predicate is compared as stored. ``uq_relations_current``: one current row
    per subject and predicate where the predicate is not multi-valued (``multi``, which the
    import sets by `ingest.is_multi_valued`); ``uq_relations_current_multi``: one per subject,
    predicate and ``lower(coalesce(object_value, ''))``. Only ASCII letters are lower-cased
    here: PostgreSQL's ``lower`` of others depends on the database's locale, and a check that
    refused what the database takes would be worse than one that leaves that rare case to the
    index. An ended row never collides: an ended and a current row of one fact import."""

    def __init__(self) -> None:
        self._first: dict[tuple[int, str, str | None], tuple[str, str | None]] = {}

    def add(self, r: RelationDoc, where: str) -> None:
        """Remember a current row found at ``where`` (``relations[2]``, ``line 14``); InvalidInput,
        its field left to the caller, when an earlier row holds the same place."""
        if r.valid_to is not None:
            return
        multi = is_multi_valued(r.predicate)
        key = (r.subject_id, r.predicate, (r.object_value or "").translate(_ASCII_LOWER) if multi else None)
        first, value = self._first.setdefault(key, (where, r.object_value))
        if first == where:
            return
        if multi:
            said = f"the current value {value!r} of {r.predicate!r} at {first} (values differing only in case are one)"
        else:
            said = f"a current value of {r.predicate!r} at {first} ({r.predicate!r} holds one value at a time)"
        raise InvalidInput(
            f"subject {r.subject_id} already has {said}: end one of them with a valid_to, or leave one out"
        )


def _at(table: str, i: int, error: InvalidInput) -> InvalidInput:
    """A row's error, its field named by its place in the document (``entities[3].mention_count``)."""
    return InvalidInput(str(error), field=f"{table}[{i}].{error.field}")


def _people(doc: ExportDoc) -> None:
    """No agent listed twice (the second would silently overwrite the first) and each turn's
    seq valid and its conversation's only one (two turns of one seq break the conversation)."""
    agents: set[str] = set()
    for i, a in enumerate(doc.agents):
        if a.external_id in agents:
            raise InvalidInput(f"agent {a.external_id!r} appears twice in agents", field=f"agents[{i}].external_id")
        agents.add(a.external_id)
    for i, c in enumerate(doc.conversations):
        seqs: set[int] = set()
        for j, t in enumerate(c.turns):
            where = f"conversations[{i}].turns[{j}].seq"
            try:
                check_turn_seq(t.seq)
            except InvalidInput as e:
                raise InvalidInput(str(e), field=where) from e
            if t.seq in seqs:
                raise InvalidInput(f"seq {t.seq} appears twice in conversation {c.external_id!r}", field=where)
            seqs.add(t.seq)


def _graph_and_citations(doc: ExportDoc) -> None:
    """Each entity's, relation's and memory's own rules (module doc)."""
    for i, entity in enumerate(doc.entities):
        try:
            check_entity(entity)
        except InvalidInput as error:
            raise _at("entities", i, error) from error
    entities, current = {e.id for e in doc.entities}, CurrentValues()
    for i, relation in enumerate(doc.relations):
        try:
            check_relation(relation)
        except InvalidInput as error:
            raise _at("relations", i, error) from error
        if relation.subject_id in entities:  # an undefined subject is the writing pass's 400, naming it
            try:
                current.add(relation, f"relations[{i}]")
            except InvalidInput as error:
                raise InvalidInput(str(error), field=f"relations[{i}]") from error
    turns = {c.id: {t.seq for t in c.turns} for c in doc.conversations}
    for i, m in enumerate(doc.memories):
        try:
            check_cited_turns(m, turns)
        except InvalidInput as error:
            raise _at("memories", i, error) from error


def _one_of(values: list[str], allowed: tuple[str, ...], field: str) -> None:
    for i, value in enumerate(values):
        if value not in allowed:
            raise InvalidInput(f"must be one of {', '.join(allowed)}", field=field.format(i=i))


def _unique_ids(doc: ExportDoc) -> None:
    """Ids label rows within the file; a label used twice would make references ambiguous."""
    tables: dict[str, list[Any]] = {
        "conversations": doc.conversations,
        "turns": [t for c in doc.conversations for t in c.turns],
        "wings": doc.wings,
        "rooms": doc.rooms,
        "closets": doc.closets,
        "drawers": doc.drawers,
        "entities": doc.entities,
        "relations": doc.relations,
    }
    for table, rows in tables.items():
        seen: set[int] = set()
        for i, row in enumerate(rows):
            if row.id in seen:
                raise InvalidInput(f"id {row.id} appears twice in {table}", field=f"{table}[{i}].id")
            seen.add(row.id)


def _one_tree(doc: ExportDoc) -> None:
    """A drawer's wing and room are those of its closet, as mining files it: a drawer named in
    one wing but in a room of another would count in one and be listed, trashed and restored
    with the other. A reference to an id the file does not define is left to the writing
    pass, which refuses it where it stands (a room's ``wing_id``, say)."""
    wings = {w.id for w in doc.wings}
    wing_of = {r.id: r.wing_id for r in doc.rooms if r.wing_id in wings}
    room_of = {c.id: c.room_id for c in doc.closets if c.room_id in wing_of}
    for i, d in enumerate(doc.drawers):
        if d.closet_id in room_of and room_of[d.closet_id] != d.room_id:
            raise InvalidInput(
                f"room_id {d.room_id} is not the room of closet {d.closet_id}", field=f"drawers[{i}].room_id"
            )
        if d.room_id in wing_of and wing_of[d.room_id] != d.wing_id:
            raise InvalidInput(
                f"wing_id {d.wing_id} is not the wing of room {d.room_id}", field=f"drawers[{i}].wing_id"
            )


def check_values(doc: ExportDoc) -> None:
    """Value checks msgspec's types cannot express, before touching the database."""
    _unique_ids(doc)
    _one_tree(doc)
    _people(doc)
    _graph_and_citations(doc)
    _one_of([d.role for d in doc.drawers], ROLES, "drawers[{i}].role")
    _one_of([w.kind for w in doc.wings], WING_KINDS, "wings[{i}].kind")
    _one_of([e.kind for e in doc.entities], ENTITY_KINDS, "entities[{i}].kind")
    _one_of([c.status for c in doc.conversations], ("open", "completed"), "conversations[{i}].status")
    for i, c in enumerate(doc.conversations):
        _one_of([t.role for t in c.turns], ROLES, f"conversations[{i}].turns[{{i}}].role")
    for i, d in enumerate(doc.drawers):
        if d.embedding is not None and len(d.embedding) != EMBEDDING_DIM:
            raise InvalidInput(f"embedding must have {EMBEDDING_DIM} numbers", field=f"drawers[{i}].embedding")
    if doc.settings is not None and not 1 <= doc.settings.top_k <= TOP_K_MAX:
        raise InvalidInput(f"top_k must be between 1 and {TOP_K_MAX}", field="settings.top_k")
    if doc.settings is not None and doc.settings.time_zone is not None:
        check_zone(doc.settings.time_zone, field="settings.time_zone")
