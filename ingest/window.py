"""One window of turns written in one transaction: drawers, entities, relations, watermark.

A crash leaves whole windows only, and a re-run starts after the last committed one, so
nothing is created twice. Inside the transaction the watermark is re-read under a
per-user lock, so two overlapping runs (a duplicate job, a resume racing the sweep) skip
what the other already committed, and a conversation trashed meanwhile gets nothing more.
Multi-row inserts send one array per column (`loci.column_insert`), so a window of any size
is one statement per table.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from psycopg.types.json import Jsonb
from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from ingest.archive import PendingArchive, settle_archive
from ingest.embed import SENTENCES, sentence_rows
from ingest.extraction import EntityMention, Extraction, ExtractionOutcome, RelationFact, Subject
from ingest.graph import record_relation, upsert_entities
from ingest.memory_mining import PendingMemories, settle
from ingest.owner_name import without_owner_name
from ingest.place import (
    ROOM_GAP,
    PlacedRoom,
    PlacedWing,
    lock_user,
    mentions_in_part,
    next_drawer_seq,
    resolve_closet,
    resolve_room,
    resolve_wing,
    tags_for,
)
from ingest.plan import MinedConversation, MiningTotals, Part, TurnPlan
from ingest.records import MiningDeps
from ingest.relation_current import Named, name_current, name_kin
from ingest.relation_extract import speaker_of
from ingest.subjects import WingSubject
from loci.aaak import format_pointer
from loci.column_insert import ColumnInsert, insert_columns
from loci.models import Conversation, Drawer, DrawerEntity, Room, Turn, Wing

__all__ = ["DEFAULT_WING", "commit_window", "write_window"]

DEFAULT_WING = Subject("topic", "general")
"""Where a conversation with no clear subject and no agent is filed."""
DEFAULT_TOPIC = "general"
"""The closet of a window whose extractor found no topic."""

_DRAWERS = ColumnInsert(
    Drawer.__tablename__,
    (
        ("user_id", "bigint"), ("wing_id", "bigint"), ("room_id", "bigint"), ("closet_id", "bigint"),
        ("turn_id", "bigint"), ("part", "integer"), ("seq", "integer"), ("role", "varchar"), ("speaker", "varchar"),
        ("content", "text"), ("aaak", "varchar"), ("tags", "jsonb"), ("tag_text", "text"),
        ("occurred_at", "timestamptz"), ("content_hash", "varchar"), ("embedding", "vector"),
        ("sentences_done", "boolean"),
    ),
    "RETURNING id, turn_id, part",
)  # fmt: skip
"""A window's drawers; each comes back with its (turn, part), which is unique."""
_LINKS = ColumnInsert(
    DrawerEntity.__tablename__,
    (("drawer_id", "bigint"), ("entity_id", "bigint"), ("user_id", "bigint"), ("surfaces", "jsonb")),
    "ON CONFLICT DO NOTHING",
)  # fmt: skip
"""Which entities the window's drawers mention, and how each drawer spelled them (what the
entity's name and aliases are worked out from again when a drawer is deleted: `ingest.entity_names`)."""


async def commit_window(
    deps: MiningDeps,
    conv: MinedConversation,
    plans: Sequence[TurnPlan],
    outcome: ExtractionOutcome,
    totals: MiningTotals,
    memories: PendingMemories | None = None,
    subject: WingSubject | None = None,
    archive: PendingArchive | None = None,
) -> None:
    """Write one window in its own transaction, with the memories it proposed, into the
    wing of the conversation's ``subject``, and (the last window) the conversation's
    ``archive`` summary; committed when this returns."""
    async with deps.db.user_session(conv.user_id) as s:
        written = await write_window(s, conv, plans, outcome, totals, subject)
        if memories is not None and written:
            said = {p.turn.seq: p.turn.created_at for p in plans}
            await settle(s, conv.user_id, conv.id, memories.only(written), deps, totals.memories, said)
        if archive is not None and written:
            totals.archive = await settle_archive(s, conv.user_id, conv.id, archive)


