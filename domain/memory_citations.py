"""What a written memory cites: the conversation it came from and that conversation's turns.

A memory an assistant or a person saves may name where it was said (``conversation_id``,
``turn_seqs``). Those are references, checked when the memory is written: to a conversation
of the caller's that is not in the trash (else a 404 naming ``conversation_id``, as the
conversation's own routes answer), and to turns it has, not trashed (else a 400 naming
``turn_seqs``). A citation of something gone would dangle from the start: the trash would
not take the memory along, and recall would point at turns nobody can read.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from loci.errors import InvalidInput, NotFound
from loci.models import Agent, Conversation, Turn

__all__ = ["cited_conversation", "missing_turns"]

_LISTED = 10
"""Missing seqs a refusal lists (a body may cite up to 200)."""


def missing_turns(conversation: str, missing: Sequence[int]) -> InvalidInput:
    """The refusal of ``turn_seqs`` citing turns ``conversation`` does not have (sorted), the
    first `_LISTED` of them named: for a save and for an import alike."""
    listed = ", ".join(map(str, missing[:_LISTED])) + (", …" if len(missing) > _LISTED else "")
    return InvalidInput(f"conversation {conversation} has no turn {listed}", field="turn_seqs")


async def cited_conversation(
    s: AsyncSession,
    user_id: int,
    external_id: str | None,
    seqs: Sequence[int],
    agent_id: str | None = None,
    *,
    key_agent: str | None = None,
) -> int | None:
    """The row id of the conversation ``external_id`` once it and each turn of ``seqs`` are
    found (module docstring); None without one. Seqs without a conversation cite nothing: a
    400 naming ``turn_seqs``. With ``agent_id`` (the writer, named by a user key), only a
    conversation of that agent or of none is found. With ``key_agent`` (the request's key is
    that agent's), only that agent's own: an agent key may neither read nor post to the user's
    own conversations (`domain.conversations.store_conversation`), so it may not cite one
    either, nor learn from the 400 which of its turns exist: the same 404 as an unknown id."""
    if external_id is None:
        if seqs:
            raise InvalidInput("turn_seqs are turns of a conversation: name its conversation_id", field="turn_seqs")
        return None
    stmt = select(Conversation.id).where(
        Conversation.user_id == user_id,
        Conversation.external_id == external_id,
        Conversation.deleted_at.is_(None),
    )
    if key_agent is not None:
        held = select(Agent.id).where(Agent.user_id == user_id, Agent.external_id == key_agent)
        stmt = stmt.where(Conversation.agent_id.in_(held))
    elif agent_id is not None:
        held = select(Agent.id).where(Agent.user_id == user_id, Agent.external_id == agent_id)
        stmt = stmt.where(or_(Conversation.agent_id.is_(None), Conversation.agent_id.in_(held)))
    conv_id = (await s.execute(stmt)).scalar_one_or_none()
    if conv_id is None:
        raise NotFound(
            f"conversation {external_id!r} not found (a memory can cite only a stored conversation out of the trash)",
            field="conversation_id",
        )
    if seqs:
        have = await s.scalars(
            select(Turn.seq).where(
                Turn.conversation_id == conv_id, Turn.seq.in_(list(set(seqs))), Turn.deleted_at.is_(None)
            )
        )
        if missing := sorted(set(seqs) - set(have)):
            raise missing_turns(repr(external_id), missing)
    return int(conv_id)
