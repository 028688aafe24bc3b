"""The Memories view and the core-profile editor of the /memory page.

Thin handlers over the same domain functions as `/v1/memories` and `/v1/profile`: a form
posts, the handler makes the one write (`domain.memories`, `domain.memory_undo`,
`domain.memory_profile`) and redirects back with the write's flash in the query string
(``?done=forget&event=42``), which the page shows as "Memory forgotten · Undo", the
undo being a form posting that event id, as a chat UI would offer it. Nothing is kept
between requests but the sign-in cookie. The profile editor counts characters while
typing with a few lines of inline JavaScript; without it the count is shown after each
submit, so the page works either way.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated, Any
from urllib.parse import urlencode

import msgspec
from litestar import Controller, Request, Response, get, post
from litestar.params import QueryParameter, URLEncodedBody
from litestar.response import Redirect, Template

from domain import memories, memory_profile, memory_read, memory_undo
from domain.memory_browse import EndedQuery, ended_memories, lineage_view
from domain.memory_context import ContextQuery, session_context
from domain.memory_dto import ConfirmIn, ForgetIn, MemoryEvent, MemoryOut, MemoryUpdateIn, ProfileIn
from domain.memory_read import MemoryQuery
from domain.memory_rooms import rooms_of_conversations
from domain.user_clock import zone_setting
from loci.errors import Conflict, InvalidInput, LociError, NotFound, OverLimit
from loci.models import MEMORY_LAYERS, MEMORY_SOURCES
from service.deps import StateDep
from service.routes._docs import IdPath, IdQuery
from service.state import AppState
from service.strict_body import refusal
from service.web.memory_text import flash_url, profile_chars
from service.web.session import (
    SignInNeeded,
    page_zone,
    redirect_to_sign_in,
    safe_back,
    signed_in_page,
    signed_in_user,
)

__all__ = ["MemoryViews", "error_page"]

PAGE_SIZE = 100
"""Memories per page of the Memories view: most people's whole set, grouped on one page."""
FLASH_PARAMS = ("done", "event")
FilterQuery = Annotated[str | None, QueryParameter(max_length=32)]
FlashQuery = Annotated[str | None, QueryParameter(max_length=16)]
Form = URLEncodedBody[dict[str, str]]
_STATUS = ((NotFound, 404, "Not found"), (Conflict, 409, "Cannot do that now"), (OverLimit, 422, "Too long"))


def error_page(_: Request[Any, Any, Any], exc: LociError) -> Response[Any]:
    status, title = next(((code, t) for kind, code, t in _STATUS if isinstance(exc, kind)), (400, "Cannot do that"))
    back = {"href": "/memory/memories", "label": "Back to your memories"}
    return Template("message.html", context={"title": title, "message": str(exc), "back": back}, status_code=status)


def _flag(value: str | None, field: str) -> bool:
    """A yes/no parameter in the spellings the API's take (``true``/``false``, ``1``/``0``, any
    case: Litestar's reading of a ``bool``); empty is no. Anything else is a 400 naming it:
    ``?ended=yes`` was read as no, silently showing current memories instead."""
    if not value:
        return False
    try:
        return msgspec.convert(value, bool, strict=False)
    except msgspec.ValidationError:
        raise InvalidInput(f"{field} must be true or false (or 1 or 0)", field=field) from None


def _back(form: dict[str, str], default: str = "/memory/memories") -> str:
    return safe_back(form.get("back"), default)


def _here(request: Request[Any, Any, Any]) -> str:
    """This page's address without a previous write's flash, for a form to come back to."""
    kept = [(k, v) for k, v in request.query_params.multi_items() if k not in FLASH_PARAMS]
    return str(request.url.path) + (f"?{urlencode(kept)}" if kept else "")


def _older(request: Request[Any, Any, Any], next_before: int | None) -> str | None:
    """The next (older) page: the same filters, ``before`` the last one shown."""
    if next_before is None:
        return None
    kept = [(k, v) for k, v in request.query_params.multi_items() if k not in (*FLASH_PARAMS, "before")]
    return f"{request.url.path}?{urlencode([*kept, ('before', str(next_before))])}"


def _after(form: dict[str, str], event: MemoryEvent) -> Redirect:
    """Back to the page the form came from, with the write's flash; from a memory's history
    page (``then=history``), to the history of the version the write left."""
    target = _back(form)
    if form.get("then") == "history" and event.memory is not None:
        target = f"/memory/memories/{event.memory.id}"
    undo = event.undo.event_id if event.undo is not None else None
    return Redirect(flash_url(target, event.event, undo), status_code=303)


