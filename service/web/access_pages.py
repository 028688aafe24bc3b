"""The /memory "Agents" tab: what each agent may see, as one plain form per agent.

Thin, like the other pages: what a row says comes from `domain.agent_reach` (the scope the
API enforces, read from the same stored access), and a save goes through the same domain
function into the API's `AgentAccess` record. Per category one choice says everything, in
the words of `WORDS`, among the choices the domain allows for it: *In every conversation*
(``block``), *Only when relevant* (``recall``, with an optional most-per-answer), *Only
when it asks for them* (``query``: an agent-only category such as procedures) or *Never*;
wings are typed as names or slugs, empty for all.
"""

from __future__ import annotations

from typing import Any

from litestar import Controller, Request, Response, get, post
from litestar.params import URLEncodedBody
from litestar.response import Template

from domain import preferences
from domain.agent_reach import REACHES, Reach, agent_reaches, save_agent_reach
from ingest import slugify
from loci.errors import InvalidInput, LociError
from loci.inputs import ID_PATTERN, check_id
from loci.settings import MemorySettings
from service.deps import StateDep
from service.errors import status_of
from service.web.pages import Offset
from service.web.session import SignInNeeded, redirect_to_sign_in, signed_in_user

__all__ = ["AGENTS_PAGE", "WORDS", "AccessPages", "choices_from_form"]

WORDS: dict[Reach, str] = {
    "block": "In every conversation",
    "recall": "Only when relevant",
    "query": "Only when it asks for them",
    "never": "Never",
}
"""How each reach (`domain.agent_reach.Reach`) reads on the page; the form sends the reach."""


def choices_from_form(
    form: dict[str, str], settings: MemorySettings
) -> tuple[dict[str, Reach], dict[str, int | None], list[str]]:
    """The form's fields (``show_<category>``, ``cap_<category>``, ``wings``) as choices, caps and wing slugs."""
    choices: dict[str, Reach] = {}
    caps: dict[str, int | None] = {}
    for category in settings.categories:
        choice = form.get(f"show_{category}")
        if choice is None:
            continue
        if choice not in REACHES:
            raise InvalidInput(f"unknown choice {choice!r} for {category}", field=f"show_{category}")
        choices[category] = choice
        cap = form.get(f"cap_{category}", "").strip()
        if cap and not cap.isdigit():
            raise InvalidInput(f"the most per answer for {category} must be a whole number", field=f"cap_{category}")
        caps[category] = int(cap) if cap else None
    wings = [slugify(w) for w in form.get("wings", "").split(",") if w.strip()]
    return choices, caps, wings


AGENTS_PAGE = 25
"""Agents per page (``?offset=`` pages on, "More →"): each is a whole form, ~5 KB of HTML, and
the tab listed every agent at once (16 MB and 1.7 s for 3,000)."""


async def _page(app_state: Any, user_id: int, offset: int = 0, **extra: Any) -> dict[str, Any]:
    found = await preferences.list_agents(app_state.db, user_id, limit=AGENTS_PAGE + 1, offset=offset)
    shown = [a.external_id for a in found[:AGENTS_PAGE]]
    views = await agent_reaches(app_state.db, user_id, shown, app_state.settings.memory)
    context = {"agents": views[:-1], "unset": views[-1], "words": WORDS, "offset": offset, "page_size": AGENTS_PAGE}
    context |= {"more": len(found) > AGENTS_PAGE, "error": None, "saved": None, "id_pattern": ID_PATTERN[1:-1]}
    return context | extra


def _error_page(request: Request[Any, Any, Any], exc: LociError) -> Response[Any]:
    """The message page at the status the API answers the same error with (`service.errors.status_of`):
    an agent that is not found is a 404 and a conflict a 409 here too, not a 400 for anything."""
    status = status_of(exc)
    title = "Not found" if status == 404 else "Something went wrong" if status >= 500 else "Cannot do that"
    back = {"href": "/memory/agents", "label": "Back to the agents"}
    return Template("message.html", context={"title": title, "message": str(exc), "back": back}, status_code=status)


class AccessPages(Controller):
    path = "/memory/agents"
    include_in_schema = False
    exception_handlers = {SignInNeeded: redirect_to_sign_in, LociError: _error_page}  # noqa: RUF012

    @get("/", name="memory:agents")
    async def agents(self, request: Request[Any, Any, Any], app_state: StateDep, offset: Offset = 0) -> Template:
        user_id = await signed_in_user(request, app_state)
        return Template("agents.html", context=await _page(app_state, user_id, offset))

    @post("/", name="memory:agents-post", status_code=200)
    async def save(
        self,
        request: Request[Any, Any, Any],
        app_state: StateDep,
        data: URLEncodedBody[dict[str, str]],
        offset: Offset = 0,
    ) -> Template:
        """Save one agent's form and show the page it was sent from (``offset``), where it is."""
        user_id = await signed_in_user(request, app_state)
        agent = data.get("agent", "").strip()
        settings = app_state.settings.memory
        try:
            if not agent:
                raise InvalidInput("give the agent's id", field="agent")
            check_id(agent, field="agent")  # the form's name for it: the domain says external_id
            choices, caps, wings = choices_from_form(data, settings)
            await save_agent_reach(app_state.db, user_id, agent, choices, caps, wings, settings)
        except InvalidInput as e:
            page = await _page(app_state, user_id, offset, error=str(e))
            return Template("agents.html", context=page, status_code=400)
        return Template("agents.html", context=await _page(app_state, user_id, offset, saved=agent))
