"""Storing conversations: validate everything first, then write in one transaction.

The write path must never store half a request, so every turn is checked (role, the
speaker's name (`loci.inputs.check_speaker`), non-empty content within ``max_turn_chars``
free of control characters, an aware timestamp within `loci.timexpr.MIN_YEAR`-`MAX_YEAR`;
ids of `loci.inputs`' alphabet)
before anything touches the database, and the turns are inserted in the same transaction as the
conversation row. A client-supplied external id makes the call idempotent: sending
the same turns again is a no-op, sending more appends the new ones, and sending other
content for a seq already stored is a `Conflict` (history is never rewritten), as is sending
anything for the seq of a turn deleted for good (`_merge_turns`).
New turns clear a mining failure (`domain.mining_failures`): the conversation changed,
so mining deserves another try.

Appending has no seq to compare, so a retried append would add its turns again. Two guards:
an ``Idempotency-Key`` (`loci.idempotency`, claimed in the write's transaction) replays the
first answer (until the conversation is deleted for good, which deletes its keys); and
without one, an append whose turns all carry an explicit ``created_at``
and equal the conversation's last turns (role, name, content and time) is taken for a
re-send and stores nothing (`_repeats_tail`). Turns without a time are never compared:
"ok" said twice is two turns, and only the caller's time tells a re-send from a repeat.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime

from sqlalchemy import func, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.ext.asyncio import AsyncSession

from ingest.records import ConversationRef, TurnIn
from loci.db import Database
from loci.errors import Conflict, InvalidInput, NotFound, PayloadTooLarge
from loci.idempotency import Once, claim, remember
from loci.inputs import check_id, check_name, check_speaker, check_text
from loci.models import ROLES, Agent, Conversation, Turn
from loci.settings import MiningSettings
from loci.timexpr import check_in_range, utc_offset_minutes

__all__ = [
    "MAX_TITLE_CHARS",
    "append_turns",
    "check_title",
    "complete_conversation",
    "get_conversation",
    "list_turns",
    "store_conversation",
    "validate_turns",
]

MAX_TITLE_CHARS = 500
"""The column's width (``conversations.title``)."""


def validate_turns(turns: Sequence[TurnIn], limits: MiningSettings, *, first_index: int = 0) -> list[TurnIn]:
    """Check every turn; return them with aware timestamps in the offset each was sent with (no
    zone: UTC), which `_merge_turns` keeps as ``turns.utc_offset``. Raises naming the field."""
    if len(turns) > limits.max_turns_per_request:
        raise PayloadTooLarge(
            f"too many turns: {len(turns)} > {limits.max_turns_per_request} per request", field="turns"
        )
    now = datetime.now(UTC)
    checked: list[TurnIn] = []
    for i, turn in enumerate(turns, start=first_index):
        if turn.role not in ROLES:
            raise InvalidInput(
                f"unknown role {turn.role!r}: expected one of {', '.join(ROLES)}", field=f"turns[{i}].role"
            )
        if not isinstance(turn.content, str) or not turn.content.strip():
            raise InvalidInput("content must not be empty", field=f"turns[{i}].content")
        check_text(turn.content, field=f"turns[{i}].content")
        if len(turn.content) > limits.max_turn_chars:
            raise PayloadTooLarge(
                f"content is {len(turn.content)} characters, over the limit of {limits.max_turn_chars}",
                field=f"turns[{i}].content",
            )
        at = turn.created_at or now
        if at.tzinfo is None or at.utcoffset() is None:
            at = at.replace(tzinfo=UTC)
        at = check_in_range(at, field=f"turns[{i}].created_at")
        name = check_speaker(turn.name, field=f"turns[{i}].name")
        checked.append(TurnIn(turn.role, turn.content, at, name))
    return checked


def check_title(title: str | None, *, field: str = "title") -> str | None:
    """A conversation title: at most `MAX_TITLE_CHARS`, a visible character, no control characters."""
    if title is not None:
        if len(title) > MAX_TITLE_CHARS:
            raise InvalidInput(f"{field} must be at most {MAX_TITLE_CHARS} characters", field=field)
        check_name(title, field=field)
    return title


def _clear_mining_failure(conv: Conversation) -> None:
    """New turns are a new reason to mine: forget the failure and the attempts so far."""
    conv.mining_attempts = 0
    conv.mining_error = None
    conv.mining_failed_at = None


async def _ref(s: AsyncSession, conv: Conversation) -> ConversationRef:
    count, top = (
        await s.execute(
            select(func.count().filter(Turn.deleted_at.is_(None)), func.max(Turn.seq)).where(
                Turn.conversation_id == conv.id
            )
        )
    ).one()
    return ConversationRef(
        conv.id,
        conv.external_id,
        conv.user_id,
        conv.status,
        int(count or 0),
        conv.mined_seq,
        conv.mining_error,
        conv.mining_failed_at,
        last_seq=int(top or 0),
    )


