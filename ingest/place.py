"""Placement: wing (subject) → room (conversation time slice) → closet (topic) → drawer.

Every function runs inside the caller's window transaction and allocates numbers with
``max(seq) + 1``; the pipeline holds a per-user advisory lock for the transaction, so
numbers are never raced and AAAK pointers (``§ W-wing/R-room/D-drawer``) stay unique
and stable per user.

Wings are deduplicated by slug, compact key *and* alias: the key drops case and
trailing initials, so "Derek", "derek" and "Derek M." land in one wing; the compact
key also drops hyphens and spaces, so "e-foil" finds the "efoil" wing; every spelling
seen is kept in ``aliases`` (lower-cased) for later matches. Which subject a
conversation's wing is for is decided before placement (`ingest.subjects`).
"""

from __future__ import annotations

import itertools
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import Any

from sqlalchemy import ColumnElement, Text, cast, func, insert, literal, or_, select, text, update
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.sql.selectable import ScalarSelect

from ingest.extraction import EntityMention
from ingest.names import compact_key, name_key, slugify
from loci.models import ENTITY_KINDS, WING_KINDS, Closet, Drawer, Room, Wing

__all__ = [
    "ROOM_GAP",
    "PlacedRoom",
    "PlacedWing",
    "lock_user",
    "mentions_in_part",
    "next_drawer_seq",
    "resolve_closet",
    "resolve_room",
    "resolve_wing",
    "tags_for",
]


@dataclass(frozen=True, slots=True)
class PlacedWing:
    id: int
    seq: int
    name: str


@dataclass(frozen=True, slots=True)
class PlacedRoom:
    id: int
    seq: int
    new: bool = False
    """Made by this `resolve_room`, so it holds no closet and no drawer yet: nothing to ask."""


async def lock_user(s: AsyncSession, user_id: int, *, synchronous_commit: bool = True) -> None:
    """Serialise one user's placements (seq allocation) for the rest of the transaction;
    with ``synchronous_commit`` off, the transaction's commit does not wait for its WAL flush
    (set in the same round trip)."""
    uid = {"uid": int(user_id) % 2_147_483_647}
    if synchronous_commit:
        await s.execute(text("SELECT pg_advisory_xact_lock(42001, :uid)"), uid)
        return
    await s.execute(
        text("SELECT set_config('synchronous_commit', 'off', true), pg_advisory_xact_lock(42001, :uid)"), uid
    )


async def resolve_wing(s: AsyncSession, user_id: int, kind: str, name: str, aliases: Sequence[str] = ()) -> PlacedWing:
    """The wing for ``name`` (matched by key, compact key or alias), created when new.

    ``aliases`` are other spellings the subject goes by ("e-foil", "my brother"); any of
    them naming an existing wing selects it, and all are kept on the wing. A wing that
    was only known as "My brother" takes the name once a conversation names him.
    """
    kind = kind if kind in WING_KINDS else "topic"
    name = " ".join(name.split())[:200] or "general"
    key, spelled = name_key(name), name.lower()
    spellings = sorted({spelled, key, compact_key(name), *(a.lower() for a in aliases)} - {""})
    match = (
        select(Wing)
        .where(
            Wing.user_id == user_id,
            (Wing.slug == key)
            | (func.replace(Wing.slug, "-", "") == compact_key(name))
            | Wing.aliases.overlap(cast(spellings, ARRAY(Text))),
        )
        .order_by(Wing.deleted_at.is_not(None), Wing.slug != key, Wing.id)
        .limit(1)
    )
    wing = (await s.execute(match)).scalar_one_or_none()
    if wing is None:
        seq = int(await s.scalar(select(func.coalesce(func.max(Wing.seq), 0)).where(Wing.user_id == user_id)) or 0)
        wing = Wing(user_id=user_id, seq=seq + 1, kind=kind, name=name, slug=key, aliases=spellings)
        s.add(wing)
        await s.flush()
    else:
        if not set(spellings) <= set(wing.aliases):
            wing.aliases = sorted({*wing.aliases, *spellings})
        if _kin_only(wing.name) and not _kin_only(name):
            await _adopt_name(s, wing, name, key)
    if wing.deleted_at is not None:
        wing.deleted_at = None
    return PlacedWing(wing.id, wing.seq, wing.name)


