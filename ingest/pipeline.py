"""`mine_conversation`: orchestration only; every stage lives in its own module.

1. Load the turns past the conversation's ``mined_seq`` watermark (nothing → no-op).
2. Split long turns (`segment`) and embed every part, and the sentences of the parts that
   have several, in one cached batch (`embed`).
3. Per window of ``settings.mining.window_turns`` turns: extract (offline or LLM), then
   in ONE transaction place drawers (`place`), upsert entities and relations (`graph`)
   and advance the watermark. A crash leaves whole windows only, and a re-run starts
   after the last committed one, so nothing is created twice. Inside the transaction
   the watermark is re-read under a per-user lock, so two overlapping runs (a duplicate
   job, a resume racing the sweep) skip what the other already committed.
4. Record one ``memory_mined`` activity event and the ``usage_costs`` rows.

``LOCI_TEST_MINE_WINDOW_DELAY_S`` (tests only) sleeps after each committed window, so
a test can kill a worker deterministically between windows.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime

import numpy as np
from sqlalchemy import select, text, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.ext.asyncio import AsyncSession

from ingest.embed import EmbedOutcome, embed_texts, sentence_rows
from ingest.extract_llm import LLMExtractor
from ingest.extract_offline import OfflineExtractor
from ingest.extraction import EntityMention, ExtractionOutcome, Extractor, Subject, TurnView
from ingest.graph import entity_slug, record_relation, upsert_entities
from ingest.keyphrases import document_vector, rank_key_phrases
from ingest.place import (
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
from ingest.records import MiningDeps, MiningResult
from ingest.segment import sentence_pieces, split_text, windows
from loci.aaak import format_pointer
from loci.embedder import content_hash
from loci.errors import NotFound
from loci.llm import ChatResult
from loci.models import Activity, Agent, Conversation, Drawer, DrawerEntity, DrawerSentence, Room, Turn, UsageCost, Wing

__all__ = ["TEST_WINDOW_DELAY_ENV", "extractor_for", "mine_conversation"]

log = logging.getLogger("loci.ingest.pipeline")
TEST_WINDOW_DELAY_ENV = "LOCI_TEST_MINE_WINDOW_DELAY_S"
DEFAULT_WING = Subject("topic", "general")


@dataclass(frozen=True, slots=True)
class _Conv:
    id: int
    user_id: int
    external_id: str
    title: str | None
    agent: str | None


@dataclass(frozen=True, slots=True)
class _Part:
    index: int
    content: str
    content_hash: str
    vector: np.ndarray | None
    sentences: tuple[np.ndarray, ...] | None = None
    """One vector per `sentence_pieces` piece; None until they are done (``drawers.sentences_done``)."""


@dataclass
class _Totals:
    turns: int = 0
    drawers: int = 0
    entities: int = 0
    relations: int = 0
    windows: int = 0
    extractors: set[str] = field(default_factory=set)
    fallbacks: list[dict[str, object]] = field(default_factory=list)
    calls: list[ChatResult] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=lambda: dict.fromkeys(("embed", "extract", "write"), 0.0))


def extractor_for(deps: MiningDeps) -> Extractor:
    if deps.settings.mining.extractor == "llm" and deps.llm is not None:
        return LLMExtractor(deps.llm, deps.settings.llm.extract_model)
    return OfflineExtractor()


async def _load(deps: MiningDeps, conversation_id: int) -> tuple[_Conv, list[TurnView]]:
    async with deps.db.system_session() as s:  # only to learn the owner; the rest is user-scoped
        user_id = await s.scalar(select(Conversation.user_id).where(Conversation.id == conversation_id))
    if user_id is None:
        raise NotFound(f"conversation {conversation_id} not found")
    async with deps.db.user_session(user_id) as s:
        conv = await s.get(Conversation, conversation_id)
        assert conv is not None
        agent = await s.get(Agent, conv.agent_id) if conv.agent_id else None
        rows = await s.execute(
            select(Turn).where(Turn.conversation_id == conv.id, Turn.seq > conv.mined_seq).order_by(Turn.seq)
        )
        turns = [TurnView(t.id, t.seq, t.role, t.content, t.created_at) for t in rows.scalars()]
    agent_name = (agent.name or agent.external_id) if agent else None
    return _Conv(conv.id, int(user_id), conv.external_id, conv.title, agent_name), turns


async def _split_and_embed(deps: MiningDeps, turns: Sequence[TurnView]) -> tuple[dict[int, list[_Part]], EmbedOutcome]:
    """Split every turn; embed only the parts of turns whose role ``embed_roles`` names.

    The others keep a NULL vector: keyword, time and room pooling still find them, and the
    backfill job embeds them should the setting later include their role. An embedded
    part's sentences (`sentence_pieces`) are embedded in the same call, when
    ``sentence_vectors`` is on.
    """
    limit = deps.embedder.max_seq_tokens
    roles = set(deps.settings.mining.embed_roles)
    pieces = [
        (t.seq, i, chunk, t.role in roles)
        for t in turns
        for i, chunk in enumerate(split_text(t.content, deps.embedder.count_tokens, limit))
    ]
    with_sentences = deps.settings.mining.sentence_vectors
    # For each part: the texts to embed, the part first, then its sentences.
    batches = [
        [chunk, *(sentence_pieces(chunk) if with_sentences else ())] if embed else [] for *_, chunk, embed in pieces
    ]
    outcome = await embed_texts(deps.db, deps.embedder, [text for batch in batches for text in batch])
    vectors = iter(outcome.vectors)
    parts: dict[int, list[_Part]] = {}
    for (seq, i, chunk, embed), batch in zip(pieces, batches, strict=True):
        got = [next(vectors) for _ in batch]
        vector = got[0] if embed else None
        done = _complete(vector, got[1:]) if embed and with_sentences else None
        parts.setdefault(seq, []).append(_Part(i, chunk, content_hash(chunk), vector, done))
    return parts, outcome


def _complete(vector: np.ndarray | None, sentences: Sequence[np.ndarray | None]) -> tuple[np.ndarray, ...] | None:
    """The sentences' vectors, or None unless the part and every sentence got one.

    After an embedder failure some texts may still come from the cache; the backfill job
    then embeds the drawer and all its sentences together, so no drawer is half-covered.
    """
    if vector is None:
        return None
    complete = tuple(v for v in sentences if v is not None)
    return complete if len(complete) == len(sentences) else None


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
    # The wing (subject) keeps the broad frequency word: a wing gathers many rooms, while
    # a closet names what one window was about.
    return replace(outcome, extraction=replace(ex, topics=topics))


async def mine_conversation(deps: MiningDeps, conversation_id: int) -> MiningResult:
    """Mine the turns past the watermark; idempotent and incremental (see module doc)."""
    started = time.perf_counter()
    conv, turns = await _load(deps, conversation_id)
    extractor = extractor_for(deps)
    totals = _Totals()
    if not turns:
        return MiningResult(conv.id, 0, 0, 0, 0, 0, extractor.name, time.perf_counter() - started)
    clock = time.perf_counter()
    parts, embedded = await _split_and_embed(deps, turns)
    totals.seconds["embed"] = time.perf_counter() - clock
    delay = float(os.environ.get(TEST_WINDOW_DELAY_ENV) or 0)
    for window in windows(turns, deps.settings.mining.window_turns):
        clock = time.perf_counter()
        outcome = await extractor.extract(window.items)
        outcome = await _rank_topics(deps, outcome, [p.vector for t in window.items for p in parts.get(t.seq, ())])
        totals.seconds["extract"] += time.perf_counter() - clock
        totals.extractors.add(outcome.extractor)
        totals.calls.extend(outcome.calls)
        if outcome.fallback:
            totals.fallbacks.append({"window": window.index, "reason": outcome.fallback})
        clock = time.perf_counter()
        async with deps.db.user_session(conv.user_id) as s:
            await _write_window(s, conv, window.items, parts, outcome, totals)
        totals.seconds["write"] += time.perf_counter() - clock
        if delay:
            await asyncio.sleep(delay)
    name = "+".join(sorted(totals.extractors)) or extractor.name
    result = MiningResult(
        conv.id,
        totals.turns,
        totals.drawers,
        totals.entities,
        totals.relations,
        totals.windows,
        name,
        time.perf_counter() - started,
    )
    if totals.windows:
        await _account(deps, conv, result, totals, embedded)
    log.info(
        "mined conversation %d: %d turns, %d drawers, %d windows in %.3fs",
        conv.id, result.turns_mined, result.drawers, result.windows, result.duration_s,
        extra={"stage_seconds": totals.seconds, "embedded_tokens": embedded.tokens, "cached": embedded.cached},
    )  # fmt: skip
    return result


async def _wing_for(s: AsyncSession, conv: _Conv, outcome: ExtractionOutcome) -> PlacedWing:
    """The conversation keeps the wing of its first room; else agent, else subject, else general."""
    existing = (
        await s.execute(
            select(Wing)
            .join(Room, Room.wing_id == Wing.id)
            .where(Room.conversation_id == conv.id)
            .order_by(Room.id)
            .limit(1)
        )
    ).scalar_one_or_none()
    if existing is not None:
        return PlacedWing(existing.id, existing.seq, existing.name)
    subject = Subject("agent", conv.agent) if conv.agent else (outcome.extraction.subject or DEFAULT_WING)
    return await resolve_wing(s, conv.user_id, subject.kind, subject.name)


async def _rooms_for(
    s: AsyncSession, conv: _Conv, wing: PlacedWing, turns: Sequence[TurnView], label: str
) -> dict[str, PlacedRoom]:
    by_day: dict[str, list[datetime]] = {}
    for t in turns:
        by_day.setdefault(t.created_at.astimezone(UTC).date().isoformat(), []).append(t.created_at.astimezone(UTC))
    return {
        day: await resolve_room(s, conv.user_id, wing, conv.id, min(times), max(times), label)
        for day, times in by_day.items()
    }


async def _write_window(
    s: AsyncSession,
    conv: _Conv,
    window: Sequence[TurnView],
    parts: dict[int, list[_Part]],
    outcome: ExtractionOutcome,
    totals: _Totals,
) -> None:
    # Asynchronous commit: a database crash may lose the last few windows' commits, but the
    # watermark is in the same transaction, so they are simply mined again (no half windows).
    await s.execute(text("SET LOCAL synchronous_commit = off"))
    await lock_user(s, conv.user_id)
    mined = await s.scalar(select(Conversation.mined_seq).where(Conversation.id == conv.id).with_for_update())
    turns = [t for t in window if t.seq > int(mined or 0)]
    if not turns:
        return  # another run committed this window already
    ex = outcome.extraction
    topic = ex.topics[0] if ex.topics else "general"
    wing = await _wing_for(s, conv, outcome)
    rooms = await _rooms_for(s, conv, wing, turns, conv.title or topic)
    closets = {day: await resolve_closet(s, conv.user_id, room.id, topic) for day, room in rooms.items()}
    kept = {t.seq for t in turns}
    facts = [f for f in ex.relations if f.turn_seq in kept]
    seen: list[tuple[EntityMention, datetime]] = [(m, t.created_at) for t in turns for m in ex.mentions.get(t.seq, ())]
    when = {t.seq: t.created_at for t in turns}
    for f in facts:
        seen.append((f.subject, when[f.turn_seq]))
        if f.value_kind:
            seen.append((EntityMention(f.value_kind, f.value), when[f.turn_seq]))
    entity_ids, created = await upsert_entities(s, conv.user_id, seen)
    first_drawer, links = await _place_drawers(s, conv, wing, rooms, closets, turns, parts, ex.mentions, entity_ids)
    totals.drawers += sum(len(parts[t.seq]) for t in turns)
    if links:
        rows = [{"drawer_id": d, "entity_id": e, "user_id": conv.user_id} for d, e in sorted(links)]
        await s.execute(pg_insert(DrawerEntity).values(rows).on_conflict_do_nothing())
    for f in facts:
        object_id = (
            entity_ids.get((f.value_kind, entity_slug(EntityMention(f.value_kind, f.value)))) if f.value_kind else None
        )
        totals.relations += await record_relation(
            s, conv.user_id, subject_id=entity_ids[(f.subject.kind, entity_slug(f.subject))], predicate=f.predicate,
            value=f.value, object_entity_id=object_id, valid_from=f.valid_from,
            source_drawer_id=first_drawer.get(f.turn_seq), confidence=f.confidence,
        )  # fmt: skip
    await s.execute(
        update(Conversation)
        .where(Conversation.id == conv.id)
        .values(mined_seq=turns[-1].seq, mined_at=datetime.now(UTC))
    )
    totals.entities += created
    totals.turns += len(turns)
    totals.windows += 1


async def _place_drawers(
    s: AsyncSession,
    conv: _Conv,
    wing: PlacedWing,
    rooms: dict[str, PlacedRoom],
    closets: dict[str, int],
    turns: Sequence[TurnView],
    parts: dict[int, list[_Part]],
    mentions: Mapping[int, tuple[EntityMention, ...]],
    entity_ids: dict[tuple[str, str], int],
) -> tuple[dict[int, int], set[tuple[int, int]]]:
    """Add one drawer per part (one batched INSERT) and its sentence vectors; returns the
    first drawer per turn and entity links."""
    next_seq: dict[int, int] = {}
    placed: list[tuple[int, Drawer, list[EntityMention], _Part]] = []
    for t in turns:
        day = t.created_at.astimezone(UTC).date().isoformat()
        room = rooms[day]
        if room.id not in next_seq:
            next_seq[room.id] = await next_drawer_seq(s, room.id)
        for part in parts[t.seq]:
            found = mentions_in_part(part.content, part.index, mentions.get(t.seq, ()))
            tags, tag_text = tags_for(found)
            drawer = Drawer(
                user_id=conv.user_id, wing_id=wing.id, room_id=room.id, closet_id=closets[day], turn_id=t.id,
                part=part.index, seq=next_seq[room.id], role=t.role, content=part.content,
                aaak=format_pointer(wing.seq, room.seq, next_seq[room.id]), tags=tags, tag_text=tag_text,
                occurred_at=t.created_at, content_hash=part.content_hash, embedding=part.vector,
                sentences_done=part.sentences is not None,
            )  # fmt: skip
            next_seq[room.id] += 1
            placed.append((t.seq, drawer, found, part))
    s.add_all([drawer for _, drawer, _, _ in placed])
    await s.flush()
    sentences = [row for _, d, _, part in placed for row in sentence_rows(d.id, conv.user_id, part.sentences or ())]
    if sentences:
        await s.execute(pg_insert(DrawerSentence).values(sentences).on_conflict_do_nothing())
    first_drawer: dict[int, int] = {}
    links: set[tuple[int, int]] = set()
    for seq, drawer, found, _ in placed:
        first_drawer.setdefault(seq, drawer.id)
        links.update((drawer.id, entity_ids[(m.kind, entity_slug(m))]) for m in found)
    return first_drawer, links


def _price(prices: dict[str, tuple[float, float]], model: str, tokens_in: int, tokens_out: int) -> float | None:
    price = prices.get(model)
    return None if price is None else (tokens_in * price[0] + tokens_out * price[1]) / 1_000_000


async def _account(
    deps: MiningDeps, conv: _Conv, result: MiningResult, totals: _Totals, embedded: EmbedOutcome
) -> None:
    ref = {"conversation_id": conv.id, "external_id": conv.external_id}
    async with deps.db.user_session(conv.user_id) as s:
        s.add(
            Activity(
                user_id=conv.user_id,
                type="memory_mined",
                payload={
                    **ref,
                    "turns": result.turns_mined,
                    "drawers": result.drawers,
                    "entities": result.entities,
                    "relations": result.relations,
                    "windows": result.windows,
                    "extractor": result.extractor,
                    "fallbacks": totals.fallbacks,
                    "embedding_error": embedded.error,
                    "embeddings_cached": embedded.cached,
                    "duration_s": round(result.duration_s, 3),
                    "seconds": {k: round(v, 4) for k, v in totals.seconds.items()},
                    "embedded_tokens": embedded.tokens,
                },
            )
        )
        prices = deps.settings.llm.prices
        if embedded.tokens:
            model = deps.embedder.model_name
            s.add(
                UsageCost(
                    user_id=conv.user_id, source="memory_embed", model=model, tokens_in=embedded.tokens,
                    cost=_price(prices, model, embedded.tokens, 0), ref=ref,
                )
            )  # fmt: skip
        by_model: dict[str, list[ChatResult]] = {}
        for call in totals.calls:
            by_model.setdefault(call.model, []).append(call)
        for model, calls in by_model.items():
            costs = [c.cost for c in calls]
            s.add(
                UsageCost(
                    user_id=conv.user_id, source="memory_extract", model=model,
                    tokens_in=sum(c.prompt_tokens for c in calls), tokens_out=sum(c.completion_tokens for c in calls),
                    cost=None if any(c is None for c in costs) else sum(c or 0.0 for c in costs), ref=ref,
                )
            )  # fmt: skip