async def _agent_id(s: AsyncSession, user_id: int, agent: str | None) -> int | None:
    if agent is None:
        return None
    check_id(agent, field="agent_id")
    stmt = (
        pg_insert(Agent)
        .values(user_id=user_id, external_id=agent)
        .on_conflict_do_update(index_elements=["user_id", "external_id"], set_={"external_id": agent})
        .returning(Agent.id)
    )
    return int((await s.execute(stmt)).scalar_one())


async def _merge_turns(
    s: AsyncSession, conv: Conversation, turns: Sequence[TurnIn], start_seq: int, *, retired: int = 0
) -> int:
    """Insert turns from ``start_seq``; identical re-sends are no-ops, different ones conflict.

    A seq up to ``retired`` that holds no turn held one that was purged (seqs are never reused,
    `append_turns`), and a posted turn there is a `Conflict` naming it, raised before anything
    is added (the caller's transaction then writes nothing). Skipping it instead would keep a
    re-send of the whole transcript from storing the purged words again, but would drop, in
    silence and for good, a new turn of a live transcript posted without the purged one; the
    purged words are gone, so the two cannot be told apart, and the caller must say which
    turns are new by appending them."""
    seqs = range(start_seq, start_seq + len(turns))
    rows = await s.execute(
        select(Turn.seq, Turn.role, Turn.content, Turn.name).where(
            Turn.conversation_id == conv.id, Turn.seq.in_(list(seqs))
        )
    )
    stored = {seq: (role, content, name) for seq, role, content, name in rows}
    for seq, turn in zip(seqs, turns, strict=True):
        if seq in stored:
            if stored[seq] != (turn.role, turn.content, turn.name):
                raise Conflict(
                    f"conversation {conv.external_id!r} already has a different turn {seq}; turns are never rewritten",
                    field=f"turns[{seq - start_seq}]",
                )
        elif seq <= retired:
            raise Conflict(
                f"turn {seq} of conversation {conv.external_id!r} was deleted for good and its seq is not reused:"
                f" send new turns with POST /v1/conversations/{conv.external_id}/turns",
                field=f"turns[{seq - start_seq}]",
            )
    added = 0
    for seq, turn in zip(seqs, turns, strict=True):
        if seq in stored:
            continue
        added += 1
        s.add(
            Turn(
                user_id=conv.user_id,
                conversation_id=conv.id,
                seq=seq,
                role=turn.role,
                name=turn.name,
                content=turn.content,
                created_at=turn.created_at,
                utc_offset=utc_offset_minutes(turn.created_at) if turn.created_at is not None else None,
            )
        )
    await s.flush()
    return added


async def _find(
    s: AsyncSession, user_id: int, external_id: str, *, lock: bool = False, agent: str | None = None
) -> Conversation | None:
    """The conversation; with ``agent`` (an agent key's), only one that agent holds."""
    stmt = select(Conversation).where(Conversation.user_id == user_id, Conversation.external_id == external_id)
    if agent is not None:
        stmt = stmt.join(Agent, Agent.id == Conversation.agent_id).where(Agent.external_id == agent)
    if lock:
        stmt = stmt.with_for_update(of=Conversation)
    return (await s.execute(stmt)).scalar_one_or_none()


async def store_conversation(
    db: Database,
    user_id: int,
    *,
    external_id: str | None,
    agent_id: str | None,
    turns: Sequence[TurnIn],
    title: str | None = None,
    limits: MiningSettings | None = None,
    once: Once | None = None,
) -> ConversationRef:
    """Create (or idempotently re-send) a conversation with its turns, all or nothing.
    With ``once`` (an idempotency key), a retry answers the first try's ref."""
    checked = validate_turns(turns, limits or MiningSettings())
    ext = check_id(external_id, field="id") if external_id is not None else uuid.uuid4().hex
    check_title(title)
    async with db.user_session(user_id) as s:
        if (again := await claim(s, user_id, once, ConversationRef)) is not None:
            return again
        ref = await _store(s, user_id, ext, agent_id, checked, title)
        await remember(s, user_id, once, ref, conversation_id=ref.id)
        return ref