async def write_window(
    s: AsyncSession,
    conv: MinedConversation,
    plans: Sequence[TurnPlan],
    outcome: ExtractionOutcome,
    totals: MiningTotals,
    subject: WingSubject | None = None,
) -> frozenset[int]:
    """Place the window's turns not yet past the watermark, with their graph rows; returns
    the seqs of the turns written (none when another run committed them already)."""
    # Asynchronous commit: a database crash may lose the last few windows' commits, but the
    # watermark is in the same transaction, so they are simply mined again (no half windows).
    await lock_user(s, conv.user_id, synchronous_commit=False)
    # NO KEY UPDATE: a save citing it holds the memory lock `settle` takes, then key-shares this row
    locked = select(Conversation.mined_seq, Conversation.deleted_at).where(Conversation.id == conv.id)
    found = await s.execute(locked.with_for_update(key_share=True))
    row = found.one_or_none()
    if row is None or row.deleted_at is not None:
        # Trashed (or purged) while this job ran: its windows would be live drawers of a conversation
        # that reads as gone (recall, palace, export). The watermark stays, so a restore mines the
        # rest. `domain.trash` locks this row first, so a window is either all before it or after it.
        return frozenset()
    kept = [p for p in plans if p.turn.seq > int(row.mined_seq or 0)]
    if not kept:
        return frozenset()  # another run committed this window already
    if await _left_behind(s, conv.id, int(row.mined_seq or 0), kept[0].turn.seq):
        # An earlier window of this run was not written (the conversation was in the trash
        # then, and restored since): writing this one would move the watermark past those turns
        # for good. The rest waits for the next run (the restore's job, the sweep).
        return frozenset()
    ex = without_owner_name(outcome.extraction, [p.turn for p in kept])
    topic = ex.topics[0] if ex.topics else DEFAULT_TOPIC
    wing = await _wing_for(s, conv, subject)
    rooms = await _rooms_for(s, conv, wing, kept, conv.title or topic)
    closets = await _closets_for(s, conv, rooms, topic)
    facts = await name_kin(s, conv.user_id, _facts_of(ex, kept))
    entity_ids, created = await upsert_entities(s, conv.user_id, _seen(ex, kept, facts))
    first_drawer, links = await _place_drawers(s, conv, wing, rooms, closets, kept, ex.mentions, entity_ids)
    await insert_columns(s, _LINKS, [(d, e, conv.user_id, Jsonb(spelled)) for (d, e), spelled in sorted(links.items())])
    for f in facts:
        object_id = entity_ids.get(EntityMention(f.value_kind, f.value)) if f.value_kind else None
        named = await name_current(s, conv.user_id, entity_ids[f.subject], Named(f.predicate, f.value, object_id))
        if named is None:  # "I quit my job" with no job known: nothing ends
            continue
        totals.relations += await record_relation(
            s, conv.user_id, subject_id=entity_ids[f.subject], predicate=named.predicate,
            value=named.value, object_entity_id=named.object_entity_id, valid_from=f.valid_from,
            source_drawer_id=first_drawer.get(f.turn_seq), confidence=f.confidence,
        )  # fmt: skip
    await s.execute(
        update(Conversation)
        .where(Conversation.id == conv.id)
        .values(mined_seq=kept[-1].turn.seq, mined_at=datetime.now(UTC))
    )
    totals.drawers += sum(len(p.parts) for p in kept)
    totals.entities += created
    totals.turns += len(kept)
    totals.windows += 1
    return frozenset(p.turn.seq for p in kept)


