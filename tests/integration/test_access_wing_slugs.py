"""An agent's access list names wings by their slugs, the keys mining gives names, over real HTTP.

The schema's pattern took any character outside ASCII but a blank, so "ОЛЬГА", "é", an emoji
or a tag character was stored as given, and the agent was allowed no wing at all (no wing's
slug is upper case or holds an accent); the ASCII pattern before it refused such a value with
a 400. Now a value that is not its own key (`loci.name_keys.slugify`) is a 400 naming the field
and saying the form, by every way in, and every key mining makes is taken.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from datetime import UTC, datetime

import httpx
import pytest
from litestar.testing import AsyncTestClient
from sqlalchemy import text

from loci.db import Database
from loci.embedder import Embedder
from loci.name_keys import slugify
from loci.settings import Settings
from tests.conftest import UserHandle
from tests.integration.palace_fixture import ConversationSpec, place_conversation
from tests.live_server import live_server

NewUser = Callable[..., Awaitable[UserHandle]]

NO_SLUG = (
    "ОЛЬГА", "é", "cafe\u0301", "\u0301", "a\u2014b", "\U0001f3b8", "\U000e0041", "\u0600", "\ufff9", "\ue000",
    "ольга\u034f", "\u623a\ufe06",
)  # fmt: skip
MINED = ("ольга", "王伟", "احمد", "αλεξανδροσ", "strasse", "x", "billing-service", slugify("Jean-" * 60))
RULE = "must be a wing's slug"


@pytest.fixture(scope="module")
def base_url(settings: Settings, embedder: Embedder) -> Iterator[str]:
    with live_server(settings, embedder) as url:
        yield url


@pytest.mark.parametrize("wing", NO_SLUG)
async def test_a_wing_no_slug_can_be_is_refused_naming_the_field(base_url: str, new_user: NewUser, wing: str) -> None:
    user = await new_user("wing-slugs")
    yaml_headers = {**user.headers, "Content-Type": "application/yaml"}
    async with httpx.AsyncClient(base_url=base_url) as http:
        one = await http.put("/v1/agents/coder/access", json={"wings": ["work", wing]}, headers=user.headers)
        whole = await http.put("/v1/access", json={"agents": {"coder": {"wings": [wing]}}}, headers=user.headers)
        document = f'agents: {{coder: {{wings: ["{wing.encode("unicode_escape").decode()}"]}}}}'
        imported = await http.put("/v1/access.yaml", content=document, headers=yaml_headers)
        stored = await http.get("/v1/access", headers=user.headers)
    for answer, field in ((one, "wings[1]"), (whole, "agents.coder.wings[0]"), (imported, "agents.coder.wings[0]")):
        assert answer.status_code == 400, answer.text
        error = answer.json()
        assert error["extra"][0]["key"] == field, error
        assert error["detail"].startswith(f"{field}: {RULE}"), error
    assert stored.json()["agents"] == {}, stored.text  # nothing was stored


async def test_every_key_mining_makes_is_taken(base_url: str, new_user: NewUser) -> None:
    user = await new_user("wing-slugs")
    async with httpx.AsyncClient(base_url=base_url) as http:
        answer = await http.put("/v1/agents/coder/access", json={"wings": list(MINED)}, headers=user.headers)
    assert answer.status_code == 200, answer.text
    assert answer.json()["wings"] == sorted(MINED)


async def test_a_slug_is_refused_unless_allowed_itself_though_its_words_key_an_allowed_wing(
    client: AsyncTestClient,  # type: ignore[type-arg]
    db: Database,
    embedder: Embedder,
    new_user: NewUser,
) -> None:
    """Dr. Sousa's wing is keyed ``sousa`` (`name_key` of its name), and a wing named "sr-sousa" is
    another: an agent allowed ``sousa`` recalls by the name "Dr. Sousa" but is refused "sr-sousa"
    with a 403, not answered as though allowed (recall would find nothing)."""
    user = await new_user("wing-slugs")
    at = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)
    said = "The budget spreadsheet for the clinic is due Friday"
    placed = await place_conversation(db, embedder, user.id, ConversationSpec([("user", said, at)], wing="sousa"))
    await place_conversation(db, embedder, user.id, ConversationSpec([("user", said, at)], wing="sr-sousa"))
    async with db.user_session(user.id) as s:
        await s.execute(text("UPDATE wings SET name = 'Dr. Sousa' WHERE slug = 'sousa'"))
    put = await client.put("/v1/agents/family/access", json={"wings": ["sousa"]}, headers=user.headers)
    assert put.status_code == 200, put.text
    asked = {"message": said, "agent_id": "family"}
    by_name = await client.post("/v1/recall", json=asked | {"filters": {"wing": "Dr. Sousa"}}, headers=user.headers)
    assert by_name.status_code == 200, by_name.text
    assert placed.drawer_ids[0] in {d["drawer_id"] for d in by_name.json()["items"]}, by_name.text
    for other in ("sr-sousa", "Sr-Sousa"):
        refused = await client.post("/v1/recall", json=asked | {"filters": {"wing": other}}, headers=user.headers)
        assert refused.status_code == 403, refused.text
        assert refused.json()["extra"][0]["key"] == "filters.wing", refused.text
