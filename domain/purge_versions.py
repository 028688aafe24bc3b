"""What a ``purge`` event records of each version it deleted, so a ``since_rev`` delta can tell
whether the caller's block held the memory at that revision.

A purge deletes the rows, and the user's purge the history too, that the delta replays
(`domain.memory_delta`). `memory_scope.REACH` keeps the (layer, category, agent) of the
versions, enough to move an agent's revision, but not which version was current at a given
revision nor its confidence, so a delta told "deleted for good" for a memory the caller's
block never showed then: one below the block's confidence floor, one forgotten before the
revision and restored after it, one whose version current at the revision was of a category
kept from the caller while an earlier version was not. So each purge records, per block-layer
version (`VERSIONS`), the event that created it, the event that ended it (None if it was
active), its layer, category and agent, and for an extracted one its confidence at the purge
(decay only lowers it, so this may hide a version that was just above the floor: a missed
line, never a false one). A purge written before this has no `VERSIONS`: the delta reads it
as before (`memory_delta._purged_bullet`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from sqlalchemy import and_, func, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import aliased

from loci.memory_revision import BLOCK_LAYERS, NON_REVISION_EVENTS
from loci.models import Memory, MemoryHistory

__all__ = ["VERSIONS", "alive_shown", "version_records"]

VERSIONS = "versions"
"""The ``meta`` key of a ``purge`` event: one ``{"created", "ended", "layer", "category",
"agent_id", "confidence"}`` per block-layer version it deleted (see the module); never told to
an agent key (`domain.memory_read`)."""

_SILENT = (*NON_REVISION_EVENTS, "link", "unlink")
"""As `memory_delta.SILENT_EVENTS` (which imports from here would cycle): no version begins or
ends. Nor does a ``merge`` begin one: its ``new_id`` is the version that absorbed another."""
_ENDING = ("update", "forget", "merge", "undo", "expire")
"""As `memory_delta.ENDING_EVENTS`, less the purge being recorded."""


async def version_records(s: AsyncSession, user_id: int, ids: Iterable[int]) -> dict[int, list[dict[str, object]]]:
    """`VERSIONS` of the rows ``ids``, by lineage; read before the rows and their history go."""
    wanted = sorted({int(i) for i in ids})
    if not wanted:
        return {}
    born, end = aliased(MemoryHistory), aliased(MemoryHistory)
    created = (
        select(func.min(born.id))
        .where(born.user_id == user_id, born.new_id == Memory.id, born.event.not_in((*_SILENT, "merge")))
        .scalar_subquery()
    )
    silent_undo = and_(end.event == "undo", end.meta["undone"].astext.in_(_SILENT))
    ended = (
        select(func.min(end.id))
        .where(end.user_id == user_id, end.old_id == Memory.id, end.event.in_(_ENDING), ~silent_undo)
        .scalar_subquery()
    )
    found = await s.execute(
        select(Memory.lineage_id, Memory.layer, Memory.category, Memory.agent_id, Memory.source, Memory.confidence,
               created, ended)
        .where(Memory.user_id == user_id, Memory.id.in_(wanted), Memory.layer.in_(BLOCK_LAYERS))
        .order_by(Memory.id)
    )  # fmt: skip
    records: dict[int, list[dict[str, object]]] = {}
    for lineage, layer, category, agent, source, confidence, first, last in found:
        records.setdefault(int(lineage), []).append(
            {"created": first, "ended": last, "layer": layer, "category": category, "agent_id": agent,
             "confidence": float(confidence) if source == "extracted" and confidence is not None else None}
        )  # fmt: skip
    return records


def _alive(v: Mapping[str, object], since_rev: int) -> bool:
    """Whether the version was current at ``since_rev``. One with no creating event (a row
    written without one) counts as there from the start: told once too often, never missed."""
    created, ended = v.get("created"), v.get("ended")
    if isinstance(created, int) and created > since_rev:
        return False
    return not isinstance(ended, int) or ended > since_rev


def _shown(
    v: Mapping[str, object],
    agent_id: str | None,
    min_confidence: float | None,
    categories: frozenset[str] | None,
    left_out: frozenset[str],
) -> bool:
    """`memory_scope.visible`, over a recorded version."""
    confidence = v.get("confidence")
    return (
        v.get("layer") in BLOCK_LAYERS
        and v.get("agent_id") in (None, agent_id)
        and (categories is None or v.get("category") in categories)
        and v.get("category") not in left_out
        and (min_confidence is None or not isinstance(confidence, int | float) or confidence >= min_confidence)
    )


def alive_shown(
    meta: Mapping[str, object] | None,
    since_rev: int,
    agent_id: str | None,
    min_confidence: float | None,
    categories: frozenset[str] | None,
    left_out: frozenset[str],
) -> bool | None:
    """Whether the purge deleted the version current at ``since_rev`` and the caller's block
    could show it then; None for a purge that recorded no `VERSIONS` (written before them)."""
    recorded = (meta or {}).get(VERSIONS)
    if not isinstance(recorded, list):
        return None
    return any(
        isinstance(v, dict) and _alive(v, since_rev) and _shown(v, agent_id, min_confidence, categories, left_out)
        for v in recorded
    )
