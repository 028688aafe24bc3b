"""The archive layer: one summary memory per mined conversation, kept up to date.

Two steps, as memory extraction (`ingest.memory_mining`), because the slow one must not
hold locks. `propose_archive` runs before the windows are written: it reads the whole
conversation (the turns mined before too, so a re-mine after appended turns summarises
all of it), summarises it with the LLM when one is configured (`ingest.archive_llm`),
else extractively (`ingest.archive_summary`), and embeds the summary line.
`settle_archive` runs inside the last window's transaction, so the summary commits with
the watermark that says those turns are mined: a crash before it repeats both.

The memory: layer ``archive``, category `ArchiveParams.category` (``summary``), source
``extracted`` with a confidence, tagged `ARCHIVE_TAG`, citing its conversation and the
turns it quotes (so deleting those turns trashes it, `domain.memory_trash`). A re-mine
finds it by tag and conversation and *updates* it (a new version, history kept); one a
person edited since is theirs, and mining records a skip instead. Its history events
carry `loci.memory_revision.OUTSIDE_BLOCK`: the archive is never in a session-start
block, so filing a summary leaves the block's revision, and a cached block, as they were.
Its ``said_at`` is the latest turn summarised (never after the write): a chat from March mined
in November reads as March's wherever it is shown, while ``valid_from`` stays the write's time,
which the daily decay measures "unconfirmed since" from (a first attempt moved ``valid_from``
instead, and a fresh summary of a March chat faded to 0.21 at its first sweep).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

import numpy as np
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from ingest.archive_llm import ask_for_summary
from ingest.archive_summary import ArchiveSummary, SummaryParams, extractive_summary
from ingest.consent_withhold import Withheld, unconsented, withhold_turns
from ingest.echo_guard import strip_echoed_blocks
from ingest.extraction import TurnView
from ingest.memory_mining import embed_statements
from ingest.memory_reconcile import normalise
from ingest.memory_store import ACTOR
from ingest.memory_store import iso_or_none as _iso
from ingest.plan import MinedConversation
from ingest.prose import composed
from ingest.records import MiningDeps
from loci.llm import ChatResult
from loci.memory_revision import OUTSIDE_BLOCK
from loci.memory_writes import (
    changed_fields,
    copy_links,
    copy_row,
    end_row,
    lock_user,
    new_memory_row,
    record_event,
    transaction_now,
)
from loci.models import Memory, Turn
from loci.settings_memory import ARCHIVE_CATEGORY
from loci.timexpr import local_time

__all__ = ["ARCHIVE", "ARCHIVE_TAG", "ArchiveParams", "PendingArchive", "propose_archive", "settle_archive"]

log = logging.getLogger("loci.ingest.archive")

ARCHIVE_TAG = "archive:conversation"
"""Marks the memory mining files for a conversation (a person may file archive memories too)."""


@dataclass(frozen=True, slots=True)
class ArchiveParams:
    """What an archive memory is filed as, and how much of a conversation is read."""

    summary: SummaryParams = field(default_factory=SummaryParams)
    category: str = ARCHIVE_CATEGORY
    """A category of its own (in `loci.settings.DEFAULT_MEMORY_CATEGORIES`), so an agent's
    allowlist can admit or leave out conversation summaries as a kind."""
    extractive_confidence: float = 0.6
    """Picked sentences are the conversation's own words, but which ones matter is a guess."""
    llm_confidence: float = 0.8
    """As an LLM-extracted memory starts (`ingest.memory_llm`)."""
    importance: int = 3
    """Above `LOCI_MEMORY_EXPIRE_MAX_IMPORTANCE`'s default: a summary is rarely recalled
    (only for questions about the past) and must not expire for that."""
    max_turns: int = 400
    """Turns summarised at most: the first (the request) and the latest (the outcome)."""


ARCHIVE = ArchiveParams()


@dataclass(frozen=True, slots=True)
class PendingArchive:
    """A summary with its vector, waiting for the last window's transaction."""

    summary: ArchiveSummary
    vector: np.ndarray | None
    extractor: str
    """``llm`` or ``extractive``: which wrote it."""
    confidence: float
    calls: tuple[ChatResult, ...] = ()
    fallback: str | None = None
    said_at: datetime | None = None
    """The latest summarised turn's time: the memory's ``said_at`` (`_values`)."""


