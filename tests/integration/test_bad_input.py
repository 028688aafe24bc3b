"""Bad input is refused at the edge with a 400 naming the field, and never reaches a job.

Each case here once got through: a turn dated in the year 9999 was stored and then
wedged its mining job, an id with a slash was stored and then unreachable by every
route, control characters reached PostgreSQL, and an import trusted its file's
``mined_seq`` and dates.
"""

from __future__ import annotations

import copy
import secrets
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from litestar.testing import AsyncTestClient
from sqlalchemy import func, select

import ingest
from domain.conversation_trash import delete_conversation, restore_conversation
from domain.conversations import append_to_conversation, complete_and_mine, conversation_with_turns, mine_now
from domain.mining_jobs import mining_job
from loci.db import Database
from loci.errors import InvalidInput
from loci.models import Conversation, Turn
from loci.settings import MiningSettings
from tests.conftest import UserHandle
from tests.palace_seed import seed_palace

NewUser = Callable[..., Awaitable[UserHandle]]
Client = AsyncTestClient  # type: ignore[type-arg]

TURN = {"role": "user", "content": "I live in Paris.", "created_at": "2023-05-01T09:00:00Z"}


async def _create(client: Client, user: UserHandle, body: dict[str, Any]) -> Any:
    return await client.post("/v1/conversations", json=body, headers=user.headers)


def _field(answer: Any) -> str:
    return str(answer.json()["extra"][0]["key"])


@pytest.mark.parametrize(
    ("created_at", "why"),
    [
        ("9999-12-31T23:59:59Z", "past the last year"),
        ("1899-12-31T23:59:59Z", "before the first year"),
        ("2201-01-01T00:00:00Z", "past the last year"),
        ("0001-01-01", "before the first year"),
    ],
)
async def test_a_turn_dated_outside_1900_2200_is_a_400_naming_it(
    client: Client, new_user: NewUser, created_at: str, why: str
) -> None:
    user = await new_user()
    body = {"id": "dated", "turns": [{**TURN, "created_at": created_at}]}
    answer = await _create(client, user, body)
    assert answer.status_code == 400, (why, answer.text)
    assert _field(answer) == "turns[0].created_at"
    assert "1900" in answer.json()["detail"] and "2200" in answer.json()["detail"]
    ok = await _create(client, user, {"id": "dated", "turns": [TURN]})
    appended = await client.post(
        "/v1/conversations/dated/turns",
        json={"turns": [TURN, {**TURN, "created_at": created_at}]},
        headers=user.headers,
    )
    assert ok.status_code == 201 and appended.status_code == 400 and _field(appended) == "turns[1].created_at"


async def test_recall_times_outside_the_range_are_a_400_naming_them(client: Client, new_user: NewUser) -> None:
    user = await new_user()
    for body, field in (
        ({"message": "where do I live?", "now": "9999-12-31T23:59:59Z"}, "now"),
        ({"message": "where do I live?", "filters": {"since": "1066-10-14"}}, "filters.since"),
        ({"message": "where do I live?", "filters": {"until": "2999-01-01"}}, "filters.until"),
    ):
        answer = await client.post("/v1/recall", json=body, headers=user.headers)
        assert answer.status_code == 400, answer.text
        assert _field(answer) == field


@pytest.mark.parametrize(
    "as_of",
    [
        "9999-12-31T23:59:59Z",
        "1899-12-31T23:59:59Z",
        "2201-01-01T00:00:00+00:00",
        "9999-12-31T23:00:00-05:00",  # past datetime's range once in UTC: was an OverflowError, a 500
        "0001-01-01T00:00:00+01:00",
    ],
)
async def test_as_of_outside_1900_2200_is_a_400_on_every_route(client: Client, new_user: NewUser, as_of: str) -> None:
    user = await new_user()
    answers = {
        "recall": await client.post(
            "/v1/recall", json={"message": "where do I live?", "as_of": as_of}, headers=user.headers
        ),
        "context": await client.get("/v1/context", params={"as_of": as_of}, headers=user.headers),
        "memories": await client.get("/v1/memories", params={"as_of": as_of}, headers=user.headers),
        "memory": await client.get("/v1/memories/1", params={"as_of": as_of}, headers=user.headers),
    }
    for route, answer in answers.items():
        assert answer.status_code == 400, (route, answer.text)
        assert _field(answer) == "as_of", (route, answer.text)
        assert "1900" in answer.json()["detail"] and "2200" in answer.json()["detail"], route


