"""Distinct conversations: the fused ranking cut to ``top_k`` rooms, each with its best drawers.

An app that lists "the conversations about this" wants ``top_k`` different rooms, not
``top_k`` drawers of which four come from the same chat. Grouping happens on the fused
list (every signal's candidates, already pooled per room), so it needs no second
query and no over-fetching by the caller: a room's rank is its best drawer's, and it
brings at most `RetrievalConfig.room_turns` of its drawers, best first.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypeVar

from retrieval.fusion import Fused
from retrieval.render import RenderItem

__all__ = ["group_rooms", "order_by_room"]


def group_rooms(fused: Sequence[Fused], room_of: Mapping[int, int], rooms: int, per_room: int) -> list[Fused]:
    """The drawers of the ``rooms`` best rooms (a room ranks by its best drawer), at most
    ``per_room`` each, room by room, best drawer first within a room."""
    kept: dict[int, list[Fused]] = {}
    for f in fused:
        room = room_of.get(f.drawer_id, -f.drawer_id)  # a drawer without a room is its own group
        members = kept.get(room)
        if members is None:
            if len(kept) == rooms:
                continue
            members = kept[room] = []
        if len(members) < per_room:
            members.append(f)
    return [f for members in kept.values() for f in members]


T = TypeVar("T", bound=RenderItem)


def order_by_room(items: Sequence[T]) -> list[T]:
    """Room by room in the order of each room's best item (after a rerank moved some)."""
    by_room: dict[int, list[T]] = {}
    for item in items:
        by_room.setdefault(item.drawer.room_id, []).append(item)
    return [item for members in by_room.values() for item in members]
