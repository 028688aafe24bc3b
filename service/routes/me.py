"""Who am I: lets a client (and the /memory page's sign-in) check a key; and leaving for good."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import msgspec
from litestar import Controller, delete, get
from litestar.params import QueryParameter

from domain.accounts import get_account
from domain.forget import delete_account, forget_user_keys
from loci.inputs import TEXT_PATTERN
from service.auth import AGENT_KEY_OPT
from service.deps import CallerDep, StateDep
from service.routes._docs import errors


class Me(msgspec.Struct):
    id: int
    name: str
    email: str | None
    created_at: datetime


class MeController(Controller):
    tags = ("account",)

    @get(
        "/v1/me",
        operation_id="getMe",
        opt=AGENT_KEY_OPT,
        summary="The user this API key acts as",
        description="Lets a client (and the /memory sign-in) check a key and see whose memory it opens.",
        responses=errors(),
    )
    async def me(self, caller: CallerDep, app_state: StateDep) -> Me:
        account = await get_account(app_state.db, caller.user_id)
        return Me(account.id, account.name, account.email, account.created_at)

    @delete(
        "/v1/me",
        operation_id="deleteMe",
        summary="Delete this user and all their memory, for good",
        description=(
            "Removes the user with every conversation, turn, palace row, entity, relation, setting, "
            "agent, activity event and API key, at once and irreversibly; the key answers 401 from "
            "the next request. `confirm` must repeat the user's name (as `GET /v1/me` shows it), so "
            "no stray request deletes an account. Writes of the user running at that moment finish "
            "first; a 409 with `Retry-After` when they kept the account busy (send it again)."
        ),
        responses=errors(400, 409),
    )
    async def delete_me(
        self,
        caller: CallerDep,
        app_state: StateDep,
        confirm: Annotated[
            str, QueryParameter(pattern=TEXT_PATTERN, description="the user's name, as GET /v1/me shows it")
        ],
    ) -> None:
        await delete_account(app_state.db, caller.user_id, confirm)
        await forget_user_keys(app_state.db, app_state.queue, caller.user_id)