async def _left_behind(s: AsyncSession, conversation_id: int, mined_seq: int, first_seq: int) -> bool:
    """Whether a stored turn (mining reads trashed turns too, `ingest.pipeline._load`) lies between
    the watermark and this window's first turn. Purged turns leave gaps in the seqs, so a gap
    alone proves nothing; the query runs only when there is one."""
    if first_seq <= mined_seq + 1:
        return False
    between = (Turn.seq > mined_seq, Turn.seq < first_seq)
    skipped = select(Turn.seq).where(Turn.conversation_id == conversation_id, *between)
    return bool(await s.scalar(select(skipped.exists())))


def _facts_of(ex: Extraction, kept: Sequence[TurnPlan]) -> list[RelationFact]:
    """The relations whose source turn is being written now."""
    seqs = {p.turn.seq for p in kept}
    return [f for f in ex.relations if f.turn_seq in seqs]


def _seen(
    ex: Extraction, kept: Sequence[TurnPlan], facts: Sequence[RelationFact]
) -> list[tuple[EntityMention, datetime, int]]:
    """Every entity the kept turns mention or their facts name, and the other people who
    wrote them (`_said_by`), with when and in which turn it was seen: `mention_count` counts
    the turns that mention an entity (a fact about a name the turn mentions, or a second
    spelling of it, is no second one: `ingest.graph.upsert_entities`)."""
    when = {p.turn.seq: p.turn.created_at for p in kept}
    named = [(p.turn.seq, m) for p in kept for m in (*ex.mentions.get(p.turn.seq, ()), *_said_by(p))]
    for f in facts:
        named.append((f.turn_seq, f.subject))
        if f.value_kind:
            named.append((f.turn_seq, EntityMention(f.value_kind, f.value)))
    return [(m, when[seq], seq) for seq, m in dict.fromkeys(named)]


def _said_by(plan: TurnPlan) -> tuple[EntityMention, ...]:
    """The named other person who wrote the turn, as a person its drawers are linked to: the
    people of a group chat are in the user's people and things, each with what they said. Not
    the user (whose own row no listing shows) and not a drawer tag: the speaker signal already
    matches a question naming them (`retrieval.speaker`). Not a candidate for the wing's
    subject either: that is chosen from what the chat talks about, before this."""
    if plan.turn.role != "other":
        return ()
    speaker = speaker_of(plan.turn)
    return (speaker,) if speaker is not None else ()


async def _wing_for(s: AsyncSession, conv: MinedConversation, subject: WingSubject | None) -> PlacedWing:
    """The conversation keeps the wing of its first live room; else its subject's wing
    (`ingest.subjects`), else its agent's, else "general". A wing or room in the trash is not
    kept: turns added after it was deleted were filed under it, out of every reader's sight."""
    existing = (
        await s.execute(
            select(Wing)
            .join(Room, Room.wing_id == Wing.id)
            .where(Room.conversation_id == conv.id, Room.deleted_at.is_(None), Wing.deleted_at.is_(None))
            .order_by(Room.id)
            .limit(1)
        )
    ).scalar_one_or_none()
    if existing is not None:
        return PlacedWing(existing.id, existing.seq, existing.name)
    if subject is not None:
        return await resolve_wing(s, conv.user_id, subject.kind, subject.name, subject.aliases)
    fallback = Subject("agent", conv.agent) if conv.agent else DEFAULT_WING
    return await resolve_wing(s, conv.user_id, fallback.kind, fallback.name)


