"""Handlers of the /memory page. Thin: each calls the same functions as the JSON API.

Plain HTML forms and links (no JavaScript needed): browsing is by query string
(``?wing=…``, ``?room=…``, ``?closet=…``), deleting goes through a confirmation page,
restoring is a button in the trash. Search runs the same recall pipeline as the API;
entities and their timelines come from the knowledge graph. What a person reads by
default is plain language (`service.web.humanize`, `service.web.activity_text`);
pointers, per-signal ranks and raw event fields sit behind "Technical details".
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from litestar import Controller, Request, Response, get, post
from litestar.params import FromPath, FromQuery, QueryParameter, URLEncodedBody
from litestar.response import Redirect, Template

from domain import activity, palace, preferences, trash
from domain.conversations import restore_and_mine_item
from domain.insights import insights_status
from domain.preferences import SettingsUpdate
from domain.trash_view import trash_view
from ingest import MAX_ENTITY_OFFSET, search_entities, timeline
from loci.errors import InvalidInput, LociError, NotFound
from loci.inputs import check_text
from loci.models import TOP_K_MAX
from loci.zones import check_zone
from retrieval import MAX_MESSAGE_CHARS, RecallDeps, RecallRequest, recall
from service.deps import StateDep
from service.errors import status_of
from service.routes._docs import IdPath, IdQuery
from service.routes.recall import SEARCH_TOP_K, browsing_config
from service.strict_body import refusal
from service.web.session import (
    SignInNeeded,
    clear_cookie,
    end_session,
    page_zone,
    redirect_to_sign_in,
    safe_back,
    signed_in_page,
    signed_in_user,
    start_session,
)

__all__ = ["MemoryPages"]

KINDS = ("wing", "room", "closet", "drawer")
TRASH_PAGE = 50
"""Trash entries per page, as the palace lists its items (``?offset=`` pages on, "More →")."""
ENTITY_PAGE = 100
"""People and things per page, most mentioned first (``?offset=`` pages on, "More →")."""
TIMELINE_PAGE = 100
"""Facts per page of an entity's timeline, newest first (4,000 made a 1 MB page)."""
Offset = Annotated[int, QueryParameter(ge=0, le=MAX_ENTITY_OFFSET)]
"""Where a paged list starts (the trash, the entities, the palace, the agents)."""


def _error_page(_: Request[Any, Any, Any], exc: LociError) -> Response[Any]:
    """The message page at the status the API answers the same error with (`service.errors.status_of`)."""
    status = status_of(exc)
    title = "Not found" if status == 404 else "Something went wrong" if status >= 500 else "Cannot do that"
    return Template("message.html", context={"title": title, "message": str(exc)}, status_code=status)


def _settings_from_form(form: dict[str, str]) -> SettingsUpdate:
    raw: dict[str, Any] = {name: name in form for name in ("enabled", "use_rerank", "auto_mine")}
    top_k = form.get("top_k", "").strip()
    if not top_k.isdigit():
        raise InvalidInput(f"top_k must be a whole number between 1 and {TOP_K_MAX}", field="top_k")
    raw["top_k"] = int(top_k)
    raw["rerank_model"] = form.get("rerank_model", "").strip() or None
    if "time_zone" in form:  # a form without the box (an older page) leaves the zone as it is
        raw["time_zone"] = zone = form["time_zone"].strip() or None
        if zone is not None:
            check_zone(zone)  # refused on the form, with what was typed, not on an error page
    try:
        return msgspec.convert(raw, SettingsUpdate)
    except msgspec.ValidationError as e:
        raise refusal(e) from e


