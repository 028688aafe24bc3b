"""A careless or hostile client against the whole pipeline: what it did, what it must not cause.

Each test is a defect found by driving a running server over HTTP: a body nested thousands
deep was a 500 (RecursionError); a conversation trashed (or purged) while its mining job ran
got every later window written as live drawers, found by recall and the export though the
conversation read as gone, and a purge racing a window was a deadlock answered 503; turns added
after their wing (or their closet) was trashed were mined into it, out of every reader's sight.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

import pytest
from litestar.testing import AsyncTestClient
from sqlalchemy import func, select

import ingest.window
from domain import trash
from domain.conversation_trash import delete_conversation
from ingest import MiningDeps, mine_conversation
from ingest.extract_offline import OfflineExtractor
from ingest.extraction import NO_KNOWN_KINDS, ExtractionOutcome, TurnView
from loci.models import Conversation, Drawer
from service.state import AppState
from tests.conftest import UserHandle
from tests.integration.test_mining_api import post, run_jobs

NewUser = Callable[..., Awaitable[UserHandle]]
Client = AsyncTestClient  # type: ignore[type-arg]


@pytest.mark.parametrize("depth", [500, 100_000])
@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/v1/conversations", lambda d: "[" * d + "]" * d),
        ("/v1/recall", lambda d: '{"message": "hi", "filters": ' + "[" * d + "]" * d + "}"),
        ("/v1/conversations", lambda d: '{"turns": [{"role": "user", "name": ' + '{"a":' * d + "1" + "}" * d + "}]}"),
    ],
)  # fmt: skip
async def test_a_body_nested_thousands_deep_is_a_400_naming_the_body(
    client: Client, new_user: NewUser, depth: int, path: str, body: Callable[[int], str]
) -> None:
    """500 deep failed in the walk that reads ``8.0`` as 8, 100,000 deep in the decoder: both a 500."""
    user = await new_user("deep")
    headers = {**user.headers, "Content-Type": "application/json"}
    answer = await client.post(path, content=body(depth).encode(), headers=headers)
    assert answer.status_code == 400, answer.text
    assert answer.json()["extra"][0]["key"] == "body" and "deep" in answer.json()["detail"]


async def _create(client: Client, user: UserHandle, conv: str, texts: Sequence[str], *, complete: bool = True) -> int:
    """Store (and complete: a queued job) a conversation of the user's ``texts``; its row id."""
    turns = [{"role": "user", "content": t} for t in texts]
    answer = await post(client, user, "/v1/conversations", {"id": conv, "turns": turns})
    assert answer.status_code == 201, answer.text
    if complete:
        assert (await post(client, user, f"/v1/conversations/{conv}/complete")).status_code == 202
    state: AppState = client.app.state.loci
    async with state.db.user_session(user.id) as s:
        return int(await s.scalar(select(Conversation.id).where(Conversation.external_id == conv)) or 0)


async def _live_drawers(app_state: AppState, user: UserHandle) -> int:
    async with app_state.db.user_session(user.id) as s:
        live = select(func.count()).select_from(Drawer).where(Drawer.user_id == user.id, Drawer.deleted_at.is_(None))
        return int(await s.scalar(live) or 0)


async def _recalled(client: Client, user: UserHandle, message: str) -> set[str]:
    answer = await post(client, user, "/v1/recall", {"message": message, "top_k": 50})
    assert answer.status_code == 200, answer.text
    return {item["session"] for item in answer.json()["items"]}


class _TrashingExtractor(OfflineExtractor):
    """The offline extractor that trashes the conversation as mining reads its first window:
    after the job loaded the turns, before any window is written (all are extracted first)."""

    def __init__(self, act: Callable[[], Awaitable[object]]) -> None:
        super().__init__()
        self._act: Callable[[], Awaitable[object]] | None = act

    async def extract(
        self, turns: Sequence[TurnView], subjects: Sequence[str] = (), known: Mapping[str, str] = NO_KNOWN_KINDS
    ) -> ExtractionOutcome:
        if self._act is not None:
            act, self._act = self._act, None
            await act()
        return await super().extract(turns, subjects, known)


