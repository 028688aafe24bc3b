"""What changed in a user's memory since a revision, as at most three short bullets.

An assistant that saw revision 37 last session is told, next to the new block, what is
different now, so it can say "you told me you moved to Porto" instead of silently
using a changed fact::

    + saved: Prefers tea over coffee
    ↑ updated: Lives in Lisbon → Lives in Porto
    … and 4 more changes

The unit is a memory (a lineage), not an event: events are replayed per lineage to the
state at ``since_rev`` and the state at the end, and only the net effect is told. A save
followed by two updates is one ``+ saved`` with the final content; a save then a forget
is nothing; an update back to the old text is nothing. The state at a revision is the
lineage's row that was created (an event's ``new_id``) and not yet ended (an ending
event's ``old_id``) by events up to it, which needs no timestamps: events of one
transaction share one.

A memory deleted for good (a ``purge``) has no rows left to compare, and mostly no history:
its purge is told, without words, to the callers whose block showed it at ``since_rev``, by what
the purge recorded of each version (`purge_versions.VERSIONS`: when it began and ended, its
category, agent and confidence); a purge written before that is told by `memory_scope.REACH`.

Bullets are newest first (by each memory's latest event); past `MAX_BULLETS` the last one
counts the rest. Visibility is the block's (`domain.memory_scope.visible`): a memory the
block would not show is not mentioned either. Contents are escaped like the block and cut
at `DELTA_TEXT_CHARS`: a delta is a pointer to what changed, the block carries the text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.sql import Select

from domain.agent_access import AgentScope
from domain.memory_scope import NON_REVISION_EVENTS, REACH, purge_shown, revision_query, visible
from domain.purge_versions import alive_shown
from loci.db import Database
from loci.models import Memory, MemoryHistory
from retrieval import plain

__all__ = ["DELTA_TEXT_CHARS", "MAX_BULLETS", "Changes", "changes_since", "memory_delta", "net_bullets", "render_delta"]

MAX_BULLETS = 3
"""A delta is read before every session's first turn: three lines say enough to prompt a
question, and the block has the rest."""
DELTA_TEXT_CHARS = 160
"""Characters of one memory's text in a bullet, cut at a word (an update shows two)."""
SILENT_EVENTS = (*NON_REVISION_EVENTS, "link", "unlink")
"""Events that change no memory's text, so no bullet (links change the revision, not the block).

A decay or confirm that moves an extracted memory across the block's confidence floor
moves the revision (`memory_scope.BLOCK_CHANGE`) but is told nothing either: the memory
says what it said, and neither "forgotten" nor "saved" would be true. The block at the
new revision leaves it out (or has it back); recall still finds it either way."""
ENDING_EVENTS = ("update", "forget", "merge", "undo", "expire", "purge")
"""Events whose ``old_id`` row stops being the lineage's current version. Not ``decay``: it
lowers a row's confidence in place (``old_id == new_id``), the row stays current."""
PURGED = "− deleted for good: a memory whose words are gone"
"""The bullet of a purge this caller may see: it names no words, the purge took them (the user's
purge, the trash's expiry or a purged conversation's: the event's actor tells them apart)."""
UNDO_ENDS = ("add", "restore")
"""An undo of these end-dates the row the undone event added and records it as both its
``old_id`` and ``new_id`` (`domain.memory_undo`): an end, not a new version."""


