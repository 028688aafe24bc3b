"""Who am I: lets a client (and the /memory page's sign-in) check a key."""

from __future__ import annotations

from datetime import datetime

import msgspec
from litestar import Controller, get

from loci.errors import NotFound
from loci.models import User
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
        async with app_state.db.user_session(caller.user_id) as s:
            user = await s.get(User, caller.user_id)
        if user is None:
            raise NotFound("user not found")
        return Me(user.id, user.name, user.email, user.created_at)