@pytest.mark.parametrize("purge", [False, True])
async def test_a_conversation_deleted_while_it_is_mined_gets_no_live_drawers(
    client: Client, app_state: AppState, new_user: NewUser, purge: bool
) -> None:
    """Trashed at the job's start, its 1,500 drawers were all written live: recall answered them
    and the export carried them, without their conversation. After a restore it is mined."""
    user = await new_user("trash-mid-mining")
    texts = [f"turn {i}: my cousin Ingrid lives in Tromso" for i in range(40)]
    row = await _create(client, user, "mid", texts, complete=False)
    gone = lambda: delete_conversation(app_state.db, user.id, "mid", purge=purge)  # noqa: E731
    deps = MiningDeps(app_state.db, app_state.embedder, app_state.settings, extractor=_TrashingExtractor(gone))
    result = await mine_conversation(deps, row)
    assert (result.drawers, result.windows) == (0, 0)
    assert await _live_drawers(app_state, user) == 0
    assert "mid" not in await _recalled(client, user, "Where does my cousin Ingrid live?")
    export = (await client.get("/v1/export", params={"embeddings": "false"}, headers=user.headers)).json()
    assert not [d for d in export["drawers"] if "Ingrid" in d["content"]]
    if not purge:
        assert (await post(client, user, "/v1/conversations/mid/restore")).status_code == 200
        assert (await post(client, user, "/v1/conversations/mid/mine")).status_code == 202
        await run_jobs(app_state)
        assert await _live_drawers(app_state, user) == len(texts)
        assert "mid" in await _recalled(client, user, "Where does my cousin Ingrid live?")


