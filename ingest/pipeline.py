"""`mine_conversation`: orchestration only; every stage lives in its own module.

1. Load the turns past the conversation's ``mined_seq`` watermark (nothing → no-op),
   without any Loci block an app echoed into them (`echo_guard`).
2. Split long turns and embed every part, and the sentences of the parts that have
   several, in one cached batch (`plan`).
3. Per window of ``settings.mining.window_turns`` turns: extract (offline or LLM); its
   closet topics are ranked against its vectors after step 4, whose first model call
   embeds every window's candidate phrases at once (`_rank_windows`). The extractor is
   handed the kinds the user's graph already gives the names these turns may mention
   (`known_kinds`, read with the turns in step 1: one statement), plus those the earlier
   windows typed, so "I quit Acme." weeks after "I work at Acme" still ends the job.
4. Choose the conversation's subject from all windows' mentions and its text, settled
   against the user's wings (`subjects`, `wings`): the wing its new rooms go in. Every
   window is extracted before the first is written, so the wing reflects the whole
   conversation, not its first window (a crash meanwhile repeats only extraction).
   Then the names only the assistant's replies hold leave the graph's mentions
   (`said_names`: its suggestions are not the user's world until a person says them), and a
   name a window only guessed an item takes the kind another window decided
   (`known_kinds.settled_across`).
5. Per window: propose memories (`memory_mining`), then in ONE transaction place the
   drawers, upsert entities and relations, settle the memories and advance the
   watermark (`window`).
6. Before the last window's transaction, summarise the whole conversation for the
   archive layer (`archive`: the LLM when configured, else the sentences that carry its
   decisions); that transaction files the summary with the last watermark.
   Once the LLM endpoint has failed to answer, the job asks it no more (`loci.llm_latch`):
   each later stage falls back at once, with that reason, instead of waiting out a timeout.
7. Record one ``memory_mined`` activity event and the ``usage_costs`` rows (`accounting`).

One user's conversations are mined one at a time (`loci.exclusive`, see `mine_conversation`).
A caller that must not wait for that (the worker's job, `service.jobs`) passes ``wait=False``:
it then takes the lock, or the one place next in line (which embeds while the lock's holder
writes, then waits for it), and else `UserBeingMined` says both are taken (nothing was done);
the job gives its worker slot back and runs again a little later, rather than sitting in the
slot while one user's backlog drains and every other user waits.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from contextlib import AsyncExitStack
from dataclasses import replace

import numpy as np
from sqlalchemy import select

from ingest.accounting import record_run
from ingest.archive import PendingArchive, propose_archive
from ingest.consent_withhold import sensitive_statements
from ingest.echo_guard import strip_echoed_blocks
from ingest.embed import EmbedOutcome
from ingest.entity_scan import name_spellings
from ingest.extraction import ExtractionOutcome, TurnView
from ingest.extractors import extractor_for
from ingest.keyphrases import document_vector, rank_key_phrases
from ingest.known_kinds import known_kinds, settled_across, with_window_kinds
from ingest.memory_mining import PendingMemories, propose
from ingest.plan import MinedConversation, MiningTotals, TurnPlan, split_and_embed
from ingest.prose import composed
from ingest.records import MiningDeps, MiningResult
from ingest.said_names import Heard, keep_said, people_before
from ingest.segment import Window, windows
from ingest.subjects import WingSubject
from ingest.window import commit_window
from ingest.wings import conversation_subject, known_subjects, suggested_subject
from loci.errors import Busy, NotFound
from loci.exclusive import exclusive
from loci.llm_latch import OutageLatch
from loci.models import Agent, Conversation, Turn
from loci.timexpr import local_time

__all__ = ["UserBeingMined", "mine_conversation"]

log = logging.getLogger("loci.ingest.pipeline")


_Extracted = tuple[Window[TurnView], list[TurnPlan], ExtractionOutcome]
"""A window, its turns' plans, and what was extracted from it."""


class UserBeingMined(Busy):
    """Another job holds the user's mining lock, and the caller asked not to wait for it
    (``wait=False``): nothing was embedded or written, and the same call made later goes on."""


def _user_lock(user_id: int) -> str:
    return f"loci.mine.user:{user_id}"


async def _owner(deps: MiningDeps, conversation_id: int) -> int:
    """The user whose conversation it is (the only read across users; the rest is user-scoped)."""
    async with deps.db.system_session() as s:
        user_id = await s.scalar(select(Conversation.user_id).where(Conversation.id == conversation_id))
    if user_id is None:
        raise NotFound(f"conversation {conversation_id} not found")
    return int(user_id)