@dataclass(frozen=True, slots=True)
class Event:
    id: int
    event: str
    lineage_id: int
    old_id: int | None
    new_id: int | None
    undone: str | None = None
    """For an ``undo``, the event it reversed (its ``meta.undone``)."""
    shown: bool = False
    """For a ``purge``, whether it deleted an active version this caller may see (`memory_scope.purge_shown`)."""
    seen: bool = False
    """For a ``purge``, whether it deleted any version, active or ended, this caller's block could
    show, of a memory saved before ``since_rev``."""
    ended: int | None = None
    """For the user's ``purge`` of a memory no longer active, the event that had ended it (its
    ``meta.ended``): the purge deleted that event with the rest of the history."""
    alive: bool | None = None
    """For a ``purge`` that recorded its versions (`purge_versions.VERSIONS`), whether the one
    current at ``since_rev`` was one this caller's block could show; None for an older purge."""

    def is_silent(self) -> bool:
        """An undo of a text-less event (a confirm, a link) changes no memory either."""
        return self.event in SILENT_EVENTS or (self.event == "undo" and self.undone in SILENT_EVENTS)

    def creates(self) -> int | None:
        return None if self.event == "undo" and self.undone in UNDO_ENDS else self.new_id


@dataclass(frozen=True, slots=True)
class Row:
    id: int
    lineage_id: int
    content: str
    active: bool
    shown: bool
    """Whether the block for this caller may show it (layer, agent scope, confidence)."""


def _state(events: Sequence[Event], rows: dict[int, Row], lineage: int, upto: int | None) -> Row | None:
    """The lineage's current row after the events up to ``upto`` (all when None)."""
    created: set[int] = set()
    ended: set[int] = set()
    for e in events:
        if upto is not None and e.id > upto:
            break
        if e.is_silent():
            continue
        new_id = e.creates()
        if new_id is not None and (row := rows.get(new_id)) is not None and row.lineage_id == lineage:
            created.add(new_id)
        if e.event in ENDING_EVENTS and e.old_id is not None:
            ended.add(e.old_id)
    alive = created - ended
    return rows[max(alive)] if alive else None


def _alive_at(events: Sequence[Event], upto: int) -> bool:
    """Whether the lineage had a current version after the events up to ``upto``, by the events
    alone (for a lineage whose rows a purge deleted: `_state` needs them)."""
    created: set[int] = set()
    ended: set[int] = set()
    for e in events:
        if e.id > upto:
            break
        if e.is_silent():
            continue
        if (new_id := e.creates()) is not None:
            created.add(new_id)
        if e.event in ENDING_EVENTS and e.old_id is not None:
            ended.add(e.old_id)
    return bool(created - ended)


def _purged_bullet(window: Sequence[Event], events: Sequence[Event], since_rev: int) -> str | None:
    """A lineage whose rows are gone: only whether a version this caller could see went within the
    window, unless the memory was first saved within it (no net change). Either the purge took an
    active one, or the lineage was current at ``since_rev`` and ended within the window (its kind's
    time, a forget) before the trash purged it: the line the caller's block held went all the same.
    A purge that recorded its versions answers exactly (`purge_versions.alive_shown`)."""
    if any(e.event == "add" for e in window):
        return None
    purged = [e for e in window if e.event == "purge"]
    if any(e.alive for e in purged):
        return PURGED
    purged = [e for e in purged if e.alive is None]  # recorded purges said no: older ones as before
    if any(e.shown for e in purged):
        return PURGED
    seen = [e for e in purged if e.seen]
    if any(e.ended is not None and e.ended > since_rev for e in seen):  # the user's purge, history gone
        return PURGED
    return PURGED if seen and _alive_at(events, since_rev) else None


def _text(row: Row) -> str:
    return plain(row.content, DELTA_TEXT_CHARS)


