"""Test helper: a small but complete palace for one user, written through the ORM.

The service's tests need palace rows that look like mined ones (wings, rooms, closets,
drawers with embeddings, entities, relations, a conversation with turns) with known
names and counts, and fast: written directly rather than mined, so they do not change
when mining's extractor does.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

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


async def seed_palace(db: Database, user_id: int, marker: str, *, wings: int = 2, seed: int = 7) -> Seeded:
    """``wings`` wings x 2 rooms x 2 closets x 2 drawers; every content contains ``marker``."""
    rng = random.Random(seed)
    out = Seeded(user_id, marker, conversation_external_id=f"conv-{marker}")
    start = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
    async with db.user_session(user_id) as s:
        conv = Conversation(user_id=user_id, external_id=out.conversation_external_id, status="completed", mined_seq=16)
        s.add(conv)
        await s.flush()
        turns = [
            Turn(
                user_id=user_id,
                conversation_id=conv.id,
                seq=i + 1,
                role="user" if i % 2 == 0 else "assistant",
                content=f"{marker} turn {i + 1}",
                created_at=start + timedelta(minutes=i),
            )
            for i in range(4 * wings * 2)
        ]
        s.add_all(turns)
        await s.flush()
        turn_iter = iter(turns)
        for w in range(1, wings + 1):
            wing = Wing(user_id=user_id, seq=w, kind="topic", name=f"{marker} wing {w}", slug=f"{marker}-wing-{w}")
            s.add(wing)
            await s.flush()
            out.wings.append(wing.id)
            for r in range(1, 3):
                when = start + timedelta(days=10 * w + r)
                room = Room(
                    user_id=user_id,
                    wing_id=wing.id,
                    conversation_id=conv.id,
                    seq=r,
                    label=f"{marker} room {w}.{r}",
                    started_at=when,
                    ended_at=when + timedelta(hours=1),
                )
                s.add(room)
                await s.flush()
                out.rooms.append(room.id)
                for c in range(1, 3):
                    closet = Closet(user_id=user_id, room_id=room.id, topic=f"{marker} topic {c}", slug=f"topic-{c}")
                    s.add(closet)
                    await s.flush()
                    out.closets.append(closet.id)
                    for d in range(1, 3):
                        seq = (c - 1) * 2 + d
                        turn = next(turn_iter)
                        text = f"{marker} says message {w}.{r}.{c}.{d} about the garden"
                        drawer = Drawer(
                            user_id=user_id,
                            wing_id=wing.id,
                            room_id=room.id,
                            closet_id=closet.id,
                            turn_id=turn.id,
                            part=0,
                            seq=seq,
                            role=turn.role,
                            content=text,
                            aaak=format_pointer(w, r, seq),
                            tags={"t": ["2026-03"], "topic": f"topic-{c}"},
                            tag_text=f"2026-03 topic-{c}",
                            occurred_at=when + timedelta(minutes=seq),
                            content_hash=content_hash(text),
                            embedding=_vector(rng) if d == 1 else None,
                        )
                        s.add(drawer)
                        await s.flush()
                        out.drawers.append(drawer.id)
        alice = Entity(user_id=user_id, kind="p", name=f"{marker} Alice", slug=f"{marker}-alice", mention_count=3)
        paris = Entity(user_id=user_id, kind="l", name=f"{marker} Paris", slug=f"{marker}-paris", mention_count=1)
        s.add_all([alice, paris])
        await s.flush()
        out.entities = [alice.id, paris.id]
        s.add_all(
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
    return out
