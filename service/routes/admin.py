"""Admin routes (admin key only): create, list and delete users, issue, list and revoke their keys."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import msgspec
from litestar import Controller, delete, get, post
from litestar.params import JSONBody, QueryParameter

from domain.accounts import (
    MAX_EMAIL_CHARS,
    MAX_NAME_CHARS,
    MAX_USER_PAGE,
    KeyInfo,
    create_key,
    create_user,
    list_keys,
    list_users,
    revoke_key,
)
from domain.forget import delete_user, forget_user_keys
from loci.inputs import EMAIL_PATTERN, ID_PATTERN, MAX_ID_CHARS, NAME_PATTERN
from service.deps import StateDep
from service.routes._api_docs import ADMIN_KEY
from service.routes._docs import MAX_ID, IdPath, errors
from service.routes._openapi import OptionalBody


class NewUser(msgspec.Struct):
    name: Annotated[
        str,
        msgspec.Meta(
            pattern=NAME_PATTERN,
            max_length=MAX_NAME_CHARS,
            description=f"1-{MAX_NAME_CHARS} characters once trimmed, no control characters",
        ),
    ]
    email: (
        Annotated[
            str,
            msgspec.Meta(
                pattern=EMAIL_PATTERN, max_length=MAX_EMAIL_CHARS,
                description="an address shaped like name@example.org (only the shape is checked)",
            ),
        ]
        | None
    ) = None  # fmt: skip


class UserOut(msgspec.Struct):
    id: int
    name: str
    email: str | None
    created_at: datetime


class NewKey(msgspec.Struct):
    name: Annotated[
        str,
        msgspec.Meta(
            pattern=NAME_PATTERN,
            max_length=MAX_NAME_CHARS,
            description=f"a label for listings: 1-{MAX_NAME_CHARS} characters once trimmed, no control characters",
        ),
    ] = "default"
    agent_id: (
        Annotated[
            str,
            msgspec.Meta(
                pattern=ID_PATTERN, max_length=MAX_ID_CHARS,
                description="bind the key to this agent: every request acts as it, within its access list",
            ),
        ]
        | None
    ) = None  # fmt: skip


class KeyOut(msgspec.Struct):
    id: int
    user_id: int
    name: str
    prefix: str
    key: str
    created_at: datetime
    agent_id: str | None = None
    """The agent the key acts as; null: a user key."""


class AdminController(Controller):
    path = "/v1/admin"
    tags = ("admin",)
    security = ({ADMIN_KEY: []},)

    @post(
        "/users",
        operation_id="adminCreateUser",
        summary="Create a user",
        description="Admin key only. Creates a user with default memory settings; issue a key next.",
        responses=errors(400),
    )
    async def create_user(self, data: JSONBody[NewUser], app_state: StateDep) -> UserOut:
        user = await create_user(app_state.db, data.name, data.email)
        return UserOut(user.id, user.name, user.email, user.created_at)

    @get(
        "/users",
        operation_id="adminListUsers",
        summary="List users",
        description="Admin key only. Users by id, a page at a time: pass the last id you got as `after` for the "
        "next page (an empty page is the end).",
        responses=errors(400),
    )
    async def list_users(
        self,
        app_state: StateDep,
        after: Annotated[
            int, QueryParameter(ge=0, le=MAX_ID, description="list users with a larger id; 0: from the first")
        ] = 0,  # past a bigint PostgreSQL refused the query ("bigint out of range", schemathesis)
        limit: Annotated[int, QueryParameter(ge=1, le=MAX_USER_PAGE, description=f"1-{MAX_USER_PAGE}")] = 100,
    ) -> list[UserOut]:
        listed = await list_users(app_state.db, after=after, limit=limit)
        return [UserOut(u.id, u.name, u.email, u.created_at) for u in listed]

    @post(
        "/users/{user_id:str}/keys",
        operation_id="adminCreateKey",
        summary="Issue an API key (shown once)",
        description="Admin key only. The key is returned once and stored only as a hash; rotate by issuing a new "
        "key and revoking the old one (both take effect on the next request). With `agent_id` it is an agent "
        "key: every request made with it acts as that agent, within the agent's access list.",
        responses=errors(400, 404),
        operation_class=OptionalBody,
    )
    async def create_key(self, user_id: IdPath, app_state: StateDep, data: JSONBody[NewKey | None] = None) -> KeyOut:
        body = data or NewKey()
        issued = await create_key(app_state.db, user_id, body.name, body.agent_id)
        return KeyOut(
            issued.id, issued.user_id, issued.name, issued.prefix, issued.key, issued.created_at, issued.agent_id
        )

    @get(
        "/users/{user_id:str}/keys",
        operation_id="adminListKeys",
        summary="A user's API keys (never their secrets)",
        description="Admin key only. Every key, revoked ones too, with the agent an agent key acts as.",
        responses=errors(400, 404),
    )
    async def list_keys(self, user_id: IdPath, app_state: StateDep) -> list[KeyInfo]:
        return await list_keys(app_state.db, user_id)

    @delete(
        "/users/{user_id:str}/keys/{key_id:str}",
        operation_id="adminRevokeKey",
        summary="Revoke a key",
        description="Admin key only. The key stops working at once (no caching of key lookups); a key revoked "
        "already is a 409 saying when.",
        responses=errors(400, 404, 409),
    )
    async def revoke_key(self, user_id: IdPath, key_id: IdPath, app_state: StateDep) -> None:
        await revoke_key(app_state.db, user_id, key_id)

    @delete(
        "/users/{user_id:str}",
        operation_id="adminDeleteUser",
        summary="Delete a user and all their memory, for good",
        description=(
            "Admin key only. Removes the user with every row of theirs (memory, conversations, "
            "settings, activity, API keys), at once and irreversibly; their keys answer 401 from "
            "the next request. Writes of the user running at that moment finish first; a 409 with "
            "`Retry-After` when they kept the account busy (send it again)."
        ),
        responses=errors(400, 404, 409),
    )
    async def remove_user(self, user_id: IdPath, app_state: StateDep) -> None:
        await delete_user(app_state.db, user_id)
        await forget_user_keys(app_state.db, app_state.queue, user_id)