async def _conversation(
    deps: MiningDeps, conv: MinedConversation, upto: int, params: ArchiveParams, withheld: Sequence[Withheld]
) -> list[TurnView]:
    """The live turns up to ``upto`` (the last being mined), the first and the latest, less
    what the user has not consented to have remembered (``withheld``, this run's, and the
    proposals on file: `ingest.consent_withhold`)."""
    async with deps.db.user_session(conv.user_id) as s:
        rows = await s.execute(
            select(Turn)
            .where(Turn.conversation_id == conv.id, Turn.seq <= upto, Turn.deleted_at.is_(None))
            .order_by(Turn.seq)
        )
        turns = [
            TurnView(
                t.id, t.seq, t.role, strip_echoed_blocks(t.content), local_time(t.created_at, t.utc_offset), t.name
            )
            for t in rows.scalars()
        ]
        withheld = [*withheld, *await unconsented(s, conv.user_id)]
    turns = withhold_turns(composed(turns), withheld, conv.id)  # read as mining read them: `ingest.prose.composed`
    if len(turns) > params.max_turns:
        turns = [turns[0], *turns[-(params.max_turns - 1) :]]
    return turns


async def propose_archive(
    deps: MiningDeps,
    conv: MinedConversation,
    mined: Sequence[TurnView],
    params: ArchiveParams = ARCHIVE,
    withheld: Sequence[Withheld] = (),
) -> PendingArchive | None:
    """The conversation's summary, embedded; None when archiving is off or there is nothing
    worth one. With an LLM the model writes it, and the extractive summary stands in when
    the model fails. Neither reads what waits for the user's consent or was declined
    (``withheld``: what this run is about to propose; the rest is read from the proposals)."""
    mining = deps.settings.mining
    if not (mining.archive and mining.extract_memories) or not mined:
        return None
    turns = await _conversation(deps, conv, max(t.seq for t in mined), params, withheld)
    if not any(t.role == "user" for t in turns):
        return None
    calls: tuple[ChatResult, ...] = ()
    why: str | None = None
    said = max(t.created_at for t in turns)
    if deps.llm is not None:
        found, made, why = await ask_for_summary(deps.llm, deps.settings.llm.extract_model, turns, params.summary)
        calls = tuple(made)
        if found is not None:
            return replace(await _embedded(deps, found, "llm", params.llm_confidence, calls), said_at=said)
    # in a thread: it scores every sentence of the conversation, seconds for a paste of 100 KB
    summary = await asyncio.to_thread(extractive_summary, turns, params.summary, conv.title)
    if summary is None:
        return None
    pending = await _embedded(deps, summary, "extractive", params.extractive_confidence, calls, why)
    return replace(pending, said_at=said)


async def _embedded(
    deps: MiningDeps,
    summary: ArchiveSummary,
    extractor: str,
    confidence: float,
    calls: tuple[ChatResult, ...],
    fallback: str | None = None,
) -> PendingArchive:
    content = summary.content[: deps.settings.memory.content_max_chars]
    summary = ArchiveSummary(content, summary.body, summary.turn_seqs)
    vector: np.ndarray | None = None
    try:
        [vector] = await embed_statements(deps.embedder, [content])
    except Exception as e:  # the summary is still worth filing: keyword recall finds it
        log.warning("archive summary not embedded: %s: %s", type(e).__name__, e)
    return PendingArchive(summary, vector, extractor, confidence, calls, fallback)


def _values(pending: PendingArchive, params: ArchiveParams, now: datetime) -> dict[str, object]:
    s = pending.summary
    said = now if pending.said_at is None else min(pending.said_at, now)  # a skewed clock: never ahead
    return {
        "said_at": said,
        "category": params.category, "content": s.content, "body": s.body or None, "summary": None,
        "confidence": pending.confidence, "confidence_base": pending.confidence, "importance": params.importance,
        "turn_seqs": list(s.turn_seqs), "embedding": None if pending.vector is None else pending.vector.tolist(),
    }  # fmt: skip


async def _filed(s: AsyncSession, user_id: int, conversation_id: int) -> Memory | None:
    """The active memory mining filed for this conversation before (by tag, in any layer)."""
    query = (
        select(Memory)
        .where(
            Memory.user_id == user_id,
            Memory.conversation_id == conversation_id,
            Memory.valid_until.is_(None),
            Memory.tags.contains([ARCHIVE_TAG]),
        )
        .order_by(Memory.id.desc())
        .limit(1)
    )
    return (await s.execute(query)).scalar_one_or_none()


