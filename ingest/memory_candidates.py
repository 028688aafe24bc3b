"""What mining proposes as memories, and the single-valued slots that make corrections work.

An extractor (offline rules in `ingest.memory_rules`, the LLM in `ingest.memory_llm`)
reads a window's user turns and returns `MemoryCandidate` records; reconciliation
(`ingest.memory_reconcile`) then decides, against the user's active memories, whether each
is new (add), a new value for something already known (update), the same thing again
(confirm) or something it must not touch (skip).

A *slot* is an attribute a person has one value of at a time: where they live, their name,
their job. Two statements in one slot cannot both be true, so a later one replaces the
earlier ("I live in Lisbon" ... "actually, I moved to Porto"). Each slot states its value
with one fixed phrase (`SLOTS`), so a saved memory in the same words ("Lives in Lisbon",
typed by the user) is recognised as the same slot without a model.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType

__all__ = ["SLOTS", "MemoryCandidate", "Slot", "slot_of_content", "slot_tag"]


@dataclass(frozen=True, slots=True)
class Slot:
    """How a slot's value is written as memory content: ``template.format(value)``."""

    category: str
    template: str

    @property
    def prefix(self) -> str:
        """The fixed words before the value, lower-cased (what `slot_of_content` matches)."""
        return self.template.split("{}")[0].lower()


SLOTS = MappingProxyType(
    {
        "name": Slot("profile", "Name is {}"),
        "preferred_name": Slot("profile", "Prefers to be called {}"),
        "pronouns": Slot("profile", "Pronouns are {}"),
        "age": Slot("profile", "Is {} years old"),
        "location": Slot("profile", "Lives in {}"),
        "hometown": Slot("profile", "Is from {}"),
        "job": Slot("profile", "Works as {}"),
        "employer": Slot("profile", "Works at {}"),
        "diet": Slot("preference", "Diet: {}"),
        "partner": Slot("relationship", "Partner is {}"),
    }
)
"""The single-valued attributes mining knows, by name. One table: adding a slot is one line."""


def slot_tag(slot: str) -> str:
    """The tag an extracted memory carries for its slot (``slot:location``)."""
    return f"slot:{slot}"


def slot_of_content(content: str) -> str | None:
    """The slot a stored statement fills, judged by its fixed words (longest prefix wins)."""
    text = " ".join(content.split()).lower()
    matches = [(len(s.prefix), name) for name, s in SLOTS.items() if text.startswith(s.prefix) and text != s.prefix]
    return max(matches)[1] if matches else None


@dataclass(frozen=True, slots=True)
class MemoryCandidate:
    """A durable fact a person stated about themselves, as a memory to propose.

    ``content`` is one short statement without a subject ("Lives in Porto", "Is allergic to
    shellfish"), as saved memories are written. ``slot`` names the single-valued attribute
    it sets, if any (`SLOTS`); its content is then that slot's template filled in.
    ``retracts`` is what a correction ends ("I no longer eat meat" retracts "Eats meat"),
    matched by meaning against active memories. ``turn_seqs`` are the turns it came from.
    ``ends_only`` marks a retraction that only ends what it retracts and is never added on its
    own when nothing matches: one the knowledge graph's ending made (`ingest.memory_endings`),
    where "I left Globex" is a fact about a job only when a job there is known.
    """

    category: str
    content: str
    confidence: float
    importance: int
    turn_seqs: tuple[int, ...]
    slot: str | None = None
    retracts: str | None = None
    ends_only: bool = False
