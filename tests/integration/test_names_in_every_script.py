"""Names in every script are keys of their own (`loci.name_keys`), and a name typed decomposed is
the name typed composed.

A walkthrough by users writing in other scripts: six people in a group chat, 王伟, 李娜, Ольга,
Дмитрий, Светлана and Αλέξανδρος, were ONE person "王伟" (every non-Latin name's key was
``x``) whose timeline said he lived in Kazan, then Athens, worked at Google and was allergic
to peanuts; "Inês Conceição" typed decomposed (macOS) was a person "Ine" and an item
"Conceic". Stored, completed and mined through the real HTTP API and arq worker, read over HTTP.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Awaitable, Callable
from typing import Any

from litestar.testing import AsyncTestClient

from service.state import AppState
from tests.conftest import UserHandle
from tests.integration.test_speakers import _mined_chat

NewUser = Callable[..., Awaitable[UserHandle]]
Client = AsyncTestClient  # type: ignore[type-arg]

GROUP = (
    ("王伟", "I live in Beijing and I work at Baidu."),
    ("李娜", "I live in Shanghai."),
    ("Ольга", "I live in Moscow."),
    ("Дмитрий", "I work at Yandex."),
    ("Светлана", "I live in Kazan and I'm allergic to peanuts."),
    ("Αλέξανδρος", "I live in Athens and I work at Google."),
)


def _turns(said: list[tuple[str, str | None, str]]) -> list[dict[str, Any]]:
    return [
        {"role": role, "name": name, "content": content, "created_at": f"2024-05-10T18:{i:02d}:00Z"}
        for i, (role, name, content) in enumerate(said)
    ]


async def _entities(client: Client, user: UserHandle) -> list[dict[str, Any]]:
    found = await client.get("/v1/entities", headers=user.headers)
    assert found.status_code == 200, found.text
    return list(found.json())


async def _facts(client: Client, user: UserHandle, entity: dict[str, Any]) -> set[tuple[str, str]]:
    timeline = (await client.get(f"/v1/entities/{entity['id']}/timeline", headers=user.headers)).json()
    return {(r["predicate"], r["object"]) for r in timeline["relations"] if r["current"]}


async def test_people_named_in_other_scripts_are_each_their_own_person(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    user = await new_user("names-scripts")
    await _mined_chat(client, app_state, user, "group", _turns([("other", n, said) for n, said in GROUP]))
    people = {e["name"]: e for e in await _entities(client, user) if e["kind"] == "p"}
    assert {n for n, _ in GROUP} <= set(people), sorted(people)
    svetlana = await _facts(client, user, people["Светлана"])
    alexandros = await _facts(client, user, people["Αλέξανδρος"])
    assert {("lives in", "Kazan"), ("allergic to", "peanuts")} <= svetlana, svetlana
    assert {("lives in", "Athens"), ("works at", "Google")} <= alexandros, alexandros
    assert not {o for _, o in svetlana} & {"Athens", "Google"}
    assert not {o for _, o in alexandros} & {"Kazan", "peanuts"}


async def _wings(client: Client, user: UserHandle, **params: str) -> list[str]:
    page = await client.get("/v1/palace", params=params, headers=user.headers)
    assert page.status_code == 200, page.text
    return [w["label"] for w in page.json()["items"]]


async def test_a_wing_of_one_non_latin_name_is_not_every_such_wing(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    """Both chats were filed in one wing keyed ``x``, and an agent allowed it saw both."""
    user = await new_user("names-wings")
    for name, chat in (("Ольга", "olga"), ("Αλέξανδρος", "alexandros")):
        said = [
            f"My sister {name} is visiting next week.",
            f"{name} loves the theatre, so I booked tickets for {name}.",
        ]
        await _mined_chat(client, app_state, user, chat, _turns([("user", None, s) for s in said]))
    assert sorted(await _wings(client, user)) == sorted(["Ольга", "Αλέξανδρος"])
    allowed = await client.put("/v1/agents/coder/access", json={"wings": ["ольга"]}, headers=user.headers)
    assert allowed.status_code == 200, allowed.text
    assert await _wings(client, user, agent_id="coder") == ["Ольга"]


async def test_a_name_typed_decomposed_is_one_entity_spelled_composed(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    """macOS and some keyboards send "Inês Conceição" as letters and combining marks (NFD)."""
    user = await new_user("names-nfd")
    typed = unicodedata.normalize("NFD", "My friend Inês Conceição moved to São Paulo. Inês loves it there.")
    await _mined_chat(client, app_state, user, "nfd", _turns([("user", None, typed)]))
    names = {(e["kind"], e["name"]) for e in await _entities(client, user)}
    assert {("p", "Inês Conceição"), ("l", "São Paulo")} <= names, names
    assert all(unicodedata.normalize("NFC", n) == n for _, n in names), names  # stored composed
    assert not {n for _, n in names} & {"Ine", "Conceic", "Sa", "Paulo"}, names  # no word cut at a mark
    assert all("Conceic" not in w or "Conceição" in w for w in await _wings(client, user))
    stored = (await client.get("/v1/conversations/nfd", headers=user.headers)).json()
    assert stored["turns"][0]["content"] == typed  # the turn is kept as sent
