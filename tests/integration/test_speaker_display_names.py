"""A turn's ``name`` is a display name: "@priya", "May", "Mum" and "Zoë 🌸" are people.

Walking a group-chat app through Loci (h-spk), a work channel wrote one colleague as "Priya",
"priya", "Priya S." and "@priya", and a family chat had members shown as "May" and "Mum":

* "@priya"'s turns were linked to no one and her "I'm allergic to latex" was lost: the speaker's
  person had to start with a letter, so the handle's "@" made her nobody; and "What did Priya say
  about the catering?" missed her "@priya" turn, since recall compared the stored name whole.
* "May" and "Mum" were cut to nothing by the prose rule that trims chat words and months from a
  capitalised run ("May", "Mum", "Mom", "Dad" are such words), so neither was a person entity, and
  May's "I'm allergic to shellfish" and Mum's "my brother Derek" were recorded for no one.

Stored, completed and mined through the real HTTP API and arq worker, read over HTTP.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from litestar.testing import AsyncTestClient

from service.state import AppState
from tests.conftest import UserHandle
from tests.graph_timeline import fact_rows, timeline
from tests.integration.test_speakers import _mined_chat, _recall

NewUser = Callable[..., Awaitable[UserHandle]]
Client = AsyncTestClient  # type: ignore[type-arg]

CATERING = "And the vendor for catering should be GreenFork, they did a good job last time."
SAID: list[tuple[str, str | None, str]] = [
    ("user", "Sam", "The catering at the Fenwick was poor last year, we need a better caterer."),
    ("other", "Priya", "Morning all. For the offsite, I think we should use the Fenwick Hotel."),
    ("other", "@priya", CATERING),
    ("other", "@priya", "I'm allergic to latex, please tell the hotel."),
    ("user", "Sam", "Good call on the caterer, the catering menu matters most."),
    ("other", "May", "I'm allergic to shellfish, just so the restaurant knows."),
    ("other", "Mum", "Casa Lupo is lovely. My brother Derek might come too."),
    ("other", "Zoë 🌸", "I moved to Porto last month."),
]


def _turns() -> list[dict[str, Any]]:
    return [
        {"role": role, "content": content, "created_at": f"2024-05-24T18:0{i}:00Z"} | ({"name": name} if name else {})
        for i, (role, name, content) in enumerate(SAID)
    ]


async def test_handles_and_names_that_are_words_are_the_people_who_wrote_them(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    user = await new_user("speaker-display-names")
    await _mined_chat(client, app_state, user, "channel", _turns())
    people = {e["name"]: e for e in (await client.get("/v1/entities", headers=user.headers)).json() if e["kind"] == "p"}
    assert {"Priya", "May", "Mum", "Zoë"} <= set(people), sorted(people)
    assert not {"@priya", "Zoë 🌸"} & set(people), sorted(people)
    assert people["Priya"]["mention_count"] == 3, people["Priya"]  # her own turn and both "@priya" turns

    facts = set()
    for name in ("Priya", "May", "Mum", "Zoë"):
        facts |= set(fact_rows(await timeline(client, user, people[name]["id"])))
    assert ("Priya", "allergic to", "latex", True) in facts, facts
    assert ("May", "allergic to", "shellfish", True) in facts, facts
    assert ("Mum", "brother", "Derek", True) in facts, facts
    assert ("Zoë", "lives in", "Porto", True) in facts, facts

    found = await _recall(client, user, "What did Priya say about the catering?")
    first = found["items"][0]
    assert first["content"] == CATERING and first["ranks"].get("speaker"), found["items"]
    assert first["speaker"] == "@priya", first  # shown as the app wrote it


async def test_the_scoped_querys_bullets_say_who_said_it(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    """`POST /v1/memory/query` wrote a conversation bullet as "2024-05-24 other: I'm allergic to
    latex": an agent reading its bullets could not tell whose allergy it was (the user's turn read
    "user: …" beside it), and its full rows had no ``speaker``. A bullet now labels its turn as the
    recall block does, and a full row's drawer carries the speaker."""
    user = await new_user("speaker-query-bullets")
    await _mined_chat(client, app_state, user, "channel", _turns())
    body = {"agent": "assistant", "query": "allergic", "filters": {"role": "other"}}
    answer = await client.post("/v1/memory/query", json=body, headers=user.headers)
    assert answer.status_code == 200, answer.text
    texts = [b["text"] for b in answer.json()["bullets"]]
    assert "2024-05-24 @priya (other): I'm allergic to latex, please tell the hotel." in texts, texts
    assert "2024-05-24 May (other): I'm allergic to shellfish, just so the restaurant knows." in texts, texts
    # `return: full` carries the speaker on its drawers, as recall's items do (it had only the role)
    full = await client.post("/v1/memory/query", json=body | {"return": "full"}, headers=user.headers)
    assert full.status_code == 200, full.text
    said = {(i["drawer"]["speaker"], i["drawer"]["content"]) for i in full.json()["items"]}
    assert ("May", "I'm allergic to shellfish, just so the restaurant knows.") in said, said
