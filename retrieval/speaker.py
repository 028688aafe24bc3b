"""Speaker signal: the turns of the people a message names, best match first.

"What did Priya say about the venue?" asks for Priya's words, and her name is in none
of them. This signal ranks the named person's own drawers by similarity to the message,
so her turn about the venue leads its list even when it never says "venue". (Writing the
name into the keyword index instead was tried first: the name then counted twice with
this list, and Priya's unrelated turns outranked her answer.) Names are matched case-blind as whole 1- to n-word runs of
the message, or by a speaker's first name alone ("Priya" finds "Priya Sharma").

Served by the partial index ``ix_drawers_user_speaker`` (``user_id, speaker`` where a
speaker is set, migration 0017): a palace without named turns (every LongMemEval one)
answers from an empty index range, and recall's controls query already found that out
(`SignalContext.named_speakers`), so such a palace costs no statement here.
"""

from __future__ import annotations

import re

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from loci.db import driver_rows
from retrieval.candidates import BASE, SignalContext, rows, vector_param
from retrieval.filters import filter_sql
from retrieval.fusion import Scored
from retrieval.params import SpeakerParams

__all__ = ["speaker_candidates", "speaker_phrases"]

_WORDS_RE = re.compile(r"[^\W_]+(?:['’.-][^\W_]+)*", re.UNICODE)


def speaker_phrases(message: str, params: SpeakerParams) -> list[str]:
    """The message's lower-cased runs of 1 to ``max_name_words`` words, each once."""
    words = [w.lower().replace("’", "'") for w in _WORDS_RE.findall(message)]
    runs: dict[str, None] = {}
    for n in range(1, params.max_name_words + 1):
        for i in range(len(words) - n + 1):
            runs.setdefault(" ".join(words[i : i + n]), None)
    return list(runs)[: params.max_phrases]


def _sql(with_vector: bool, extra: str) -> str:
    """A named speaker's drawers (the newest ``:cap``), by similarity (whole text or best
    sentence, as the semantic signal scores) or, without a query vector, newest first."""
    named = (
        "named AS (SELECT s.speaker FROM (SELECT DISTINCT d.speaker FROM drawers d "
        "WHERE d.user_id = :uid AND d.speaker IS NOT NULL) s "
        "WHERE lower(s.speaker) = ANY(:names) OR lower(split_part(s.speaker, ' ', 1)) = ANY(:names)), "
        "theirs AS MATERIALIZED (SELECT d.id, d.embedding, d.occurred_at, d.role, d.room_id FROM drawers d "
        f"WHERE {BASE} AND d.speaker IN (SELECT speaker FROM named){extra} "
        "ORDER BY d.occurred_at DESC LIMIT :cap)"
    )
    if not with_vector:
        return (
            f"WITH {named} SELECT t.id, 0, t.occurred_at, t.role, t.room_id FROM theirs t "
            "ORDER BY t.occurred_at DESC, t.id LIMIT :n"
        )
    return (
        f"WITH {named} SELECT t.id, greatest(1 - (t.embedding <=> CAST(:qv AS vector)), "
        "(SELECT max(1 - (s.embedding <=> CAST(:qv AS vector))) FROM drawer_sentences s WHERE s.drawer_id = t.id)) "
        "AS sim, t.occurred_at, t.role, t.room_id FROM theirs t "
        "ORDER BY sim DESC NULLS LAST, t.occurred_at DESC, t.id LIMIT :n"
    )


async def speaker_candidates(session: AsyncSession, ctx: SignalContext, params: SpeakerParams) -> list[Scored]:
    """Drawers spoken by a person the message names, most similar to the message first."""
    names = speaker_phrases(ctx.query.message, params) if ctx.named_speakers else []
    if not names:
        return []
    extra, bind = filter_sql(ctx.filters)
    bind |= {"uid": ctx.user_id, "names": names, "cap": params.speaker_cap, "n": ctx.limit}
    if ctx.vector is None:
        return rows(await driver_rows(session, text(_sql(False, extra)), bind))
    bind["qv"] = vector_param(ctx.vector)
    return rows(await driver_rows(session, text(_sql(True, extra)), bind))