async def test_a_delete_waits_for_the_window_being_written_and_takes_it_along(
    client: Client, app_state: AppState, new_user: NewUser, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A window's transaction in flight when the delete began: the delete stamped the drawers it
    could see (none of that window's), then waited for the conversation's row, and the window
    committed its drawers live under a trashed conversation. Now the delete locks that row first."""
    user = await new_user("trash-window-race")
    texts = [f"turn {i}: my aunt Solveig sails in Bergen" for i in range(3)]
    row = await _create(client, user, "race", texts, complete=False)
    inside, release = asyncio.Event(), asyncio.Event()
    real = ingest.window.insert_columns

    async def paused(*args: Any, **kwargs: Any) -> Any:
        inside.set()  # the window's drawers are inserted, its transaction still open
        await release.wait()
        return await real(*args, **kwargs)

    monkeypatch.setattr(ingest.window, "insert_columns", paused)
    mining = asyncio.create_task(
        mine_conversation(MiningDeps(app_state.db, app_state.embedder, app_state.settings), row)
    )
    await asyncio.wait_for(inside.wait(), 60)
    deleting = asyncio.create_task(trash.trash(app_state.db, user.id, "conversation", row))
    await asyncio.sleep(0.5)
    release.set()
    result, moved = await asyncio.wait_for(asyncio.gather(mining, deleting), 60)
    assert result.drawers == 3 and moved.drawers == 3
    assert await _live_drawers(app_state, user) == 0


async def test_turns_added_after_their_wing_was_trashed_are_mined_where_they_can_be_found(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    """They were filed in the trashed wing's trashed room: live drawers no reader showed (not
    recall, the palace, the export nor the trash), until someone restored the wing."""
    user = await new_user("wing-trashed")
    await _create(client, user, "kyoto", ["I am planning a trip to Kyoto in April.", "Kyoto temples are my favourite."])
    await run_jobs(app_state)
    wings = (await client.get("/v1/palace", headers=user.headers)).json()["items"]
    (kyoto,) = [w["id"] for w in wings if w["label"] == "Kyoto"]
    assert (await client.delete(f"/v1/wings/{kyoto}", headers=user.headers)).status_code == 200
    more = {"turns": [{"role": "user", "content": "In Kyoto I want to see the bamboo grove of Arashiyama."}]}
    assert (await post(client, user, "/v1/conversations/kyoto/turns", more)).status_code == 201
    assert (await post(client, user, "/v1/conversations/kyoto/complete")).status_code == 202
    await run_jobs(app_state)
    answer = await post(client, user, "/v1/recall", {"message": "What do I want to see in Kyoto?"})
    assert any("Arashiyama" in item["content"] for item in answer.json()["items"]), answer.text
    export = (await client.get("/v1/export", params={"embeddings": "false"}, headers=user.headers)).json()
    assert [d["content"] for d in export["drawers"]] == [more["turns"][0]["content"]]
    assert (await post(client, user, f"/v1/wings/{kyoto}/restore")).status_code == 200
    export = (await client.get("/v1/export", params={"embeddings": "false"}, headers=user.headers)).json()
    assert len(export["drawers"]) == 3


async def test_turns_added_after_their_closet_was_trashed_are_mined_where_they_can_be_found(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    """The same day and topic found the trashed closet again (its slug is unique in its room),
    and the new drawer was filed in it: neither the palace nor the export showed it. It goes
    into a new live closet of the same room; restoring the old one keeps both, each with its drawers."""
    user = await new_user("closet-trashed")
    await _create(client, user, "kyoto", ["I am planning a trip to Kyoto in April.", "Kyoto temples are my favourite."])
    await run_jobs(app_state)

    async def closets(room: int) -> list[tuple[str, int]]:
        answer = await client.get("/v1/palace", params={"room": room}, headers=user.headers)
        return sorted((c["label"], c["drawers"]) for c in answer.json()["items"])

    (wing,) = (await client.get("/v1/palace", headers=user.headers)).json()["items"]
    (room,) = (await client.get("/v1/palace", params={"wing": wing["id"]}, headers=user.headers)).json()["items"]
    (closet,) = (await client.get("/v1/palace", params={"room": room["id"]}, headers=user.headers)).json()["items"]
    assert (await client.delete(f"/v1/closets/{closet['id']}", headers=user.headers)).status_code == 200
    more = {"turns": [{"role": "user", "content": "In Kyoto I want to see the bamboo grove of Arashiyama."}]}
    assert (await post(client, user, "/v1/conversations/kyoto/turns", more)).status_code == 201
    assert (await post(client, user, "/v1/conversations/kyoto/complete")).status_code == 202
    await run_jobs(app_state)
    assert await closets(room["id"]) == [(closet["label"], 1)]
    export = (await client.get("/v1/export", params={"embeddings": "false"}, headers=user.headers)).json()
    assert [d["content"] for d in export["drawers"]] == [more["turns"][0]["content"]]
    assert (await post(client, user, f"/v1/closets/{closet['id']}/restore")).status_code == 200
    assert await closets(room["id"]) == [(closet["label"], 1), (closet["label"], 2)]
    export = (await client.get("/v1/export", params={"embeddings": "false"}, headers=user.headers)).json()
    assert len(export["drawers"]) == 3 and len({c["slug"] for c in export["closets"]}) == 2


async def test_entity_search_takes_percent_and_underscore_as_themselves(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    """``GET /v1/entities?q=%`` (or ``_``) listed every entity: the characters reached LIKE as wildcards."""
    user = await new_user("entity-like")
    await _create(client, user, "moved", ["I moved to Lisbon last week with my friend Priya."])
    await run_jobs(app_state)

    async def names(q: str) -> list[str]:
        answer = await client.get("/v1/entities", params={"q": q}, headers=user.headers)
        assert answer.status_code == 200, answer.text
        return [e["name"] for e in answer.json()]

    assert "Lisbon" in await names("lisb")
    assert await names("%") == [] and await names("_") == [] and await names("l_sbon") == []


async def test_an_ndjson_import_line_nested_thousands_deep_is_a_400_naming_the_line(
    client: Client, new_user: NewUser
) -> None:
    """The decoder recursed into a field the line does not have and raised RecursionError: a 500."""
    user = await new_user("deep-ndjson")
    line = '{"type": "header", "format": "loci-export", "version": 2, "x": ' + "[" * 100_000 + "]" * 100_000 + "}\n"
    headers = {**user.headers, "Content-Type": "application/x-ndjson"}
    answer = await client.post("/v1/import", content=line.encode(), headers=headers)
    assert answer.status_code == 400, answer.text
    assert answer.json()["extra"][0]["key"] == "line 1" and "deep" in answer.json()["detail"]


@pytest.mark.parametrize("depth", [990, 100_000])
async def test_a_json_import_nested_too_deep_is_a_400_naming_the_body(
    client: Client, new_user: NewUser, depth: int
) -> None:
    """The import's JSON document is decoded by the route itself (no strict body check before
    it), and msgspec's RecursionError on 100,000 ``[`` was a 500. 990 deep is refused too, so the
    refusal says where the limit is rather than "thousands deep"."""
    user = await new_user("deep-import")
    doc = '{"format": "loci-export", "version": 3, "x": ' + "[" * depth + "]" * depth + "}"
    headers = {**user.headers, "Content-Type": "application/json"}
    answer = await client.post("/v1/import", content=doc.encode(), headers=headers)
    assert answer.status_code == 400, answer.text
    detail = answer.json()["detail"]
    assert answer.json()["extra"][0]["key"] == "body" and "under 1,000 levels" in detail, detail
