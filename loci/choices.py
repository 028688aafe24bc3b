"""The words a refused field takes, read off the type it was converted to.

msgspec refuses a ``Literal`` or an enum with "Invalid enum value 'wing'", naming only what was
sent: a caller read a dead end where every other refusal lists what to send ("must be one of …").
The HTTP bodies (`service.strict_body`), the query parameters (`service.errors`) and the YAML
access document (`domain.agent_access_edit`) all say it with `choices_at`, so one rule walks the
type, whichever way the value came in.
"""

from __future__ import annotations

import enum
import re
from typing import Any

import msgspec

__all__ = ["INVALID_CHOICE", "choices_at", "one_of"]

INVALID_CHOICE = re.compile(r"^Invalid enum value ")
"""msgspec's refusal of a value a ``Literal`` or an enum does not take (Litestar's parameters say it too)."""

_STEP = re.compile(r"\[(?P<index>\d+|\.\.\.)\]|\.?(?P<name>[^.\[]+)")
"""One step of a refusal's path: ``turns``, ``[0]``, ``.role``, or ``[...]`` (msgspec's word for a map's value)."""
_WITH_FIELDS = (msgspec.inspect.StructType, msgspec.inspect.TypedDictType, msgspec.inspect.DataclassType)
_ARRAYS = (
    msgspec.inspect.ListType,
    msgspec.inspect.SetType,
    msgspec.inspect.FrozenSetType,
    msgspec.inspect.VarTupleType,
)


def _members(info: Any) -> list[Any]:
    """The types ``info`` may be: its members when a union (``Literal[...] | None``), without metadata."""
    while isinstance(info, msgspec.inspect.Metadata):
        info = info.type
    found = list(info.types) if isinstance(info, msgspec.inspect.UnionType) else [info]
    return [t.type if isinstance(t, msgspec.inspect.Metadata) else t for t in found]


def _child(info: Any, name: str | None, index: str | None) -> Any:
    """The type at one step of a refusal's path: a field by its JSON name, an array's item or a map's value."""
    for member in _members(info):
        if name is not None and isinstance(member, _WITH_FIELDS):
            return next((f.type for f in member.fields if f.encode_name == name), None)
        if index is not None and isinstance(member, _ARRAYS):
            return member.item_type
        if index == "..." and isinstance(member, msgspec.inspect.DictType):
            return member.value_type
    return None


def _words(member: Any) -> list[str]:
    if isinstance(member, msgspec.inspect.LiteralType):
        return [str(v) for v in member.values]
    if isinstance(member, msgspec.inspect.EnumType):
        return [str(m.value) if isinstance(m, enum.Enum) else str(m) for m in member.cls]
    return []


def choices_at(type_: Any, path: str = "") -> list[str]:
    """The values the ``Literal`` or enum at ``path`` (msgspec's, without ``$``: ``filters.role``,
    ``modes[...].mode``) of ``type_`` allows, in their declared order; empty when it is neither."""
    try:
        info: Any = msgspec.inspect.type_info(type_)
    except (TypeError, ValueError):
        return []
    for step in _STEP.finditer(path):
        info = _child(info, step.group("name"), step.group("index"))
        if info is None:
            return []
    return [word for member in _members(info) for word in _words(member)]


def one_of(choices: list[str]) -> str:
    """The refusal's words for a choice: the same sentence wherever a fixed list of words is refused."""
    return "must be one of " + ", ".join(choices)
