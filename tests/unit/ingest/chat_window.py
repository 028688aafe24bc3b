"""What the offline extractor's unit tests share: a window of chat turns read as mining reads
it, the kinds it gives names, and a pattern stand-in that counts what its searches are given to
read, so a test can hold a guard's work in step with a paste's length without timing it."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from ingest.extract_offline import extract_window
from ingest.extraction import Extraction, TurnView
from ingest.relation_extract import relations_in

__all__ = ["AT", "CountingPattern", "Fact", "chat", "facts", "facts_of", "kinds"]

AT = datetime(2026, 11, 20, 9, 0, tzinfo=UTC)


def chat(*turns: str) -> Extraction:
    """A window of turns; one starting "A:" is the assistant's."""
    views = [
        TurnView(i, i, "assistant" if t.startswith("A:") else "user", t.removeprefix("A:"), AT)
        for i, t in enumerate(turns, 1)
    ]
    return extract_window(views)


def kinds(*turns: str) -> dict[str, str]:
    return {m.name: m.kind for ms in chat(*turns).mentions.values() for m in ms}


Fact = tuple[str, str, str]


def facts(text: str, kinds: dict[str, str] | None = None) -> set[Fact]:
    """What one user turn states by the relation rules alone, with the names' kinds given (none by
    default), as (subject, predicate, value)."""
    found, _ = relations_in(TurnView(1, 1, "user", text, AT), kinds or {})
    return {(f.subject.name, f.predicate, f.value) for f in found}


def facts_of(predicate: str, text: str, kinds: dict[str, str] | None = None) -> set[Fact]:
    return {f for f in facts(text, kinds) if f[1] == predicate}


class CountingPattern:
    """A compiled pattern that counts the characters each search is given to read."""

    def __init__(self, pattern: re.Pattern[str], read: list[int]) -> None:
        self.pattern, self.read = pattern, read

    def search(self, text: str, pos: int = 0, endpos: int = 1 << 62) -> Any:
        self.read.append(min(endpos, len(text)) - pos)
        return self.pattern.search(text, pos, endpos)

    def finditer(self, text: str, pos: int = 0, endpos: int = 1 << 62) -> Any:
        self.read.append(min(endpos, len(text)) - pos)
        return self.pattern.finditer(text, pos, endpos)
