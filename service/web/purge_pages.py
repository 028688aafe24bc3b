"""Deleting a memory for good from the /memory page: a confirmation page, then the purge.

The memory's page links here ("Delete for good…"); this page says what goes (every version,
its history's words) and that it cannot be undone, as the palace's delete asks first
(``confirm.html``). Its form posts to the same domain call as `POST /v1/memories/purge`
(`domain.memory_purge`), then goes back to the Memories view with the flash
``?done=purge``, which has no Undo: there is nothing left to undo.
"""

from __future__ import annotations

from typing import Any

from litestar import Controller, Request, get, post
from litestar.response import Redirect, Template

from domain import memory_purge, memory_read
from domain.memory_dto import PurgeIn
from loci.errors import LociError
from service.deps import StateDep
from service.routes._docs import IdPath
from service.web.memory_pages import error_page
from service.web.memory_text import flash_url
from service.web.session import SignInNeeded, redirect_to_sign_in, signed_in_user

__all__ = ["PurgePages"]

DONE = "/memory/memories"
"""Where a purge goes back to: the memory's own page is gone with it."""


class PurgePages(Controller):
    path = "/memory/memories/{memory_id:int}/purge"
    include_in_schema = False
    exception_handlers = {SignInNeeded: redirect_to_sign_in, LociError: error_page}  # noqa: RUF012

    @get("", name="memory:confirm-purge")
    async def confirm_purge(self, request: Request[Any, Any, Any], app_state: StateDep, memory_id: IdPath) -> Template:
        user_id = await signed_in_user(request, app_state)
        found = await memory_read.get_memory(app_state.db, user_id, memory_id)
        return Template("memory_purge.html", context={"m": found.memory})

    @post("", name="memory:purge", status_code=303)
    async def purge(self, request: Request[Any, Any, Any], app_state: StateDep, memory_id: IdPath) -> Redirect:
        user_id = await signed_in_user(request, app_state)
        await memory_purge.purge_memory(app_state.memory_store(), user_id, PurgeIn(id_or_text=memory_id))
        return Redirect(flash_url(DONE, "purge", None), status_code=303)
