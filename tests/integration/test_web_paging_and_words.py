"""The /memory pages say what they show: a later page with nothing left, lists past one page,
a search box's limit, a yes/no in the address, and a refusal's status.

Walkthroughs found: ``/memory/activity?before=1`` (an "Older" page with nothing older) said
"Nothing has happened yet."; the trash showed its first 200 entries and the people & things
their first 100, with no word of the rest and no way to reach them; the search box cut ``q`` at
2,000 characters in silence (the API's search takes 20,000); ``?ended=yes`` on the Memories
page was read as no; and the Agents tab answered every refusal 400, a missing agent and a
conflict too. The pages now page as the palace does (``?offset=``, "← Newer", "More →"),
refuse what they cannot read naming the field, and answer at the API's status.
"""

from __future__ import annotations

import html
import re
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest
from httpx import ASGITransport, AsyncClient
from litestar.testing import AsyncTestClient

from domain import preferences
from loci.db import Database
from loci.embedder import Embedder
from loci.errors import Conflict, NotFound
from loci.settings import Settings
from retrieval import MAX_MESSAGE_CHARS
from service.mcp.server import run_tool
from service.state import AppState, Caller
from service.web import access_pages, pages
from tests.conftest import UserHandle
from tests.palace_seed import seed_palace

NewUser = Callable[..., Awaitable[UserHandle]]


@pytest.fixture
async def browser(client: AsyncTestClient) -> AsyncIterator[AsyncClient]:  # type: ignore[type-arg]
    async with AsyncClient(transport=ASGITransport(app=client.app), base_url="http://testserver.local") as c:
        yield c


async def _signed_in(browser: AsyncClient, user: UserHandle) -> None:
    assert (await browser.post("/memory/login", data={"key": user.key})).status_code == 303


def _text(page: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())


def _ids(page: str, attribute: str = "data-id") -> list[str]:
    return re.findall(rf'{attribute}="(\d+)"', page)


async def test_an_activity_page_past_the_last_says_nothing_is_older(
    browser: AsyncClient, db: Database, new_user: NewUser
) -> None:
    fresh = await new_user("activity-empty")
    await _signed_in(browser, fresh)
    assert "Nothing has happened yet." in _text((await browser.get("/memory/activity")).text)
    user = await new_user("activity-older")
    seeded = await seed_palace(db, user.id, f"a{secrets.token_hex(3)}")
    await _signed_in(browser, user)
    await browser.post(f"/memory/delete/drawer/{seeded.drawers[0]}", data={"back": "/memory"})
    assert "Deleted a drawer" in _text((await browser.get("/memory/activity")).text)
    later = _text((await browser.get("/memory/activity", params={"before": 1})).text)
    assert "Nothing older than that." in later and "Nothing has happened yet." not in later, later
    assert "← Newest" in later


async def test_the_trash_pages_past_its_first_page(
    browser: AsyncClient, db: Database, new_user: NewUser, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pages, "TRASH_PAGE", 2)  # three entries, pages of two
    user = await new_user("trash-pages")
    seeded = await seed_palace(db, user.id, f"t{secrets.token_hex(3)}")
    await _signed_in(browser, user)
    for drawer in seeded.drawers[:3]:
        await browser.post(f"/memory/delete/drawer/{drawer}", data={"back": "/memory"})
    first = await browser.get("/memory/trash")
    assert first.status_code == 200 and len(_ids(first.text)) == 2, first.text
    assert "3 items, showing 1–2" in _text(first.text) and 'href="/memory/trash?offset=2">More →' in first.text
    second = await browser.get("/memory/trash", params={"offset": 2})
    assert len(_ids(second.text)) == 1 and "showing 3–3" in _text(second.text), second.text
    assert 'href="/memory/trash?offset=0">← Newer' in second.text and "More →" not in second.text
    assert sorted(_ids(first.text) + _ids(second.text)) == sorted(map(str, seeded.drawers[:3]))
    past = await browser.get("/memory/trash", params={"offset": 4})
    assert "Nothing more in the trash." in _text(past.text) and "The trash is empty." not in past.text


