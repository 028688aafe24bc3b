"""The caller's conversations, newest first, a page at a time: `GET /v1/conversations`.

Paged by ``limit``/``offset`` with ``total`` and ``next_offset``, as the palace and the trash
page (a conversation's public id is the client's string, so there is no row id to page by).
Newest means most recently created (the row id's order: stable while turns arrive, so a
page does not reshuffle under a client walking the list); each item carries its first and
last turn's time for a client that sorts by activity. Trashed conversations are left out
(the trash lists them). Like reading a conversation, listing them is for the user's own
key: an agent key is refused (`service.auth`). Each item also says whether its latest mining
run fell back from the LLM to the offline path, read from that run's ``memory_mined`` event,
the record `GET /v1/jobs/{id}`'s ``fallback_count`` and ``first_fallback`` are counted from
(the job's result expires with the queue's results; the event stays).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Annotated, Any, Literal

import msgspec
from sqlalchemy import Select, func, select
from sqlalchemy.dialects.postgresql import distinct_on

from domain.palace import MAX_LIMIT
from ingest import describe_fallback
from loci.db import Database
from loci.errors import InvalidInput
from loci.models import Activity, Agent, Conversation, Turn

__all__ = ["ConversationPage", "ConversationSummary", "list_conversations"]

Mining = Literal["mined", "unmined", "failed"]


class ConversationSummary(msgspec.Struct):
    id: Annotated[str, msgspec.Meta(examples=["chat-1"], description="the client's id (or the one Loci made)")]
    title: str | None
    agent_id: str | None
    status: Annotated[str, msgspec.Meta(description="open or completed")]
    turn_count: int
    first_turn_at: datetime | None
    last_turn_at: datetime | None
    created_at: datetime
    completed_at: datetime | None
    mined_seq: Annotated[int, msgspec.Meta(description="watermark: turns up to this seq are mined")]
    mining: Annotated[
        Mining,
        msgspec.Meta(description="mined (every turn), unmined (turns past the watermark), failed (see mining_error)"),
    ]
    mined_at: datetime | None = None
    mining_error: str | None = None
    fallback_count: Annotated[
        int,
        msgspec.Meta(
            description="times the latest mining run fell back from the LLM to the offline path (a window's "
            "extraction or memories, the archive summary); 0 when it never did or never asked the LLM"
        ),
    ] = 0
    first_fallback: Annotated[
        str | None,
        msgspec.Meta(
            examples=["window 0: endpoint unavailable: LLM endpoint … returned HTTP 429: …"],
            description="the first of them, where and why, as GET /v1/jobs/{id} says it",
        ),
    ] = None


_LIVE = Turn.deleted_at.is_(None)
"""The turns counted and dated: a trashed turn is out of `GET /v1/conversations/{id}`'s turns,
so its time and its place in the count are not shown here either (a restore brings them back)."""

Fallbacks = tuple[int, str | None]
"""A conversation's latest mining run: how many LLM fallbacks, and the first in words."""


class ConversationPage(msgspec.Struct):
    items: list[ConversationSummary]
    total: int
    limit: int
    offset: int
    next_offset: int | None
    """Pass as ``offset`` for the next (older) page; null on the last."""


def _mining(conv: Conversation, top: int) -> Mining:
    if conv.mining_failed_at is not None:
        return "failed"
    return "mined" if conv.mined_seq >= top else "unmined"


def _summary(
    conv: Conversation,
    agent_id: str | None,
    stats: tuple[int, datetime | None, datetime | None, int],
    fallbacks: Fallbacks,
) -> ConversationSummary:
    n, first, last, top = stats
    return ConversationSummary(
        conv.external_id, conv.title, agent_id, conv.status, n, first, last, conv.created_at,
        conv.completed_at, conv.mined_seq, _mining(conv, top), conv.mined_at, conv.mining_error, *fallbacks,
    )  # fmt: skip


def _fallbacks(listed: Any) -> Fallbacks:
    """Count and first of a ``memory_mined`` event's ``fallbacks`` (a list of dicts; anything else: none)."""
    entries = [e for e in listed if isinstance(e, dict)] if isinstance(listed, list) else []
    return len(entries), describe_fallback(entries[0]) if entries else None


def _latest_runs(user_id: int, ids: Sequence[int]) -> Select[tuple[int, Any]]:
    """Each listed conversation's latest ``memory_mined`` event's fallbacks (one pass over the
    user's events: ``DISTINCT ON`` the conversation, newest first)."""
    conv_key = Activity.payload["conversation_id"].as_integer()
    return (
        select(conv_key, Activity.payload["fallbacks"])
        .where(Activity.user_id == user_id, Activity.type == "memory_mined", conv_key.in_(ids))
        .ext(distinct_on(conv_key))
        .order_by(conv_key, Activity.id.desc())
    )


async def list_conversations(
    db: Database, user_id: int, *, limit: int = 50, offset: int = 0, agent: str | None = None
) -> ConversationPage:
    """A page of the caller's live conversations, newest first; with ``agent``, only that agent's."""
    if not 1 <= limit <= MAX_LIMIT:
        raise InvalidInput(f"limit must be between 1 and {MAX_LIMIT}", field="limit")
    if offset < 0:
        raise InvalidInput("offset must be >= 0", field="offset")
    live = select(Conversation.id).where(Conversation.user_id == user_id, Conversation.deleted_at.is_(None))
    if agent is not None:
        live = live.join(Agent, Agent.id == Conversation.agent_id).where(Agent.external_id == agent)
    page = (
        select(Conversation, Agent.external_id)
        .outerjoin(Agent, Agent.id == Conversation.agent_id)
        .where(Conversation.id.in_(live.scalar_subquery()))
        .order_by(Conversation.id.desc())
        .limit(limit)
        .offset(offset)
    )
    async with db.user_session(user_id) as s:
        total = int(await s.scalar(select(func.count()).select_from(live.subquery())) or 0)
        rows = (await s.execute(page)).all()
        ids = [conv.id for conv, _ in rows]
        stats = {
            conv_id: (int(n), first, last, int(top))
            for conv_id, n, first, last, top in await s.execute(
                select(
                    Turn.conversation_id,
                    func.count().filter(_LIVE),
                    func.min(Turn.created_at).filter(_LIVE),
                    func.max(Turn.created_at).filter(_LIVE),
                    func.max(Turn.seq),  # what mining must reach, trashed turns included (mined already)
                )
                .where(Turn.user_id == user_id, Turn.conversation_id.in_(ids))
                .group_by(Turn.conversation_id)
            )
        }
        runs = {conv_id: _fallbacks(listed) for conv_id, listed in await s.execute(_latest_runs(user_id, ids))}
    items = [
        _summary(conv, agent_id, stats.get(conv.id, (0, None, None, 0)), runs.get(conv.id, (0, None)))
        for conv, agent_id in rows
    ]
    more = offset + len(items) < total
    return ConversationPage(items, total, limit, offset, offset + len(items) if more and items else None)