def _bullet(events: Sequence[Event], rows: dict[int, Row], since_rev: int, until_rev: int | None) -> str | None:
    """The net change of one lineage between the revisions, or None when there is none to tell."""
    lineage = events[0].lineage_id
    window = [e for e in events if e.id > since_rev and (until_rev is None or e.id <= until_rev)]
    if any(e.event == "purge" for e in window) and not any(r.lineage_id == lineage for r in rows.values()):
        # A purge that left some of the lineage (a conversation's extracted versions) is told
        # by the rows that stay, below.
        return _purged_bullet(window, events, since_rev)
    before = _state(events, rows, lineage, since_rev)
    after = _state(events, rows, lineage, until_rev)
    if after is not None and until_rev is None and not after.active:
        after = None  # the table is the truth for "now": a row ended without an event
    before = before if before is not None and before.shown else None
    after = after if after is not None and after.shown else None
    if before is None:
        return None if after is None else f"+ saved: {_text(after)}"
    if after is None:
        ending = next(
            (e for e in reversed(events) if e.old_id == before.id and e.event in ENDING_EVENTS and not e.is_silent()),
            None,
        )
        if ending is not None and ending.event == "merge":
            into = rows.get(ending.new_id) if ending.new_id is not None else None
            return f"↔ merged: {_text(before)}" + (f" → {_text(into)}" if into is not None else "")
        if ending is not None and ending.event == "expire":  # unused for long, not said to be wrong
            return f"− faded: {_text(before)}"
        return f"− forgotten: {_text(before)}"
    if before.content == after.content:
        return None
    return f"↑ updated: {_text(before)} → {_text(after)}"


def net_bullets(
    events: Sequence[Event], rows: dict[int, Row], since_rev: int, until_rev: int | None = None
) -> list[str]:
    """Pure: one bullet per lineage with a net change, newest first, capped at `MAX_BULLETS`."""
    by_lineage: dict[int, list[Event]] = {}
    for e in sorted(events, key=lambda e: e.id):
        if until_rev is None or e.id <= until_rev:
            by_lineage.setdefault(e.lineage_id, []).append(e)
    newest_first = sorted(by_lineage.values(), key=lambda evs: -evs[-1].id)
    bullets = [b for evs in newest_first if (b := _bullet(evs, rows, since_rev, until_rev)) is not None]
    if len(bullets) <= MAX_BULLETS:
        return bullets
    shown = bullets[: MAX_BULLETS - 1]
    return [*shown, f"… and {len(bullets) - len(shown)} more changes"]


def render_delta(bullets: Sequence[str], since_rev: int, revision: int) -> str:
    """The bullets as one element an app can place after the block; "" when nothing changed."""
    if not bullets:
        return ""
    open_tag = f'<user_memory_changes since_revision="{since_rev}" revision="{revision}">'
    return "\n".join([open_tag, *bullets, "</user_memory_changes>"])


def _lineage_events(
    user_id: int, lineages: set[int], until_rev: int | None
) -> Select[int, str, int | None, int | None, int | None, str | None, dict[str, object]]:
    query = select(
        MemoryHistory.id,
        MemoryHistory.event,
        MemoryHistory.lineage_id,
        MemoryHistory.old_id,
        MemoryHistory.new_id,
        MemoryHistory.meta["undone"].astext,
        MemoryHistory.meta,
    ).where(
        MemoryHistory.user_id == user_id,
        MemoryHistory.lineage_id.in_(lineages),
        MemoryHistory.event.not_in(SILENT_EVENTS),
    )
    if until_rev is not None:
        query = query.where(MemoryHistory.id <= until_rev)
    return query.order_by(MemoryHistory.id)


