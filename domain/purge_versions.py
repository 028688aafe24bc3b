"""What a ``purge`` event records of each version it deleted, so a ``since_rev`` delta can tell
whether the caller's block held the memory at that revision.

A purge deletes the rows, and the user's purge the history too, that the delta replays
(`domain.memory_delta`). `memory_scope.REACH` keeps the (layer, category, agent) of the
versions, enough to move an agent's revision, but not which version was current at a given
revision nor its confidence, so a delta told "deleted for good" for a memory the caller's
block never showed then: one below the block's confidence floor, one forgotten before the
revision and restored after it, one whose version current at the revision was of a category
kept from the caller while an earlier version was not. So each purge records (`VERSIONS`) the
spans of its block-layer versions: the event that began one, the event that ended it (None if
it was active), its layer, category and agent, and for an extracted one its confidence through
the span. A confirm or decay changes that confidence in place (no new version; the values are
in their events only), so an extracted version is cut at each such event (`_cut`): a memory
below the floor at ``since_rev`` and confirmed over it before the purge is not told, one that
decayed below the floor after ``since_rev`` is. Adjacent spans the block sees alike (an update
that kept the layer, category, agent and confidence: a core memory an agent rewrites every turn)
are one (`compact`), so the record grows with what changes visibility, not with every write.
A purge written before this has no `VERSIONS`: the delta reads it as before
(`memory_delta._purged_bullet`).

`VERSIONS` names history events by id, which an import renumbers: `renumber` maps each to the
first event of the file at or after it (the user's purge deleted the ones it names), so order
against any revision of the importing database holds (`domain.import_memories`). `VERSIONS` is
the delta's bookkeeping: the history API tells it to no caller (`domain.memory_read`).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from sqlalchemy import and_, func, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import aliased

from loci.memory_revision import BLOCK_LAYERS, NON_REVISION_EVENTS
from loci.models import Memory, MemoryHistory

__all__ = ["VERSIONS", "alive_shown", "compact", "renumber", "renumber_purge", "version_records"]

VERSIONS = "versions"
"""The ``meta`` key of a ``purge`` event: one ``{"created", "ended", "layer", "category",
"agent_id", "confidence"}`` per span of block-layer versions it deleted (see the module); told
to no caller, user keys included (`domain.memory_read`)."""

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
    query = (
        select(Memory.id, Memory.lineage_id, Memory.layer, Memory.category, Memory.agent_id, Memory.source,
               Memory.confidence, created, ended)
        .where(Memory.user_id == user_id, Memory.id.in_(wanted), Memory.layer.in_(BLOCK_LAYERS))
        .order_by(Memory.id)
    )  # fmt: skip
    found = (await s.execute(query)).all()
    extracted = [r[0] for r in found if r[5] == "extracted" and r[6] is not None]
    steps = await _confidence_steps(s, user_id, extracted)
    records: dict[int, list[dict[str, object]]] = {}
    for row, lineage, layer, category, agent, source, confidence, first, last in found:
        span: dict[str, object] = {
            "created": first, "ended": last, "layer": layer, "category": category, "agent_id": agent,
            "confidence": float(confidence) if source == "extracted" and confidence is not None else None,
        }  # fmt: skip
        records.setdefault(int(lineage), []).extend(_cut(span, steps.get(row, [])))
    return {lineage: compact(spans) for lineage, spans in records.items()}


_IN_PLACE = ("confirm", "decay", "undo")
"""Events that may change a version's confidence in place, on the row itself (``old_id`` is
its ``new_id``): a confirm, a decay, and the undo of a confirm."""

_Step = tuple[int, float, float]
"""An in-place change of a version's confidence: the event, the confidence before and after."""


async def _confidence_steps(s: AsyncSession, user_id: int, ids: Sequence[int]) -> dict[int, list[_Step]]:
    """Each in-place change of the confidence of the extracted rows ``ids``, by row, in order
    (`ix_memory_history_user_old`): the values are in the events only (`_step`)."""
    if not ids:
        return {}
    found = await s.execute(
        select(MemoryHistory.id, MemoryHistory.old_id, MemoryHistory.event, MemoryHistory.meta)
        .where(
            MemoryHistory.user_id == user_id,
            MemoryHistory.old_id.in_(ids),
            MemoryHistory.new_id == MemoryHistory.old_id,
            MemoryHistory.event.in_(_IN_PLACE),
        )
        .order_by(MemoryHistory.id)
    )
    confirms: dict[int, Mapping[str, object]] = {}
    steps: dict[int, list[_Step]] = {}
    for event_id, row, kind, meta in found:
        if kind == "confirm":
            confirms[event_id] = meta
        if row is not None and (step := _step(kind, meta, confirms)) is not None:
            steps.setdefault(row, []).append((event_id, *step))
    return steps