async def _rooms_for(
    s: AsyncSession, conv: MinedConversation, wing: PlacedWing, plans: Sequence[TurnPlan], label: str
) -> dict[int, PlacedRoom]:
    """Each turn's room, by turn seq: turns in instant order that follow each other within
    `ROOM_GAP` are one room, named for the day its first turn was sent (on the sender's clock,
    `ingest.plan.day_key`), whatever day a later turn's own offset gives (a reply stamped ``Z``
    thirty seconds after a New York evening question is that evening's); after a gap a turn
    joins its own day's room. Each room spans its turns' first to last instant."""
    key_of: dict[int, str] = {}
    key, last, runs = "", None, 0
    for p in sorted(plans, key=lambda p: p.turn.created_at):
        at = p.turn.created_at
        if last is None or at - last > ROOM_GAP:  # each unbroken run is placed on its own: two runs
            runs += 1  # of one day meet in `resolve_room`'s day room, wherever the window was cut
            key = f"{p.day}#{runs}"
        key_of[p.turn.seq], last = key, at
    by_key: dict[str, list[datetime]] = {}
    for p in plans:
        by_key.setdefault(key_of[p.turn.seq], []).append(p.turn.created_at)
    rooms = {
        key: await resolve_room(s, conv.user_id, wing, conv.id, min(times), max(times), label)
        for key, times in by_key.items()
    }
    return {p.turn.seq: rooms[key_of[p.turn.seq]] for p in plans}


async def _closets_for(
    s: AsyncSession, conv: MinedConversation, rooms: Mapping[int, PlacedRoom], topic: str
) -> dict[int, int]:
    """The window's closet in each room, by room id: asked once a room, which can hold turns its
    senders dated on two days (`_rooms_for`)."""
    closets: dict[int, int] = {}
    for room in rooms.values():
        if room.id not in closets:
            closets[room.id] = await resolve_closet(s, conv.user_id, room, topic)
    return closets


async def _place_drawers(
    s: AsyncSession,
    conv: MinedConversation,
    wing: PlacedWing,
    rooms: Mapping[int, PlacedRoom],
    closets: Mapping[int, int],
    plans: Sequence[TurnPlan],
    mentions: Mapping[int, tuple[EntityMention, ...]],
    entity_ids: Mapping[EntityMention, int],
) -> tuple[dict[int, int], dict[tuple[int, int], list[str]]]:
    """Add one drawer per part and its sentence vectors, each table in one statement
    (`loci.column_insert`); returns the first drawer per turn and the entity links, each
    with the spellings its drawer used, in the order the drawer's mentions came."""
    next_seq: dict[int, int] = {}
    placed: list[tuple[TurnPlan, Part, list[EntityMention]]] = []
    rows: list[tuple[Any, ...]] = []
    for plan in plans:
        t = plan.turn
        room = rooms[t.seq]
        if room.id not in next_seq:
            next_seq[room.id] = await next_drawer_seq(s, room)
        for part in plan.parts:
            found = mentions_in_part(part.content, part.index, mentions.get(t.seq, ()))
            tags, tag_text = tags_for(found)
            seq = next_seq[room.id]
            rows.append((
                conv.user_id, wing.id, room.id, closets[room.id], t.id, part.index, seq, t.role, t.name,
                part.content, format_pointer(wing.seq, room.seq, seq), Jsonb(tags), tag_text, t.created_at,
                part.content_hash, part.vector, part.sentences is not None,
            ))  # fmt: skip
            next_seq[room.id] += 1
            placed.append((plan, part, [*found, *_said_by(plan)]))
    returned = await insert_columns(s, _DRAWERS, rows)
    ids = {(turn_id, index): int(drawer_id) for drawer_id, turn_id, index in returned}
    drawer_ids = [ids[(plan.turn.id, part.index)] for plan, part, _ in placed]
    sentences = [
        row
        for drawer_id, (_, part, _) in zip(drawer_ids, placed, strict=True)
        for row in sentence_rows(
            drawer_id, conv.user_id, part.sentences or (), part.sentence_hashes if part.sentences else ()
        )
    ]
    await insert_columns(s, SENTENCES, sentences)
    first_drawer: dict[int, int] = {}
    links: dict[tuple[int, int], list[str]] = {}
    for drawer_id, (plan, _, found) in zip(drawer_ids, placed, strict=True):
        first_drawer.setdefault(plan.turn.seq, drawer_id)
        for m in found:
            spelled = links.setdefault((drawer_id, entity_ids[m]), [])
            if m.name not in spelled:
                spelled.append(m.name)
    return first_drawer, links
