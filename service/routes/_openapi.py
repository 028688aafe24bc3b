"""Where Litestar's generated OpenAPI says less than the server enforces, and the fixes.

The schema is a contract that clients are generated from and that schemathesis checks
the server against, so every rule the server applies must be stated in it. Litestar
2.x leaves out three kinds, added here:

* a msgspec Struct with ``forbid_unknown_fields=True`` rejects unknown keys, but its
  schema allowed them: `StrictStructSchemaPlugin` writes ``additionalProperties: false``;
* an optional request body (``JSONBody[X | None] = None``) is always ``required: true``:
  `OptionalBody`;
* a response that is JSON, NDJSON or Markdown by a query parameter lists only JSON: `also_as`;
* query parameters of which at most one may be given (the palace's wing, room, closet)
  have no per-parameter way to say so: `at_most_one_of` folds them into one
  form-exploded object parameter (same query string) with ``maxProperties: 1``;
* a `msgspec.Meta` below a field (a list's items, a dict's keys, the string member of
  ``int | str``) is enforced by msgspec but left out of the schema, so a tag or a category
  in a list had no pattern: `StrictStructSchemaPlugin` copies those rules in (`_state_nested`).

The ``OPTIONS`` ``Allow`` header is the other gap Litestar leaves (see `allow_header`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import msgspec
from litestar._openapi.schema_generation.plugins.struct import StructSchemaPlugin
from litestar.datastructures import MutableScopeHeaders
from litestar.openapi.spec import OpenAPIMediaType, Operation, Parameter, Reference, RequestBody, Schema
from litestar.openapi.spec.enums import OpenAPIType
from litestar.types import Message, Scope

__all__ = ["OptionalBody", "StrictStructSchemaPlugin", "allow_header", "also_as", "at_most_one_of"]


class StrictStructSchemaPlugin(StructSchemaPlugin):
    """Struct schemas as Litestar makes them, plus ``additionalProperties: false`` when the
    struct forbids unknown fields and the rules msgspec enforces below a field, so the
    schema refuses what the server refuses."""

    def to_openapi_schema(self, field_definition: Any, schema_creator: Any) -> Schema:
        schema = super().to_openapi_schema(field_definition, schema_creator)
        info = msgspec.inspect.type_info(field_definition.type_)
        if isinstance(info, msgspec.inspect.StructType):
            if info.forbid_unknown_fields:
                schema.additional_properties = False
            for field in info.fields:
                _state_nested((schema.properties or {}).get(field.encode_name), field.type)
        return schema


_ARRAYS = (
    msgspec.inspect.ListType,
    msgspec.inspect.SetType,
    msgspec.inspect.FrozenSetType,
    msgspec.inspect.VarTupleType,
)


def _string_rules(info: msgspec.inspect.StrType) -> Schema:
    return Schema(type=OpenAPIType.STRING, pattern=info.pattern, min_length=info.min_length, max_length=info.max_length)


def _state_nested(schema: Schema | Reference | None, info: msgspec.inspect.Type, stated: bool = False) -> None:
    """Write into ``schema`` (Litestar's, of a value of type ``info``) the string rules msgspec
    enforces that Litestar left out: those of a union's string member, of a list's items,
    of a dict's keys (``propertyNames``) and values. ``stated``: a rule of the enclosing
    schema already applies to this value (Litestar writes a field's own `msgspec.Meta` there)."""
    if not isinstance(schema, Schema):
        return  # a $ref: that struct's own schema is made (and completed) by this plugin
    info = _bare(info)
    stated = stated or schema.pattern is not None
    if branches := [*(schema.one_of or ()), *(schema.any_of or ())]:  # a union (``X | UNSET`` is one of one)
        members = info.types if isinstance(info, msgspec.inspect.UnionType) else (info,)
        for branch in branches:
            for member in (m for m in members if _same_kind(branch, m)):
                _state_nested(branch, member, stated)
    elif isinstance(info, msgspec.inspect.StrType) and not stated and schema.type == OpenAPIType.STRING:
        rules = _string_rules(info)
        schema.pattern, schema.min_length, schema.max_length = rules.pattern, rules.min_length, rules.max_length
    elif isinstance(info, _ARRAYS) and schema.type == OpenAPIType.ARRAY:
        _state_nested(schema.items, info.item_type)
    elif isinstance(info, msgspec.inspect.DictType) and schema.type == OpenAPIType.OBJECT:
        key = _bare(info.key_type)
        if isinstance(key, msgspec.inspect.StrType) and _has_rules(key) and schema.property_names is None:
            schema.property_names = _string_rules(key)
        if isinstance(schema.additional_properties, Schema):
            _state_nested(schema.additional_properties, info.value_type)


def _has_rules(info: msgspec.inspect.StrType) -> bool:
    return any(rule is not None for rule in (info.pattern, info.min_length, info.max_length))


def _same_kind(branch: Schema | Reference, info: msgspec.inspect.Type) -> bool:
    """Whether a union's branch in the schema is the one made from the msgspec type ``info``."""
    if not isinstance(branch, Schema):
        return False
    kinds = {
        OpenAPIType.STRING: (msgspec.inspect.StrType,),
        OpenAPIType.ARRAY: _ARRAYS,
        OpenAPIType.OBJECT: (msgspec.inspect.DictType,),
    }
    return isinstance(_bare(info), kinds.get(branch.type, ()))  # type: ignore[arg-type]


def _bare(info: msgspec.inspect.Type) -> msgspec.inspect.Type:
    """The type without its `msgspec.Meta` docs (description, examples); its rules are on the type."""
    return info.type if isinstance(info, msgspec.inspect.Metadata) else info


@dataclass
class OptionalBody(Operation):
    """An operation whose request body may be left out (the handler has a default for it)."""

    def __post_init__(self) -> None:
        if isinstance(self.request_body, RequestBody):
            self.request_body.required = False


def also_as(alternatives: Mapping[str, str]) -> type[Operation]:
    """An operation whose 200 may also come as other media types (chosen by a query
    parameter): media type -> description of that form."""

    @dataclass
    class _AlsoAs(Operation):
        def __post_init__(self) -> None:
            ok = (self.responses or {}).get("200")
            content = getattr(ok, "content", None)
            if content is not None:
                for media_type, description in alternatives.items():
                    schema = Schema(type=OpenAPIType.STRING, description=description)
                    content[media_type] = OpenAPIMediaType(schema=schema)

    return _AlsoAs


def at_most_one_of(name: str, members: tuple[str, ...], description: str) -> type[Operation]:
    """An operation whose query parameters ``members`` are folded into one object parameter
    ``name`` (``style: form, explode: true``: the query string is unchanged) that holds at
    most one of them."""

    @dataclass
    class _AtMostOne(Operation):
        def __post_init__(self) -> None:
            params = [p for p in self.parameters or [] if isinstance(p, Parameter)]
            folded = {p.name: p.schema for p in params if p.param_in == "query" and p.name in members}
            if not folded:
                return
            one = Parameter(
                name=name,
                param_in="query",
                required=False,
                description=description,
                style="form",
                explode=True,
                schema=Schema(
                    type=OpenAPIType.OBJECT,
                    properties=folded,  # type: ignore[arg-type]
                    additional_properties=False,
                    max_properties=1,
                ),
            )
            others = [p for p in self.parameters or [] if not (isinstance(p, Parameter) and p.name in folded)]
            self.parameters = [one, *others]

    return _AtMostOne


async def allow_header(message: Message, scope: Scope) -> None:
    """``Allow`` on an automatic ``OPTIONS`` answer lists every method of the path.

    Litestar 2.x builds the OPTIONS handler when a path's first handler is registered and
    never updates it, so ``/v1/me`` answered ``Allow: DELETE, OPTIONS`` without GET
    (litestar-org/litestar#4169, fixed only in 3.x). The route the request matched knows
    all its methods; this before-send hook writes them.
    """
    if message["type"] != "http.response.start" or scope.get("method") != "OPTIONS":
        return
    template = scope.get("path_template")
    routes = getattr(scope.get("app"), "routes", ())
    route = next((r for r in routes if getattr(r, "path_format", None) == template), None)
    if route is not None:
        MutableScopeHeaders.from_message(message)["allow"] = ", ".join(sorted(route.methods))
