"""The /memory "Agents" tab: what each agent may see, as one plain form per agent.

Thin, like the other pages: the form becomes the same `AgentAccess` record the API takes,
and `domain.agent_access_edit.put_agent_access` stores it. Per category one choice says
everything: *Never* (left out of the agent's allowlist), *In every conversation* (mode
``all``) or *Only when relevant* (mode ``rag``, with an optional most-per-answer); wings
are typed as names or slugs, empty for all.
"""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import Controller, Request, Response, get, post
from litestar.params import URLEncodedBody
from litestar.response import Template

from domain import preferences
from domain.agent_access_edit import AgentAccess, ModeSpec, get_access, put_agent_access
from ingest import slugify
from loci.errors import InvalidInput, LociError
from loci.inputs import ID_PATTERN
from service.deps import StateDep
from service.web.session import SignInNeeded, redirect_to_sign_in, signed_in_user

__all__ = ["AccessPages", "access_from_form"]

NEVER, ALWAYS, RELEVANT = "never", "all", "rag"
CHOICES = ((ALWAYS, "In every conversation"), (RELEVANT, "Only when relevant"), (NEVER, "Never"))
"""What a person picks per category, in plain words, and the value the form sends."""


def access_from_form(form: dict[str, str], categories: tuple[str, ...]) -> AgentAccess:
    """The form's fields (``show_<category>``, ``cap_<category>``, ``wings``) as the API's record."""
    modes: dict[str, ModeSpec] = {}
    allowed: list[str] = []
    for category in categories:
        choice = form.get(f"show_{category}", ALWAYS)
        if choice not in (NEVER, ALWAYS, RELEVANT):
            raise InvalidInput(f"unknown choice {choice!r} for {category}", field=f"show_{category}")
        if choice == NEVER:
            continue
        allowed.append(category)
        if choice == RELEVANT:
            cap = form.get(f"cap_{category}", "").strip()
            if cap and not cap.isdigit():
                raise InvalidInput(
                    f"the most per answer for {category} must be a whole number", field=f"cap_{category}"
                )
            modes[category] = ModeSpec("rag", int(cap) if cap else None)
    wings = [slugify(w) for w in form.get("wings", "").split(",") if w.strip()]
    raw = {
        "categories": None if len(allowed) == len(categories) else allowed,
        "wings": wings or None,
        "modes": {c: msgspec.to_builtins(m) for c, m in modes.items()},
    }
    try:
        return msgspec.convert(raw, AgentAccess)
    except msgspec.ValidationError as e:
        raise InvalidInput(str(e)) from e


async def _page(app_state: Any, user_id: int, **extra: Any) -> dict[str, Any]:
    agents = await preferences.list_agents(app_state.db, user_id)
    doc = await get_access(app_state.db, user_id)
    rows = [(a.external_id, doc.agents.get(a.external_id, AgentAccess())) for a in agents]
    context = {"agents": rows, "categories": app_state.settings.memory.categories, "choices": CHOICES}
    context["empty"] = AgentAccess()
    return context | {"error": None, "saved": None, "id_pattern": ID_PATTERN[1:-1]} | extra


def _choice(access: AgentAccess, category: str) -> str:
    if access.categories is not None and category not in access.categories:
        return NEVER
    mode = access.modes.get(category)
    return RELEVANT if mode is not None and mode.mode == "rag" else ALWAYS


def _error_page(request: Request[Any, Any, Any], exc: LociError) -> Response[Any]:
    return Template("message.html", context={"title": "Cannot do that", "message": str(exc)}, status_code=400)


class AccessPages(Controller):
    path = "/memory/agents"
    include_in_schema = False
    exception_handlers = {SignInNeeded: redirect_to_sign_in, LociError: _error_page}  # noqa: RUF012

    @get("/", name="memory:agents")
    async def agents(self, request: Request[Any, Any, Any], app_state: StateDep) -> Template:
        user_id = await signed_in_user(request, app_state)
        return Template("agents.html", context=await _page(app_state, user_id) | {"choice": _choice})

    @post("/", name="memory:agents-post", status_code=200)
    async def save(
        self, request: Request[Any, Any, Any], app_state: StateDep, data: URLEncodedBody[dict[str, str]]
    ) -> Template:
        user_id = await signed_in_user(request, app_state)
        agent = data.get("agent", "").strip()
        known = app_state.settings.memory.categories
        try:
            if not agent:
                raise InvalidInput("give the agent's id", field="agent")
            await put_agent_access(app_state.db, user_id, agent, access_from_form(data, known), known)
        except InvalidInput as e:
            context = await _page(app_state, user_id, error=str(e))
            return Template("agents.html", context=context | {"choice": _choice}, status_code=400)
        context = await _page(app_state, user_id, saved=agent)
        return Template("agents.html", context=context | {"choice": _choice})