async def test_people_and_things_page_on_and_say_where_the_list_stops(
    browser: AsyncClient, db: Database, new_user: NewUser, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pages, "ENTITY_PAGE", 1)
    user = await new_user("entity-pages")
    await seed_palace(db, user.id, f"e{secrets.token_hex(3)}")
    await _signed_in(browser, user)
    first = await browser.get("/memory/entities")
    shown = re.findall(r'href="/memory/entities/(\d+)"', first.text)
    assert len(shown) == 1 and 'href="/memory/entities?offset=1">More →' in first.text, first.text
    assert "showing 1–1" in _text(first.text)
    second = await browser.get("/memory/entities", params={"offset": 1})
    more = re.findall(r'href="/memory/entities/(\d+)"', second.text)
    assert len(more) == 1 and more != shown and "← More mentioned" in second.text, second.text
    every = re.findall(r'href="/memory/entities/(\d+)"', (await browser.get("/memory/entities?offset=0")).text)
    listed = [re.findall(r'href="/memory/entities/(\d+)"', (await browser.get(f"/memory/entities?offset={i}")).text)
              for i in range(8)]  # fmt: skip
    assert every == shown and len({tuple(x) for x in listed if x}) == len([x for x in listed if x])  # no repeats
    last = next(i for i, x in enumerate(listed) if not x)  # the list runs to its end, one a page
    assert last >= 2 and "More →" not in (await browser.get(f"/memory/entities?offset={last - 1}")).text


async def test_search_takes_the_api_s_length_and_refuses_more_naming_q(browser: AsyncClient, new_user: NewUser) -> None:
    user = await new_user("search-length")
    await _signed_in(browser, user)
    long = ("where did I leave my keys " * 100)[:2500].strip()
    page = await browser.get("/memory/search", params={"q": long})
    assert page.status_code == 200 and f'value="{long}"' in page.text  # was cut to its first 2,000
    over = await browser.get("/memory/search", params={"q": "k" * (MAX_MESSAGE_CHARS + 1)})
    assert over.status_code == 400, over.text[:300]
    assert f"q is longer than {MAX_MESSAGE_CHARS} characters" in _text(over.text)


@pytest.mark.parametrize(("ended", "past"), [("1", True), ("true", True), ("True", True), ("0", False),
                                             ("false", False), ("", False)])  # fmt: skip
async def test_ended_takes_the_api_s_yes_and_no(
    browser: AsyncClient, new_user: NewUser, ended: str, past: bool
) -> None:
    user = await new_user("ended-words")
    await _signed_in(browser, user)
    page = await browser.get("/memory/memories", params={"ended": ended})
    assert page.status_code == 200, page.text
    assert ("← Back to current memories" in page.text) is past, page.text


@pytest.mark.parametrize("ended", ["yes", "no", "2"])
async def test_ended_refuses_other_words_naming_it(browser: AsyncClient, new_user: NewUser, ended: str) -> None:
    user = await new_user("ended-refused")
    await _signed_in(browser, user)
    page = await browser.get("/memory/memories", params={"ended": ended})
    assert page.status_code == 400, page.text
    assert "ended must be true or false (or 1 or 0)" in _text(page.text)


@pytest.mark.parametrize(("error", "status"), [(NotFound("agent 'coder' not found"), 404),
                                               (Conflict("changed meanwhile; try again"), 409)])  # fmt: skip
async def test_the_agents_tab_answers_at_the_api_s_status(
    browser: AsyncClient, new_user: NewUser, monkeypatch: pytest.MonkeyPatch, error: Exception, status: int
) -> None:
    async def refuse(*_: Any, **__: Any) -> None:
        raise error

    monkeypatch.setattr(access_pages, "save_agent_reach", refuse)
    user = await new_user("agents-status")
    await _signed_in(browser, user)
    page = await browser.post("/memory/agents/", data={"agent": "coder", "show_fact": "never"})
    assert page.status_code == status, page.text
    assert str(error) in _text(page.text) and "Back to the agents" in page.text