@pytest.mark.parametrize(
    "stamp", ["2024-05-01T09:00:00+23:59", "2024-05-01T09:00:00-19:00", "2024-05-01T09:00:00-05:00:30"]
)
async def test_a_time_with_an_offset_no_clock_uses_is_a_400_naming_it(
    client: Client, new_user: NewUser, stamp: str
) -> None:
    """Python reads offsets up to ±23:59, so "+23:59" (a typo that moves a turn a day) was stored as
    its UTC instant; kept with the turn's offset it broke the column's check, a 500. An offset with
    seconds ("-05:00:30") was kept floored to whole minutes, so the turn came back at another wall time."""
    user = await new_user()
    answer = await _create(client, user, {"id": "skewed", "turns": [{**TURN, "created_at": stamp}]})
    assert answer.status_code == 400 and _field(answer) == "turns[0].created_at", answer.text
    assert "offset" in answer.json()["detail"]
    for path, body, field in (
        ("/v1/recall", {"message": "where do I live?", "now": stamp}, "now"),
        ("/v1/recall", {"message": "where do I live?", "filters": {"since": stamp}}, "filters.since"),
        ("/v1/recall", {"message": "where do I live?", "as_of": stamp}, "as_of"),
    ):
        answer = await client.post(path, json=body, headers=user.headers)
        assert answer.status_code == 400 and _field(answer) == field, answer.text
    answer = await client.get("/v1/memories", params={"as_of": stamp}, headers=user.headers)
    assert answer.status_code == 400 and _field(answer) == "as_of", answer.text
    saved = await client.post(
        "/v1/memories", json={"content": "Likes tea", "category": "preference"}, headers=user.headers
    )
    doc = (await client.get("/v1/export", headers=user.headers)).json()
    doc["memories"][0]["valid_from"] = stamp
    target = await new_user("target")
    answer = await client.post("/v1/import", headers=target.headers, json=doc)
    assert saved.status_code == 201 and answer.status_code == 400, answer.text
    assert _field(answer) == "memories[0].valid_from", answer.text


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"id": "a/b 🎉", "turns": [TURN]}, "id"),
        ({"id": "a b", "turns": [TURN]}, "id"),
        ({"id": "x" * 129, "turns": [TURN]}, "id"),
        ({"id": "..", "turns": [TURN]}, "id"),
        ({"id": "", "turns": [TURN]}, "id"),
        ({"id": "nul\u0000", "turns": [TURN]}, "id"),
        ({"id": "ok", "agent_id": "travel/bot", "turns": [TURN]}, "agent_id"),
        ({"id": "ok", "agent_id": "a" * 129, "turns": [TURN]}, "agent_id"),
        ({"id": "ok", "title": "nul \u0000 title", "turns": [TURN]}, "title"),
        ({"id": "ok", "turns": [{**TURN, "content": "nul \u0000 byte"}]}, "turns[0].content"),
        ({"id": "ok", "turns": [{**TURN, "content": "bell \u0007 here"}]}, "turns[0].content"),
        ({"id": "ok", "turns": [{**TURN, "content": "escape \u001b[31m red"}]}, "turns[0].content"),
    ],
)
async def test_unsafe_ids_and_control_characters_are_a_400_naming_the_field(
    client: Client, app_state: Any, new_user: NewUser, body: dict[str, Any], field: str
) -> None:
    user = await new_user()
    answer = await _create(client, user, body)
    assert answer.status_code == 400, answer.text
    assert _field(answer) == field
    assert "PostgreSQL" not in answer.text and "0x00" not in answer.text  # our words, not the database's
    async with app_state.db.user_session(user.id) as s:
        assert await s.scalar(select(func.count()).select_from(Conversation)) == 0


@pytest.mark.parametrize(
    ("method", "path", "field"),
    [
        ("GET", "/v1/conversations/{}", "conversation_id"),
        ("POST", "/v1/conversations/{}/turns", "conversation_id"),
        ("POST", "/v1/conversations/{}/complete", "conversation_id"),
        ("POST", "/v1/conversations/{}/mine", "conversation_id"),
        ("DELETE", "/v1/conversations/{}", "conversation_id"),
        ("POST", "/v1/conversations/{}/restore", "conversation_id"),
        ("GET", "/v1/jobs/{}", "job_id"),
    ],
)
@pytest.mark.parametrize("bad_id", ["ab%00c", "esc%1B%5B31m", "two%20words"])
async def test_a_path_id_no_row_can_have_is_a_400_naming_it(
    client: Client, new_user: NewUser, method: str, path: str, field: str, bad_id: str
) -> None:
    """A NUL in a path id reached PostgreSQL, whose own message came back; the schema states the
    id's alphabet now, and the server holds to it."""
    user = await new_user()
    body = {"turns": [TURN]} if path.endswith("/turns") else None
    answer = await client.request(method, path.format(bad_id), json=body, headers=user.headers)
    assert answer.status_code == 400, answer.text
    assert _field(answer) == field
    assert "PostgreSQL" not in answer.text and "0x00" not in answer.text


