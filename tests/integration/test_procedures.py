"""Procedures over real HTTP: agent-only memories with numbered steps.

``deployer`` may see procedures (its allowlist names the category), ``helper`` may see
facts only, ``stranger`` has no allowlist at all. A procedure the user saved (shared) and
one ``deployer`` saved for itself must reach ``deployer`` through the scoped query and
nobody else, and never the session-start block or ordinary recall, whoever asks.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from litestar.testing import AsyncTestClient

from tests.conftest import UserHandle

Client = AsyncTestClient  # type: ignore[type-arg]
NewUser = Callable[..., Awaitable[UserHandle]]

TITLE = "How to deploy the website to production"
QUERY = "deploy the website to production"
STEPS = (
    "1) Run the test suite\n  - Build the release image\nStep 3: push the image\n   to the registry\n\n"
    "4. Restart the web service"
)
NUMBERED = (
    "1. Run the test suite\n2. Build the release image\n3. push the image to the registry\n4. Restart the web service"
)


async def ok(response: Any) -> dict[str, Any]:
    assert response.status_code in (200, 201), response.text
    body: dict[str, Any] = response.json()
    return body


async def setup(client: Client, user: UserHandle) -> tuple[int, int, int]:
    """Access lists, a fact, the user's shared procedure and deployer's own; their ids."""
    h = user.headers
    await ok(await client.put("/v1/agents/deployer/access", json={"categories": ["procedure", "fact"]}, headers=h))
    await ok(await client.put("/v1/agents/helper/access", json={"categories": ["fact"]}, headers=h))
    fact = await ok(
        await client.post(
            "/v1/memories", json={"content": "The website runs on Kubernetes", "category": "fact"}, headers=h
        )
    )
    shared = await ok(
        await client.post("/v1/memories", json={"content": TITLE, "category": "procedure", "body": STEPS}, headers=h)
    )
    own = await ok(
        await client.post(
            "/v1/memories",
            json={"content": "How to roll back a website deploy", "category": "procedure", "agent_id": "deployer",
                  "body": "Find the previous image tag\nRedeploy that tag"},
            headers=h,
        )
    )  # fmt: skip
    return fact["memory"]["id"], shared["memory"]["id"], own["memory"]["id"]


async def query(client: Client, user: UserHandle, agent: str, **body: Any) -> Any:
    asked = {"agent": agent, "query": QUERY, "return": "full", "top_k": 20} | body
    return await client.post("/v1/memory/query", json=asked, headers=user.headers)


def memory_ids(body: dict[str, Any]) -> set[int]:
    return {item["id"] for item in body["items"] if item["kind"] == "memory"}


async def test_steps_are_renumbered_on_save_and_update(client: Client, new_user: NewUser) -> None:
    user = await new_user("procedure-steps")
    _, shared, own = await setup(client, user)
    stored = (await ok(await client.get(f"/v1/memories/{shared}", headers=user.headers)))["memory"]
    assert stored["body"] == NUMBERED and stored["content"] == TITLE
    assert (await ok(await client.get(f"/v1/memories/{own}", headers=user.headers)))["memory"]["body"] == (
        "1. Find the previous image tag\n2. Redeploy that tag"
    )
    updated = await ok(
        await client.post(
            "/v1/memories/update", json={"id_or_text": shared, "body": "- Tag the release\n- Ship it"},
            headers=user.headers,
        )
    )  # fmt: skip
    assert updated["memory"]["body"] == "1. Tag the release\n2. Ship it"


async def test_a_procedure_without_steps_is_a_400_naming_body(client: Client, new_user: NewUser) -> None:
    user = await new_user("procedure-bad")
    for body in ({}, {"body": "  \n \n"}, {"body": "\n".join(f"{i}. step" for i in range(1, 52))}):
        response = await client.post(
            "/v1/memories", json={"content": "How to do it", "category": "procedure"} | body, headers=user.headers
        )
        assert response.status_code == 400, response.text
        assert response.json()["extra"][0]["key"] == "body", response.text


async def test_only_an_agent_whose_allowlist_names_procedures_gets_them(client: Client, new_user: NewUser) -> None:
    user = await new_user("procedure-reach")
    fact, shared, own = await setup(client, user)
    found = await ok(await query(client, user, "deployer"))
    assert {shared, own} <= memory_ids(found)
    [item] = [i for i in found["items"] if i["id"] == shared]
    assert item["memory"]["body"] == NUMBERED
    only = await ok(await query(client, user, "deployer", categories=["procedure"]))
    assert memory_ids(only) == {shared, own}

    for agent in ("helper", "stranger"):
        seen = await ok(await query(client, user, agent))
        assert not {shared, own} & memory_ids(seen), agent
        denied = await query(client, user, agent, categories=["procedure"])
        assert denied.status_code == 403, denied.text
        assert "'procedure'" in denied.json()["detail"] and denied.json()["extra"][0]["key"] == "categories"
    assert fact in memory_ids(await ok(await query(client, user, "stranger")))


async def test_procedures_never_enter_the_block_or_recall(client: Client, new_user: NewUser) -> None:
    user = await new_user("procedure-quiet")
    h = user.headers
    fact, shared, own = await setup(client, user)
    for agent in (None, "deployer", "stranger"):
        params = {"agent_id": agent} if agent else {}
        block = await ok(await client.get("/v1/context", params=params, headers=h))
        assert "Kubernetes" in block["block"] and "deploy" not in block["block"], agent
        assert "procedure" not in {c["category"] for c in block["categories"]}
        recalled = await ok(await client.post("/v1/recall", json={"message": QUERY, **params}, headers=h))
        ids = {m["id"] for m in recalled["memories"]}
        assert fact in ids and not {shared, own} & ids, agent
        assert "deploy" not in (recalled["context"] or "").lower().replace("website runs", "")
    denied = await client.post(
        "/v1/recall", json={"message": QUERY, "agent_id": "deployer", "filters": {"category": "procedure"}}, headers=h
    )
    assert denied.status_code == 403 and denied.json()["extra"][0]["key"] == "filters.category", denied.text
    listed = await ok(await client.get("/v1/memories", params={"category": "procedure"}, headers=h))
    assert {m["id"] for m in listed["items"]} == {shared, own}  # the user's own view lists them


async def test_writing_procedures_leaves_the_block_byte_identical(client: Client, new_user: NewUser) -> None:
    """The block prints its revision: a write it never shows (saving, updating, forgetting,
    restoring or undoing a procedure) must not move it, or every provider's prompt cache
    misses for nothing. A fact written afterwards still moves it."""
    user = await new_user("procedure-revision")
    h = user.headers
    await setup(client, user)
    before = await ok(await client.get("/v1/context", headers=h))
    saved = await ok(
        await client.post(
            "/v1/memories", json={"content": "How to renew the TLS certificate", "category": "procedure",
                                  "body": "Run certbot\nReload nginx"}, headers=h,
        )
    )  # fmt: skip
    pid = saved["memory"]["id"]
    updated = await ok(
        await client.post(
            "/v1/memories/update", json={"id_or_text": pid, "body": "Run certbot renew\nReload"}, headers=h
        )
    )
    new_id = updated["memory"]["id"]
    await ok(await client.post("/v1/memories/forget", json={"id_or_text": new_id}, headers=h))
    restored = await ok(await client.post(f"/v1/memories/{new_id}/restore", headers=h))
    await ok(await client.post(f"/v1/memories/undo/{restored['event_id']}", headers=h))
    after = await ok(await client.get("/v1/context", headers=h))
    assert (after["block"], after["revision"]) == (before["block"], before["revision"])
    await ok(
        await client.post("/v1/memories", json={"content": "The website uses Postgres", "category": "fact"}, headers=h)
    )
    moved = await ok(await client.get("/v1/context", headers=h))
    assert moved["revision"] > before["revision"] and "Postgres" in moved["block"]
