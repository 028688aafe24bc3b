"""Memories the knowledge graph's endings end: "I quit Globex" retracts "Works at Globex".

The graph closes a fact with no new value when an ending predicate is said about it
(`loci.relation_ends.ENDED_BY`: "I left Globex", "I was laid off from Globex", "I resigned
from Globex" record `worked at Globex`, which closes `works at Globex`). The memory stating
that fact ("Works at Globex", mined from "I work at Globex") must end with it, or the profile,
the session-start block and recall keep saying the user works there.

Nothing new decides it: each ending the window's extraction found (the same facts the graph
writes, so whether "I left X" is a job is judged once, by the relation rules: "I left
Lisbon", "I quit Duolingo" are none) becomes a retraction, the candidate "I no longer work
at Globex" makes (`ingest.memory_patterns`), which reconciliation settles as it settles a move
("I moved to Porto"): an extracted memory saying what ended is updated, the old version kept
in history with the reason; one a person or an agent saved is left alone with a recorded
skip. Unlike the rule's, these candidates only end (``ends_only``): with no memory saying the
job, nothing is added, so a former employer told in passing ("I used to work at Globex") adds
no memory, as the rules add none for past states. An ending that names nothing ("I quit my
job today") is first named as the graph names it, the job on record (`named_endings`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from types import MappingProxyType

from sqlalchemy import select

from ingest.extraction import USER_ENTITY, RelationFact
from ingest.graph import entity_slug
from ingest.memory_candidates import SLOTS, MemoryCandidate
from ingest.relation_current import Named, name_current
from loci.db import Database
from loci.models import Entity
from loci.relation_ends import ENDED_BY, ENDS_CURRENT

__all__ = ["ENDING_CONFIDENCE", "SLOT_OF_PREDICATE", "ending_candidates", "named_endings"]

SLOT_OF_PREDICATE: Mapping[str, str] = MappingProxyType({"works at": "employer"})
"""A graph predicate → the memory slot (`ingest.memory_candidates.SLOTS`) stating the same
fact about the user. Only a predicate valued like its ender belongs here: the title held at
a job (`works as`, `loci.relation_ends.HELD_AT`) ends whatever its value, and "Works as a
designer" is matched by no employer's name."""

ENDING_CONFIDENCE = 0.85
"""As the rule retractions state theirs ("I no longer work at X", `ingest.memory_patterns`):
explicit, about a named thing."""

_ENDED: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        ender: tuple(ended for ended, by in ENDED_BY.items() if by == ender and ended in SLOT_OF_PREDICATE)
        for ender in set(ENDED_BY.values())
    }
)
"""An ending predicate → the slotted predicates it ends (``worked at`` → ``works at``)."""


def ending_candidates(facts: Sequence[RelationFact]) -> list[MemoryCandidate]:
    """A retraction per ending the user stated about themselves, in the facts' order."""
    found: list[MemoryCandidate] = []
    for fact in facts:
        if fact.subject != USER_ENTITY or not fact.value:
            continue
        for ended in _ENDED.get(fact.predicate, ()):
            slot = SLOTS[SLOT_OF_PREDICATE[ended]]
            stated = slot.template.format(fact.value)
            found.append(
                MemoryCandidate(
                    category=slot.category,
                    content=f"No longer {stated[:1].lower()}{stated[1:]}",
                    confidence=ENDING_CONFIDENCE,
                    importance=3,
                    turn_seqs=(fact.turn_seq,),
                    retracts=stated,
                    ends_only=True,
                )
            )
    return found


async def named_endings(db: Database, user_id: int, facts: Sequence[RelationFact]) -> list[RelationFact]:
    """``facts`` with each ending that names nothing ("I quit my job today", `ENDS_CURRENT`)
    named as the graph will record it (`ingest.relation_current.name_current`: `worked at Acme`
    while at Acme), so the memory saying that job ends as the named saying ends it; one with no
    job on record is left out, as the graph records nothing. Read before the window's
    transaction, as the candidates are embedded before it: a job told earlier in the same window
    is not on record yet, and that ending ends no memory (none is stored yet either)."""
    if not any(f.predicate in ENDS_CURRENT and f.subject == USER_ENTITY for f in facts):
        return list(facts)
    named: list[RelationFact] = []
    async with db.user_session(user_id) as s:
        me = await s.scalar(
            select(Entity.id).where(
                Entity.user_id == user_id, Entity.kind == USER_ENTITY.kind, Entity.slug == entity_slug(USER_ENTITY)
            )
        )
        for fact in facts:
            if fact.predicate not in ENDS_CURRENT or fact.subject != USER_ENTITY:
                named.append(fact)
            elif me is not None and (now := await name_current(s, user_id, me, Named(fact.predicate, "", None))):
                named.append(replace(fact, predicate=now.predicate, value=now.value))
    return named
