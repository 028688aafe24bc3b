"""AAAK pointers: the short, stable address of a drawer inside a user's palace.

``§ W-042/R-11/D-007`` reads wing 42, room 11 of that wing, drawer 7 of that room.
Numbers are per-user sequences assigned at placement and never reused, so a pointer
quoted in an LLM context stays valid as long as the drawer exists.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from loci.errors import InvalidInput

__all__ = ["AaakPointer", "format_pointer", "parse_pointer"]

_POINTER_RE = re.compile(r"^§?\s*W-(\d+)/R-(\d+)/D-(\d+)$")


@dataclass(frozen=True, slots=True)
class AaakPointer:
    wing: int
    room: int
    drawer: int

    def __str__(self) -> str:
        return format_pointer(self.wing, self.room, self.drawer)


def format_pointer(wing: int, room: int, drawer: int) -> str:
    return f"§ W-{wing:03d}/R-{room:02d}/D-{drawer:03d}"


def parse_pointer(text: str) -> AaakPointer:
    match = _POINTER_RE.match(text.strip())
    if not match:
        raise InvalidInput(f"not an AAAK pointer: {text!r} (expected like '§ W-042/R-11/D-007')", field="pointer")
    wing, room, drawer = (int(g) for g in match.groups())
    return AaakPointer(wing, room, drawer)
