"""Who am I: lets a client (and the /memory page's sign-in) check a key."""

from __future__ import annotations

from datetime import datetime

import msgspec
from litestar import Controller, get

from domain.accounts import get_account
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
        summary="The user this API key acts as",
        description="Lets a client (and the /memory sign-in) check a key and see whose memory it opens.",
        responses=errors(),
    )
    async def me(self, caller: CallerDep, app_state: StateDep) -> Me:
        account = await get_account(app_state.db, caller.user_id)
        return Me(account.id, account.name, account.email, account.created_at)
