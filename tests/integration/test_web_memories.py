"""The Memories view and the profile editor of the /memory page, over HTTP (no browser).

Memories are saved through the API (or seeded, for an extracted one) and read on the
page; forget, confirm, edit, undo and restore go through the page's own forms, and each
write's flash ("Memory forgotten · Undo") carries the event id the Undo form posts.
"""

from __future__ import annotations

import html
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest
from httpx import ASGITransport, AsyncClient, Response
from litestar.testing import AsyncTestClient

from loci.db import Database
from tests.conftest import UserHandle
from tests.memory_seed import seed_memory

NewUser = Callable[..., Awaitable[UserHandle]]
Client = AsyncTestClient  # type: ignore[type-arg]
UNDO_FORM = re.compile(r'action="/memory/undo/(\d+)"')


@pytest.fixture
async def browser(client: Client) -> AsyncIterator[AsyncClient]:
    async with AsyncClient(transport=ASGITransport(app=client.app), base_url="http://testserver.local") as c:
        yield c


async def _signed_in(browser: AsyncClient, user: UserHandle) -> None:
    answer = await browser.post("/memory/login", data={"key": user.key})
    assert answer.status_code == 303


async def _save(client: Client, user: UserHandle, **body: Any) -> dict[str, Any]:
    answer = await client.post("/v1/memories", json=body, headers=user.headers)
    assert answer.status_code == 201, answer.text
    memory: dict[str, Any] = answer.json()["memory"]
    return memory