async def _load(deps: MiningDeps, user_id: int, conversation_id: int) -> tuple[MinedConversation, list[TurnView]]:
    """The conversation and its turns past the watermark."""
    async with deps.db.user_session(user_id) as s:
        conv = await s.get(Conversation, conversation_id)
        assert conv is not None
        agent = await s.get(Agent, conv.agent_id) if conv.agent_id else None
        rows = await s.execute(
            select(Turn).where(Turn.conversation_id == conv.id, Turn.seq > conv.mined_seq).order_by(Turn.seq)
        )
        # A trashed conversation is not mined (its watermark stays, so a restore mines it then).
        live = conv.deleted_at is None
        turns = [
            TurnView(
                t.id, t.seq, t.role, strip_echoed_blocks(t.content), local_time(t.created_at, t.utc_offset), t.name
            )
            for t in rows.scalars()
            if live
        ]
    agent_name = (agent.name or agent.external_id) if agent else None
    return MinedConversation(conv.id, user_id, conv.external_id, conv.title, agent_name), turns


async def _still_unmined(
    deps: MiningDeps, conv: MinedConversation, turns: Sequence[TurnView]
) -> tuple[list[TurnView], dict[str, str], Heard]:
    """Once the user's lock is held: the turns no other job mined meanwhile (past the watermark
    as it is now), the kinds the user's graph gives the names they may mention
    (`ingest.known_kinds`), and what people said before and the graph holds of them, against
    which the replies' names are kept (`ingest.said_names`), read in one session."""
    async with deps.db.user_session(conv.user_id) as s:
        mined_seq = await s.scalar(select(Conversation.mined_seq).where(Conversation.id == conv.id))
        left = [t for t in turns if mined_seq is None or t.seq > mined_seq]
        if not left:
            return left, {}, Heard()
        spellings = name_spellings(t.content for t in left)
        known, held = await known_kinds(s, conv.user_id, spellings)
        heard = Heard(await people_before(s, conv.id, mined_seq), held)
    return left, known, heard


async def _rank_topics(
    deps: MiningDeps, outcome: ExtractionOutcome, vectors: Sequence[np.ndarray | None]
) -> ExtractionOutcome:
    """Closet topics: the candidate phrases closest to the window's meaning (KeyBERT-style).

    Skipped (frequency topics stand) when the window has no embedding or embedding the
    phrases fails: closet names are a convenience, never a reason to fail a window.
    """
    ex = outcome.extraction
    document = document_vector(vectors)
    if not ex.topic_candidates or document is None:
        return outcome
    try:
        topics = await asyncio.to_thread(rank_key_phrases, ex.topic_candidates, document, deps.embedder.embed_phrases)
    except Exception as e:  # the model's failures have many types; see ingest.embed
        log.warning("key phrase ranking failed, keeping frequency topics: %s: %s", type(e).__name__, e)
        return outcome
    # A closet names what one window was about; the wing's subject is chosen over the
    # whole conversation (`ingest.subjects`).
    return replace(outcome, extraction=replace(ex, topics=topics))


def _key_phrases(extracted: Sequence[_Extracted]) -> list[str]:
    """Every window's candidate key phrases that `_rank_topics` will rank (a window with a
    vector), each once."""
    return list(
        dict.fromkeys(
            phrase
            for _, plans, outcome in extracted
            if document_vector(_vectors(plans)) is not None
            for phrase in outcome.extraction.topic_candidates
        )
    )


def _vectors(plans: Sequence[TurnPlan]) -> list[np.ndarray | None]:
    return [part.vector for plan in plans for part in plan.parts]


async def _rank_windows(deps: MiningDeps, extracted: list[_Extracted], phrases: Sequence[str]) -> list[_Extracted]:
    """Each window's closet topics (`_rank_topics`), its phrases embedded for all windows at once.

    Why at once: each window's phrases were a model call of their own, a handful of short
    texts, and ONNX Runtime spends ~2 ms on a call beyond its tokens (`loci.embedder.CALL_TOKENS`):
    about what four more phrases in the same call cost. The
    subject embeds them with its own first call (`ingest.wings.also_embedding`), so this lookup
    usually finds them all in the embedder's phrase cache; a conversation whose subject
    embedded nothing embeds them here, in one call. Should that fail, each window tries on its
    own and keeps its frequency topics (`_rank_topics`)."""
    try:
        if phrases:
            await asyncio.to_thread(deps.embedder.embed_phrases, phrases)
    except Exception as e:  # the model's failures have many types; see ingest.embed
        log.debug("key phrases not embedded together: %s: %s", type(e).__name__, e)
    return [(window, plans, await _rank_topics(deps, outcome, _vectors(plans))) for window, plans, outcome in extracted]


