"""Extraction at mining: each window proposes memories, and its transaction settles them.

Two steps, because the slow one must not hold locks. `propose` runs before the window's
transaction: it asks the memory extractor for candidates (the offline rules, or the LLM
when one is configured, `ingest.memory_llm`) and embeds them. `settle` runs inside the
transaction, under the user's memory lock: it reads the active memories near the
candidates, reconciles (`ingest.memory_reconcile`), files the changes to sensitive profile
fields as proposals for the user's consent (`ingest.memory_proposals`) and writes the rest
(`ingest.memory_store`).
An LLM's answer is re-checked there against what is active *now*, so an id the model was
shown but that a person changed meanwhile is not written over; before that, a memory it
wrote that nothing the user said supports is refused (`ingest.memory_grounding`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime

import numpy as np
from sqlalchemy.ext.asyncio import AsyncSession

from ingest.extraction import RelationFact, TurnView
from ingest.memory_candidates import MemoryCandidate
from ingest.memory_endings import as_ended, ended_form, ending_candidates, named_endings
from ingest.memory_grounding import grounded
from ingest.memory_llm import ask_for_memories, to_ops
from ingest.memory_proposals import divert
from ingest.memory_reconcile import KnownMemory, MemoryOp, merge_candidates, reconcile, said_when, spare_or_update
from ingest.memory_rules import extract_memory_candidates
from ingest.memory_store import MemoryTally, apply_ops, known_memories
from ingest.records import MiningDeps
from loci.embedder import Embedder
from loci.llm import ChatResult, LLMClient
from loci.memory_kinds import KindRule
from loci.memory_writes import lock_user

__all__ = ["PendingMemories", "embed_statements", "propose", "settle"]


@dataclass(frozen=True, slots=True)
class PendingMemories:
    """A window's candidates with their vectors (and their retracted statement's), or the
    operations an LLM chose (``decided``), waiting for the window's transaction."""

    candidates: tuple[tuple[MemoryCandidate, np.ndarray | None, np.ndarray | None], ...]
    extractor: str
    decided: tuple[MemoryOp, ...] = ()
    refused: int = 0
    calls: tuple[ChatResult, ...] = ()
    fallback: str | None = None
    forms: tuple[tuple[str, np.ndarray], ...] = ()
    """(content, vector) of each job statement's ended form (`embed_forms`)."""

    def only(self, seqs: frozenset[int]) -> PendingMemories:
        """What was stated in ``seqs`` (the turns this run writes; a run racing another
        may write only some of a window's)."""
        keep = tuple(t for t in self.candidates if set(t[0].turn_seqs) <= seqs)
        decided = tuple(op for op in self.decided if set(op.candidate.turn_seqs) <= seqs)
        return replace(self, candidates=keep, decided=decided)


async def embed_statements(embedder: Embedder, texts: Sequence[str]) -> list[np.ndarray]:
    """Memory statements' vectors, tokenized here and embedded in a thread as recall embeds
    queries, but as passages (`Embedder.passage_job`): a memory is what a query searches
    for, like a drawer. Saved memories get theirs here too (`domain.memory_rows.embed_texts`),
    so an extracted statement and a typed one compare like for like."""
    if not texts:
        return []
    vectors = await asyncio.to_thread(embedder.passage_job(list(texts)))
    return [np.asarray(row, dtype=np.float32) for row in vectors]


async def embed_candidates(
    embedder: Embedder, candidates: Sequence[MemoryCandidate]
) -> tuple[tuple[MemoryCandidate, np.ndarray | None, np.ndarray | None], ...]:
    """Each candidate with its vector and its retracted statement's, in one batch."""
    texts = [c.content for c in candidates] + [c.retracts for c in candidates if c.retracts]
    vectors = iter(await embed_statements(embedder, texts))
    contents = [next(vectors) for _ in candidates]
    merged = merge_candidates(candidates, contents)
    retracted = {c.retracts: next(vectors) for c in candidates if c.retracts}
    return tuple((c, v, retracted.get(c.retracts) if c.retracts else None) for c, v in merged)


async def embed_forms(embedder: Embedder, stated: Sequence[MemoryCandidate]) -> tuple[tuple[str, np.ndarray], ...]:
    """The vectors of what each job statement is written as when the graph has the job ended
    since (`ingest.memory_endings.ended_form`), embedded here, before the window's transaction
    decides whether it is (`ingest.memory_endings.as_ended`)."""
    texts = sorted({form.content for c in stated if (form := ended_form(c)) is not None})
    return tuple(zip(texts, await embed_statements(embedder, texts), strict=True))


SHOWN_TO_LLM = 20
"""Saved memories the LLM sees with a window: the ones nearest to what the user said."""


async def propose(
    deps: MiningDeps, user_id: int, turns: Sequence[TurnView], facts: Sequence[RelationFact] = ()
) -> PendingMemories | None:
    """The window's candidates, embedded; None when extraction is off or finds nothing.
    With an LLM (``deps.llm``, set when ``LOCI_MINING_EXTRACTOR=llm``) the model decides,
    and the offline rules stand in for any window it fails on. ``facts`` are the window's
    graph facts: a job they end ends the memory saying it too (`ingest.memory_endings`)."""
    said = [t for t in turns if t.role == "user"]
    if not deps.settings.mining.extract_memories or not said:
        return None
    endings = ending_candidates(await named_endings(deps.db, user_id, facts))
    if deps.llm is not None:
        return await _propose_with_llm(deps, deps.llm, user_id, turns, said, endings)
    return await _offline(deps, turns, endings)