def _text(page: Response) -> str:
    """The page's text with tags dropped and entities decoded, white space collapsed."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page.text)).split())


async def _follow(browser: AsyncClient, answer: Response) -> Response:
    assert answer.status_code == 303, answer.text
    return await browser.get(answer.headers["location"])


async def test_memories_grouped_with_who_saved_them_and_filters(
    browser: AsyncClient, client: Client, db: Database, new_user: NewUser
) -> None:
    user = await new_user("mem-view")
    await _save(client, user, content="Prefers metric units", category="preference", summary="Metric")
    await _save(client, user, content="Replies in short paragraphs", category="response_style", agent_id="support-bot")
    await _save(client, user, content="Lives in Lyon", category="profile", layer="core", pinned=True, importance=5)
    await seed_memory(db, user.id, "Has a cat called Miso", source="extracted", confidence=0.8)
    for path in ("/memory/memories", "/memory/profile", "/memory/memories/1"):
        assert (await browser.get(path)).headers["location"] == "/memory/login"  # not signed in yet
    assert (await browser.post("/memory/profile", data={"markdown": ""})).headers["location"] == "/memory/login"
    await _signed_in(browser, user)
    page = await browser.get("/memory/memories")
    assert page.status_code == 200
    text = _text(page)
    headings = re.findall(r"<h2>([^<]+?) <span", page.text)
    assert headings == ["Profile", "Preference", "Response style", "Fact"]  # LOCI_MEMORY_CATEGORIES order
    assert "Prefers metric units In short: Metric Saved by you · since " in text
    assert "Saved by agent “support-bot”" in text
    assert "Learned from a conversation (likely, 80%)" in text
    assert "in your profile · pinned · essential" in text
    assert 'aria-current="page">Memories<' in page.text

    agents = _text(await browser.get("/memory/memories", params={"source": "agent"}))
    assert "Replies in short paragraphs" in agents and "Prefers metric units" not in agents
    core = _text(await browser.get("/memory/memories", params={"layer": "core"}))
    assert "Lives in Lyon" in core and "Has a cat" not in core
    bad = await browser.get("/memory/memories", params={"layer": "attic"})
    assert bad.status_code == 400 and "layer must be one of core, knowledge, archive" in _text(bad)


async def test_forget_from_the_page_then_undo_from_the_flash(
    browser: AsyncClient, client: Client, new_user: NewUser
) -> None:
    user = await new_user("mem-forget")
    saved = await _save(client, user, content="Works at Acme", category="fact")
    await _signed_in(browser, user)
    forgotten = await browser.post(f"/memory/memories/{saved['id']}/forget", data={"back": "/memory/memories"})
    assert re.search(r"/memory/memories\?done=forget&event=\d+$", forgotten.headers["location"])
    page = await _follow(browser, forgotten)
    assert "Memory forgotten · Undo" in _text(page) and "Works at Acme" not in _text(page)
    [event] = UNDO_FORM.findall(page.text)
    assert forgotten.headers["location"].endswith(f"event={event}")

    past = _text(await browser.get("/memory/memories", params={"ended": "1"}))
    assert "Works at Acme Forgotten on " in past and "brought back since" not in past

    undone = await browser.post(f"/memory/undo/{event}", data={"back": "/memory/memories"})
    assert undone.headers["location"] == "/memory/memories?done=undo"  # an undo is not undoable: no event
    page = await _follow(browser, undone)
    assert "Undone" in _text(page) and "Works at Acme" in _text(page) and not UNDO_FORM.search(page.text)
    past = _text(await browser.get("/memory/memories", params={"ended": "1"}))
    assert "Works at Acme Forgotten on " in past and "· brought back since · Fact · Saved by you" in past
    again = await browser.post(f"/memory/undo/{event}", data={"back": "/memory/memories"})
    assert again.status_code == 409 and "was undone already" in _text(again)

    [active] = re.findall(r'<li data-id="(\d+)"', page.text)  # the undo brought back a copy: a new version
    confirmed = await _follow(
        browser, await browser.post(f"/memory/memories/{active}/confirm", data={"back": "/memory/memories"})
    )
    assert "Marked as still true · Undo" in _text(confirmed) and " · confirmed " in _text(confirmed)


async def test_edit_history_sentences_undo_and_restore(browser: AsyncClient, client: Client, new_user: NewUser) -> None:
    user = await new_user("mem-history")
    saved = await _save(client, user, content="Lives in Lyon", category="fact")
    await _signed_in(browser, user)
    form = await browser.get(f"/memory/memories/{saved['id']}/edit")
    assert ">\nLives in Lyon</textarea>" in form.text  # a textarea: it keeps line breaks
    blank = await browser.post(f"/memory/memories/{saved['id']}/edit", data={"content": "  "})
    assert blank.status_code == 400 and "cannot be empty" in _text(blank) and 'id="content-error"' in blank.text
    long = await browser.post(f"/memory/memories/{saved['id']}/edit", data={"content": "x" * 600})
    assert long.status_code == 400 and "over the limit of 500" in _text(long)

    edited = await browser.post(f"/memory/memories/{saved['id']}/edit", data={"content": "Lives in Paris"})
    new_id = int(re.search(r"/memory/memories/(\d+)\?done=update", edited.headers["location"]).group(1))  # type: ignore[union-attr]
    history = await _follow(browser, edited)
    text = _text(history)
    assert "Memory updated · Undo" in text and '<h1 dir="auto">Lives in Paris</h1>' in history.text
    assert "You saved this on " in text and "Updated from “Lives in Lyon” to “Lives in Paris” on " in text

    forgotten = await _follow(
        browser, await browser.post(f"/memory/memories/{new_id}/forget", data={"then": "history"})
    )
    text = _text(forgotten)
    assert re.search(r"Forgotten on \d{1,2} [A-Z][a-z]+ \d{4}", text)
    assert len(UNDO_FORM.findall(forgotten.text)) == 2  # the flash's and the latest event's: the same event
    assert len(set(UNDO_FORM.findall(forgotten.text))) == 1
    assert 'action="/memory/memories/' in forgotten.text and ">Restore</button>" in forgotten.text

    restored = await _follow(
        browser, await browser.post(f"/memory/memories/{new_id}/restore", data={"back": "/memory/memories"})
    )
    assert "Memory restored · Undo" in _text(restored) and "Restored on " in _text(restored)
    assert "current since" in _text(restored) and ">Restore</button>" not in restored.text
    past = _text(await browser.get("/memory/memories", params={"ended": "1"}))
    assert "Lives in Lyon Updated on " in past and "a newer version is current" in past
    old = _text(await browser.get(f"/memory/memories/{saved['id']}"))
    assert "You opened an earlier version: “Lives in Lyon” (updated on " in old


async def test_other_users_memory_is_a_404_page(browser: AsyncClient, client: Client, new_user: NewUser) -> None:
    alice, bob = await new_user("mem-alice"), await new_user("mem-bob")
    theirs = await _save(client, bob, content="Bob's secret plan", category="fact")
    await _signed_in(browser, alice)
    for answer in (
        await browser.get(f"/memory/memories/{theirs['id']}"),
        await browser.get(f"/memory/memories/{theirs['id']}/edit"),
        await browser.post(f"/memory/memories/{theirs['id']}/forget", data={"back": "/memory/memories"}),
        await browser.post(f"/memory/memories/{theirs['id']}/restore", data={}),
    ):
        assert answer.status_code == 404 and "Not found" in answer.text and "secret plan" not in answer.text
    assert "Bob" not in _text(await browser.get("/memory/memories"))
    listed = await client.get("/v1/memories", headers=bob.headers)
    assert [m["content"] for m in listed.json()["items"]] == ["Bob's secret plan"]
    mine = await _save(client, alice, content="Alice's own note", category="fact")
    for back in ("https://evil.example/", "//evil.example/memory", "/memory\\@evil.example"):
        answer = await browser.post(f"/memory/memories/{mine['id']}/confirm", data={"back": back})
        assert answer.headers["location"].startswith("/memory/memories?done=confirm&event=")


async def test_profile_editor_save_counts_and_errors(browser: AsyncClient, client: Client, new_user: NewUser) -> None:
    user = await new_user("mem-profile")
    await _signed_in(browser, user)
    empty = await browser.get("/memory/profile")
    assert empty.status_code == 200 and "0 of 1,000 characters" in _text(empty)
    assert "Nothing yet" in _text(empty)

    markdown = "## Profile\r\n- Lives in Lyon\r\n\r\n## Response style\r\n- Short answers, no emoji\r\n"
    saved = await browser.post("/memory/profile", data={"markdown": markdown})
    text = _text(saved)
    assert saved.status_code == 200 and "Profile saved: 2 lines added, 0 lines removed" in text
    assert "36 of 1,000 characters" in text  # 13 + 23, counted as the server caps it
    preview = html.unescape(saved.text.split('<pre class="block">')[1].split("</pre>")[0])
    assert preview.startswith('<user_memory revision="') and "## Profile\n- Lives in Lyon\n" in preview
    got = await client.get("/v1/profile", headers=user.headers)
    assert got.json()["size"] == 36

    unknown = await browser.post("/memory/profile", data={"markdown": "## Hobbies\n- Chess\n"})
    assert unknown.status_code == 400
    assert re.search(r'<p class="error" id="markdown-error" role="alert">[^<]*unknown heading', unknown.text)
    assert "- Chess" in unknown.text  # what was typed stays in the textarea

    lines = "\n".join(f"- {c * 400}" for c in "abc")
    over = await browser.post("/memory/profile", data={"markdown": f"## Fact\n{lines}\n"})
    text = _text(over)
    assert over.status_code == 422
    assert "Not saved: your profile would be 1,200 characters, over the limit of 1,000 characters" in text
    assert "(it is 36 characters now)" in text and "Profile: “Lives in Lyon” (13 characters)" in text
    assert "1,200 of 1,000 characters" in text and 'class="count over"' in over.text
    assert (await client.get("/v1/profile", headers=user.headers)).json()["size"] == 36