async def mine_conversation(
    deps: MiningDeps,
    conversation_id: int,
    *,
    wait: bool = True,
    begin: Callable[[], Awaitable[None]] | None = None,
) -> MiningResult:
    """Mine the turns past the watermark; idempotent and incremental (see module doc).

    One user's conversations are mined one at a time, whatever process or worker slot runs
    them (`loci.exclusive`): what mining writes depends on what the user's graph and palace
    already hold (the kinds of known names, the job current when "I quit my job" is said, the
    wings a subject joins), so two of a user's chats completed together and mined side by side
    each missed the other ("I quit my job today" ended nothing and made a second wing).
    Splitting and embedding read nothing of the graph, so they run before the lock: a user's
    next conversation embeds while the one before it extracts and writes. With ``wait=False``
    the caller takes the lock, or the one place next in line (`_take_turn`), before anything
    else, and is turned away (`UserBeingMined`, nothing done) when both are taken. ``begin``
    runs once the lock is held and there is something to mine (the job counts its attempt
    there, so a turned-away try counts none).
    """
    if deps.llm is not None:  # an endpoint that failed once is not asked again by this job
        deps = replace(deps, llm=OutageLatch(deps.llm))
    started = time.perf_counter()
    user_id = await _owner(deps, conversation_id)
    totals = MiningTotals()
    async with AsyncExitStack() as held:
        # a try turned away reads nothing more: a backlog's tries come back every few seconds
        in_line = None if wait else await _take_turn(deps, user_id, held)
        conv, turns = await _load(deps, user_id, conversation_id)
        nothing = MiningResult(conv.id, 0, 0, 0, 0, 0, extractor_for(deps).name, 0.0)
        if not turns:
            return replace(nothing, duration_s=time.perf_counter() - started)
        plans, embedded = await split_and_embed(deps, turns)
        totals.seconds["embed"] = time.perf_counter() - started
        if wait or in_line is not None:  # wait for the job mining this user
            await held.enter_async_context(exclusive(deps.db, _user_lock(conv.user_id)))
            if in_line is not None:  # mining now: the next job in line may embed
                await in_line.aclose()
        turns, known, heard = await _still_unmined(deps, conv, composed(turns))  # drawers were planned as sent
        if not turns:  # another job mined them while these were embedded
            return replace(nothing, duration_s=time.perf_counter() - started)
        if begin is not None:
            await begin()
        return await _mine_alone(deps, conv, turns, (plans, embedded), (known, heard), totals, started)


async def _take_turn(deps: MiningDeps, user_id: int, held: AsyncExitStack) -> AsyncExitStack | None:
    """For a caller that will not wait: the user's mining lock, held by ``held`` (None answered);
    else the one place next in line, held by the stack answered until the caller has the mining
    lock; else `UserBeingMined`, nothing done.

    Why a place in line: a job that holds the mining lock from before it embeds leaves the
    model idle while it extracts and writes (embedding is about 40 % of a job's stage time in
    `bench.mining_speed`), so one user's backlog (a history imported at once) would mine up to
    ~1.6 times slower than when the user's next job embedded meanwhile. One job
    in line embeds beside the one mining and then waits for it; every other job of the user
    gives its slot back. So one user takes at most two worker slots, and the others stay free
    for other users."""

    def busy() -> UserBeingMined:
        return UserBeingMined(f"user {user_id}'s conversations are being mined", retry_after_s=1)

    try:
        await held.enter_async_context(exclusive(deps.db, _user_lock(user_id), or_else=busy()))
        return None
    except UserBeingMined:
        pass
    in_line = AsyncExitStack()
    await in_line.enter_async_context(exclusive(deps.db, f"loci.mine.next:{user_id}", or_else=busy()))
    held.push_async_callback(in_line.aclose)  # at the latest with the rest (a second aclose does nothing)
    return in_line


