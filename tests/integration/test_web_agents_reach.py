"""The /memory "Agents" tab says what the API enforces, for an agent nobody set up and after a save.

For each category the page states one reach (every conversation, only when relevant, only
when the agent asks for it, never). The test reads those from the HTML and checks them
against the real paths: the session-start block (`GET /v1/context`) holds exactly the
categories shown "in every conversation", and the scoped query refuses procedures to an
agent the page says never gets them and answers one the page says asks for them.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

from httpx import ASGITransport, AsyncClient
from litestar.testing import AsyncTestClient

from loci.db import Database
from loci.embedder import Embedder
from tests.conftest import UserHandle
from tests.memory_seed import seed_memory

Client = AsyncTestClient  # type: ignore[type-arg]
NewUser = Callable[..., Awaitable[UserHandle]]

SEEDED = {  # category -> (content, layer)
    "preference": ("Prefers green tea in the morning", "knowledge"),
    "fact": ("Works as a nurse in Leeds", "knowledge"),
    "insight": ("The user tends to plan trips around food", "knowledge"),
    "summary": ("Talked through the spring garden plan and chose raised beds", "archive"),
    "procedure": ("How to water the raised beds", "knowledge"),
}


def _form(html: str, agent: str) -> str:
    found = re.search(rf'<form method="post" action="/memory/agents/" data-agent="{agent}">(.*?)</form>', html, re.S)
    assert found, f"no form for agent {agent!r}"
    return found[1]


def _reaches(form: str) -> dict[str, str]:
    return dict(re.findall(r'<tr data-category="(\w+)" data-reach="(\w+)"[^>]*>', form))


def _options(form: str, category: str) -> list[str]:
    select = re.search(rf'name="show_{category}">(.*?)</select>', form, re.S)
    assert select
    return re.findall(r'<option value="(\w+)"', select[1])


@asynccontextmanager
async def _browser(client: Client, user: UserHandle) -> AsyncIterator[AsyncClient]:
    """A signed-in /memory session."""
    async with AsyncClient(transport=ASGITransport(app=client.app), base_url="http://testserver.local") as browser:
        assert (await browser.post("/memory/login", data={"key": user.key})).status_code == 303
        yield browser


async def _query(client: Client, user: UserHandle, agent: str) -> int:
    body = {"agent": agent, "query": "water the raised beds", "categories": ["procedure"]}
    return (await client.post("/v1/memory/query", json=body, headers=user.headers)).status_code


async def test_an_agent_nobody_set_up_is_shown_what_the_api_gives_it(
    client: Client, db: Database, embedder: Embedder, new_user: NewUser
) -> None:
    user = await new_user("agents-reach")
    for category, (content, layer) in SEEDED.items():
        body = "1. Fill the can\n2. Water at the roots" if category == "procedure" else None
        await seed_memory(db, user.id, content, category=category, layer=layer, body=body, embedder=embedder)
    async with _browser(client, user) as browser:
        html = (await browser.get("/memory/agents/")).text
    assert "see everything" not in html
    form = _form(html, "")
    shown = _reaches(form)
    assert {c: shown[c] for c in SEEDED} == {
        "preference": "block",
        "fact": "block",
        "insight": "recall",
        "summary": "recall",
        "procedure": "never",
    }
    assert _options(form, "procedure") == ["query", "never"]
    assert _options(form, "insight") == _options(form, "summary") == ["recall", "never"]
    assert _options(form, "fact") == ["block", "recall", "never"]
    assert "In every conversation</option>" not in form.split('name="show_insight"')[1].split("</select>")[0]
    assert 'name="cap_procedure"' not in form

    block = (await client.get("/v1/context", params={"agent_id": "stranger"}, headers=user.headers)).json()["block"]
    for category, (content, _) in SEEDED.items():
        assert (content in block) == (shown[category] == "block"), category
    assert await _query(client, user, "stranger") == 403  # "never", as the page says


async def test_saving_the_form_gives_the_agent_what_the_page_then_shows(client: Client, new_user: NewUser) -> None:
    user = await new_user("agents-save")
    async with _browser(client, user) as browser:
        form = _form((await browser.get("/memory/agents/")).text, "")
        defaults = _reaches(form)
        for agent, changes in (("plain", {}), ("deployer", {"procedure": "query"})):
            fields = {f"show_{c}": changes.get(c, reach) for c, reach in defaults.items()} | {"agent": agent}
            saved = await browser.post("/memory/agents/", data=fields)
            assert saved.status_code == 200 and f"Saved “{agent}”." in saved.text
        html = (await browser.get("/memory/agents/")).text
        refused = await browser.post(
            "/memory/agents/", data={"agent": "odd", "show_insight": "block", "show_procedure": "never"}
        )
        assert refused.status_code == 400 and "insight cannot be" in refused.text

    assert _reaches(_form(html, "plain")) == defaults
    assert _reaches(_form(html, "deployer")) == defaults | {"procedure": "query"}
    plain = (await client.get("/v1/agents/plain/access", headers=user.headers)).json()
    assert plain["categories"] is None, "the defaults, saved as they are, need no allowlist"
    deployer = (await client.get("/v1/agents/deployer/access", headers=user.headers)).json()
    assert deployer["categories"] == sorted([*(c for c, reach in defaults.items() if reach != "never"), "procedure"])
    assert await _query(client, user, "plain") == 403
    assert await _query(client, user, "deployer") == 200
