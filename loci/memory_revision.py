"""Which memory history events move a user's memory *revision*, in the core because both
writers of memories need it: the API (`domain`) and mining (`ingest`, which may not import
`domain`). A mining confirm that brings an extracted memory back over the block's floor
must mark its event exactly as `domain.memories.confirm_memory` does, or the block would
change under an unchanged revision.

The revision (`domain.memory_scope.revision_query`, and the session-start block's own SQL
in `domain.memory_context`) is the largest id of an event not in `NON_REVISION_EVENTS`, or
of one whose ``meta`` has `BLOCK_CHANGE`; an event whose ``meta`` has `OUTSIDE_BLOCK` does not
count (unless it has `BLOCK_CHANGE` too). An agent is shown the largest of those that touched
a memory it may read, or purged one (by what the purge recorded of the rows it deleted:
`domain.memory_scope.reaches`).
"""

from __future__ import annotations

__all__ = ["BLOCK_CHANGE", "BLOCK_LAYERS", "NON_REVISION_EVENTS", "OUTSIDE_BLOCK", "moves_block"]

BLOCK_LAYERS = ("core", "knowledge")
"""The layers a session-start block shows; the archive never goes in."""
NON_REVISION_EVENTS = ("confirm", "skip", "decay", "propose", "approve", "reject", "lapse")
"""Events that change no memory's text: a confirmation stamps ``last_confirmed_at`` (and
puts an extracted memory's confidence back), a skip records what mining chose not to
write, a decay lowers an extracted memory's confidence in place, and the proposal events
(`loci.models.proposals`) record a question and its answer (an approval's write is its own
``add`` or ``update``). They leave the revision
as it was, so the block stays byte-identical (and the provider's prompt cache warm),
unless the event records `BLOCK_CHANGE`."""
BLOCK_CHANGE = "block"
"""The history ``meta`` key of a `NON_REVISION_EVENTS` event that moved a memory across
the block's confidence floor (``"left"`` or ``"entered"``): the block shows another set
of memories, so that event moves the revision after all. Only a confidence change can do
that, and the writer knows it as it writes (`moves_block`), so the read stays one filter."""
OUTSIDE_BLOCK = "outside_block"
"""The history ``meta`` key of an event that only touches memories no block shows, set by a
writer that knows so as it writes: mining filing or updating a conversation's archive
summary (`ingest.archive`). Such an event leaves the revision where it was, so mining a
conversation does not change every session-start block (and its provider's prompt cache)
for a summary the block never carries."""


def moves_block(layer: str, before: float | None, after: float | None, floor: float) -> str | None:
    """``"left"``/``"entered"`` when an extracted memory of ``layer`` whose confidence goes
    from ``before`` to ``after`` leaves or enters the session-start block at ``floor``
    (``LOCI_MEMORY_CONTEXT_MIN_CONFIDENCE``); None when the block shows the same (an
    explicit memory, the archive, no crossing)."""
    if before is None or after is None or layer not in BLOCK_LAYERS:
        return None
    if before >= floor > after:
        return "left"
    if after >= floor > before:
        return "entered"
    return None
