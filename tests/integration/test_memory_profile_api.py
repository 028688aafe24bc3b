"""The core profile over HTTP: its cap (422 with what to merge), the Markdown round trip, and
isolation between users on every explicit-memory route."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from litestar.testing import AsyncTestClient

from tests.conftest import UserHandle

Client = AsyncTestClient  # type: ignore[type-arg]
NewUser = Callable[..., Awaitable[UserHandle]]
CORE_LIMIT = 1000  # LOCI_MEMORY_CORE_MAX_CHARS's default, which the test settings keep


async def _save(client: Client, user: UserHandle, content: str, category: str = "profile", layer: str = "core") -> Any:
    body = {"content": content, "category": category, "layer": layer}
    return await client.post("/v1/memories", json=body, headers=user.headers)


async def test_core_limit_is_a_422_naming_size_limit_and_entries(client: Client, new_user: NewUser) -> None:
    user = await new_user("core")
    for i in range(2):
        assert (await _save(client, user, f"{i}" + "a" * 449)).status_code == 201
    response = await _save(client, user, "b" * 101)
    assert response.status_code == 422, response.text
    body = response.json()
    [room] = body["extra"]
    assert body["status_code"] == 422 and "900" in body["detail"] and str(CORE_LIMIT) in body["detail"]
    assert (room["size"], room["limit"], room["key"]) == (900, CORE_LIMIT, "content")
    assert [len(e["content"]) for e in room["entries"]] == [450, 450]
    assert (await _save(client, user, "b" * 100)).status_code == 201  # exactly at the limit is fine
    assert (await _save(client, user, "c" * 400, layer="knowledge")).status_code == 201  # other layers are uncapped
    promote = await client.post(
        "/v1/memories/update", json={"id_or_text": "c" * 400, "layer": "core"}, headers=user.headers
    )
    assert promote.status_code == 422
    shrink = await client.post(
        "/v1/memories/update", json={"id_or_text": "b" * 100, "content": "short"}, headers=user.headers
    )
    assert shrink.status_code == 200
    profile = (await client.get("/v1/profile", headers=user.headers)).json()
    assert profile["size"] == 905 and profile["limit"] == CORE_LIMIT


async def test_profile_markdown_round_trip(client: Client, new_user: NewUser) -> None:
    user = await new_user("profile")
    empty = (await client.get("/v1/profile", headers=user.headers)).json()
    assert empty["markdown"] == "" and empty["size"] == 0 and empty["memories"] == [] and empty["revision"] == 0
    await _save(client, user, "Short answers", category="response_style")
    kept = (await _save(client, user, "Lives in Lyon")).json()["memory"]
    await _save(client, user, "Likes jazz", category="preference", layer="knowledge")
    profile = (await client.get("/v1/profile", headers=user.headers)).json()
    assert profile["markdown"] == "## Profile\n- Lives in Lyon\n\n## Response style\n- Short answers\n"
    assert profile["size"] == len("Lives in Lyon") + len("Short answers")
    assert profile["revision"] > 0

    edited = "# Me\n## profile\n- lives in   LYON\n* Born in 1980\n\n## Preference\n- Tea, not coffee\n"
    put = await client.put("/v1/profile", json={"markdown": edited}, headers=user.headers)
    assert put.status_code == 200, put.text
    result = put.json()
    assert sorted(e["event"] for e in result["events"]) == ["add", "add", "forget"]
    assert result["profile"]["markdown"] == (
        "## Profile\n- Lives in Lyon\n- Born in 1980\n\n## Preference\n- Tea, not coffee\n"
    )
    assert kept["id"] in [m["id"] for m in result["profile"]["memories"]]  # unchanged line: same row
    again = await client.put("/v1/profile", json={"markdown": result["profile"]["markdown"]}, headers=user.headers)
    assert again.json()["events"] == [] and again.json()["profile"] == result["profile"]

    entries = [{"category": "profile", "content": "Born in 1980"}]
    replaced = await client.put("/v1/profile", json={"entries": entries}, headers=user.headers)
    assert replaced.json()["profile"]["markdown"] == "## Profile\n- Born in 1980\n"
    active = (await client.get("/v1/memories", params={"layer": "knowledge"}, headers=user.headers)).json()
    assert [m["content"] for m in active["items"]] == ["Likes jazz"]  # the profile touches core only


async def test_profile_put_refuses_bad_documents_whole(client: Client, new_user: NewUser) -> None:
    user = await new_user("badprofile")
    await _save(client, user, "Lives in Lyon")
    before = (await client.get("/v1/profile", headers=user.headers)).json()
    for body, needle in (
        ({"markdown": "## Hobbies\n- Chess\n"}, "Hobbies"),
        ({"markdown": "- Chess\n"}, "before any"),
        ({"markdown": "## Profile\nChess\n"}, "line 2"),
        ({"markdown": "## Profile\n- " + "x" * 501 + "\n"}, "over the limit"),
        ({"markdown": "## Profile\n- a\n", "entries": []}, "exactly one"),
    ):
        response = await client.put("/v1/profile", json=body, headers=user.headers)
        assert response.status_code == 400, response.text
        assert needle in response.json()["detail"] and response.json()["extra"][0]["key"] == "markdown"
    too_big = "## Profile\n" + "".join(f"- {i} {'z' * 480}\n" for i in range(3))
    assert (await client.put("/v1/profile", json={"markdown": too_big}, headers=user.headers)).status_code == 422
    assert (await client.get("/v1/profile", headers=user.headers)).json() == before


async def test_another_users_ids_are_404_on_every_memory_route(client: Client, new_user: NewUser) -> None:
    owner, other = await new_user("owner"), await new_user("intruder")
    a = (await _save(client, owner, "Owner's secret", category="fact", layer="knowledge")).json()
    b = (await _save(client, owner, "Owner's other", category="fact", layer="knowledge")).json()
    link = await client.post(
        "/v1/memories/links",
        json={"from_id": a["memory"]["id"], "to_id": b["memory"]["id"], "relation": "relates_to"},
        headers=owner.headers,
    )
    gone = await client.post("/v1/memories/forget", json={"id_or_text": b["memory"]["id"]}, headers=owner.headers)
    mid, link_id = a["memory"]["id"], link.json()["link"]["id"]
    calls: list[tuple[str, str, dict[str, Any] | None]] = [
        ("GET", f"/v1/memories/{mid}", None),
        ("GET", f"/v1/memories/{mid}/history", None),
        ("POST", f"/v1/memories/{b['memory']['id']}/restore", None),
        ("POST", "/v1/memories/update", {"id_or_text": mid, "content": "mine now"}),
        ("POST", "/v1/memories/update", {"id_or_text": "secret", "content": "mine now"}),
        ("POST", "/v1/memories/forget", {"id_or_text": mid}),
        ("POST", "/v1/memories/confirm", {"id_or_text": "Owner"}),
        ("POST", "/v1/memories/links", {"from_id": mid, "to_id": b["memory"]["id"], "relation": "part_of"}),
        ("DELETE", f"/v1/memories/links/{link_id}", None),
        ("POST", f"/v1/memories/undo/{a['event_id']}", None),
        ("POST", f"/v1/memories/undo/{gone.json()['event_id']}", None),
    ]
    for method, path, body in calls:
        response = await client.request(method, path, json=body, headers=other.headers)
        assert response.status_code == 404, (method, path, response.text)
        assert "Owner's secret" not in response.text and "Owner's other" not in response.text
    assert (await client.get("/v1/memories", headers=other.headers)).json()["items"] == []
    assert (await client.get("/v1/profile", headers=other.headers)).json()["memories"] == []
    mine = (await client.get(f"/v1/memories/{mid}", headers=owner.headers)).json()
    assert mine["memory"]["content"] == "Owner's secret" and mine["memory"]["valid_until"] is None
    assert [e["event"] for e in (await client.get(f"/v1/memories/{mid}/history", headers=owner.headers)).json()] == [
        "add",
        "link",
    ]
