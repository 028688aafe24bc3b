"""JSON schemas of the tools' arguments, derived from the msgspec records the routes decode.

One derivation serves MCP's ``inputSchema`` and the function-calling formats of
`GET /v1/tools`, so the three cannot drift from each other or from the HTTP API; MCP's
``outputSchema`` is derived the same way from the record a tool answers.
msgspec writes nested records as ``$ref``s into ``$defs``; function-calling APIs want
one self-contained object, so the references are inlined (no argument type is recursive).
"""

from __future__ import annotations

import copy
from typing import Any

import msgspec

__all__ = ["FORMATS", "function_schema", "input_schema", "output_schema"]

FORMATS = ("openai", "anthropic")
"""The function-calling shapes `GET /v1/tools` answers in."""

_REF = "#/$defs/"


def _inline(node: Any, defs: dict[str, Any]) -> Any:
    if isinstance(node, list):
        return [_inline(item, defs) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith(_REF):
        return _inline(copy.deepcopy(defs[ref.removeprefix(_REF)]), defs)
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "properties":  # field names, not keywords: a field may be called "title"
            out[key] = {field: _inline(sub, defs) for field, sub in value.items()}
        elif key != "title":  # msgspec's record names mean nothing to a model
            out[key] = _inline(value, defs)
    return out


def input_schema(args: type[msgspec.Struct]) -> dict[str, Any]:
    """The object schema of one tool's arguments; unknown fields are refused (as the routes do)."""
    raw = msgspec.json.schema(args)
    schema: dict[str, Any] = _inline(raw, raw.get("$defs", {}))
    schema.pop("$defs", None)
    schema.pop("description", None)  # the record's docstring is for developers; the tool has its own
    schema.setdefault("properties", {})
    schema["additionalProperties"] = False
    return schema


def output_schema(result: type[msgspec.Struct]) -> dict[str, Any]:
    """The object schema of one tool's structured result (MCP's ``outputSchema``): what
    `msgspec.to_builtins` makes of the record the call answers, which the SDK's client
    checks every successful result against. Unknown fields are allowed: a client written
    against this schema keeps working when a field is added."""
    raw = msgspec.json.schema(result)
    schema: dict[str, Any] = _inline(raw, raw.get("$defs", {}))
    schema.pop("$defs", None)
    return schema


def function_schema(name: str, description: str, parameters: dict[str, Any], fmt: str) -> dict[str, Any]:
    """One tool in a provider's function-calling shape (``fmt`` is one of `FORMATS`)."""
    if fmt == "openai":
        return {"type": "function", "function": {"name": name, "description": description, "parameters": parameters}}
    if fmt == "anthropic":
        return {"name": name, "description": description, "input_schema": parameters}
    raise ValueError(f"unknown format {fmt!r}")
