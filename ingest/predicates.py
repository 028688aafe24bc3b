"""The relation predicates mining records, and which of them hold one value at a time.

Both extractors write relations through `ingest.graph.record_relation`, which reads this
table: a new value of a **single-valued** predicate (someone lives in one place, an item
is in one state) closes the current row and opens the new one, so the entity's timeline
shows old → new; a **multi-valued** one (siblings, friends, allergies, trips, plans) just
adds a row. A plan is carried out by another predicate (`FULFILLED_BY`): the trip, once
made, is a `visited` row of its own, and it closes the plan to make it, so the timeline reads
"plans to visit Japan" until the visit, then "visited Japan". Predicates not listed (the
LLM's own wording) are single-valued, as before.

`canonical_predicate` folds the LLM's synonyms onto these names so both extractors write
the same records.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from ingest.entity_vocab import PEOPLE_ROLES
from loci.relation_ends import ENDED_BY, ENDS_CURRENT, FULFILLED_BY, HELD_AT

__all__ = [
    "EMPLOYER_KIND",
    "ENDED_BY",
    "ENDS_CURRENT",
    "FULFILLED_BY",
    "HELD_AT",
    "MULTI_VALUED",
    "NOT_VALUE_KINDS",
    "PREDICATES",
    "canonical_predicate",
    "is_multi_valued",
]

_SINGLE_PEOPLE = frozenset(
    {"partner", "manager", "landlord"}
    | {"mother", "father", "doctor", "dentist", "therapist", "coach", "trainer", "physiotherapist"}
)
MULTI_VALUED = frozenset(
    {r for r in PEOPLE_ROLES.values() if r not in _SINGLE_PEOPLE}
    | {
        "worked at",
        "visited",
        "plans to visit",
        "likes",
        "dislikes",
        "diagnosed with",
        "allergic to",
        "takes",
        "injury",
        "owns",
        "owned",
        "pet",
    }
)
"""Predicates a subject may hold several values of at once."""

PREDICATES: Mapping[str, str] = MappingProxyType(
    {
        "lives in": "where the subject lives now (moved to …, lives in …)",
        "works at": "the organisation the subject works for now",
        "works as": "the subject's job title now",
        "worked at": "a former employer",
        "visited": "a place the subject travelled to or is in (a trip made or under way)",
        "plans to visit": "a place the subject means or wishes to go to (a trip ahead: booked, planned, wanted)",
        "is": "what an item currently is (the battery is a 44V 30Ah pack)",
        "status": "an item's state: bought, sold, broken, lost, repaired, no longer used",
        "replaced by": "a named item the subject swapped for another",
        "uses": "a product or service the user switched to, or talks to people through",
        "owns": "a product the subject acquired (bought it, was talked into it, drove it home)",
        "owned": "a product the subject no longer has (sold, traded in, returned, given away, stolen)",
        "likes": "something the subject enjoys",
        "dislikes": "something the subject avoids",
        "prefers": "the subject's current preference",
        "diet": "vegetarian, vegan, …",
        "diagnosed with": "a health condition",
        "allergic to": "an allergy",
        "takes": "a medication",
        "injury": "an injury (broken wrist)",
        "pet": "an animal the subject keeps, by its name (my turtle is called Sushi)",
        "species": "what animal a pet is (turtle, dog)",
        **{role: "a person in the subject's life" for role in sorted(set(PEOPLE_ROLES.values()))},
    }
)
"""Every predicate the offline rules produce, with what it means (README lists them), besides
the user's own attributes: "my favorite color is blue", "my budget is $12.50 a day" record the
noun after "my" (`ingest.relation_rules`), never a person word, an owned thing, a body part
("my hamstring is fine") or a when or how ("my long runs are on Sundays")."""

_SYNONYMS: Mapping[str, str] = MappingProxyType(
    {
        "moved to": "lives in",
        "lives at": "lives in",
        "resides in": "lives in",
        "home": "lives in",
        "employer": "works at",
        "works for": "works at",
        "employed at": "works at",
        "employed by": "works at",
        "job title": "works as",
        "job": "works as",
        "role": "works as",
        "occupation": "works as",
        "previously worked at": "worked at",
        "former employer": "worked at",
        "quit job": "left job",
        "lost job": "left job",
        "laid off": "left job",
        "retired": "left job",
        "resigned": "left job",
        "traveled to": "visited",
        "travelled to": "visited",
        "trip to": "visited",
        "visiting": "visited",
        "planning to visit": "plans to visit",
        "plans to travel to": "plans to visit",
        "planning a trip to": "plans to visit",
        "planned trip": "plans to visit",
        "wants to visit": "plans to visit",
        "will visit": "plans to visit",
        "going to visit": "plans to visit",
        "loves": "likes",
        "enjoys": "likes",
        "hates": "dislikes",
        "has condition": "diagnosed with",
        "condition": "diagnosed with",
        "allergy": "allergic to",
        "medication": "takes",
        "takes medication": "takes",
        "state": "status",
        "switched to": "uses",
        "reports to": "manager",
        "line manager": "manager",
        "physio": "physiotherapist",
        "married to": "partner",
        "dating": "partner",
        "has pet": "pet",
        "has a pet": "pet",
        "owns pet": "pet",
        "animal": "species",
    }
)


NOT_VALUE_KINDS: Mapping[str, frozenset[str]] = MappingProxyType(
    {predicate: frozenset("et") for predicate in ("works at", "worked at")}
)
"""Entity kinds a predicate's value never has: a holiday or a date says when ("I started at Easter",
"I work at Christmas too", "I retired as a nurse at Christmas"), never where one works."""

EMPLOYER_KIND: Mapping[str, str] = MappingProxyType({"works at": "o", "worked at": "o"})
"""The kind a predicate's value takes over an item's: a name no word typed but as a thing ("Northshore
Freight Lines", read as a product by its capitals) is an organisation once someone works there."""


def canonical_predicate(predicate: str) -> str:
    """Lower-cased, single-spaced, and a known synonym mapped onto its table name."""
    key = " ".join(predicate.lower().split())
    key = PEOPLE_ROLES.get(key, key)
    return _SYNONYMS.get(key, key)


def is_multi_valued(predicate: str) -> bool:
    return canonical_predicate(predicate) in MULTI_VALUED