async def _offline(
    deps: MiningDeps,
    turns: Sequence[TurnView],
    endings: Sequence[MemoryCandidate] = (),
    calls: tuple[ChatResult, ...] = (),
    fallback: str | None = None,
) -> PendingMemories | None:
    """The rules' candidates and the graph's endings; after a failed LLM call, also what it
    cost and why it failed."""
    stated = await asyncio.to_thread(extract_memory_candidates, turns)  # linear in the turns' length, off the loop
    candidates = [*stated, *endings]
    if not candidates and fallback is None:
        return None
    embedded = await embed_candidates(deps.embedder, candidates)
    forms = await embed_forms(deps.embedder, stated)
    return PendingMemories(embedded, "offline", calls=calls, fallback=fallback, forms=forms)


async def _propose_with_llm(
    deps: MiningDeps,
    llm: LLMClient,
    user_id: int,
    turns: Sequence[TurnView],
    said: Sequence[TurnView],
    endings: Sequence[MemoryCandidate],
) -> PendingMemories | None:
    """The model's operations, and the graph's endings as candidates beside them: settled
    after the model's, so a memory it already updated is not ended twice."""
    [topic] = await embed_statements(deps.embedder, [" ".join(t.content for t in said)[:4000]])
    async with deps.db.user_session(user_id) as s:
        shown = await known_memories(s, user_id, [topic], [], neighbours=SHOWN_TO_LLM)
    answer, calls, why = await ask_for_memories(llm, deps.settings.llm.extract_model, turns, shown, deps.settings)
    if answer is None:
        return await _offline(deps, turns, endings, calls=tuple(calls), fallback=why)
    ops, refused = to_ops(answer, turns, shown, deps.settings)
    vectors = await embed_statements(deps.embedder, [op.candidate.content for op in ops])
    embedded = [replace(op, vector=v) for op, v in zip(ops, vectors, strict=True)]
    decided, invented = await grounded(embedded, said, lambda texts: embed_statements(deps.embedder, texts))
    ended = await embed_candidates(deps.embedder, endings) if endings else ()
    forms = await embed_forms(deps.embedder, [op.candidate for op in decided])
    return PendingMemories(ended, "llm", tuple(decided), refused + invented, tuple(calls), forms=forms)


def _guarded(
    op: MemoryOp, now: dict[int, KnownMemory], said: Mapping[int, datetime] | None
) -> MemoryOp | tuple[MemoryCandidate, np.ndarray | None, None] | None:
    """An LLM's update or confirm, checked against the memory as it is now: gone since (a
    person changed it) makes it a candidate to reconcile afresh; explicit makes an update a
    recorded skip and a confirm nothing (automation never touches an explicit memory); an
    update said before the statement the memory holds is a recorded skip too (``outdated``)."""
    target = now.get(op.target.id) if op.target is not None else None
    if op.kind == "add" or target is None:
        return (op.candidate, op.vector, None)
    if target.explicit:
        return (
            replace(op, kind="skip", target=target, reason="the LLM wanted to change it")
            if op.kind == "update"
            else None
        )
    if op.kind == "update":  # keeps the LLM's op, unless it was said before what the memory holds
        spared = spare_or_update(
            op.candidate, op.vector, target, "the LLM wanted to change it", said_when(op.candidate, said)
        )
        return spared if spared.kind == "outdated" else replace(op, target=target)
    return replace(op, target=target)


async def settle(
    s: AsyncSession,
    user_id: int,
    conversation_id: int,
    pending: PendingMemories,
    deps: MiningDeps,
    tally: MemoryTally,
    said: Mapping[int, datetime] | None = None,
) -> None:
    """Reconcile and write, inside the window's transaction (see the module docstring);
    ``said`` dates the window's turns by seq, so a memory's kind counts its time from when
    it was said (`memory_store.apply_ops`)."""
    await lock_user(s, user_id)
    tally.refused += pending.refused
    targets = {op.target.id for op in pending.decided if op.target is not None}
    now = {k.id: k for k in await known_memories(s, user_id, [], [], ids=sorted(targets))} if targets else {}
    checked = [_guarded(op, now, said) for op in pending.decided]
    decided = [op for op in checked if isinstance(op, MemoryOp)]
    candidates = [*pending.candidates, *(c for c in checked if isinstance(c, tuple))]
    vectors = [v for c, v, r in candidates for v in (v, r) if v is not None]
    slots = sorted({c.slot for c, _v, _r in candidates if c.slot})
    known = await known_memories(s, user_id, vectors, slots) if candidates else []
    taken = {op.target.id for op in decided if op.target is not None}
    rest = [k for k in known if k.id not in taken]
    ops = reconcile(candidates, rest, deps.settings.memory.duplicate_similarity, said)
    memory = deps.settings.memory
    settled = await as_ended(s, user_id, [*decided, *ops], dict(pending.forms), said)
    writes = await divert(s, user_id, conversation_id, settled, pending.extractor, memory, tally, said)
    floor, kinds = memory.context_min_confidence, KindRule.of(memory)
    await apply_ops(
        s, user_id, conversation_id, writes, pending.extractor, tally, floor=floor, kinds=kinds, said=said or {}
    )