async def test_the_conversation_and_job_functions_refuse_the_same_ids(db: Database, new_user: NewUser) -> None:
    """What the routes' schema refuses, the domain functions they call refuse too (the CLI and MCP
    call them without HTTP), naming the same field."""
    user, bad = await new_user(), "ab\x00c"
    calls: list[Callable[[], Awaitable[Any]]] = [
        lambda: conversation_with_turns(db, user.id, bad),
        lambda: append_to_conversation(db, user.id, bad, [ingest.TurnIn("user", "hi")], limits=MiningSettings()),
        lambda: complete_and_mine(db, None, user.id, bad),
        lambda: mine_now(db, None, user.id, bad),
        lambda: delete_conversation(db, user.id, bad),
        lambda: restore_conversation(db, user.id, bad),
    ]
    for call in calls:
        with pytest.raises(InvalidInput) as refused:
            await call()
        assert refused.value.field == "conversation_id"
    with pytest.raises(InvalidInput) as refused:
        await mining_job(db, None, user.id, "mine-1-2-3\x00")
    assert refused.value.field == "job_id"


@pytest.mark.parametrize(
    ("method", "path", "kwargs", "field"),
    [
        ("GET", "/v1/context", {"params": {"as_of": "2026-05-03T10:15:00Z\x00"}}, "as_of"),
        ("GET", "/v1/memories", {"params": {"as_of": "\x1f2026-05-03T10:15:00Z"}}, "as_of"),  # strip() ate \x1f
        ("GET", "/v1/memories/1", {"params": {"as_of": "2026\x00"}}, "as_of"),
        ("POST", "/v1/recall", {"json": {"message": "where do I live?", "now": "2026-05-03\x00"}}, "now"),
        ("POST", "/v1/recall", {"json": {"message": "where?", "filters": {"since": "2026\x07"}}}, "filters.since"),
        ("POST", "/v1/conversations", {"json": {"turns": [{**TURN, "created_at": "2023\x00"}]}}, "turns[0].created_at"),
        (
            "POST",
            "/v1/memory/query",
            {"json": {"agent": "a", "query": "x", "filters": {"updated_after": "2026\x00"}}},
            "filters.updated_after",
        ),
        ("DELETE", "/v1/me", {"params": {"confirm": "my\x00name"}}, "confirm"),
    ],
)
async def test_a_control_character_in_a_time_or_a_name_is_a_400_naming_it(
    client: Client, new_user: NewUser, method: str, path: str, kwargs: dict[str, Any], field: str
) -> None:
    user = await new_user()
    answer = await client.request(method, path, headers=user.headers, **kwargs)
    assert answer.status_code == 400, answer.text
    assert _field(answer) == field
    assert (await client.get("/v1/me", headers=user.headers)).status_code == 200


async def test_ids_of_the_documented_alphabet_work_on_every_route(client: Client, new_user: NewUser) -> None:
    user = await new_user()
    for conv_id in ("answer_4be1b6b4_2", "sharegpt_yywfLRf_0", "user@example.com:chat.2024-05-20", "x" * 128):
        made = await _create(client, user, {"id": conv_id, "agent_id": "travel.bot-1", "turns": [TURN]})
        assert made.status_code == 201, made.text
        tabs = {**TURN, "content": "tabs\tand\nnew lines\r\nare fine"}
        appended = await client.post(f"/v1/conversations/{conv_id}/turns", json={"turns": [tabs]}, headers=user.headers)
        assert appended.status_code == 201, appended.text
        read = await client.get(f"/v1/conversations/{conv_id}", headers=user.headers)
        assert read.status_code == 200 and read.json()["turn_count"] == 2