def _flash(done: str | None, event: int | None) -> dict[str, Any]:
    return {"done": done, "event": event}


def _field(form: dict[str, str], name: str) -> str:
    """A text field as typed: a browser sends a textarea's line breaks as CRLF, stored text has LF
    (so a field the user left alone is no change, `domain.memories.update_memory` diffs)."""
    return (form.get(name) or "").replace("\r\n", "\n").strip()


def _update_from_form(memory_id: int, form: dict[str, str]) -> MemoryUpdateIn:
    content = _field(form, "content")
    if not content:
        raise InvalidInput("Write what the memory should say (it cannot be empty).", field="content")
    summary = _field(form, "summary") or None
    fields: dict[str, Any] = {"id_or_text": memory_id, "content": content, "summary": summary}
    if form.get("kind"):  # unchanged, it changes nothing (`domain.memories.update_memory` diffs)
        fields["kind"] = form["kind"]
    try:
        return msgspec.convert(fields, MemoryUpdateIn)
    except msgspec.ValidationError as e:
        raise refusal(e, context="This cannot be saved as written: ", default="content") from e


def _archived_from(items: Iterable[MemoryOut]) -> list[str]:
    """The conversations of the archive memories shown, whose rooms the page links to."""
    return [m.conversation_id for m in items if m.layer == "archive" and m.conversation_id]


def _over_limit(exc: OverLimit, submitted: int) -> dict[str, Any]:
    return {"would_be": submitted, "size": exc.size, "limit": exc.limit, "entries": exc.entries}


