"""The client cannot drift from the server: every public operation of the OpenAPI schema has
a client method, and each method's response model has the schema's field names and
required-ness, nested models included."""

from __future__ import annotations

import types
import typing
from typing import Any

import pytest
from pydantic import BaseModel

from loci.settings import load_settings
from loci_client import Op, Operations
from service.app import create_app

METHODS = ("get", "post", "put", "patch", "delete")
NOT_FOR_USERS = ("/v1/admin/",)
"""Admin routes take the admin key, not a user's: `service/admin_client.py` is their client."""


@pytest.fixture(scope="module")
def spec() -> dict[str, Any]:
    settings = load_settings(database={"url": "postgresql://unused@127.0.0.1/unused"}, server={"run_worker": False})
    schema: dict[str, Any] = create_app(settings, run_worker=False).openapi_schema.to_schema()
    return schema


def _public_operations(spec: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {
        op["operationId"]: op
        for path, item in spec["paths"].items()
        if path.startswith("/v1/") and not path.startswith(NOT_FOR_USERS)
        for method, op in item.items()
        if method in METHODS
    }


def _client_ops() -> list[tuple[str, Op[Any, Any]]]:
    return [(name, value) for name, value in vars(Operations).items() if isinstance(value, Op)]


def test_every_public_operation_has_a_client_method(spec: dict[str, Any]) -> None:
    covered = {op.operation_id for _, op in _client_ops()}
    public = _public_operations(spec)
    assert len(public) > 40
    assert sorted(set(public) - covered) == [], "operations without a client method"
    assert sorted(covered - set(public)) == [], "client methods for operations the server does not have"


def _resolve(spec: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = spec["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    return schema


def _object_schema(spec: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any] | None:
    """The object schema inside ``schema`` (through a $ref, allOf, or a oneOf with null)."""
    schema = _resolve(spec, schema)
    for key in ("oneOf", "anyOf", "allOf"):
        for option in schema.get(key, []):
            found = _object_schema(spec, option)
            if found is not None:
                return found
    return schema if "properties" in schema else None


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is not None:
        return [m for arg in typing.get_args(annotation) for m in _models_in(arg)]
    return []


def _compare(spec: dict[str, Any], model: type[BaseModel], schema: dict[str, Any], where: str) -> list[str]:
    props = schema["properties"]
    required = set(schema.get("required", []))
    fields = {info.alias or name: info for name, info in model.model_fields.items()}  # JSON names
    problems = [f"{where}: {model.__name__} lacks {name!r}" for name in props if name not in fields]
    problems += [f"{where}: {model.__name__}.{name} is not in the schema" for name in fields if name not in props]
    for name, info in fields.items():
        if name not in props:
            continue
        if info.is_required() != (name in required):
            problems.append(
                f"{where}: {model.__name__}.{name} required={info.is_required()}, the schema says {name in required}"
            )
        for nested in _models_in(info.annotation):
            inner = _nested_schema(spec, props[name])
            if inner is None:
                problems.append(f"{where}: {model.__name__}.{name} is a model, the schema's is not an object")
            else:
                problems += _compare(spec, nested, inner, f"{where}.{name}")
    return problems


def _nested_schema(spec: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any] | None:
    schema = _resolve(spec, schema)
    if schema.get("type") == "array":
        return _nested_schema(spec, schema["items"])
    for option in schema.get("oneOf", []):
        found = _nested_schema(spec, option)
        if found is not None:
            return found
    values = schema.get("additionalProperties")
    if "properties" not in schema and isinstance(values, dict):  # a map: its values' schema
        return _nested_schema(spec, values)
    return _object_schema(spec, schema)


def test_response_models_match_the_schema(spec: dict[str, Any]) -> None:
    public = _public_operations(spec)
    problems: list[str] = []
    checked = 0
    for name, op in _client_ops():
        success = {code: r for code, r in public[op.operation_id]["responses"].items() if code.startswith("2")}
        for code, response in success.items():
            schema = response.get("content", {}).get("application/json", {}).get("schema")
            models = _models_in(op.decoder.schema_type) if op.decoder.schema_type is not None else []
            if schema is None or not models:
                if (schema is None) != (op.decoder.schema_type is None) and name != "export_text":
                    problems.append(f"{name}: {code} has schema {schema}, the client decodes {op.decoder.schema_type}")
                continue
            is_list = typing.get_origin(op.decoder.schema_type) is list
            if is_list != (_resolve(spec, schema).get("type") == "array"):
                problems.append(f"{name}: the client and the schema disagree on a list answer")
            target = _nested_schema(spec, schema)
            assert target is not None, f"{name}: no object schema in {schema}"
            problems += _compare(spec, models[0], target, name)
            checked += 1
    assert checked > 40
    assert not problems, "\n".join(problems)