async def _mine_alone(
    deps: MiningDeps,
    conv: MinedConversation,
    turns: list[TurnView],
    planned: tuple[dict[int, TurnPlan], EmbedOutcome],
    graph: tuple[dict[str, str], Heard],
    totals: MiningTotals,
    started: float,
) -> MiningResult:
    """`mine_conversation` once no other job mines this user's conversations: extract, choose
    the subject, write window by window."""
    plans, embedded = planned[0], planned[1]
    plans = {t.seq: plans[t.seq] for t in turns}  # those of turns another job mined meanwhile go
    extractor = extractor_for(deps)
    extracted = []
    subjects = await known_subjects(deps, conv.user_id) if extractor.reads_subjects else ()
    known, heard = graph
    for window in windows(turns, deps.settings.mining.window_turns):
        window_plans = [plans[t.seq] for t in window.items]
        clock = time.perf_counter()
        outcome = await extractor.extract(window.items, subjects, known)
        known = with_window_kinds(known, outcome.extraction)  # a later window knows what this one typed
        extracted.append((window, window_plans, outcome))
        totals.seconds["extract"] += time.perf_counter() - clock
    clock = time.perf_counter()
    phrases = _key_phrases(extracted)
    subject = await _subject(deps, conv, turns, plans, [outcome for *_, outcome in extracted], phrases)
    totals.seconds["subject"] = time.perf_counter() - clock
    clock = time.perf_counter()
    extracted = await _rank_windows(deps, extracted, phrases)
    said = await asyncio.to_thread(keep_said, [(w.items, o) for w, _, o in extracted], heard.earlier, heard.held)
    extracted = [(w, p, o) for (w, p, _), o in zip(extracted, settled_across(said), strict=True)]
    totals.seconds["extract"] += time.perf_counter() - clock
    for n, (window, window_plans, outcome) in enumerate(extracted, start=1):
        totals.extractors.add(outcome.extractor)
        totals.calls.extend(outcome.calls)
        if outcome.fallback:  # listed first: it was asked first (the job's first reason, `first_fallback`)
            totals.fallbacks.append({"window": window.index, "reason": outcome.fallback})
        clock = time.perf_counter()
        memories = await propose(deps, conv.user_id, window.items, outcome.extraction.relations)
        if memories is not None:
            totals.calls.extend(memories.calls)
            if memories.fallback:
                totals.fallbacks.append({"window": window.index, "memories": memories.fallback})
        totals.seconds["extract"] += time.perf_counter() - clock
        clock = time.perf_counter()
        archive = await _archive(deps, conv, turns, totals, memories) if n == len(extracted) else None
        await commit_window(deps, conv, window_plans, outcome, totals, memories, subject, archive)
        totals.seconds["write"] += time.perf_counter() - clock
    name = "+".join(sorted(totals.extractors)) or extractor.name
    result = _result(conv.id, name, totals, time.perf_counter() - started)
    if totals.windows:
        await record_run(deps, conv, result, totals, embedded)
    log.info(
        "mined conversation %d: %d turns, %d drawers, %d windows in %.3fs",
        conv.id, result.turns_mined, result.drawers, result.windows, result.duration_s,
        extra={"stage_seconds": totals.seconds, "embedded_tokens": embedded.tokens, "cached": embedded.cached},
    )  # fmt: skip
    return result


def _result(conversation_id: int, extractor: str, totals: MiningTotals, duration_s: float) -> MiningResult:
    """The job's result: the run's counts, and how often (first where and why) the LLM fell back."""
    return MiningResult(
        conversation_id, totals.turns, totals.drawers, totals.entities, totals.relations, totals.windows,
        extractor, duration_s, len(totals.fallbacks), totals.first_fallback(),
    )  # fmt: skip


async def _subject(
    deps: MiningDeps,
    conv: MinedConversation,
    turns: Sequence[TurnView],
    plans: Mapping[int, TurnPlan],
    outcomes: Sequence[ExtractionOutcome],
    phrases: Sequence[str] = (),
) -> WingSubject | None:
    """The subject of all the turns being mined: the LLM extractor's reading when it read
    any window, else the rule over every window's mentions (`ingest.wings`). Its first model
    call also embeds the windows' key ``phrases`` (`_rank_windows`)."""
    mentions = {seq: found for o in outcomes for seq, found in o.extraction.mentions.items()}
    parts = [part for plan in plans.values() for part in plan.parts]
    known = {part.content: part.vector for part in parts if part.vector is not None}
    return await conversation_subject(
        deps,
        (conv.user_id, conv.id),
        turns,
        mentions,
        [part.vector for part in parts],
        known=known,
        suggested=suggested_subject(outcomes),
        carrying=phrases,
    )


async def _archive(
    deps: MiningDeps,
    conv: MinedConversation,
    turns: Sequence[TurnView],
    totals: MiningTotals,
    memories: PendingMemories | None,
) -> PendingArchive | None:
    """The conversation's archive summary (`ingest.archive`), its LLM cost and fallback
    counted; the last window's sensitive statements, proposed in its transaction after the
    summary is made, are kept out of it as the proposals on file are."""
    clock = time.perf_counter()
    stated = [] if memories is None else [c for c, *_ in memories.candidates]
    stated += [] if memories is None else [op.candidate for op in memories.decided]
    withheld = sensitive_statements(stated, deps.settings.memory)
    archive = await propose_archive(deps, conv, turns, withheld=withheld)
    totals.seconds["extract"] += time.perf_counter() - clock
    if archive is not None:
        totals.calls.extend(archive.calls)
        if archive.fallback:
            totals.fallbacks.append({"archive": archive.fallback})
    return archive