async def test_the_agents_tab_pages_instead_of_listing_every_agent(
    browser: AsyncClient, db: Database, new_user: NewUser, monkeypatch: pytest.MonkeyPatch
) -> None:
    """3,000 agents made the tab one 16 MB page of forms; it now shows a page of them at a time."""
    monkeypatch.setattr(access_pages, "AGENTS_PAGE", 2, raising=False)  # three agents, pages of two
    user = await new_user("agents-pages")
    for agent in ("ann", "bob", "cid"):
        await preferences.put_agent(db, user.id, agent, preferences.AgentUpdate(recall_enabled=True))
    await _signed_in(browser, user)
    first = await browser.get("/memory/agents/")
    assert re.findall(r'data-agent="(\w*)"', first.text) == ["ann", "bob", ""], first.text  # "" is the new-agent form
    assert "showing 1–2" in _text(first.text) and 'href="/memory/agents/?offset=2">More →' in first.text
    second = await browser.get("/memory/agents/", params={"offset": 2})
    assert re.findall(r'data-agent="(\w*)"', second.text) == ["cid", ""], second.text
    assert 'href="/memory/agents/?offset=0">← Earlier' in second.text and "More →" not in second.text
    past = await browser.get("/memory/agents/", params={"offset": 4})
    assert "No more agents." in _text(past.text) and "No agent has used" not in past.text
    # a form saved on the second page answers that page, where the agent is (review)
    assert 'action="/memory/agents/?offset=2" data-agent="cid"' in second.text, second.text
    saved = await browser.post("/memory/agents/?offset=2", data={"agent": "cid", "wings": ""})
    assert saved.status_code == 200 and re.findall(r'data-agent="(\w*)"', saved.text) == ["cid", ""], saved.text


async def test_an_entity_timeline_pages_in_the_api_and_on_its_page(
    client: AsyncTestClient,  # type: ignore[type-arg]
    browser: AsyncClient,
    settings: Settings,
    embedder: Embedder,
    db: Database,
    new_user: NewUser,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The user's own entity is in nearly every mined fact: 4,000 relations made a 1 MB answer
    and page, as the timeline listed them all."""
    user = await new_user("timeline-pages")
    alice = (await seed_palace(db, user.id, f"l{secrets.token_hex(3)}")).entities[0]
    path = f"/v1/entities/{alice}/timeline"
    first = (await client.get(path, params={"limit": 1}, headers=user.headers)).json()
    assert [r["object"] for r in first["relations"]] == ["Lyon"] and first["next_offset"] == 1, first
    second = (await client.get(path, params={"limit": 1, "offset": 1}, headers=user.headers)).json()
    assert len(second["relations"]) == 1 and "Paris" in second["relations"][0]["object"], second
    assert second["next_offset"] is None
    whole = (await client.get(path, headers=user.headers)).json()
    assert len(whole["relations"]) == 2 and whole["next_offset"] is None
    refused = await client.get(path, params={"limit": 0}, headers=user.headers)
    assert refused.status_code == 400 and "limit" in refused.text
    monkeypatch.setattr(pages, "TIMELINE_PAGE", 1)
    await _signed_in(browser, user)
    page = await browser.get(f"/memory/entities/{alice}")
    assert "Lyon" in page.text and "Paris" not in _text(page.text), page.text
    assert f'href="/memory/entities/{alice}?offset=1">Older →' in page.text
    # the MCP tool reads the same pages (review): its offset skips the newest
    state, caller = AppState(settings=settings, db=db, embedder=embedder), Caller(user.id)
    tool = await run_tool(state, caller, "entity_timeline", {"entity": alice, "offset": 1})
    assert not tool.is_error and "Paris" in tool.content[0].text and "Lyon" not in tool.content[0].text  # type: ignore[union-attr]
    older = await browser.get(f"/memory/entities/{alice}", params={"offset": 1})
    assert "Paris" in _text(older.text) and "Lyon" not in _text(older.text) and "← Newer" in older.text