def _step(
    kind: str, meta: Mapping[str, object], confirms: Mapping[int, Mapping[str, object]]
) -> tuple[float, float] | None:
    """(before, after) of one `_IN_PLACE` event: a confirm's ``previous_confidence`` and
    ``confidence``, a decay's ``from`` and ``to``, the undo of a confirm that confirm's two the
    other way round; None for an event that changed no confidence (an explicit memory's confirm)."""
    keys = ("from", "to") if kind == "decay" else ("previous_confidence", "confidence")
    if kind == "undo":
        undoes = meta.get("undoes")
        if meta.get("undone") != "confirm" or not isinstance(undoes, int):
            return None
        meta, keys = confirms.get(undoes, {}), ("confidence", "previous_confidence")
    before, after = meta.get(keys[0]), meta.get(keys[1])
    if isinstance(before, int | float) and isinstance(after, int | float):
        return float(before), float(after)
    return None


def _cut(span: Mapping[str, object], steps: Sequence[_Step]) -> list[dict[str, object]]:
    """``span`` (a version, with its confidence at the purge) cut at each in-place change of its
    confidence, each piece with the confidence it had; the last keeps the version's own."""
    pieces: list[dict[str, object]] = []
    start, confidence = span["created"], steps[0][1] if steps else None
    for event, _before, after in steps:
        pieces.append({**span, "created": start, "ended": event, "confidence": confidence})
        start, confidence = event, after
    pieces.append({**span, "created": start})
    return pieces


_SEEN_ALIKE = ("layer", "category", "agent_id", "confidence")
"""What `_shown` reads of a span: two with the same of each are shown to the same callers (the
confidence kept exact, as the floor is the caller's)."""


def compact(spans: Sequence[Mapping[str, object]]) -> list[dict[str, object]]:
    """``spans`` (in creation order) with each run of adjacent ones seen alike (`_SEEN_ALIKE`) as
    one: created by the first, ended by the last. Adjacent: one ended by the event that began
    the next (an update), so a gap (a forget, then a restore later) is never bridged."""
    out: list[dict[str, object]] = []
    for span in spans:
        last = out[-1] if out else None
        if (
            last is not None
            and isinstance(last.get("ended"), int)
            and last.get("ended") == span.get("created")
            and all(last.get(k) == span.get(k) for k in _SEEN_ALIKE)
        ):
            last["ended"] = span.get("ended")
        else:
            out.append(dict(span))
    return out


def renumber_purge(meta: Mapping[str, Any], order: Sequence[int], new_ids: Mapping[int, int]) -> dict[str, Any]:
    """An imported purge's ``meta`` with the events it names renumbered as `renumber` does: its
    `VERSIONS`, and ``born`` and ``ended`` (its memory's first and ending event, which the delta
    reads of a purge without `VERSIONS`, one exported before they were recorded), each the
    next event the file holds (None past its last)."""
    out = dict(meta)
    if VERSIONS in out:
        out[VERSIONS] = renumber(out[VERSIONS], order, new_ids)
    for key in ("born", "ended"):
        if isinstance(out.get(key), int):
            out[key] = _next_event(out[key], order, new_ids)
    return out


def _next_event(event: int, order: Sequence[int], new_ids: Mapping[int, int]) -> int | None:
    """The new id of the file's first event at or after ``event`` (None: it holds none)."""
    at = bisect_left(order, event)
    return new_ids[order[at]] if at < len(order) else None


def renumber(recorded: object, order: Sequence[int], new_ids: Mapping[int, int]) -> object:
    """An imported purge's `VERSIONS` with each event id mapped to the new id of the first event
    of the file at or after it (``order``: the file's event ids, sorted; ``new_ids``: file id ->
    new id). A span with no creating event begins at the file's first event; an id past the
    file's last event (no consistent file has one: the purge comes after) ends nothing (None).
    Not a list: None, and the delta reads the purge as an older one."""

    def new(event: object, default: int | None) -> int | None:
        return _next_event(event, order, new_ids) if isinstance(event, int) else default

    if not isinstance(recorded, list):
        return None
    first = new_ids[order[0]] if order else None
    return [
        {**v, "created": new(v.get("created"), first), "ended": new(v.get("ended"), None)} if isinstance(v, dict) else v
        for v in recorded
    ]


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
