"""Build a small palace directly through the ORM, for recall tests.

Recall's tests place drawers themselves rather than mining them, so each test states
exactly the palace it ranks over (mining's own choices of wing, topic and split would
shift with every extractor change): one wing per subject, one room per conversation,
one closet per room, one drawer per turn, embedded with the real embedder, plus
optional entities linked to drawers.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import func, select

from loci.aaak import format_pointer
from loci.db import Database
from loci.embedder import Embedder, content_hash
from loci.models import Closet, Conversation, Drawer, DrawerEntity, Entity, Room, Turn, Wing

__all__ = ["ConversationSpec", "EntitySpec", "PlacedConversation", "place_conversation", "slugify"]


def slugify(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "x"


@dataclass(frozen=True)
class EntitySpec:
    name: str
    kind: str = "t"
    mention_count: int = 1
    turns: tuple[int, ...] = ()
    """0-based indexes of the conversation's turns that mention it."""


@dataclass(frozen=True)
class ConversationSpec:
    turns: Sequence[tuple[str, str, datetime]]
    """(role, verbatim content, occurred_at)"""
    wing: str = "general"
    topic: str = "chat"
    external_id: str | None = None
    entities: Sequence[EntitySpec] = field(default_factory=tuple)


@dataclass(frozen=True)
class PlacedConversation:
    conversation_id: int
    room_id: int
    drawer_ids: tuple[int, ...]


async def _next(session: object, column: object, *where: object) -> int:
    value = (await session.execute(select(func.coalesce(func.max(column), 0)).where(*where))).scalar_one()  # type: ignore[attr-defined]
    return int(value) + 1


async def place_conversation(
    db: Database, embedder: Embedder, user_id: int, spec: ConversationSpec
) -> PlacedConversation:
    vectors = embedder.embed([t[1] for t in spec.turns]).vectors
    async with db.user_session(user_id) as s:
        slug = slugify(spec.wing)
        wing = (await s.execute(select(Wing).where(Wing.user_id == user_id, Wing.slug == slug))).scalar_one_or_none()
        if wing is None:
            wing = Wing(user_id=user_id, seq=await _next(s, Wing.seq, Wing.user_id == user_id), kind="topic",
                        name=spec.wing, slug=slug)  # fmt: skip
            s.add(wing)
            await s.flush()
        external = spec.external_id or f"conv-{wing.id}-{await _next(s, Room.seq, Room.wing_id == wing.id)}"
        conv = Conversation(user_id=user_id, external_id=external, status="completed", mined_seq=len(spec.turns))
        s.add(conv)
        await s.flush()
        times = [t[2] for t in spec.turns]
        room = Room(user_id=user_id, wing_id=wing.id, conversation_id=conv.id,
                    seq=await _next(s, Room.seq, Room.wing_id == wing.id), label=spec.topic,
                    started_at=min(times), ended_at=max(times))  # fmt: skip
        s.add(room)
        await s.flush()
        closet = Closet(user_id=user_id, room_id=room.id, topic=spec.topic, slug=slugify(spec.topic))
        s.add(closet)
        await s.flush()
        drawers: list[Drawer] = []
        for i, (role, content, at) in enumerate(spec.turns):
            turn = Turn(user_id=user_id, conversation_id=conv.id, seq=i + 1, role=role, content=content, created_at=at)
            s.add(turn)
            await s.flush()
            drawer = Drawer(user_id=user_id, wing_id=wing.id, room_id=room.id, closet_id=closet.id, turn_id=turn.id,
                            part=0, seq=i + 1, role=role, content=content,
                            aaak=format_pointer(wing.seq, room.seq, i + 1), occurred_at=at,
                            content_hash=content_hash(content), embedding=vectors[i].tolist())  # fmt: skip
            s.add(drawer)
            drawers.append(drawer)
        await s.flush()
        for ent in spec.entities:
            entity = Entity(user_id=user_id, kind=ent.kind, name=ent.name, slug=slugify(ent.name),
                            mention_count=ent.mention_count, first_seen=min(times), last_seen=max(times))  # fmt: skip
            s.add(entity)
            await s.flush()
            for index in ent.turns:
                s.add(DrawerEntity(drawer_id=drawers[index].id, entity_id=entity.id, user_id=user_id))
        return PlacedConversation(conv.id, room.id, tuple(d.id for d in drawers))
