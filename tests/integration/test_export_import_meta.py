"""Export and import keep memory history working, and keep the trash out, over real HTTP.

History events name rows in their ``meta`` too (the event an undo reversed, a link, a
proposal, the conversation a proposal quoted). After an import those must name the new
account's rows: otherwise an undo looks for another account's link and a purge of the
imported conversation leaves the events quoting its words behind. And what mining
proposed from a conversation in the trash must stay out of an export, as the memories it
extracted from it do, or an import turns it back into a live proposal.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from litestar.testing import AsyncTestClient
from sqlalchemy import select

from loci.db import Database
from loci.models import Conversation
from service.state import AppState
from tests.conftest import UserHandle
from tests.integration.test_mining_memories import mine, turns

Client = AsyncTestClient  # type: ignore[type-arg]
NewUser = Callable[..., Awaitable[UserHandle]]
NDJSON = {"content-type": "application/x-ndjson"}
INTRO = turns(
    ("user", "Hi, my name is Ana Sousa. I moved to Lisbon last month and I love Italian food."),
    ("assistant", "Welcome! Noted."),
)


async def _write(client: Client, user: UserHandle, path: str, body: Any = None, expect: int = 200) -> Any:
    answer = await client.post(path, json=body, headers=user.headers)
    assert answer.status_code == expect, answer.text
    return answer.json()


async def _story(client: Client, app_state: AppState, user: UserHandle) -> None:
    """A link made and removed, a forget undone, and proposals mined from a conversation."""
    tea = await _write(client, user, "/v1/memories", {"content": "Likes green tea", "category": "preference"}, 201)
    cat = await _write(client, user, "/v1/memories", {"content": "Has a cat named Miso", "category": "fact"}, 201)
    link = await _write(
        client, user, "/v1/memories/links", {"from_id": tea["memory"]["id"], "to_id": cat["memory"]["id"],
                                             "relation": "relates_to"},
    )  # fmt: skip
    answer = await client.delete(f"/v1/memories/links/{link['link']['id']}", headers=user.headers)
    assert answer.status_code == 200, answer.text
    forgot = await _write(client, user, "/v1/memories/forget", {"id_or_text": cat["memory"]["id"]})
    await _write(client, user, f"/v1/memories/undo/{forgot['event_id']}")
    await mine(client, app_state, user, "intro", INTRO)


async def _export(client: Client, user: UserHandle) -> dict[str, Any]:
    answer = await client.get("/v1/export", params={"embeddings": "false"}, headers=user.headers)
    assert answer.status_code == 200, answer.text
    doc: dict[str, Any] = answer.json()
    return doc


async def _export_ndjson(client: Client, user: UserHandle) -> list[dict[str, Any]]:
    answer = await client.get("/v1/export", params={"format": "ndjson", "embeddings": "false"}, headers=user.headers)
    assert answer.status_code == 200, answer.text
    return [json.loads(line) for line in answer.text.splitlines() if line]


async def _conversation_row(db: Database, user: UserHandle, external_id: str) -> int:
    async with db.user_session(user.id) as s:
        found = await s.execute(
            select(Conversation.id).where(Conversation.user_id == user.id, Conversation.external_id == external_id)
        )
        return int(found.scalar_one())


def _meta_names_own_rows(doc: dict[str, Any], conversation: int) -> None:
    """Every row id an event's meta holds names a row of this same export."""
    events = {h["id"]: h for h in doc["memory_history"]}
    links = {link["id"] for link in doc["memory_links"]}
    proposals = {p["id"] for p in doc["memory_proposals"]}
    seen = set()
    for h in doc["memory_history"]:
        meta = h["meta"]
        if "undoes" in meta:
            assert events[meta["undoes"]]["event"] == meta["undone"], h
            seen.add("undoes")
        if "link_id" in meta:
            assert meta["link_id"] in links, h
            seen.add("link_id")
        if "proposal_id" in meta:
            assert meta["proposal_id"] in proposals, h
            seen.add("proposal_id")
        if "conversation_id" in meta:
            assert meta["conversation_id"] == conversation, h
            seen.add("conversation_id")
    assert seen == {"undoes", "link_id", "proposal_id", "conversation_id"}


async def test_imported_history_names_the_new_accounts_rows(
    client: Client, app_state: AppState, db: Database, new_user: NewUser
) -> None:
    source, by_json, by_ndjson = await new_user("source"), await new_user("json"), await new_user("ndjson")
    await _story(client, app_state, source)
    exported = await _export(client, source)
    _meta_names_own_rows(exported, await _conversation_row(db, source, "intro"))
    assert len(exported["memory_proposals"]) == 2  # the name and the city wait for consent

    lines = "".join(json.dumps(line) + "\n" for line in await _export_ndjson(client, source))
    answer = await client.post("/v1/import", content=lines, headers={**by_ndjson.headers, **NDJSON})
    assert answer.status_code == 201, answer.text
    await _write(client, by_json, "/v1/import", exported, 201)
    for user in (by_json, by_ndjson):
        _meta_names_own_rows(await _export(client, user), await _conversation_row(db, user, "intro"))
        # Purging the imported conversation takes the words quoted from it, as it does at home.
        answer = await client.delete("/v1/conversations/intro", params={"purge": "true"}, headers=user.headers)
        assert answer.status_code == 200, answer.text
        after = json.dumps(await _export(client, user))
        assert "Ana Sousa" not in after and "Lisbon" not in after