async def memory_delta(
    db: Database,
    user_id: int,
    since_rev: int,
    *,
    agent_id: str | None = None,
    until_rev: int | None = None,
    min_confidence: float | None = None,
    categories: frozenset[str] | None = None,
    left_out: frozenset[str] = frozenset(),
) -> list[str]:
    """At most `MAX_BULLETS` bullets of what changed after ``since_rev`` (up to ``until_rev``,
    default: now) in what ``agent_id`` may see; ``min_confidence`` as the block's floor
    (None: extracted memories of any confidence count, as recall shows them all);
    ``categories`` and ``left_out`` as `memory_scope.visible` takes them."""
    window = select(MemoryHistory.lineage_id).where(
        MemoryHistory.user_id == user_id,
        MemoryHistory.id > since_rev,
        MemoryHistory.event.not_in(SILENT_EVENTS),
        MemoryHistory.lineage_id.is_not(None),
    )
    if until_rev is not None:
        window = window.where(MemoryHistory.id <= until_rev)
    async with db.user_session(user_id) as s:
        lineages = {i for i in (await s.execute(window.distinct())).scalars() if i is not None}
        if not lineages:
            return []
        history = await s.execute(_lineage_events(user_id, lineages, until_rev))
        caller = (since_rev, agent_id, min_confidence, categories, left_out)
        events = [
            Event(
                i,
                kind,
                lineage,
                old,
                new,
                undone,
                kind == "purge" and _told(meta, agent_id, categories, left_out, since_rev),
                kind == "purge" and _seen(meta, agent_id, categories, left_out, since_rev),
                _ended(meta) if kind == "purge" else None,
                alive_shown(meta if kind == "purge" else None, *caller),
            )
            for i, kind, lineage, old, new, undone, meta in history
            if lineage
        ]
        ids = {i for e in events for i in (e.old_id, e.new_id) if i is not None}
        found = await s.execute(
            select(Memory.id, Memory.lineage_id, Memory.content, Memory.valid_until.is_(None),
                   visible(agent_id, min_confidence, categories, left_out).label("shown"))
            .where(Memory.user_id == user_id, Memory.id.in_(ids))
        )  # fmt: skip
        rows = {r[0]: Row(*r) for r in found}
    return net_bullets(events, rows, since_rev, until_rev)


def _told(
    meta: dict[str, object] | None,
    agent_id: str | None,
    categories: frozenset[str] | None,
    left_out: frozenset[str],
    since_rev: int,
) -> bool:
    """Whether a purge is this caller's to be told (`memory_scope.purge_shown`), unless the
    memory was first saved after ``since_rev`` (its purge records its first event, ``born``,
    which the purge deleted): saved and deleted within the window, it is no change."""
    born = (meta or {}).get("born")
    return purge_shown(meta, agent_id, categories, left_out) and not (isinstance(born, int) and born > since_rev)


def _seen(
    meta: dict[str, object] | None,
    agent_id: str | None,
    categories: frozenset[str] | None,
    left_out: frozenset[str],
    since_rev: int,
) -> bool:
    """Whether a purge deleted a version, active or ended, that this caller's block could show:
    `memory_scope.purge_shown` with every version of its `REACH` counted as active, unless the
    memory was first saved after ``since_rev`` (``born``, as `_told` reads it)."""
    recorded = (meta or {}).get(REACH)
    born = (meta or {}).get("born")
    if isinstance(born, int) and born > since_rev:
        return False
    if not isinstance(recorded, list):
        return True
    versions = [{**v, "active": True} for v in recorded if isinstance(v, dict)]
    return purge_shown({REACH: versions}, agent_id, categories, left_out)


def _ended(meta: dict[str, object] | None) -> int | None:
    ended = (meta or {}).get("ended")
    return ended if isinstance(ended, int) else None


@dataclass(frozen=True, slots=True)
class Changes:
    """The caller's memory revision now and, when a caller named the one it last saw, what
    changed since: what recall answers beside its block."""

    revision: int
    bullets: list[str]
    text: str
    """`render_delta` of the bullets; "" when nothing changed or no ``since_rev`` was given."""


async def changes_since(db: Database, user_id: int, since_rev: int | None, scope: AgentScope) -> Changes:
    """The revision ``scope``'s caller is shown now (`memory_scope.revision_query`: for an agent,
    over what it may read; 0 before any write) and the delta from ``since_rev`` to it, over
    everything recall may show: extracted memories of any confidence, no agent's and its own,
    in its allowed categories, never the agent-only ones (recall never reads them)."""
    async with db.user_session(user_id) as s:
        revision = (await s.execute(revision_query(user_id, None, scope))).scalar_one_or_none() or 0
    if since_rev is None or since_rev >= revision:
        return Changes(revision, [], "")
    bullets = await memory_delta(
        db, user_id, since_rev, agent_id=scope.agent_id, until_rev=revision, categories=scope.categories,
        left_out=scope.agent_only,
    )  # fmt: skip
    return Changes(revision, bullets, render_delta(bullets, since_rev, revision))
