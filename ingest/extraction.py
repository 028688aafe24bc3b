"""What an extractor reads and returns, and the interface both extractors implement.

Extractors see one window of turns and return plain records: the entities each turn
mentions (kinds p/l/e/i/t), the window's topics, a suggested subject for the wing, and
relations with a validity start. Placement and the graph writer consume only these
records, so the offline and the LLM extractor are interchangeable per window.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from types import MappingProxyType
from typing import Protocol

from loci.llm import ChatResult
from loci.timexpr import TimeSpan

__all__ = [
    "KIN",
    "NO_KNOWN_KINDS",
    "USER_ENTITY",
    "EntityMention",
    "Extraction",
    "ExtractionOutcome",
    "Extractor",
    "RelationFact",
    "Subject",
    "TurnView",
    "time_entity_name",
]


@dataclass(frozen=True, slots=True)
class TurnView:
    """A stored turn as extractors see it (its timestamp, on the sender's clock, anchors relative times)."""

    id: int
    seq: int
    role: str
    content: str
    created_at: datetime
    name: str | None = None
    """Who wrote it, when the caller said (``turns.name``)."""


@dataclass(frozen=True, slots=True)
class EntityMention:
    """An entity as a turn names it; ``kind`` is one of `loci.models.ENTITY_KINDS`."""

    kind: str
    name: str


KIN = "kin"
"""The kind of a subject named only by a people word the window gives no name ("my brother
started at Google"): its name is the word's predicate ("brother"), and the writer makes it the
person the user's graph holds so (`ingest.relation_current.name_kin`). Never stored."""

USER_ENTITY = EntityMention("p", "User")
"""The person chatting: the subject of first-person relations ("I moved to Porto"). It is
stored as an entity only so those relations have a subject row; no turn mentions it, so it
counts no mentions and the entity listings leave it out (`ingest.graph.search_entities`):
a speaker label is never an entity."""


@dataclass(frozen=True, slots=True)
class RelationFact:
    """``subject —predicate→ value`` true from ``valid_from``; ``turn_seq`` is its source."""

    subject: EntityMention
    predicate: str
    value: str
    value_kind: str | None  # an entity kind when the value is itself an entity
    valid_from: datetime
    turn_seq: int
    confidence: float = 1.0


@dataclass(frozen=True, slots=True)
class Subject:
    """What the window is about, as the LLM suggests it: kind person / place / project / topic / agent.
    Mining names the wing by the windows' suggestions when the LLM read any (`ingest.wings.suggested_subject`),
    else by `ingest.subjects` over the whole conversation."""

    kind: str
    name: str


@dataclass(frozen=True, slots=True)
class Extraction:
    topics: tuple[str, ...] = ()
    subject: Subject | None = None
    mentions: Mapping[int, tuple[EntityMention, ...]] = field(default_factory=dict)  # by turn seq
    relations: tuple[RelationFact, ...] = ()
    topic_candidates: tuple[str, ...] = ()
    """Phrases for mining to rank against the window's embedding (`ingest.keyphrases`);
    when set, the ranked ones replace ``topics``. Empty when the extractor chose itself."""
    earlier: object | None = None
    """What the window's sentences named that the next window's may only point back at ("sold the
    jazz", "it's fixed", "I got it!": the offline extractor's `ingest.relation_context.Recent`),
    carried to it by `ingest.known_kinds.with_window_kinds`; None from the LLM."""


@dataclass(frozen=True, slots=True)
class ExtractionOutcome:
    """The extraction plus how it was obtained, for the activity event and cost rows."""

    extraction: Extraction
    extractor: str  # "offline" or "llm"
    fallback: str | None = None  # why the LLM was not used for this window
    calls: tuple[ChatResult, ...] = ()


NO_KNOWN_KINDS: Mapping[str, str] = MappingProxyType({})
"""No name's kind known beforehand: a window read by its own words alone."""


class Extractor(Protocol):
    name: str
    reads_subjects: bool
    """Whether `extract` uses ``subjects``; mining looks the user's wings up only for one that does."""

    async def extract(
        self, turns: Sequence[TurnView], subjects: Sequence[str] = (), known: Mapping[str, str] = NO_KNOWN_KINDS
    ) -> ExtractionOutcome:
        """The window's records; ``subjects`` are the names the user's palace already files chats
        under (`ingest.wings.known_subjects`), for an extractor that names the window's subject;
        ``known`` maps names the user's graph already holds (lower case) to their kinds
        (`ingest.known_kinds`), for an extractor that types a name by its context and finds
        none in this window ("I quit Acme." weeks after "I work at Acme")."""
        ...


def time_entity_name(span: TimeSpan) -> str:
    """One canonical name per period, so "last Tuesday" and "on May 16" are one entity.

    A window around a day ("in two weeks", "a month ago": the day ± half a unit) is named by the
    calendar period its middle falls in, as a calendar phrase names it: "in two weeks" said on a
    Saturday is the ISO week of that day, named by its Monday like "next week", and "two years ago"
    the year it lands in. A span longer than a year ("the 80s", "the mid 90s", "a decade ago") is its
    decade, "1990s", never a year: "the mid 90s" is not "in 1993".
    """
    start, middle = span.start.date(), span.center.date()
    if span.granularity == "year":
        return f"{middle.year // 10 * 10}s" if span.end - span.start > _A_YEAR else f"{middle:%Y}"
    if span.granularity == "month":
        return f"{middle:%Y-%m}"
    if span.granularity == "season":
        return f"{start:%Y-%m}/{span.end.date():%Y-%m}"
    if span.granularity == "week":
        return f"week of {(middle - timedelta(days=middle.weekday())).isoformat()}"
    return start.isoformat()


_A_YEAR = timedelta(days=366)
