"""An agent's access list names wings by their slugs, the keys mining gives names, over real HTTP.

The schema's pattern took any character outside ASCII but a blank, so "ОЛЬГА", "é", an emoji
or a tag character was stored as given, and the agent was allowed no wing at all (no wing's
slug is upper case or holds an accent); the ASCII pattern before it refused such a value with
a 400. Now a value that is not its own key (`loci.name_keys.slugify`) is a 400 naming the field
and saying the form, by every way in, and every key mining makes is taken.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator

import httpx
import pytest

from loci.embedder import Embedder
from loci.name_keys import slugify
from loci.settings import Settings
from tests.conftest import UserHandle
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
