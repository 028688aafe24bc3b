"""Replies as evidence: the answers to the user's turns that match a message about what the
assistant said.

"Can you remind me of the online course you recommended for embroidery?" is answered by the
assistant's reply, but it is the user's turn that asked for it ("any online courses on Indian
embroidery?") that matches the message: the reply says "Craftsy" and "Udemy", not "embroidery
course". With the default embedding policy replies have no vector at all
(`LOCI_MINING_EMBED_ROLES`), so only a shared keyword finds them, and room pooling lifts a
room's best drawer, the user's question, far above them. A question and its answer are one
exchange; when the message asks what the assistant said, the answer is the half that holds it.
So this list ranks the replies of the semantic signal's matching user turns in their
question's order, and RRF counts it like any other list; after fusion each reply also takes
its question's whole evidence and the user's turns take the role prior (`answer_exchanges`).

Only the replies of user turns past recall's relevance floor (`RetrievalConfig.min_similarity`)
are listed, so a drawer found here is relevant as its question is. One statement: the questions'
ids are already known, each reply is one probe of ``turns (conversation_id, seq)`` and of
``drawers (turn_id, part)`` (both unique indexes).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from retrieval.candidates import SignalContext
from retrieval.filters import filter_sql
from retrieval.fusion import Fused, Scored
from retrieval.params import ReplyParams

__all__ = ["REPLY_LIST", "answer_exchanges", "reply_candidates", "reply_questions"]

REPLY_LIST = "reply"
"""The list's name in fusion, the log's ranks and the relevance floor."""


def reply_questions(semantic: Sequence[Scored], min_similarity: float, params: ReplyParams) -> list[Scored]:
    """The user turns whose replies are listed: the semantic list's user drawers at or above
    the relevance floor, best first, at most ``params.max_questions`` (pure)."""
    asked = [s for s in semantic if s.role == "user" and s.score >= min_similarity]
    return asked[: params.max_questions]


def _sql(extra: str) -> str:
    """The reply drawers (alias ``d``, so the shared filters apply to them) of the questions
    ``:ids``: the assistant's turn right after each, every part of it, in the questions' order."""
    return (
        "SELECT q.id, d.id, d.occurred_at, d.role, d.room_id FROM drawers q "
        "JOIN turns t ON t.id = q.turn_id "
        "JOIN turns nt ON nt.conversation_id = t.conversation_id AND nt.seq = t.seq + 1 "
        "JOIN drawers d ON d.turn_id = nt.id "
        "WHERE q.user_id = :uid AND q.id = ANY(:ids) AND d.user_id = :uid AND d.deleted_at IS NULL "
        f"AND d.role = 'assistant'{extra} ORDER BY d.part, d.id"
    )


async def reply_candidates(
    session: AsyncSession, ctx: SignalContext, semantic: Sequence[Scored], params: ReplyParams
) -> list[Scored]:
    """The replies of the best matching user turns, scored and ordered by their question's
    similarity; nothing unless the message asks about what the assistant said."""
    if not ctx.query.about_assistant:
        return []
    questions = reply_questions(semantic, ctx.min_similarity, params)
    if not questions:
        return []
    extra, bind = filter_sql(ctx.filters)
    bind |= {"uid": ctx.user_id, "ids": [q.drawer_id for q in questions]}
    replies: dict[int, list[Scored]] = {}
    for r in await session.execute(text(_sql(extra)), bind):
        replies.setdefault(int(r[0]), []).append(Scored(int(r[1]), 0.0, r[2], r[3], r[4]))
    out: list[Scored] = []
    for question in questions:
        for reply in replies.get(question.drawer_id, []):
            out.append(
                Scored(
                    reply.drawer_id, question.score, reply.occurred_at, reply.role, reply.room_id,
                    answers=question.drawer_id,
                )
            )  # fmt: skip
    return out


def answer_exchanges(
    fused: Sequence[Fused], replies: Sequence[Scored], user_drawers: Collection[int], user_weight: float
) -> list[Fused]:
    """Rank each exchange by all of its question's evidence, with the reply ahead (pure).

    The reply list carries only the semantic order of the questions over; a question's
    keyword, clause and entity matches stayed with the question, so "what was the move you
    made after 27. Kg2 Bd5+?" ranked the user's turns quoting the game first and the reply
    that holds the move 41st. Each reply here takes its question's fused score when that is
    higher, and the user's turns are then scaled by ``user_weight`` (the role prior that
    scales the assistant's turns for any other message), so the reply lands just ahead of
    its question. A reply keeps its own score when it matched better on its own. Rooms are
    pooled afterwards on these scores, so a room's total can change a little; on LongMemEval
    dev every session metric stayed the same.
    """
    score = {f.drawer_id: f.score for f in fused}
    question_of = {r.drawer_id: r.answers for r in replies if r.answers is not None}
    out: list[Fused] = []
    for f in fused:
        question = question_of.get(f.drawer_id)
        value = max(f.score, score.get(question, 0.0)) if question is not None else f.score
        if f.drawer_id in user_drawers:
            value *= user_weight
        out.append(Fused(f.drawer_id, value, f.ranks))
    out.sort(key=lambda f: (-f.score, min(f.ranks.values(), default=0), f.drawer_id))
    return out
