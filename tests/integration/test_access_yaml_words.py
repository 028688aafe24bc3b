"""`PUT /v1/access.yaml` refuses a bad document in the JSON route's words, over real HTTP.

Its own decoding had answered msgspec's text as it was (``Expected `str` matching regex
'^[a-z0-9]+(-[a-z0-9]+)*$'``, ``Expected `int` >= 1``, ``Object contains unknown field
`wing```) and named a bad agent id ``body``; the same mistake sent as JSON to `PUT
/v1/access` says the field and its rule. Now both say ``<field>: <rule>``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator

import httpx
import pytest

from loci.embedder import Embedder
from loci.settings import Settings
from tests.conftest import UserHandle
from tests.live_server import live_server

NewUser = Callable[..., Awaitable[UserHandle]]

REFUSED = [
    ('agents: {coder: {wings: ["Billing Service"]}}', "agents.coder.wings[0]", "must be a wing's slug"),
    ("agents: {coder: {modes: {fact: {mode: rag, cap: -1}}}}", "agents.coder.modes.fact.cap", "must be at least 1"),
    ("agents: {coder: {modes: {fact: {mode: sometimes}}}}", "agents.coder.modes.fact.mode", "must be one of all, rag"),
    ('agents: {"bad agent": {}}', "agents", "must be 1-128 characters"),
    ("agents: {coder: {wing: [work]}}", "agents.coder.wing", "is not a field here"),
    ("agents: {coder: {categories: preference}}", "agents.coder.categories", "expected array | null, got str"),
]


@pytest.fixture(scope="module")
def base_url(settings: Settings, embedder: Embedder) -> Iterator[str]:
    with live_server(settings, embedder) as url:
        yield url


@pytest.mark.parametrize(("document", "field", "rule"), REFUSED)
async def test_a_bad_access_document_names_the_field_and_its_rule(
    base_url: str, new_user: NewUser, document: str, field: str, rule: str
) -> None:
    user = await new_user("access-yaml-words")
    headers = {**user.headers, "Content-Type": "application/yaml"}
    async with httpx.AsyncClient(base_url=base_url) as http:
        answer = await http.put("/v1/access.yaml", content=document, headers=headers)
    assert answer.status_code == 400, answer.text
    error = answer.json()
    assert error["extra"][0]["key"] == field, error
    assert error["detail"].startswith(f"{field}: {rule}"), error
    assert "`" not in error["detail"] and "regex" not in error["detail"], error