async def _fold_others(s: AsyncSession, user_id: int, conversation_id: int, into: Memory, now: datetime) -> None:
    """End every other summary mining filed for this conversation as merged into ``into``.

    There is one summary per conversation, but a restore can bring back a second: turns
    trashed with their summary, later turns mined into a new one, then the restore. Each
    re-mine summarises the whole conversation, so the one it writes stands for the others;
    left active, the old one would be recalled beside it for good. A summary a person
    edited is theirs: it stays, and when it is the newest (`settle_archive` skips it) the
    extracted ones fold into it unchanged, without their citations (else trashing a turn
    only they quoted would trash the person's summary too)."""
    query = select(Memory).where(
        Memory.user_id == user_id,
        Memory.conversation_id == conversation_id,
        Memory.valid_until.is_(None),
        Memory.tags.contains([ARCHIVE_TAG]),
        Memory.source == "extracted",
        Memory.layer == "archive",
        Memory.id != into.id,
    )
    for other in (await s.execute(query)).scalars():
        end_row(other, now, "merge", superseded_by=into.id)
        if into.source == "extracted":
            await copy_links(s, user_id, other.id, into.id)
        await record_event(
            s, user_id, "merge", actor=ACTOR, lineage_id=other.lineage_id, old_id=other.id, new_id=into.id,
            into=into.id, reason="one summary per conversation", **{OUTSIDE_BLOCK: True},
        )  # fmt: skip


async def settle_archive(
    s: AsyncSession, user_id: int, conversation_id: int, pending: PendingArchive, params: ArchiveParams = ARCHIVE
) -> dict[str, object]:
    """Add, update or (for one a person changed) skip the conversation's archive memory, in
    the caller's transaction; returns what it did, for the ``memory_mined`` event."""
    await lock_user(s, user_id)
    now = await transaction_now(s)
    meta: dict[str, Any] = {
        "extractor": pending.extractor, "turn_seqs": list(pending.summary.turn_seqs), OUTSIDE_BLOCK: True,
    }  # fmt: skip
    old = await _filed(s, user_id, conversation_id)
    if old is None:
        row = await new_memory_row(
            s, user_id, layer="archive", source="extracted", conversation_id=conversation_id, valid_from=now,
            tags=[ARCHIVE_TAG], **_values(pending, params, now),
        )  # fmt: skip
        await record_event(
            s, user_id, "add", actor=ACTOR, lineage_id=row.id, new_id=row.id, layer="archive",
            category=row.category, said_at=_iso(row.said_at), **meta,
        )  # fmt: skip
        return {"op": "add", "memory_id": row.id, "by": pending.extractor}
    if old.source != "extracted" or old.layer != "archive":
        reason = "the archive summary was changed by a person, not overwritten"
        await record_event(
            s, user_id, "skip", actor=ACTOR, lineage_id=old.lineage_id, old_id=old.id,
            candidate=pending.summary.content, category=params.category, reason=reason,
            conversation_id=conversation_id, **meta,
        )  # fmt: skip
        await _fold_others(s, user_id, conversation_id, old, now)
        return {"op": "skip", "memory_id": old.id, "by": pending.extractor}
    if normalise(old.content) == normalise(pending.summary.content) and (old.body or "") == pending.summary.body:
        await _fold_others(s, user_id, conversation_id, old, now)
        return {"op": "same", "memory_id": old.id, "by": pending.extractor}
    new = await copy_row(
        s, old, **_values(pending, params, now), source="extracted", conversation_id=conversation_id, valid_from=now,
        last_confirmed_at=None,
    )  # fmt: skip
    s.add(new)
    await s.flush()
    end_row(old, now, "update", superseded_by=new.id)
    await copy_links(s, user_id, old.id, new.id)
    await record_event(
        s, user_id, "update", actor=ACTOR, lineage_id=old.lineage_id, old_id=old.id, new_id=new.id,
        changed=changed_fields(old, new), reason="the conversation went on", said_at=_iso(new.said_at), **meta,
    )  # fmt: skip
    await _fold_others(s, user_id, conversation_id, new, now)
    return {"op": "update", "memory_id": new.id, "by": pending.extractor}