async def _store(
    s: AsyncSession, user_id: int, ext: str, agent_id: str | None, checked: Sequence[TurnIn], title: str | None
) -> ConversationRef:
    """`store_conversation`'s write, in its transaction."""
    agent_pk = await _agent_id(s, user_id, agent_id)
    stmt = (
        pg_insert(Conversation)
        .values(user_id=user_id, external_id=ext, agent_id=agent_pk, title=title)
        .on_conflict_do_nothing(index_elements=["user_id", "external_id"])
        .returning(Conversation.id)
    )
    created = (await s.execute(stmt)).scalar_one_or_none() is not None
    conv = await _find(s, user_id, ext, lock=True)
    assert conv is not None
    if conv.deleted_at is not None:  # its id is taken, by something the user cannot see
        raise Conflict(f"conversation {ext!r} is in the trash: restore or purge it before sending turns")
    if agent_pk is not None and conv.agent_id not in (None, agent_pk):
        raise Conflict(f"conversation {ext!r} belongs to another agent")
    if agent_pk is not None and conv.agent_id is None:
        conv.agent_id = agent_pk
    top = int(await s.scalar(select(func.max(Turn.seq)).where(Turn.conversation_id == conv.id)) or 0)
    added = await _merge_turns(s, conv, checked, 1, retired=max(top, conv.mined_seq))
    if added:
        conv.status = "open"
        _clear_mining_failure(conv)
    return replace(await _ref(s, conv), stored=created or added > 0)


async def append_turns(
    db: Database,
    user_id: int,
    external_id: str,
    turns: Sequence[TurnIn],
    *,
    limits: MiningSettings | None = None,
    agent: str | None = None,
    once: Once | None = None,
) -> ConversationRef:
    """Add turns after the last stored one; appending reopens a completed conversation.
    New turns are numbered past the mining watermark too: turns purged at the end of a
    conversation leave ``mined_seq`` above the last stored seq, and a turn numbered below it
    would never be mined (nor should a purged turn's seq, which history and citations may
    still name, be given to another turn).
    With ``agent``, another agent's conversation is not found. With ``once`` (an
    idempotency key), a retry answers the first try's ref; turns that repeat the
    conversation's last ones, times included, are a re-send (module docstring)."""
    timed = all(t.created_at is not None for t in turns)
    checked = validate_turns(turns, limits or MiningSettings())
    if not checked:
        raise InvalidInput("turns must not be empty", field="turns")
    async with db.user_session(user_id) as s:
        if (again := await claim(s, user_id, once, ConversationRef)) is not None:
            return again
        conv = await _find(s, user_id, external_id, lock=True, agent=agent)
        if conv is None or conv.deleted_at is not None:
            raise NotFound(f"conversation {external_id!r} not found")
        top = int(await s.scalar(select(func.max(Turn.seq)).where(Turn.conversation_id == conv.id)) or 0)
        added = 0
        if not (timed and await _repeats_tail(s, conv, checked, top)):
            if added := await _merge_turns(s, conv, checked, max(top, conv.mined_seq) + 1):
                _clear_mining_failure(conv)
            conv.status = "open"
        ref = replace(await _ref(s, conv), stored=added > 0)  # a re-send stored nothing: the API's 200
        await remember(s, user_id, once, ref, conversation_id=conv.id)
        return ref


async def _repeats_tail(s: AsyncSession, conv: Conversation, turns: Sequence[TurnIn], top: int) -> bool:
    """``turns`` are the conversation's last ``len(turns)`` turns again: same role, name,
    content and time, in order (``top`` is its highest seq)."""
    if top < len(turns):
        return False
    rows = await s.execute(
        select(Turn.role, Turn.name, Turn.content, Turn.created_at)
        .where(Turn.conversation_id == conv.id, Turn.seq > top - len(turns))
        .order_by(Turn.seq)
    )
    return [tuple(r) for r in rows] == [(t.role, t.name, t.content, t.created_at) for t in turns]


async def complete_conversation(
    db: Database, user_id: int, external_id: str, agent: str | None = None
) -> ConversationRef:
    """Mark finished (idempotent); mining is the caller's decision (auto_mine, on demand).
    With ``agent``, another agent's conversation is not found."""
    async with db.user_session(user_id) as s:
        conv = await _find(s, user_id, external_id, lock=True, agent=agent)
        if conv is None or conv.deleted_at is not None:
            raise NotFound(f"conversation {external_id!r} not found")
        if conv.status != "completed":
            conv.status = "completed"
            conv.completed_at = datetime.now(UTC)
        return await _ref(s, conv)


async def get_conversation(db: Database, user_id: int, external_id: str) -> ConversationRef:
    async with db.user_session(user_id) as s:
        conv = await _find(s, user_id, external_id)
        if conv is None or conv.deleted_at is not None:
            raise NotFound(f"conversation {external_id!r} not found")
        return await _ref(s, conv)


async def list_turns(db: Database, user_id: int, conversation_id: int) -> list[Turn]:
    async with db.user_session(user_id) as s:
        rows = await s.execute(select(Turn).where(Turn.conversation_id == conversation_id).order_by(Turn.seq))
        return list(rows.scalars())
