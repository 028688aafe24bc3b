"""Test helper: a small but complete palace for one user, written through the ORM.

The service's tests need palace rows that look like mined ones (wings, rooms, closets,
drawers with embeddings, entities, relations, a conversation with turns) with known
names and counts, and fast: written directly rather than mined, so they do not change
when mining's extractor does.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncSession

from ingest import sources_from_first
from loci.aaak import format_pointer
from loci.db import Database
from loci.embedder import content_hash
from loci.models import (
    EMBEDDING_DIM,
    Closet,
    Conversation,
    Drawer,
    DrawerEntity,
    Entity,
    Relation,
    Room,
    Turn,
    Wing,
)


@dataclass
class Seeded:
    user_id: int
    marker: str
    wings: list[int] = field(default_factory=list)
    rooms: list[int] = field(default_factory=list)
    closets: list[int] = field(default_factory=list)
    drawers: list[int] = field(default_factory=list)
    entities: list[int] = field(default_factory=list)
    conversation_external_id: str = ""


def _vector(rng: random.Random) -> list[float]:
    raw = [rng.uniform(-1, 1) for _ in range(EMBEDDING_DIM)]
    norm = sum(x * x for x in raw) ** 0.5
    return [x / norm for x in raw]


@dataclass
class _Writer:
    """What every level of the seeded palace needs: the session, the user, the shared clock."""

    s: AsyncSession
    out: Seeded
    start: datetime
    rng: random.Random
    conversation_id: int = 0
    turns: Iterator[Turn] = field(default_factory=lambda: iter(()))

    @property
    def user_id(self) -> int:
        return self.out.user_id


async def _conversation(w: _Writer, n_turns: int) -> None:
    """One completed conversation whose turns the drawers point at, in order."""
    marker, user_id = w.out.marker, w.user_id
    conv = Conversation(user_id=user_id, external_id=w.out.conversation_external_id, status="completed", mined_seq=16)
    w.s.add(conv)
    await w.s.flush()
    turns = [
        Turn(
            user_id=user_id,
            conversation_id=conv.id,
            seq=i + 1,
            role="user" if i % 2 == 0 else "assistant",
            content=f"{marker} turn {i + 1}",
            created_at=w.start + timedelta(minutes=i),
        )
        for i in range(n_turns)
    ]
    w.s.add_all(turns)
    await w.s.flush()
    w.conversation_id, w.turns = conv.id, iter(turns)


async def _drawer(w: _Writer, wing: int, room: Room, closet: Closet, address: tuple[int, int, int, int]) -> None:
    wn, r, c, d = address
    seq = (c - 1) * 2 + d
    turn = next(w.turns)
    text = f"{w.out.marker} says message {wn}.{r}.{c}.{d} about the garden"
    drawer = Drawer(
        user_id=w.user_id,
        wing_id=wing,
        room_id=room.id,
        closet_id=closet.id,
        turn_id=turn.id,
        part=0,
        seq=seq,
        role=turn.role,
        content=text,
        aaak=format_pointer(wn, r, seq),
        tags={"t": ["2026-03"], "topic": f"topic-{c}"},
        tag_text=f"2026-03 topic-{c}",
        occurred_at=room.started_at + timedelta(minutes=seq),
        content_hash=content_hash(text),
        embedding=_vector(w.rng) if d == 1 else None,
    )
    w.s.add(drawer)
    await w.s.flush()
    w.out.drawers.append(drawer.id)


async def _room(w: _Writer, wing: int, wn: int, r: int) -> None:
    """Room ``wn.r`` with 2 closets x 2 drawers; only each closet's first drawer is embedded."""
    marker, user_id = w.out.marker, w.user_id
    when = w.start + timedelta(days=10 * wn + r)
    room = Room(
        user_id=user_id,
        wing_id=wing,
        conversation_id=w.conversation_id,
        seq=r,
        label=f"{marker} room {wn}.{r}",
        started_at=when,
        ended_at=when + timedelta(hours=1),
    )
    w.s.add(room)
    await w.s.flush()
    w.out.rooms.append(room.id)
    for c in range(1, 3):
        closet = Closet(user_id=user_id, room_id=room.id, topic=f"{marker} topic {c}", slug=f"topic-{c}")
        w.s.add(closet)
        await w.s.flush()
        w.out.closets.append(closet.id)
        for d in range(1, 3):
            await _drawer(w, wing, room, closet, (wn, r, c, d))


async def _graph(w: _Writer) -> None:
    """Alice and Paris, and a lives_in fact superseded by Lyon (for timelines)."""
    marker, user_id, start, out = w.out.marker, w.user_id, w.start, w.out
    alice = Entity(user_id=user_id, kind="p", name=f"{marker} Alice", slug=f"{marker}-alice", mention_count=3)
    paris = Entity(user_id=user_id, kind="l", name=f"{marker} Paris", slug=f"{marker}-paris", mention_count=1)
    w.s.add_all([alice, paris])
    await w.s.flush()
    out.entities = [alice.id, paris.id]
    w.s.add_all(
        [
            DrawerEntity(user_id=user_id, drawer_id=out.drawers[0], entity_id=alice.id),
            DrawerEntity(user_id=user_id, drawer_id=out.drawers[1], entity_id=paris.id),
            Relation(
                user_id=user_id,
                subject_id=alice.id,
                predicate="lives_in",
                object_entity_id=paris.id,
                valid_from=start,
                valid_to=start + timedelta(days=20),
                source_drawer_id=out.drawers[1],
                confidence=0.9,
            ),
            Relation(
                user_id=user_id,
                subject_id=alice.id,
                predicate="lives_in",
                object_value="Lyon",
                valid_from=start + timedelta(days=20),
                source_drawer_id=out.drawers[2],
            ),
        ]
    )
    await w.s.flush()
    await sources_from_first(w.s, user_id)  # each relation said by its source drawer, as mining records it


async def seed_palace(db: Database, user_id: int, marker: str, *, wings: int = 2, seed: int = 7) -> Seeded:
    """``wings`` wings x 2 rooms x 2 closets x 2 drawers; every content contains ``marker``."""
    out = Seeded(user_id, marker, conversation_external_id=f"conv-{marker}")
    async with db.user_session(user_id) as s:
        w = _Writer(s, out, datetime(2026, 3, 1, 9, 0, tzinfo=UTC), random.Random(seed))
        await _conversation(w, 4 * wings * 2)
        for wn in range(1, wings + 1):
            wing = Wing(user_id=user_id, seq=wn, kind="topic", name=f"{marker} wing {wn}", slug=f"{marker}-wing-{wn}")
            s.add(wing)
            await s.flush()
            out.wings.append(wing.id)
            for r in range(1, 3):
                await _room(w, wing.id, wn, r)
        await _graph(w)
    return out