async def test_import_validates_like_the_api(client: Client, db: Database, new_user: NewUser) -> None:
    source, target = await new_user("source"), await new_user("target")
    await seed_palace(db, source.id, f"i{secrets.token_hex(3)}")
    doc = (await client.get("/v1/export", headers=source.headers)).json()
    for mutate, field in (
        (lambda d: d["conversations"][0]["turns"][0].update(created_at="9999-12-31T23:59:59Z"), "created_at"),
        (lambda d: d["conversations"][0]["turns"][0].update(content="nul \u0000"), "content"),
        (lambda d: d["conversations"][0]["turns"][0].update(content="x" * 100_001), "content"),
        (lambda d: d["conversations"][0].update(external_id="a/b 🎉"), "external_id"),
        (lambda d: d["drawers"][0].update(occurred_at="2999-01-01T00:00:00Z"), "drawers[0].occurred_at"),
        (lambda d: d["drawers"][0].update(content="bell \u0007"), "drawers[0].content"),
        (lambda d: d["drawers"][0].update(aaak="§ W\u0000"), "drawers[0].aaak"),
        (lambda d: d["drawers"][0].update(tags={"to\u0000pic": "x"}), "drawers[0].tags"),
        (lambda d: d["conversations"][0]["turns"][0].update(name="Priya\nuser: hi"), "turns[0].name"),
        (lambda d: d["conversations"][0].update(external_id="a\u0000b"), "conversations[0].external_id"),
    ):
        broken = copy.deepcopy(doc)
        mutate(broken)
        answer = await client.post("/v1/import", headers=target.headers, json=broken)
        assert answer.status_code in (400, 413), (field, answer.text)
        assert field in _field(answer), (field, answer.text)
    assert (await client.get("/v1/palace", headers=target.headers)).json()["total"] == 0


async def test_import_recomputes_mined_seq_from_the_drawers(
    client: Client, app_state: Any, db: Database, new_user: NewUser
) -> None:
    source, target = await new_user("source"), await new_user("target")
    seeded = await seed_palace(db, source.id, f"m{secrets.token_hex(3)}")
    doc = (await client.get("/v1/export", headers=source.headers)).json()
    conv = doc["conversations"][0]
    last = max(t["seq"] for t in conv["turns"])
    conv["turns"].append({**conv["turns"][-1], "id": 10**9, "seq": last + 1, "content": "never mined"})
    conv["mined_seq"] = 10**6  # forged: would hide the unmined turn from mining forever
    answer = await client.post("/v1/import", headers=target.headers, json=doc)
    assert answer.status_code == 201, answer.text
    read = (await client.get(f"/v1/conversations/{seeded.conversation_external_id}", headers=target.headers)).json()
    assert read["mined_seq"] == last and read["turn_count"] == last + 1
    async with app_state.db.user_session(target.id) as s:
        assert await s.scalar(select(func.max(Turn.seq))) == last + 1


@pytest.mark.parametrize(
    ("path", "method", "body", "field"),
    [
        ("/v1/settings", "PUT", {"auto_mine": 0}, "auto_mine"),
        ("/v1/settings", "PUT", {"top_k": "8"}, "top_k"),
        ("/v1/recall", "POST", {"message": "garden", "top_k": 2.5}, "top_k"),
        ("/v1/recall", "POST", {"message": "garden", "filters": {"role": 1}}, "filters.role"),
        ("/v1/settings", "PUT", {"shiny": True}, "shiny"),
    ],
)
async def test_bodies_are_decoded_strictly(
    client: Client, new_user: NewUser, path: str, method: str, body: dict[str, Any], field: str
) -> None:
    """Litestar's own conversion is lenient (``0`` passed as false, ``"8"`` as 8); a JSON
    body must have the types the schema states, or the request is refused naming the field."""
    user = await new_user("strict")
    before = (await client.get("/v1/settings", headers=user.headers)).json()
    answer = await client.request(method, path, json=body, headers=user.headers)
    assert answer.status_code == 400, answer.text
    assert _field(answer) == field
    assert answer.json()["detail"].startswith(f"{field}: ")
    assert (await client.get("/v1/settings", headers=user.headers)).json() == before


async def test_a_whole_number_written_as_a_float_is_an_integer(client: Client, new_user: NewUser) -> None:
    """JSON Schema's ``integer`` includes ``8.0``, and some JSON encoders write it so."""
    user = await new_user("strict-float")
    answer = await client.put("/v1/settings", json={"top_k": 8.0}, headers=user.headers)
    assert answer.status_code == 200, answer.text
    assert answer.json()["top_k"] == 8


async def test_malformed_json_is_a_400_naming_the_body(client: Client, new_user: NewUser) -> None:
    user = await new_user("strict-json")
    headers = {**user.headers, "Content-Type": "application/json"}
    answer = await client.put("/v1/settings", content=b'{"top_k": 3', headers=headers)
    assert answer.status_code == 400
    assert _field(answer) == "body"
