"""An import holding two current values of one fact is refused with the value checks, naming the row.

A scale walkthrough imported a file with two current rows (``valid_to`` null) of one
single-valued relation for one subject: the unique index ``uq_relations_current`` refused it
only when the rows were written, 82 s in, after all the embedding, as a 400 naming ``body``.
Now both forms refuse it before writing anything, naming the second row (``relations[i]``,
or its NDJSON line) and the first; a multi-valued predicate (``visited``) is refused for one
value twice, in any ASCII case (``uq_relations_current_multi`` keys on ``lower(object_value)``),
and a current row beside an ended one of the same fact still imports.
"""

from __future__ import annotations

import copy
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from litestar.testing import AsyncTestClient

from ingest import is_multi_valued
from service.state import AppState
from tests.conftest import UserHandle
from tests.integration.test_import_row_values import _lines, _post_lines, _source

NewUser = Callable[..., Awaitable[UserHandle]]
Client = AsyncTestClient  # type: ignore[type-arg]
Row = dict[str, Any]

SINGLE, MULTI = "favourite tea", "visited"


def _pair(kind: str, subject: int, first_id: int) -> list[Row]:
    """Two rows of one fact: both current (``single``, ``multi``), or the first ended (``ended``)."""
    predicate, values = (MULTI, ("Ulan Bator", "ulan bator")) if kind == "multi" else (SINGLE, ("oolong", "sencha"))
    first = {"id": first_id, "subject_id": subject, "predicate": predicate, "object_value": values[0],
             "valid_from": "2026-07-01T00:00:00Z"}  # fmt: skip
    second = {**first, "id": first_id + 1, "object_value": values[1], "valid_from": "2026-07-02T00:00:00Z"}
    if kind == "ended":
        first["valid_to"] = "2026-07-02T00:00:00Z"
    return [first, second]


KINDS = ["single", "multi", "ended"]


def test_the_predicates_are_of_the_kinds_the_cases_need() -> None:
    assert not is_multi_valued(SINGLE) and is_multi_valued(MULTI)


@pytest.mark.parametrize("kind", KINDS)
async def test_a_json_file_with_two_current_values_of_one_fact_is_refused_naming_the_second(
    client: Client, app_state: AppState, new_user: NewUser, kind: str
) -> None:
    user, fresh = await _source(client, app_state, new_user), await new_user()
    doc = (await client.get("/v1/export", params={"embeddings": "false"}, headers=user.headers)).json()
    subject, start = doc["entities"][0]["id"], max(r["id"] for r in doc["relations"]) + 1
    doc["relations"].extend(_pair(kind, subject, start))
    first, second = len(doc["relations"]) - 2, len(doc["relations"]) - 1
    answer = await client.post("/v1/import", json=doc, headers=fresh.headers)
    if kind == "ended":
        assert answer.status_code == 201, answer.text
        return
    assert answer.status_code == 400, answer.text
    assert answer.json()["extra"][0]["key"] == f"relations[{second}]", answer.text
    detail = answer.json()["detail"]
    predicate = MULTI if kind == "multi" else SINGLE
    assert f"subject {subject}" in detail and f"relations[{first}]" in detail and predicate in detail, detail
    assert (await client.get("/v1/conversations", headers=fresh.headers)).json()["total"] == 0


@pytest.mark.parametrize("kind", KINDS)
async def test_an_ndjson_file_with_two_current_values_of_one_fact_is_refused_naming_the_line(
    client: Client, app_state: AppState, new_user: NewUser, kind: str
) -> None:
    user, fresh = await _source(client, app_state, new_user), await new_user()
    stream = await client.get("/v1/export", params={"format": "ndjson", "embeddings": "false"}, headers=user.headers)
    lines = _lines(stream.text)
    relations = [x for x in lines if x["type"] == "relation"]
    subject = next(x for x in lines if x["type"] == "entity")["id"]
    pair = [{"type": "relation", **r} for r in _pair(kind, subject, max(r["id"] for r in relations) + 1)]
    at = lines.index(relations[-1]) + 1
    lines[at:at] = copy.deepcopy(pair)
    lines[-1]["counts"]["relation"] += 2
    answer = await _post_lines(client, fresh, lines)
    if kind == "ended":
        assert answer.status_code == 201, answer.text
        return
    assert answer.status_code == 400, answer.text
    assert answer.json()["extra"][0]["key"] == f"line {at + 2}", answer.text  # lines count from 1
    detail = answer.json()["detail"]
    assert f"subject {subject}" in detail and f"at line {at + 1}" in detail, detail
    assert (await client.get("/v1/conversations", headers=fresh.headers)).json()["total"] == 0
