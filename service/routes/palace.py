"""The palace API: browse level by level, read a drawer, trash, restore and purge."""

from __future__ import annotations

from typing import Annotated

from litestar import Controller, delete, get, post
from litestar.params import QueryParameter

from domain import forget, palace, trash
from domain.agent_access import ALLOW_ALL, agent_scope
from domain.forget import Purged
from domain.palace import DrawerOut, PalacePage
from domain.trash import Moved, TrashPage
from loci.inputs import ID_PATTERN, MAX_ID_CHARS
from service.auth import AGENT_KEY_OPT
from service.deps import CallerDep, StateDep
from service.routes._docs import IdPath, IdQuery, Limit, Offset, errors
from service.routes._openapi import at_most_one_of

Purge = Annotated[bool, QueryParameter(description="remove for good now (no restore) instead of moving to the trash")]


class PalaceController(Controller):
    tags = ("palace",)

    @get(
        "/v1/palace",
        operation_id="getPalace",
        opt=AGENT_KEY_OPT,
        summary="Browse the palace one level at a time",
        description=(
            "Without parameters: the wings. With `wing`, `room` or `closet` (one of them): that item's "
            "children (rooms, closets or drawers) with drawer counts and the first/last date of their "
            "drawers. Paginated by `limit`/`offset`; `next_offset` is null on the last page. Trashed "
            "items are left out. With `agent_id`, only the wings that agent may see (its access list): "
            "opening another wing, or a room or closet in it, is a 403 naming the wing."
        ),
        responses=errors(400, 403, 404),
        operation_class=at_most_one_of("parent", ("wing", "room", "closet"), "the wing, room or closet to open"),
    )
    async def get_palace(
        self,
        app_state: StateDep,
        caller: CallerDep,
        wing: IdQuery = None,
        room: IdQuery = None,
        closet: IdQuery = None,
        limit: Limit = 50,
        offset: Offset = 0,
        agent_id: Annotated[
            str | None,
            QueryParameter(pattern=ID_PATTERN, max_length=MAX_ID_CHARS, description="browse as this agent"),
        ] = None,
    ) -> PalacePage:
        agent = caller.agent(agent_id)
        scope = (
            ALLOW_ALL
            if agent is None
            else await agent_scope(
                app_state.db, caller.user_id, agent, agent_only=app_state.settings.memory.agent_only_categories
            )
        )
        return await palace.list_level(
            app_state.db, caller.user_id, wing=wing, room=room, closet=closet, limit=limit, offset=offset, scope=scope
        )

    @get(
        "/v1/trash",
        operation_id="listTrash",
        summary="What is in the trash, newest first",
        description=(
            "Trashed wings, rooms, closets, drawers and conversations, each with the date it will be "
            "purged (30 days after deletion). Items trashed together with their parent (or with the "
            "conversation they were mined from) are listed once, under it. Paginated by `limit`/`offset` "
            "as the palace is; `next_offset` is null on the last page."
        ),
        responses=errors(400),
    )
    async def list_trash(
        self,
        app_state: StateDep,
        caller: CallerDep,
        limit: Limit = 50,
        offset: Offset = 0,
    ) -> TrashPage:
        return await trash.list_trash(app_state.db, caller.user_id, limit=limit, offset=offset)

    @post(
        "/v1/trash/purge",
        status_code=200,
        operation_id="purgeTrash",
        summary="Empty the trash for good, now",
        description=(
            "Removes everything in the caller's trash for good, in one transaction: the palace rows, "
            "the turns, the relations learned from the trashed drawers and the entities nothing else "
            "mentions. Nothing can be restored afterwards; the activity feed keeps only a `purged` "
            "event with the counts (the names in earlier delete events are scrubbed). While another "
            "delete, restore or purge of the caller's trash runs on for seconds, a 409 with `Retry-After`."
        ),
        responses=errors(409),
    )
    async def purge_trash(self, app_state: StateDep, caller: CallerDep) -> Purged:
        return await forget.purge_trash(app_state.db, caller.user_id)


_BELOW = {
    "wing": "its rooms, closets and drawers",
    "room": "its closets and drawers",
    "closet": "its drawers",
    "drawer": "nothing below it",
}


_INSIDE = {
    "wing": "A wing whose rooms come from a conversation trashed after it",
    "room": "A room whose wing or conversation is itself in the trash",
    "closet": "A closet whose room, wing or conversation is itself in the trash",
    "drawer": "A drawer whose closet, room, wing or conversation is itself in the trash",
}
"""When a restore waits for another (`domain.trash.restore`)."""


def _delete_description(kind: str) -> str:
    return (
        f"Moves the {kind} and {_BELOW[kind]} to the trash for 30 days (restorable), then an "
        "arq cron purges it for good. With it go the verbatim turns its drawers were made "
        "from, the relations learned from them and the entities nothing live mentions: "
        "recall, search, the palace, entities and timelines, conversations and exports "
        "stop showing them at once. `purge=true` removes it (live or already trashed) for "
        "good now instead."
    )


def _trash_routes(kind: str, plural: str) -> type[Controller]:
    """DELETE and restore for one kind: the same contract for wings, rooms, closets, drawers."""
    title = kind.capitalize()

    class _Routes(Controller):
        tags = ("palace",)
        path = f"/v1/{plural}"

        if kind == "drawer":

            @get(
                "/{item_id:str}",
                operation_id="getDrawer",
                summary="One drawer: the verbatim message with its AAAK pointer and tags",
                description="404 for trashed drawers and for ids that are not the caller's.",
                responses=errors(404),
            )
            async def get_drawer(self, item_id: IdPath, app_state: StateDep, caller: CallerDep) -> DrawerOut:
                return await palace.get_drawer(app_state.db, caller.user_id, item_id)

        @delete(
            "/{item_id:str}",
            status_code=200,
            operation_id=f"delete{title}",
            summary=f"Move a {kind} to the trash (or purge it)",
            description=_delete_description(kind),
            responses=errors(404, 409),
        )
        async def delete_item(
            self, app_state: StateDep, caller: CallerDep, item_id: IdPath, purge: Purge = False
        ) -> Moved:
            if purge:
                return await forget.purge_item(app_state.db, caller.user_id, kind, item_id)
            return await trash.trash(app_state.db, caller.user_id, kind, item_id)

        @post(
            "/{item_id:str}/restore",
            status_code=200,
            operation_id=f"restore{title}",
            summary=f"Restore a trashed {kind}",
            description=(
                f"Brings back the {kind} and what was trashed together with it (turns, relations and "
                f"entities included). {_INSIDE[kind]} is a 409 naming it: restore that first (it brings "
                "back what was trashed with it), then this."
            ),
            responses=errors(404, 409),
        )
        async def restore_item(self, app_state: StateDep, caller: CallerDep, item_id: IdPath) -> Moved:
            return await trash.restore(app_state.db, caller.user_id, kind, item_id)

    _Routes.__name__ = f"{title}TrashController"
    return _Routes


TRASH_CONTROLLERS = [
    _trash_routes("drawer", "drawers"),
    _trash_routes("closet", "closets"),
    _trash_routes("room", "rooms"),
    _trash_routes("wing", "wings"),
]