class MemoryViews(Controller):
    path = "/memory"
    include_in_schema = False
    exception_handlers = {SignInNeeded: redirect_to_sign_in, LociError: error_page}  # noqa: RUF012

    @get("/memories", name="memory:memories")
    async def memories_page(
        self,
        request: Request[Any, Any, Any],
        app_state: StateDep,
        layer: FilterQuery = None,
        source: FilterQuery = None,
        ended: FilterQuery = None,
        before: IdQuery = None,
        done: FlashQuery = None,
        event: IdQuery = None,
    ) -> Template:
        user_id, zone = await signed_in_page(request, app_state)
        past = _flag(ended, "ended")
        current: frozenset[int] = frozenset()
        if past:
            ended_query = EndedQuery(layer or None, source or None, PAGE_SIZE, before)
            ended_page = await ended_memories(app_state.db, user_id, ended_query)
            page, current = ended_page.page, ended_page.current_lineages
        else:
            query = MemoryQuery(layer=layer or None, source=source or None, limit=PAGE_SIZE, before=before)
            page = await memory_read.list_memories(app_state.db, user_id, query)
        rooms = await rooms_of_conversations(app_state.db, user_id, _archived_from(page.items))
        context = {
            "page": page, "past": past, "current_lineages": current, "layer": layer or "", "source": source or "",
            "here": _here(request), "older": _older(request, page.next_before), "rooms": rooms,
            "categories": app_state.settings.memory.categories, "layers": MEMORY_LAYERS, "sources": MEMORY_SOURCES,
            "zone": zone, **_flash(done, event),
        }  # fmt: skip
        return Template("memories.html", context=context)

    @get("/memories/{memory_id:int}", name="memory:memory")
    async def memory_page(
        self,
        request: Request[Any, Any, Any],
        app_state: StateDep,
        memory_id: IdPath,
        done: FlashQuery = None,
        event: IdQuery = None,
    ) -> Template:
        user_id, zone = await signed_in_page(request, app_state)
        view = await lineage_view(app_state.db, user_id, memory_id)
        rooms = await rooms_of_conversations(app_state.db, user_id, _archived_from([view.current]))
        context = {"view": view, "here": _here(request), "rooms": rooms, "zone": zone, **_flash(done, event)}
        return Template("memory.html", context=context)

    @get("/memories/{memory_id:int}/edit", name="memory:edit")
    async def edit_form(self, request: Request[Any, Any, Any], app_state: StateDep, memory_id: IdPath) -> Template:
        user_id, zone = await signed_in_page(request, app_state)
        found = await memory_read.get_memory(app_state.db, user_id, memory_id)
        return Template("memory_edit.html", context={"m": found.memory, "form": None, "error": None, "zone": zone})

    @post("/memories/{memory_id:int}/edit", name="memory:edit-post", status_code=303)
    async def edit(
        self,
        request: Request[Any, Any, Any],
        app_state: StateDep,
        memory_id: IdPath,
        data: Form,
    ) -> Response[Any]:
        user_id = await signed_in_user(request, app_state)
        try:
            written = await memories.update_memory(
                app_state.memory_store(), user_id, _update_from_form(memory_id, data)
            )
        except (InvalidInput, OverLimit) as e:
            found = await memory_read.get_memory(app_state.db, user_id, memory_id)
            zone = page_zone(await zone_setting(app_state.db, user_id))
            context = {"m": found.memory, "form": data, "error": str(e), "zone": zone}
            return Template("memory_edit.html", context=context, status_code=422 if isinstance(e, OverLimit) else 400)
        return _after({**data, "then": "history"}, written)

    @post("/memories/{memory_id:int}/forget", name="memory:forget", status_code=303)
    async def forget(
        self, request: Request[Any, Any, Any], app_state: StateDep, memory_id: IdPath, data: Form
    ) -> Response[Any]:
        user_id = await signed_in_user(request, app_state)
        written = await memories.forget_memory(app_state.memory_store(), user_id, ForgetIn(id_or_text=memory_id))
        return _after(data, written)

    @post("/memories/{memory_id:int}/confirm", name="memory:confirm", status_code=303)
    async def confirm(
        self, request: Request[Any, Any, Any], app_state: StateDep, memory_id: IdPath, data: Form
    ) -> Response[Any]:
        user_id = await signed_in_user(request, app_state)
        written = await memories.confirm_memory(app_state.memory_store(), user_id, ConfirmIn(id_or_text=memory_id))
        return _after(data, written)

    @post("/memories/{memory_id:int}/restore", name="memory:restore-memory", status_code=303)
    async def restore(
        self, request: Request[Any, Any, Any], app_state: StateDep, memory_id: IdPath, data: Form
    ) -> Response[Any]:
        user_id = await signed_in_user(request, app_state)
        written = await memories.restore_memory(app_state.memory_store(), user_id, memory_id)
        return _after({**data, "then": "history"}, written)

    @post("/undo/{event_id:int}", name="memory:undo", status_code=303)
    async def undo(
        self, request: Request[Any, Any, Any], app_state: StateDep, event_id: IdPath, data: Form
    ) -> Response[Any]:
        user_id = await signed_in_user(request, app_state)
        written = await memory_undo.undo_event(app_state.memory_store(), user_id, event_id)
        return _after(data, written)

    @get("/profile", name="memory:profile")
    async def profile_page(self, request: Request[Any, Any, Any], app_state: StateDep) -> Template:
        user_id = await signed_in_user(request, app_state)
        return await _profile_page(app_state, user_id)

    @post("/profile", name="memory:profile-post", status_code=200)
    async def profile_save(self, request: Request[Any, Any, Any], app_state: StateDep, data: Form) -> Template:
        user_id = await signed_in_user(request, app_state)
        markdown = (data.get("markdown") or "").replace("\r\n", "\n")
        try:
            body = msgspec.convert({"markdown": markdown}, ProfileIn)
        except msgspec.ValidationError as e:
            error = f"The profile cannot be saved as written: {refusal(e)}"
            return await _profile_page(app_state, user_id, markdown=markdown, error=error, status=400)
        try:
            written = await memory_profile.put_profile(app_state.memory_store(), user_id, body)
        except OverLimit as e:
            over = _over_limit(e, profile_chars(markdown))
            return await _profile_page(app_state, user_id, markdown=markdown, over=over, status=422)
        except InvalidInput as e:
            return await _profile_page(app_state, user_id, markdown=markdown, error=str(e), status=400)
        changes = [e.event for e in written.events]
        saved = {"added": changes.count("add"), "removed": changes.count("forget")}
        return await _profile_page(app_state, user_id, saved=saved)


async def _profile_page(
    state: AppState,
    user_id: int,
    *,
    markdown: str | None = None,
    error: str | None = None,
    over: dict[str, Any] | None = None,
    saved: dict[str, int] | None = None,
    status: int = 200,
) -> Template:
    """The editor: what was submitted (after an error) or the stored profile, its character
    count against the limit, and the session-start block an assistant gets now."""
    profile = await memory_profile.get_profile(state.db, state.settings.memory, user_id)
    preview = await session_context(
        state.db, state.settings.memory, state.embedder.count_tokens, ContextQuery(user_id=user_id)
    )
    text = profile.markdown if markdown is None else markdown
    context = {
        "profile": profile, "markdown": text, "count": profile_chars(text), "error": error, "over": over,
        "saved": saved, "block": preview.body.block, "tokens": preview.body.token_count,
        "categories": state.settings.memory.categories,
    }  # fmt: skip
    return Template("profile.html", context=context, status_code=status)
