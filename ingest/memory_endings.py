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

Mining order is no statement order: a history imported newest first mines "I handed in my
notice at Globex" (2024) before "I work at Globex" (2023). The ending then finds no memory to
end, and the older statement would be added as current while the graph has the job closed.
So a statement of a job the graph already records as ended after it was said is written as
that ending says it, "No longer works at Globex", as mining in date order leaves it
(`as_ended`); settled as the statement first, so a newer employer on record still makes it
``outdated``. Read from the graph, which dates every ending, rather than kept from the
ending mined first: kept, "I used to work at Globex" told in passing would be a memory.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from types import MappingProxyType

import numpy as np
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from ingest.extraction import USER_ENTITY, RelationFact
from ingest.graph import entity_slug
from ingest.graph_history import ended_at
from ingest.memory_candidates import SLOTS, MemoryCandidate
from ingest.memory_reconcile import MemoryOp, said_when
from ingest.relation_current import Named, name_current
from loci.db import Database
from loci.models import Entity
from loci.relation_ends import ENDED_BY, ENDS_CURRENT

__all__ = ["ENDING_CONFIDENCE", "SLOT_OF_PREDICATE", "as_ended", "ended_form", "ending_candidates", "named_endings"]

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


_PREDICATE_OF_SLOT: Mapping[str, str] = MappingProxyType({slot: p for p, slot in SLOT_OF_PREDICATE.items()})


def _ending(slot_name: str, value: str, turn_seqs: tuple[int, ...]) -> MemoryCandidate:
    """The retraction ending ``slot_name``'s statement of ``value`` ("No longer works at Globex")."""
    slot = SLOTS[slot_name]
    stated = slot.template.format(value)
    return MemoryCandidate(
        category=slot.category,
        content=f"No longer {stated[:1].lower()}{stated[1:]}",
        confidence=ENDING_CONFIDENCE,
        importance=3,
        turn_seqs=turn_seqs,
        retracts=stated,
        ends_only=True,
    )


def ending_candidates(facts: Sequence[RelationFact]) -> list[MemoryCandidate]:
    """A retraction per ending the user stated about themselves, in the facts' order."""
    found: list[MemoryCandidate] = []
    for fact in facts:
        if fact.subject != USER_ENTITY or not fact.value:
            continue
        for ended in _ENDED.get(fact.predicate, ()):
            found.append(_ending(SLOT_OF_PREDICATE[ended], fact.value, (fact.turn_seq,)))
    return found


def _stated(candidate: MemoryCandidate) -> tuple[str, str] | None:
    """(slot, value) of a statement of a fact the graph ends (`SLOT_OF_PREDICATE`): ("employer",
    "Globex") of "Works at Globex"; None for any other candidate."""
    slot = candidate.slot
    if slot is None or slot not in _PREDICATE_OF_SLOT or candidate.retracts is not None:
        return None
    before, after = SLOTS[slot].template.split("{}")
    text = candidate.content
    if not text.startswith(before) or not text.endswith(after) or len(text) <= len(before) + len(after):
        return None
    return slot, text[len(before) : len(text) - len(after)]


def ended_form(candidate: MemoryCandidate) -> MemoryCandidate | None:
    """What a statement of a job ("Works at Globex") is written as when the graph records the
    job as ended after it was said (`as_ended`): "No longer works at Globex", with no slot and
    ending nothing, as the ending, mined after it in date order, updates it to; None for a
    statement of no such fact."""
    stated = _stated(candidate)
    if stated is None:
        return None
    return replace(_ending(*stated, candidate.turn_seqs), retracts=None, ends_only=False)


async def as_ended(
    s: AsyncSession,
    user_id: int,
    ops: Sequence[MemoryOp],
    vectors: Mapping[str, np.ndarray],
    said: Mapping[int, datetime] | None,
) -> list[MemoryOp]:
    """``ops`` with each add or update of a job the graph (this window's writes included) has
    ended after it was said (``said``: turn seq → time) writing its `ended_form` instead, with
    that form's vector from ``vectors`` (by content). Run in the window's transaction, after
    reconciliation: a newer employer on record still makes the old statement ``outdated``. An
    ending dated the same day counts ("I work at Globex", then "I handed in my notice today"
    minutes later: the notice is dated from the day's start, before the statement)."""
    found = list(ops)
    me: int | None = None
    for i, op in enumerate(ops):
        stated, form, at = _stated(op.candidate), ended_form(op.candidate), said_when(op.candidate, said)
        if op.kind not in ("add", "update") or stated is None or form is None or at is None:
            continue
        me = me or await s.scalar(
            select(Entity.id).where(
                Entity.user_id == user_id, Entity.kind == USER_ENTITY.kind, Entity.slug == entity_slug(USER_ENTITY)
            )
        )
        day_start = at.replace(hour=0, minute=0, second=0, microsecond=0)  # "my notice today" starts the day
        if me is not None and await ended_at(s, user_id, me, _PREDICATE_OF_SLOT[stated[0]], stated[1], None, day_start):
            found[i] = replace(op, candidate=form, vector=vectors.get(form.content))
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