def _kin_only(name: str) -> bool:
    """A person wing named by kin alone ("My brother"), waiting for a name."""
    return name.lower().startswith("my ")


async def _adopt_name(s: AsyncSession, wing: Wing, name: str, key: str) -> None:
    taken = await s.scalar(select(Wing.id).where(Wing.user_id == wing.user_id, Wing.slug == key, Wing.id != wing.id))
    if taken is None:
        wing.name, wing.slug, wing.kind = name, key, "person"


async def resolve_room(
    s: AsyncSession, user_id: int, wing: PlacedWing, conversation_id: int, start: datetime, end: datetime, label: str
) -> PlacedRoom:
    """The live room this conversation's turns from ``start`` to ``end`` continue, else the one of
    ``start``'s day (on its own clock: the sender's, as `ingest.plan.day_key` files turns); a new
    day after a gap, or a room in the trash (its new turns would be filed out of sight), is a new
    room. Found and stretched in one statement, else made in one (its seq the wing's next): every
    window asks.

    A room continued is the conversation's latest to end within `ROOM_GAP` of ``start``, whatever
    day it is labelled with: a client that stamps the user's turns -05:00 and the replies ``Z``
    (the server's now) sends a New York question at 20:00 on 10 March and its answer at 01:00:30
    on 11 March, and the answer belongs with its question. Otherwise the room must be labelled
    with ``start``'s day: senders on other offsets share instants, not days (a ``Z`` turn hours
    after a New York evening is 11 March's). A label not opening with a day (an older or
    imported room) is matched by its instant alone, as before."""
    day: date = start.date()
    lo = datetime.combine(day, time(), tzinfo=start.tzinfo)
    same_day = (
        select(Room.id)
        .where(
            Room.conversation_id == conversation_id,
            Room.wing_id == wing.id,
            Room.deleted_at.is_(None),
            Room.started_at >= lo,
            Room.started_at < lo + timedelta(days=1),
            or_(Room.label.startswith(f"{day.isoformat()}{_DAY_SEP}"), Room.label.regexp_match(_DAY_LABEL).is_(False)),
        )
        .order_by(Room.id)
        .limit(1)
        .scalar_subquery()
    )
    # deleted_at again on the row updated: a trash that held the room's lock while this waited
    # committed first, and Postgres re-checks only the outer WHERE on the row it waited for
    stretch = (
        update(Room)
        .where(Room.id == func.coalesce(_continued(conversation_id, wing, start), same_day), Room.deleted_at.is_(None))
        .values(started_at=func.least(Room.started_at, start), ended_at=func.greatest(Room.ended_at, end))
    )
    found = (await s.execute(stretch.returning(Room.id, Room.seq))).one_or_none()
    if found is not None:
        return PlacedRoom(int(found.id), int(found.seq))
    given = {
        "user_id": user_id, "wing_id": wing.id, "conversation_id": conversation_id,
        "label": f"{day.isoformat()}{_DAY_SEP}{label}"[:300], "started_at": start, "ended_at": end,
    }  # fmt: skip
    values: dict[str, ColumnElement[Any]] = {
        name: literal(value, Room.__table__.c[name].type) for name, value in given.items()
    }
    values["seq"] = func.coalesce(func.max(Room.seq), 0) + 1
    made = insert(Room).from_select(list(values), select(*values.values()).where(Room.wing_id == wing.id))
    new_id, seq = (await s.execute(made.returning(Room.id, Room.seq))).one()
    return PlacedRoom(int(new_id), int(seq), new=True)