class MemoryPages(Controller):
    path = "/memory"
    include_in_schema = False
    exception_handlers = {SignInNeeded: redirect_to_sign_in, LociError: _error_page}  # noqa: RUF012

    @get("/", name="memory:tree")
    async def tree(
        self,
        request: Request[Any, Any, Any],
        app_state: StateDep,
        wing: IdQuery = None,
        room: IdQuery = None,
        closet: IdQuery = None,
        offset: Offset = 0,
    ) -> Template:
        user_id, zone = await signed_in_page(request, app_state)
        view = await palace.browse(
            app_state.db, user_id, wing=wing, room=room, closet=closet, limit=50, offset=max(offset, 0)
        )
        here = str(request.url.path) + _qs(request)
        return Template("tree.html", context={"page": view.page, "crumbs": view.crumbs, "here": here, "zone": zone})

    @get("/drawers/{item_id:int}", name="memory:drawer")
    async def drawer(self, request: Request[Any, Any, Any], app_state: StateDep, item_id: IdPath) -> Template:
        user_id, zone = await signed_in_page(request, app_state)
        found = await palace.get_drawer(app_state.db, user_id, item_id)
        return Template("drawer.html", context={"d": found, "zone": zone})

    @get("/login", name="memory:login")
    async def login_form(self) -> Template:
        return Template("login.html", context={"error": None})

    @post("/login", name="memory:login-post", status_code=303)
    async def login(
        self, request: Request[Any, Any, Any], app_state: StateDep, data: URLEncodedBody[dict[str, str]]
    ) -> Response[Any]:
        cookie = await start_session(request, app_state, (data.get("key") or "").strip())
        if cookie is None:
            return Template(
                "login.html",
                context={"error": "That API key is not valid (or was revoked, or is an agent's key)."},
                status_code=401,
            )
        return Redirect("/memory", status_code=303, cookies=[cookie])

    @post("/logout", name="memory:logout", status_code=303)
    async def logout(self, request: Request[Any, Any, Any], app_state: StateDep) -> Response[Any]:
        await end_session(request, app_state)
        return clear_cookie(Redirect("/memory/login", status_code=303))

    @get("/delete/{kind:str}/{item_id:int}", name="memory:confirm-delete")
    async def confirm_delete(
        self,
        request: Request[Any, Any, Any],
        app_state: StateDep,
        kind: FromPath[str],
        item_id: IdPath,
        back: FromQuery[str | None] = None,
    ) -> Template:
        user_id = await signed_in_user(request, app_state)
        if kind not in KINDS:
            raise NotFound(f"nothing of kind {kind!r}")
        label = await palace.item_label(app_state.db, user_id, kind, item_id)
        return Template("confirm.html", context={"kind": kind, "id": item_id, "label": label, "back": safe_back(back)})

    @post("/delete/{kind:str}/{item_id:int}", name="memory:delete", status_code=303)
    async def delete(
        self,
        request: Request[Any, Any, Any],
        app_state: StateDep,
        kind: FromPath[str],
        item_id: IdPath,
        data: URLEncodedBody[dict[str, str]],
    ) -> Response[Any]:
        user_id = await signed_in_user(request, app_state)
        if kind not in KINDS:
            raise NotFound(f"nothing of kind {kind!r}")
        await trash.trash(app_state.db, user_id, kind, item_id)
        return Redirect(safe_back(data.get("back")), status_code=303)

    @get("/trash", name="memory:trash")
    async def trash_page(self, request: Request[Any, Any, Any], app_state: StateDep, offset: Offset = 0) -> Template:
        """A page of `TRASH_PAGE` entries, newest deleted first: it showed the first 200 and said
        nothing of the rest, which could be neither seen nor restored from the page."""
        user_id, zone = await signed_in_page(request, app_state)
        view = await trash_view(app_state.db, user_id, limit=TRASH_PAGE, offset=offset)
        return Template("trash.html", context={"trash": view.listing, "previews": view.previews, "zone": zone})

    @post("/restore/{kind:str}/{item_id:int}", name="memory:restore", status_code=303)
    async def restore(
        self, request: Request[Any, Any, Any], app_state: StateDep, kind: FromPath[str], item_id: IdPath
    ) -> Response[Any]:
        user_id = await signed_in_user(request, app_state)
        if kind not in trash.TRASHABLE:
            raise NotFound(f"nothing of kind {kind!r}")
        await restore_and_mine_item(app_state.db, app_state.queue, user_id, kind, item_id)
        return Redirect("/memory/trash", status_code=303)

    @get("/settings", name="memory:settings")
    async def settings_form(self, request: Request[Any, Any, Any], app_state: StateDep) -> Template:
        user_id = await signed_in_user(request, app_state)
        current = await preferences.get_settings(app_state.db, user_id, insights_status(app_state.settings))
        context = {"s": current, "error": None, "saved": False, "form": None, "zone": page_zone(current.time_zone)}
        return Template("settings.html", context=context)

    @post("/settings", name="memory:settings-post", status_code=200)
    async def settings_save(
        self, request: Request[Any, Any, Any], app_state: StateDep, data: URLEncodedBody[dict[str, str]]
    ) -> Template:
        user_id = await signed_in_user(request, app_state)
        try:
            update = _settings_from_form(data)
        except InvalidInput as e:
            current = await preferences.get_settings(app_state.db, user_id, insights_status(app_state.settings))
            zone = page_zone(current.time_zone)  # the stored one: what was typed is only in the form
            context = {"s": current, "error": str(e), "saved": False, "form": data, "zone": zone}
            return Template("settings.html", context=context, status_code=400)
        saved = await preferences.put_settings(app_state.db, user_id, update, insights_status(app_state.settings))
        context = {"s": saved, "error": None, "saved": True, "form": None, "zone": page_zone(saved.time_zone)}
        return Template("settings.html", context=context)

    @get("/activity", name="memory:activity")
    async def activity_page(
        self, request: Request[Any, Any, Any], app_state: StateDep, before: IdQuery = None
    ) -> Template:
        user_id, zone = await signed_in_page(request, app_state)
        feed = await activity.list_activity(app_state.db, user_id, limit=50, before=before)
        return Template("activity.html", context={"feed": feed, "later_page": before is not None, "zone": zone})

    @get("/search", name="memory:search")
    async def search(
        self, request: Request[Any, Any, Any], app_state: StateDep, q: FromQuery[str | None] = None
    ) -> Template:
        user_id, zone = await signed_in_page(request, app_state)
        query = check_text(q or "", field="q").strip()
        if len(query) > MAX_MESSAGE_CHARS:  # the API's limit, named as the box names it (recall says `message`)
            raise InvalidInput(f"q is longer than {MAX_MESSAGE_CHARS} characters", field="q")
        context: dict[str, Any] = {"q": query, "result": None, "q_max": MAX_MESSAGE_CHARS, "zone": zone}
        if query:
            deps = RecallDeps(app_state.db, app_state.embedder, app_state.settings)
            asked = RecallRequest(user_id, query, top_k=SEARCH_TOP_K, config=browsing_config(app_state))
            context["result"] = await recall(deps, asked)
        return Template("search.html", context=context)

    @get("/entities", name="memory:entities")
    async def entities(
        self,
        request: Request[Any, Any, Any],
        app_state: StateDep,
        q: FromQuery[str | None] = None,
        offset: Offset = 0,
    ) -> Template:
        """A page of `ENTITY_PAGE` (see there): it showed the first 100 and said nothing of the rest."""
        user_id, zone = await signed_in_page(request, app_state)
        query = (q or "").strip()[:200]
        found = await search_entities(app_state.db, user_id, query or None, limit=ENTITY_PAGE + 1, offset=offset)
        shown = found[:ENTITY_PAGE]
        context = {
            "q": query, "entities": shown, "offset": offset, "page_size": ENTITY_PAGE,
            "more": len(found) > ENTITY_PAGE, "zone": zone,
        }  # fmt: skip
        return Template("entities.html", context=context)

    @get("/entities/{entity_id:int}", name="memory:entity")
    async def entity_timeline(
        self, request: Request[Any, Any, Any], app_state: StateDep, entity_id: IdPath, offset: Offset = 0
    ) -> Template:
        """A page of `TIMELINE_PAGE` facts: the user's own timeline holds nearly every fact."""
        user_id, zone = await signed_in_page(request, app_state)
        entity, relations, more = await timeline(app_state.db, user_id, entity_id, limit=TIMELINE_PAGE, offset=offset)
        context = {
            "entity": entity, "relations": relations, "offset": offset, "page_size": TIMELINE_PAGE, "more": more,
            "zone": zone,
        }  # fmt: skip
        return Template("entity.html", context=context)


def _qs(request: Request[Any, Any, Any]) -> str:
    query = request.url.query
    return f"?{query}" if query else ""
