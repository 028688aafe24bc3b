"""Operations that read memory back: recall, search, the session-start context, the palace
and its trash."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import httpx

from loci_client._transport import Decoder, Request, model, operation
from loci_client.models_recall import ContextOut, DrawerOut, Moved, PalacePage, Purged, RecallOut, TrashPage
from loci_client.requests import RecallFilters, body, path

_context = model(ContextOut)


def _context_or_unchanged(response: httpx.Response) -> ContextOut | None:
    """None when the server says the block is unchanged (304 to an ``If-None-Match``); else the
    answer, carrying its ``ETag`` header as `ContextOut.etag` so the caller can send it back."""
    if response.status_code == 304:
        return None
    found = _context.decode(response)
    found._etag = response.headers.get("etag")
    return found


@operation("recall", model(RecallOut))
def recall(
    message: str,
    *,
    agent_id: str | None = None,
    top_k: int | None = None,
    filters: RecallFilters | Mapping[str, Any] | None = None,
    now: str | None = None,
    budget_tokens: int | None = None,
    preset: str | None = None,
    as_of: str | None = None,
    since_rev: int | None = None,
    group_by: str | None = None,
    conversation_id: str | None = None,
) -> Request:
    """What to remember before answering ``message``: put `RecallOut.context` before the LLM call.
    ``group_by="room"`` returns ``top_k`` distinct rooms (one per conversation and UTC day), each with its best drawers.
    With ``conversation_id``, recalling the same message again within it is served from the
    server's cache until the user's memory changes (`RecallOut.stats`)."""
    fields = body(
        message=message, agent_id=agent_id, top_k=top_k, filters=filters, now=now,
        budget_tokens=budget_tokens, preset=preset, as_of=as_of, since_rev=since_rev, group_by=group_by,
        conversation_id=conversation_id,
    )  # fmt: skip
    return Request("POST", "/v1/recall", json=fields)


@operation("searchMemories", model(RecallOut))
def search(
    q: str,
    *,
    top_k: int | None = None,
    preset: str | None = None,
    wing: str | None = None,
    role: str | None = None,
    agent_id: str | None = None,
) -> Request:
    """Search the palace for ``q`` (recall as a GET, for browsing); as ``agent_id``, in its wings only."""
    params = {"q": q, "top_k": top_k, "preset": preset, "wing": wing, "role": role, "agent_id": agent_id}
    return Request("GET", "/v1/search", params=params)


@operation("getSessionContext", Decoder(_context_or_unchanged, ContextOut))
def get_context(
    *, agent_id: str | None = None, as_of: str | None = None, since_rev: int | None = None, etag: str | None = None
) -> Request:
    """The session-start memory block; None when ``etag`` (an earlier answer's) still matches."""
    headers = {"If-None-Match": etag} if etag else {}
    params = {"agent_id": agent_id, "as_of": as_of, "since_rev": since_rev}
    return Request("GET", "/v1/context", params=params, headers=headers)


@operation("getPalace", model(PalacePage))
def get_palace(
    *,
    wing: int | None = None,
    room: int | None = None,
    closet: int | None = None,
    limit: int | None = None,
    offset: int | None = None,
    agent_id: str | None = None,
) -> Request:
    """The wings, or the children of one wing, room or closet (give at most one); as
    ``agent_id``, only the wings it may see."""
    params = {"wing": wing, "room": room, "closet": closet, "limit": limit, "offset": offset, "agent_id": agent_id}
    return Request("GET", "/v1/palace", params=params)


@operation("listTrash", model(TrashPage))
def list_trash(*, limit: int | None = None, offset: int | None = None) -> Request:
    """What is in the trash, and when each item is purged; pass `next_offset` as ``offset`` for the next page."""
    return Request("GET", "/v1/trash", params={"limit": limit, "offset": offset})


@operation("purgeTrash", model(Purged))
def purge_trash() -> Request:
    """Delete everything in the trash for good."""
    return Request("POST", "/v1/trash/purge")


@operation("getDrawer", model(DrawerOut))
def get_drawer(drawer_id: int) -> Request:
    """One drawer: a verbatim turn (or part of one) and where it lives."""
    return Request("GET", path("/v1/drawers/{item_id}", item_id=drawer_id))


@operation("deleteDrawer", model(Moved))
def delete_drawer(drawer_id: int, *, purge: bool | None = None) -> Request:
    """Move a drawer (and what is under it) to the trash; ``purge=True`` deletes it for good."""
    return Request("DELETE", path("/v1/drawers/{item_id}", item_id=drawer_id), params={"purge": purge})


@operation("restoreDrawer", model(Moved))
def restore_drawer(drawer_id: int) -> Request:
    """Bring a trashed drawer back."""
    return Request("POST", path("/v1/drawers/{item_id}/restore", item_id=drawer_id))


@operation("deleteCloset", model(Moved))
def delete_closet(closet_id: int, *, purge: bool | None = None) -> Request:
    """Move a closet (and what is under it) to the trash; ``purge=True`` deletes it for good."""
    return Request("DELETE", path("/v1/closets/{item_id}", item_id=closet_id), params={"purge": purge})


@operation("restoreCloset", model(Moved))
def restore_closet(closet_id: int) -> Request:
    """Bring a trashed closet back."""
    return Request("POST", path("/v1/closets/{item_id}/restore", item_id=closet_id))


@operation("deleteRoom", model(Moved))
def delete_room(room_id: int, *, purge: bool | None = None) -> Request:
    """Move a room (and what is under it) to the trash; ``purge=True`` deletes it for good."""
    return Request("DELETE", path("/v1/rooms/{item_id}", item_id=room_id), params={"purge": purge})


@operation("restoreRoom", model(Moved))
def restore_room(room_id: int) -> Request:
    """Bring a trashed room back."""
    return Request("POST", path("/v1/rooms/{item_id}/restore", item_id=room_id))


@operation("deleteWing", model(Moved))
def delete_wing(wing_id: int, *, purge: bool | None = None) -> Request:
    """Move a wing (and what is under it) to the trash; ``purge=True`` deletes it for good."""
    return Request("DELETE", path("/v1/wings/{item_id}", item_id=wing_id), params={"purge": purge})


@operation("restoreWing", model(Moved))
def restore_wing(wing_id: int) -> Request:
    """Bring a trashed wing back."""
    return Request("POST", path("/v1/wings/{item_id}/restore", item_id=wing_id))