async def test_what_was_proposed_from_a_trashed_conversation_is_not_exported(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    user, target = await new_user("trashing"), await new_user("target")
    await mine(client, app_state, user, "intro", INTRO)
    pending = await client.get("/v1/memories/proposals", headers=user.headers)
    assert {p["content"] for p in pending.json()["items"]} == {"Name is Ana Sousa", "Lives in Lisbon"}
    answer = await client.delete("/v1/conversations/intro", headers=user.headers)
    assert answer.status_code == 200, answer.text

    exported = await _export(client, user)
    assert exported["memory_proposals"] == []
    assert "Ana Sousa" not in json.dumps(exported)
    assert "Ana Sousa" not in json.dumps(await _export_ndjson(client, user))
    await _write(client, target, "/v1/import", exported, 201)
    assert (await client.get("/v1/memories/proposals", headers=target.headers)).json()["items"] == []

    # A restore brings them back into the export with the conversation.
    answer = await client.post("/v1/conversations/intro/restore", headers=user.headers)
    assert answer.status_code == 200, answer.text
    assert len((await _export(client, user))["memory_proposals"]) == 2


async def test_an_imported_purge_is_not_told_to_a_revision_from_before_the_import(
    client: Client, new_user: NewUser
) -> None:
    """A purge records the events that began and ended each version it deleted (``meta.versions``,
    `domain.purge_versions`), events the purge deleted with the rest of the history. The import
    renumbers history: left as they were, those ids could come before a revision of the importing
    account, whose delta would then say a memory its block never held was deleted for good."""
    source, by_json, by_ndjson = [await new_user(f"purged-{name}") for name in ("src", "json", "nd")]
    gone = await _write(client, source, "/v1/memories", {"content": "Plays the cello", "category": "fact"}, 201)
    await _write(client, source, "/v1/memories/purge", {"id_or_text": gone["memory"]["id"]})
    exported = await _export(client, source)
    [purge] = [h for h in exported["memory_history"] if h["event"] == "purge"]
    [span] = purge["meta"]["versions"]  # what the purge recorded travels with it
    lines = "".join(json.dumps(line) + "\n" for line in await _export_ndjson(client, source))
    for user, body in ((by_json, {"json": exported}), (by_ndjson, {"content": lines, "headers": NDJSON})):
        await _write(client, user, "/v1/memories", {"content": "Likes green tea", "category": "preference"}, 201)
        seen = (await client.get("/v1/context", headers=user.headers)).json()
        assert seen["revision"] > span["created"]  # the source's ids come before this revision
        headers = {**user.headers, **body.pop("headers", {})}
        answer = await client.post("/v1/import", headers=headers, **body)  # type: ignore[arg-type]
        assert answer.status_code == 201, answer.text
        told = await client.get("/v1/context", params={"since_rev": seen["revision"]}, headers=user.headers)
        assert told.status_code == 200 and told.json()["delta"] == [], told.text


async def test_an_imported_purge_without_versions_renumbers_born_and_ended(client: Client, new_user: NewUser) -> None:
    """A purge exported before it recorded ``versions`` has only ``born`` (its memory's first
    event) and ``ended``, which the delta reads instead (`memory_delta._told`). The import
    renumbered ``versions`` but left those: the source's ids came before a revision of the
    importing account, and its delta said a memory its block never held was deleted for good."""
    source, by_json, by_ndjson = [await new_user(f"born-{name}") for name in ("src", "json", "nd")]
    gone = await _write(client, source, "/v1/memories", {"content": "Plays the oboe", "category": "fact"}, 201)
    await _write(client, source, "/v1/memories/purge", {"id_or_text": gone["memory"]["id"]})
    exported = await _export(client, source)
    [purge] = [h for h in exported["memory_history"] if h["event"] == "purge"]
    assert isinstance(purge["meta"].pop("versions"), list) and isinstance(purge["meta"]["born"], int)
    nd = await _export_ndjson(client, source)
    for line in nd:
        if line.get("event") == "purge":
            line["meta"].pop("versions")
    lines = "".join(json.dumps(line) + "\n" for line in nd)
    for user, body in ((by_json, {"json": exported}), (by_ndjson, {"content": lines, "headers": NDJSON})):
        await _write(client, user, "/v1/memories", {"content": "Likes green tea", "category": "preference"}, 201)
        seen = (await client.get("/v1/context", headers=user.headers)).json()
        assert seen["revision"] > purge["meta"]["born"]  # the source's ids come before this revision
        headers = {**user.headers, **body.pop("headers", {})}
        answer = await client.post("/v1/import", headers=headers, **body)  # type: ignore[arg-type]
        assert answer.status_code == 201, answer.text
        told = await client.get("/v1/context", params={"since_rev": seen["revision"]}, headers=user.headers)
        assert told.status_code == 200 and told.json()["delta"] == [], told.text
        [imported] = [h for h in (await _export(client, user))["memory_history"] if h["event"] == "purge"]
        assert imported["meta"]["born"] == imported["id"]  # the next event the file holds: the purge itself
