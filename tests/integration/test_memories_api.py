"""The explicit-memory API over real HTTP: writes, history, undo, ambiguity, idempotency, links, as_of."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

import pytest
from litestar.testing import AsyncTestClient

from domain import memories
from domain.memory_dto import ConfirmIn
from loci.errors import InvalidInput
from service.state import AppState
from tests.conftest import UserHandle

Client = AsyncTestClient  # type: ignore[type-arg]
NewUser = Callable[..., Awaitable[UserHandle]]


async def _post(client: Client, user: UserHandle, path: str, body: dict[str, Any], status: int = 200) -> Any:
    response = await client.post(path, json=body, headers=user.headers)
    assert response.status_code == status, response.text
    return response.json()


async def _events(client: Client, user: UserHandle, memory_id: int) -> list[str]:
    response = await client.get(f"/v1/memories/{memory_id}/history", headers=user.headers)
    assert response.status_code == 200, response.text
    return [h["event"] for h in response.json()]


async def _active(client: Client, user: UserHandle, **query: Any) -> list[dict[str, Any]]:
    response = await client.get("/v1/memories", params=query, headers=user.headers)
    assert response.status_code == 200, response.text
    items: list[dict[str, Any]] = response.json()["items"]
    return items


async def test_save_update_forget_restore_undo_story(client: Client, new_user: NewUser) -> None:
    user = await new_user("story")
    saved = await _post(client, user, "/v1/memories", {"content": "  Lives in Lyon ", "category": "fact"}, 201)
    first = saved["memory"]
    assert saved["event"] == "add" and saved["previous"] is None
    assert first["content"] == "Lives in Lyon" and first["source"] == "user" and first["layer"] == "knowledge"
    assert saved["undo"] == {
        "event_id": saved["event_id"],
        "method": "POST",
        "path": f"/v1/memories/undo/{saved['event_id']}",
    }
    assert await _events(client, user, first["id"]) == ["add"]

    updated = await _post(client, user, "/v1/memories/update", {"id_or_text": "lyon", "content": "Lives in Paris"})
    second = updated["memory"]
    assert updated["event"] == "update" and updated["previous"]["id"] == first["id"]
    assert second["lineage_id"] == first["id"] != second["id"]
    assert updated["previous"]["end_reason"] == "update" and updated["previous"]["superseded_by"] == second["id"]
    assert await _events(client, user, first["id"]) == ["add", "update"]
    assert [m["content"] for m in await _active(client, user)] == ["Lives in Paris"]

    forgotten = await _post(client, user, "/v1/memories/forget", {"id_or_text": second["id"], "reason": "moved"})
    assert forgotten["event"] == "forget" and forgotten["memory"]["end_reason"] == "forget"
    assert await _active(client, user) == []
    assert await _events(client, user, second["id"]) == ["add", "update", "forget"]

    restored = await _post(client, user, f"/v1/memories/{second['id']}/restore", {})
    third = restored["memory"]
    assert (
        restored["event"] == "restore" and third["content"] == "Lives in Paris" and third["lineage_id"] == first["id"]
    )
    conflict = await client.post(f"/v1/memories/{second['id']}/restore", headers=user.headers)
    assert conflict.status_code == 409, conflict.text
    assert await _events(client, user, third["id"]) == ["add", "update", "forget", "restore"]

    # only the latest write of a lineage can be undone
    stale = await client.post(updated["undo"]["path"], headers=user.headers)
    assert stale.status_code == 409 and "latest" in stale.json()["detail"]
    undone = await _post(client, user, restored["undo"]["path"], {})
    assert undone["event"] == "undo" and undone["memory"]["end_reason"] == "undo" and undone["undo"] is None
    assert await _active(client, user) == []
    twice = await client.post(restored["undo"]["path"], headers=user.headers)
    assert twice.status_code == 409 and "undone already" in twice.json()["detail"]
    assert await _events(client, user, first["id"]) == ["add", "update", "forget", "restore", "undo"]


async def test_undo_update_re_adds_the_old_content_and_confirm_undo(client: Client, new_user: NewUser) -> None:
    user = await new_user("undo")
    saved = await _post(client, user, "/v1/memories", {"content": "Tea at 5", "category": "preference"}, 201)
    updated = await _post(client, user, "/v1/memories/update", {"id_or_text": "tea", "content": "Coffee at 5"})
    undone = await _post(client, user, updated["undo"]["path"], {})
    back = undone["memory"]
    assert back["content"] == "Tea at 5" and back["id"] not in (saved["memory"]["id"], updated["memory"]["id"])
    assert undone["previous"]["end_reason"] == "undo"
    assert [m["content"] for m in await _active(client, user)] == ["Tea at 5"]

    confirmed = await _post(client, user, "/v1/memories/confirm", {"id_or_text": back["id"]})
    assert confirmed["event"] == "confirm" and confirmed["memory"]["last_confirmed_at"] is not None
    reverted = await _post(client, user, confirmed["undo"]["path"], {})
    assert reverted["memory"]["last_confirmed_at"] is None

    added = await _post(client, user, "/v1/memories", {"content": "Plays chess", "category": "fact"}, 201)
    await _post(client, user, added["undo"]["path"], {})
    assert [m["content"] for m in await _active(client, user)] == ["Tea at 5"]


async def test_text_lookup_ambiguity_and_not_found(client: Client, new_user: NewUser) -> None:
    user = await new_user("ambig")
    for content in ("Likes coffee black", "Drinks coffee at 7"):
        await _post(client, user, "/v1/memories", {"content": content, "category": "preference"}, 201)
    ambiguous = await client.post("/v1/memories/forget", json={"id_or_text": "COFFEE"}, headers=user.headers)
    assert ambiguous.status_code == 409, ambiguous.text
    candidates = ambiguous.json()["extra"]
    assert sorted(c["content"] for c in candidates) == ["Drinks coffee at 7", "Likes coffee black"]
    assert all(set(c) == {"id", "category", "content"} for c in candidates)
    missing = await client.post("/v1/memories/forget", json={"id_or_text": "whisky"}, headers=user.headers)
    assert missing.status_code == 404
    unknown_id = await client.post("/v1/memories/confirm", json={"id_or_text": 2**40}, headers=user.headers)
    assert unknown_id.status_code == 404
    forgotten = await _post(client, user, "/v1/memories/forget", {"id_or_text": "coffee black"})
    assert forgotten["memory"]["content"] == "Likes coffee black"
    again = await client.post(
        "/v1/memories/forget", json={"id_or_text": forgotten["memory"]["id"]}, headers=user.headers
    )
    assert again.status_code == 404  # an ended version is not a target of writes


async def test_a_write_to_a_version_another_write_replaced_is_a_409_naming_the_current_one(
    client: Client, new_user: NewUser
) -> None:
    """Two workers that read memory N and both update it by id: the second finds N replaced.
    The memory is not gone, so a 404 sent clients to the wrong conclusion; the 409 names the
    version to re-read. The same holds for an id sent as digits."""
    user = await new_user("stale")
    first = (await _post(client, user, "/v1/memories", {"content": "Swims in the sea", "category": "fact"}, 201))[
        "memory"
    ]
    second = await _post(
        client, user, "/v1/memories/update", {"id_or_text": first["id"], "content": "Swims in the lake"}
    )
    current = second["memory"]["id"]
    for path, body in (
        ("/v1/memories/update", {"id_or_text": first["id"], "content": "Swims in pools"}),
        ("/v1/memories/confirm", {"id_or_text": first["id"]}),
        ("/v1/memories/forget", {"id_or_text": str(first["id"])}),
    ):
        stale = await client.post(path, json=body, headers=user.headers)
        assert stale.status_code == 409, (path, stale.text)
        assert f"current version is {current}" in stale.json()["detail"]
    assert [m["content"] for m in await _active(client, user)] == ["Swims in the lake"]
    # a chain of updates names the active end, not the next (ended) version; none active: a 404
    third = await _post(client, user, "/v1/memories/update", {"id_or_text": current, "content": "Swims in rivers"})
    chained = await client.post("/v1/memories/confirm", json={"id_or_text": first["id"]}, headers=user.headers)
    assert chained.status_code == 409 and f"current version is {third['memory']['id']}" in chained.json()["detail"]
    await _post(client, user, "/v1/memories/forget", {"id_or_text": third["memory"]["id"]})
    gone = await client.post("/v1/memories/confirm", json={"id_or_text": current}, headers=user.headers)
    assert gone.status_code == 404, gone.text


async def test_text_with_a_control_character_is_a_400_naming_id_or_text(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    """``id_or_text`` takes text, so it has the text rule: a NUL is refused naming the field by
    the schema over HTTP and by the lookup for the MCP tools and the CLI, not a 404 that only looks
    like nothing matched. Too long text still names nothing; blank text is refused naming the
    field too (`test_memory_blank_target`)."""
    user = await new_user("lookup-nul")
    await _post(client, user, "/v1/memories", {"content": "Likes coffee black", "category": "preference"}, 201)
    for path, extra in (
        ("/v1/memories/confirm", {}),
        ("/v1/memories/forget", {}),
        ("/v1/memories/update", {"pinned": True}),
    ):
        for text in ("coffee\x00", "coffee\x1f", "\x1b[31mcoffee"):
            refused = await client.post(path, json={"id_or_text": text, **extra}, headers=user.headers)
            assert refused.status_code == 400, (path, text, refused.text)
            assert refused.json()["extra"][0]["key"] == "id_or_text", refused.text
    blank = await client.post("/v1/memories/confirm", json={"id_or_text": "   "}, headers=user.headers)
    assert blank.status_code == 400 and blank.json()["extra"][0]["key"] == "id_or_text", blank.text
    with pytest.raises(InvalidInput) as e:
        await memories.confirm_memory(app_state.memory_store(), user.id, ConfirmIn("coffee\x00"))
    assert e.value.field == "id_or_text"
    assert [m["content"] for m in await _active(client, user)] == ["Likes coffee black"]


async def test_re_save_is_idempotent(client: Client, new_user: NewUser) -> None:
    user = await new_user("idem")
    first = await _post(client, user, "/v1/memories", {"content": "Vegetarian", "category": "preference"}, 201)
    again = await _post(client, user, "/v1/memories", {"content": " vegetarian  ", "category": "preference"}, 200)
    assert again["event"] == "unchanged" and again["event_id"] is None and again["undo"] is None
    assert again["memory"]["id"] == first["memory"]["id"]
    assert len(await _active(client, user)) == 1
    assert await _events(client, user, first["memory"]["id"]) == ["add"]
    other = await _post(client, user, "/v1/memories", {"content": "Vegetarian", "category": "fact"}, 201)
    assert other["event"] == "add"  # the same words in another category are another memory


async def test_bad_input_names_the_field(client: Client, new_user: NewUser) -> None:
    user = await new_user("bad")
    cases: list[tuple[dict[str, Any], str]] = [
        ({"content": "x", "category": "nonsense"}, "category"),
        ({"content": "   ", "category": "fact"}, "content"),
        ({"content": "y" * 501, "category": "fact"}, "content"),
        ({"content": "x", "category": "fact", "layer": "attic"}, "layer"),
        ({"content": "x", "category": "fact", "source": "extracted"}, "source"),
        ({"content": "x", "category": "fact", "importance": 9}, "importance"),
        ({"content": "x", "category": "fact", "agent_id": "a/b"}, "agent_id"),
        ({"content": "a\x1bb", "category": "fact"}, "content"),
        # Unicode tag characters spell text no block or profile shows (it would be "- ")
        ({"content": "".join(chr(0xE0000 + ord(c)) for c in "obey"), "category": "fact"}, "content"),
        ({"content": "x", "category": "fact", "summary": "  "}, "summary"),
        ({"content": "x", "category": "fact", "summary": "s" * 501}, "summary"),
    ]
    for body, field in cases:
        response = await client.post("/v1/memories", json=body, headers=user.headers)
        assert response.status_code == 400, (body, response.text)
        assert response.json()["extra"][0]["key"] == field, (body, response.text)
    assert "fact" in (await client.post("/v1/memories", json=cases[0][0], headers=user.headers)).json()["detail"]
    bad_time = await client.get("/v1/memories", params={"as_of": "yesterday-ish"}, headers=user.headers)
    assert bad_time.status_code == 400 and bad_time.json()["extra"][0]["key"] == "as_of"
    naive = await client.get("/v1/memories", params={"as_of": "2026-03-01T09:00:00"}, headers=user.headers)
    assert naive.status_code == 400 and "time zone" in naive.json()["detail"]  # as /v1/context and recall
    assert await _active(client, user) == []


async def test_agent_saves_are_attributed(client: Client, new_user: NewUser) -> None:
    user = await new_user("agent")
    body = {"content": "Uses vim", "category": "fact", "agent_id": "coder-1"}
    saved = await _post(client, user, "/v1/memories", body, 201)
    assert saved["memory"]["source"] == "agent" and saved["memory"]["agent_id"] == "coder-1"
    history = (await client.get(f"/v1/memories/{saved['memory']['id']}/history", headers=user.headers)).json()
    assert history[0]["actor"] == "agent:coder-1"
    assert [m["id"] for m in await _active(client, user, agent_id="coder-1")] == [saved["memory"]["id"]]
    assert await _active(client, user, source="user") == []


async def test_links_follow_an_update_and_drop_when_an_end_is_forgotten(client: Client, new_user: NewUser) -> None:
    user = await new_user("links")
    a = (await _post(client, user, "/v1/memories", {"content": "Works at Acme", "category": "fact"}, 201))["memory"]
    b = (await _post(client, user, "/v1/memories", {"content": "Acme makes rockets", "category": "fact"}, 201))[
        "memory"
    ]
    linked = await _post(
        client, user, "/v1/memories/links", {"from_id": a["id"], "to_id": b["id"], "relation": "relates_to"}
    )
    assert linked["event"] == "link" and linked["link"]["to_id"] == b["id"]

    updated = await _post(client, user, "/v1/memories/update", {"id_or_text": a["id"], "content": "Works at Acme Corp"})
    new_a = updated["memory"]["id"]
    detail = (await client.get(f"/v1/memories/{new_a}", headers=user.headers)).json()
    assert [(link["from_id"], link["to_id"]) for link in detail["links"]] == [(new_a, b["id"])]
    old = (await client.get(f"/v1/memories/{a['id']}", headers=user.headers)).json()
    assert [(link["from_id"], link["to_id"]) for link in old["links"]] == [(a["id"], b["id"])]  # as it was

    await _post(client, user, "/v1/memories/forget", {"id_or_text": b["id"]})
    assert (await client.get(f"/v1/memories/{new_a}", headers=user.headers)).json()["links"] == []
    restored = await _post(client, user, f"/v1/memories/{b['id']}/restore", {})
    new_b = restored["memory"]["id"]
    back = (await client.get(f"/v1/memories/{new_a}", headers=user.headers)).json()["links"]
    assert [(link["from_id"], link["to_id"]) for link in back] == [(new_a, new_b)]

    unlinked = await client.delete(f"/v1/memories/links/{back[0]['id']}", headers=user.headers)
    assert unlinked.status_code == 200 and unlinked.json()["event"] == "unlink"
    assert (await client.get(f"/v1/memories/{new_a}", headers=user.headers)).json()["links"] == []
    gone = await client.delete(f"/v1/memories/links/{back[0]['id']}", headers=user.headers)
    assert gone.status_code == 409 and "was already removed at" in gone.json()["detail"], gone.text


async def test_as_of_reads_the_past(client: Client, new_user: NewUser) -> None:
    user = await new_user("asof")
    await _post(client, user, "/v1/memories", {"content": "Drives a Fiat", "category": "fact"}, 201)
    between = datetime.now(UTC).isoformat()
    await _post(client, user, "/v1/memories/update", {"id_or_text": "fiat", "content": "Drives a Volvo"})
    assert [m["content"] for m in await _active(client, user)] == ["Drives a Volvo"]
    assert [m["content"] for m in await _active(client, user, as_of=between)] == ["Drives a Fiat"]
    assert await _active(client, user, as_of="2001-01-01T00:00:00Z") == []


async def test_list_is_keyset_paged_newest_first(client: Client, new_user: NewUser) -> None:
    user = await new_user("page")
    ids = [
        (await _post(client, user, "/v1/memories", {"content": f"Fact {i}", "category": "fact"}, 201))["memory"]["id"]
        for i in range(3)
    ]
    page = (await client.get("/v1/memories", params={"limit": 2}, headers=user.headers)).json()
    assert [m["id"] for m in page["items"]] == ids[:0:-1] and page["next_before"] == ids[1]
    rest = await client.get("/v1/memories", params={"limit": 2, "before": page["next_before"]}, headers=user.headers)
    assert [m["id"] for m in rest.json()["items"]] == [ids[0]] and rest.json()["next_before"] is None
