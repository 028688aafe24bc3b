"""The key msgspec leaves out of a refusal's path, put back (``agents.coder.wings[0]``).

msgspec names a map's value ``[...]`` whichever key holds it, so ``PUT /v1/access`` with a
bad wing for agent ``coder`` was refused as ``agents[...].wings[0]``: a caller with several
agents could not tell which one to fix, and ``PUT /v1/access.yaml`` (which converts one
value at a time) said ``agents.coder.wings[0]`` for the same mistake. The error does not
carry the key, so it is found from the body: msgspec converts a map's entries in order and
stops at the first that fails, so the key is the first whose entry, left alone in its map,
fails with the very same error. Only a refusal's path runs this.
"""

from __future__ import annotations

import re
from typing import Any

import msgspec

__all__ = ["with_keys"]

_STEP = re.compile(r"\[(?P<index>\d+|\.\.\.)\]|\.?(?P<name>[^.\[]+)")
"""One step of msgspec's path: ``.turns``, ``[0]``, or ``[...]`` (a map's value, key unknown)."""

_Step = str | int


def _replaced(root: Any, steps: list[_Step], new: Any) -> Any:
    """``root`` with the value at ``steps`` swapped for ``new``; copies only the containers on the way."""
    if not steps:
        return new
    head, rest = steps[0], steps[1:]
    if isinstance(root, dict) and isinstance(head, str):
        return {**root, head: _replaced(root[head], rest, new)}
    if isinstance(root, list) and isinstance(head, int):
        copy = list(root)
        copy[head] = _replaced(root[head], rest, new)
        return copy
    raise LookupError(head)


def _at(root: Any, steps: list[_Step]) -> Any:
    for step in steps:
        root = root[step]
    return root


def _fails_alike(root: Any, steps: list[_Step], entry: dict[str, Any], type_: Any, said: str) -> bool:
    try:
        msgspec.convert(_replaced(root, steps, entry), type=type_, strict=True)
    except msgspec.ValidationError as e:
        return str(e) == said
    return False


def _key_at(root: Any, steps: list[_Step], type_: Any, said: str) -> str | None:
    """The key of the map at ``steps`` whose entry msgspec refused with ``said``."""
    holder = _at(root, steps)
    if not isinstance(holder, dict):
        return None
    return next((k for k, v in holder.items() if _fails_alike(root, steps, {k: v}, type_, said)), None)


def with_keys(path: str, root: Any, type_: Any, said: str) -> str:
    """``path`` (msgspec's, without ``$``) with each ``[...]`` written as ``.key``, the way the
    YAML import names it; ``root`` is what was converted to ``type_`` and ``said`` the refusal's
    text. A key that cannot be told is left as ``[...]``."""
    if "[...]" not in path:
        return path
    steps: list[_Step] = []
    named = ""
    try:
        for step in _STEP.finditer(path):
            if (index := step.group("index")) is None:
                steps.append(step.group("name"))
                named += f".{step.group('name')}"
            elif index != "...":
                steps.append(int(index))
                named += f"[{index}]"
            elif (key := _key_at(root, steps, type_, said)) is not None:
                root = _replaced(root, steps, {key: _at(root, steps)[key]})
                steps.append(key)
                named += f".{key}"
            else:
                return path
    except (LookupError, TypeError):  # the body is not where the path says: keep msgspec's words
        return path
    return named.lstrip(".")
