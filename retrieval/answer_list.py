"""Turns whose best-matching sentence holds the kind of thing the message asks for.

Inside a conversation the turn that states a fact and the turns that share its topic match a
question almost alike: "How many bikes do I own?" finds "I've got three of them - a road
bike, a mountain bike and a commuter bike" and "do you know a good lock for my bike?" with
close scores, and only one of them can answer. When the message asks for a quantity, an
amount of money, a time of day, a duration, a place or the time an event happened
(`retrieval.answer_type`), this list holds the
semantic signal's matching turns whose *best-matching sentence* holds such a thing, each at
its rank in the semantic list, and RRF counts it like any other list: among turns about the
same topic, the one that can hold the answer moves up. Keeping the semantic rank matters:
renumbered, the only holder among 20 turns would count as 1st however weakly it matched,
and lift a turn of an unrelated conversation (measured on LongMemEval dev: a 17th turn by
similarity took a gold conversation's place in the top 5).

The sentence is the one the question matched (the drawer's ``drawer_sentences`` row
closest to the query vector; the whole drawer when it is one sentence), not anywhere in the
turn, even when the whole turn's vector matched better: a long turn mentions some number
somewhere far too often for that to say anything. Only turns past the relevance floor are
read, at most `AnswerParams.max_turns`, in one statement by primary key.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from loci.db import driver_rows
from loci.sentences import sentence_pieces
from retrieval.answer_type import AnswerKind, holds_answer
from retrieval.candidates import SignalContext, vector_param
from retrieval.fusion import Scored
from retrieval.params import AnswerParams

__all__ = ["ANSWER_LIST", "answer_candidates", "matched_text"]

ANSWER_LIST = "answer"
"""The list's name in fusion and in the log's ranks."""

_SQL = text(
    "SELECT d.id, d.content, b.position "
    "FROM drawers d CROSS JOIN (SELECT CAST(:qv AS vector) AS v) q "
    "LEFT JOIN LATERAL (SELECT s.position FROM drawer_sentences s "
    "WHERE s.drawer_id = d.id ORDER BY s.embedding <=> q.v LIMIT 1) b ON TRUE "
    "WHERE d.user_id = :uid AND d.id = ANY(:ids) AND d.deleted_at IS NULL AND d.embedding IS NOT NULL"
)


def matched_text(content: str, position: int | None) -> str:
    """The part of a drawer the query matched: the sentence at ``position`` of its
    `sentence_pieces`, or the whole text for a drawer of one sentence (pure)."""
    if position is None:
        return content
    pieces = sentence_pieces(content)
    return pieces[position] if 0 <= position < len(pieces) else content


async def answer_candidates(
    session: AsyncSession, ctx: SignalContext, semantic: Sequence[Scored], kind: AnswerKind, params: AnswerParams
) -> list[Scored]:
    """The semantic list's turns past the floor whose matched sentence holds a ``kind``,
    in the semantic list's order with its scores and ranks (`Scored.rank`)."""
    if ctx.vector is None:
        return []
    turns = [s for s in semantic if s.score >= ctx.min_similarity][: params.max_turns]
    if not turns:
        return []
    bind = {"uid": ctx.user_id, "ids": [s.drawer_id for s in turns], "qv": vector_param(ctx.vector)}
    holding: set[int] = set()
    for drawer_id, content, position in await driver_rows(session, _SQL, bind):
        if holds_answer(kind, matched_text(str(content), position)):
            holding.add(int(drawer_id))
    return [replace(s, rank=n) for n, s in enumerate(semantic, start=1) if s.drawer_id in holding]