def _continued(conversation_id: int, wing: PlacedWing, start: datetime) -> ScalarSelect[int]:
    """The conversation's live room that ``start`` follows (or precedes) within `ROOM_GAP`, the
    latest to end: the exchange goes on in it whatever day its label names."""
    return (
        select(Room.id)
        .where(
            Room.conversation_id == conversation_id,
            Room.wing_id == wing.id,
            Room.deleted_at.is_(None),
            Room.started_at <= start + ROOM_GAP,
            Room.ended_at >= start - ROOM_GAP,
        )
        .order_by(Room.ended_at.desc(), Room.id)
        .limit(1)
        .scalar_subquery()
    )


ROOM_GAP = timedelta(hours=1)
"""How long a conversation may fall silent and still be one exchange, one room: a turn this
close to the room's last (or first) is in it whatever day its own offset gives; after a longer
silence a turn on a new day of its own clock opens that day's room. An hour keeps a reply and a
pause for a meal together, and splits an evening from the next morning."""

_DAY_SEP = " · "
_DAY_LABEL = r"^\d{4}-\d{2}-\d{2} · "
"""How a room's label opens: the day it holds, on the clock of the turn that opened it."""


async def resolve_closet(s: AsyncSession, user_id: int, room: PlacedRoom, topic: str) -> int:
    """The room's live closet for ``topic``, created when new. A closet in the trash is not
    reused: drawers filed in it were out of every reader's sight (the palace, the export, the
    trash's counts). A room's closet slugs are unique, so the new closet takes the first free
    ``slug-2``, ``slug-3``…; restoring the trashed one then leaves both, each with its own
    drawers, as they were filed (a restore gives back what was deleted, and moves nothing)."""
    topic = " ".join(topic.split())[:300] or "general"
    slug = slugify(topic)
    rows = [] if room.new else (
        await s.execute(
            select(Closet.id, Closet.slug, Closet.topic, Closet.deleted_at)
            .where(Closet.room_id == room.id, (Closet.slug == slug) | Closet.slug.startswith(f"{slug}-"))
            .order_by(Closet.id)
        )
    ).all()  # fmt: skip
    live = next((r.id for r in rows if r.deleted_at is None and slugify(r.topic) == slug), None)
    if live is not None:
        return int(live)
    taken = {r.slug for r in rows}
    free = next(c for n in itertools.count(1) if (c := slug if n == 1 else f"{slug}-{n}") not in taken)
    closet = {"user_id": user_id, "room_id": room.id, "topic": topic, "slug": free}  # the caller holds `lock_user`
    return int((await s.execute(insert(Closet).values(closet).returning(Closet.id))).scalar_one())


async def next_drawer_seq(s: AsyncSession, room: PlacedRoom) -> int:
    if room.new:
        return 1
    top = await s.scalar(select(func.coalesce(func.max(Drawer.seq), 0)).where(Drawer.room_id == room.id))
    return int(top or 0) + 1


def tags_for(mentions: Sequence[EntityMention]) -> tuple[dict[str, Any], str]:
    """``tags`` jsonb ({"p": [...], ...}, first-seen order, no repeats) and its flat text."""
    tags: dict[str, list[str]] = {}
    for m in mentions:
        if m.kind in ENTITY_KINDS and m.name not in tags.setdefault(m.kind, []):
            tags[m.kind].append(m.name)
    tags = {k: v for k, v in tags.items() if v}
    flat = " ".join(f"@{kind} {name}" for kind in ENTITY_KINDS for name in tags.get(kind, []))
    return dict(tags), flat


def mentions_in_part(part: str, part_index: int, mentions: Sequence[EntityMention]) -> list[EntityMention]:
    """The mentions a part actually contains; resolved times (no literal text) go to part 0.
    Mentions were read off the composed text (`ingest.prose.composed`), the part is as sent."""
    low = unicodedata.normalize("NFC", part).lower()
    return [m for m in mentions if m.name.lower() in low or (part_index == 0 and m.kind == "t")]
