"""The labelled fixture: conversations whose user turns carry the memories they must yield.

The file (``fixture.json`` beside this module, or any file of the same shape) holds
``conversations``, each with ``id`` and ``turns``; a turn has ``seq``, ``role``,
``content`` and, for user turns, ``expect``: a list of ``{"category", "content",
"slot"?, "retracts"?, "kind"?}``. An empty or absent list means the turn must yield
nothing. A label's kind, which the report groups by, is its ``kind`` when given (a
slot restated as a correction says ``"correction"``), else ``correction`` when it
retracts something, ``slot`` when it fills one, ``preference`` for everything else
(tastes, goals, response style, health facts).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["DEFAULT_FIXTURE", "LABEL_KINDS", "Conversation", "Label", "Turn", "load_fixture", "parse_fixture"]

DEFAULT_FIXTURE = Path(__file__).with_name("fixture.json")
LABEL_KINDS = ("slot", "preference", "correction")


@dataclass(frozen=True, slots=True)
class Label:
    """One memory a turn must yield."""

    category: str
    content: str
    kind: str
    slot: str | None = None
    retracts: str | None = None


@dataclass(frozen=True, slots=True)
class Turn:
    seq: int
    role: str
    content: str
    labels: tuple[Label, ...] = ()


@dataclass(frozen=True, slots=True)
class Conversation:
    id: str
    turns: tuple[Turn, ...]


def _kind(raw: dict[str, Any]) -> str:
    if raw.get("kind"):
        kind = str(raw["kind"])
        if kind not in LABEL_KINDS:
            raise ValueError(f"label kind {kind!r} is not one of {LABEL_KINDS}")
        return kind
    return "correction" if raw.get("retracts") else "slot" if raw.get("slot") else "preference"


def _label(raw: dict[str, Any]) -> Label:
    return Label(
        category=str(raw["category"]),
        content=str(raw["content"]),
        kind=_kind(raw),
        slot=raw.get("slot"),
        retracts=raw.get("retracts"),
    )


def parse_fixture(data: dict[str, Any]) -> list[Conversation]:
    """The conversations of a parsed fixture file; a label on an assistant turn is an error."""
    conversations = []
    for conv in data["conversations"]:
        turns = []
        for t in conv["turns"]:
            labels = tuple(_label(raw) for raw in t.get("expect") or ())
            if labels and t["role"] != "user":
                raise ValueError(f"{conv['id']} turn {t['seq']}: only user turns carry labels")
            turns.append(Turn(int(t["seq"]), str(t["role"]), str(t["content"]), labels))
        conversations.append(Conversation(str(conv["id"]), tuple(turns)))
    return conversations


def load_fixture(path: Path = DEFAULT_FIXTURE) -> list[Conversation]:
    return parse_fixture(json.loads(path.read_text(encoding="utf-8")))
