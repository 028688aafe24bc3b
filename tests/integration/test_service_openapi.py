"""The OpenAPI spec documents every route: summary, description, operation id, errors, examples,
and the rule of every string a request sends."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from litestar.testing import AsyncTestClient

METHODS = ("get", "post", "put", "patch", "delete")


async def test_every_route_is_documented(client: AsyncTestClient) -> None:  # type: ignore[type-arg]
    spec = (await client.get("/schema/openapi.json")).json()
    operation_ids: list[str] = []
    problems: list[str] = []
    for path, item in spec["paths"].items():
        for method in METHODS:
            if method not in item:
                continue
            op = item[method]
            where = f"{method.upper()} {path}"
            print(where, op.get("operationId"))
            operation_ids.append(op.get("operationId", ""))
            problems += [f"{where}: no {key}" for key in ("summary", "description", "operationId") if not op.get(key)]
            responses = op.get("responses", {})
            if path.startswith("/v1/") and "401" not in responses:
                problems.append(f"{where}: 401 not documented")
            by_id = "{" in path and path.startswith("/v1/") and method != "put"
            if by_id and "404" not in responses:
                problems.append(f"{where}: 404 not documented")
            for code, response in responses.items():
                if code.startswith(("4", "5")) and not response.get("description"):
                    problems.append(f"{where}: {code} has no description")
    assert not problems, "\n".join(problems)
    assert len(operation_ids) == len(set(operation_ids)), "operation ids must be unique"
    text = json.dumps(spec, ensure_ascii=False)
    assert '"examples"' in text and "§ W-003/R-12/D-007" in text
    assert "/memory" not in spec["paths"]  # HTML pages stay out of the API spec


RULES = ("pattern", "enum", "format", "const")
"""What states a string's rule; without one a string could carry a NUL to PostgreSQL."""
KNOWN = {
    "path": "GET /v1/agents/{external_id} path external_id",
    "query": "GET /v1/search query q",
    "header": "GET /v1/context header If-None-Match",
    "body": "POST /v1/memories/confirm application/json body",
}
"""One input of each kind the walk must see, so a walk that saw nothing cannot pass."""


def _unruled(spec: dict[str, Any], schema: Any, where: str, seen: frozenset[str] = frozenset()) -> Iterator[str]:
    """Each string in ``schema`` that may hold anything: neither it nor the schema around it
    (Litestar writes a nullable field's rule beside its ``oneOf``) states a rule. A map's keys
    are strings a request sends too; an open struct's unknown fields are ignored, so not walked."""
    if not isinstance(schema, dict):
        return
    if ref := schema.get("$ref"):
        name = ref.rsplit("/", 1)[-1]
        if name not in seen:
            yield from _unruled(spec, spec["components"]["schemas"][name], where, seen | {name})
        return
    yield from _strings(spec, schema, where, seen, ruled=False)


def _strings(
    spec: dict[str, Any], schema: dict[str, Any], where: str, seen: frozenset[str], ruled: bool
) -> Iterator[str]:
    ruled = ruled or any(key in schema for key in RULES)
    types = schema.get("type")
    if "string" in (types if isinstance(types, list) else [types]) and not ruled:
        yield where
    for branch in [*schema.get("oneOf", []), *schema.get("anyOf", []), *schema.get("allOf", [])]:
        if "$ref" in branch:
            yield from _unruled(spec, branch, where, seen)
        else:
            yield from _strings(spec, branch, where, seen, ruled)
    for name, field in schema.get("properties", {}).items():
        yield from _unruled(spec, field, f"{where}.{name}", seen)
    yield from _unruled(spec, schema.get("items"), f"{where}[]", seen)
    if isinstance(values := schema.get("additionalProperties"), dict):
        yield from _unruled(spec, schema.get("propertyNames", {"type": "string"}), f"{where}{{key}}", seen)
        yield from _unruled(spec, values, f"{where}{{}}", seen)


def _inputs(spec: dict[str, Any], location: str) -> Iterator[tuple[str, Any]]:
    """Every input of a request at ``location`` (path, query, header, or body: each media type's)."""
    for path, item in spec["paths"].items():
        for method in (m for m in METHODS if m in item):
            operation, where = item[method], f"{method.upper()} {path}"
            if location == "body":
                for media_type, content in operation.get("requestBody", {}).get("content", {}).items():
                    yield f"{where} {media_type} body", content.get("schema")
            for parameter in [*item.get("parameters", []), *operation.get("parameters", [])]:
                if parameter["in"] == location:
                    yield f"{where} {location} {parameter['name']}", parameter.get("schema")


@pytest.mark.parametrize("location", sorted(KNOWN))
async def test_every_string_a_request_sends_states_its_rule(client: AsyncTestClient, location: str) -> None:  # type: ignore[type-arg]
    """A string whose schema states no rule let a NUL reach PostgreSQL, whose own message came
    back as a 400 (``GET /v1/agents/ab%00c``). Each states one now (an id's alphabet, the text
    rule, an enum or a format), which the server enforces, so a new field without one fails here."""
    spec = (await client.get("/schema/openapi.json")).json()
    inputs = dict(_inputs(spec, location))
    assert KNOWN[location] in inputs, sorted(inputs)
    unruled = [found for where, schema in inputs.items() for found in _unruled(spec, schema, where)]
    assert not unruled, "strings without a pattern, enum or format:\n" + "\n".join(unruled)


def test_the_walk_finds_a_string_without_a_rule() -> None:
    """The check above is only as good as its walk: it must see strings wherever a schema puts them."""
    spec: dict[str, Any] = {"components": {"schemas": {"S": {"properties": {"s": {"type": "string"}}}}}}
    schema = {
        "properties": {
            "plain": {"type": "string"},
            "ruled": {"oneOf": [{"type": "string"}, {"type": "null"}], "pattern": "^a$"},
            "either": {"oneOf": [{"type": "integer"}, {"type": "string"}]},
            "items": {"type": "array", "items": {"type": "string", "enum": ["a"]}},
            "map": {"type": "object", "additionalProperties": {"$ref": "#/components/schemas/S"}},
        }
    }
    assert sorted(_unruled(spec, schema, "x")) == ["x.either", "x.map{key}", "x.map{}.s", "x.plain"]
