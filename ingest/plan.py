"""What one mining run carries from stage to stage, and the split-and-embed stage that
builds it.

Each turn is split into parts (`segment.split_text`) and every value the later stages
need is worked out here once: a part's content hash, its vector and its sentences'
vectors, and the day (on its sender's clock) the turn lands in, which names its room. The window writer and the
accounting only read these records.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np

from ingest.embed import EmbedOutcome, embed_groups
from ingest.extraction import TurnView
from ingest.memory_store import MemoryTally
from ingest.records import MiningDeps
from ingest.segment import sentence_pieces, split_text
from loci.embedder import content_hash
from loci.llm import ChatResult

__all__ = ["MinedConversation", "MiningTotals", "Part", "TurnPlan", "day_key", "describe_fallback", "split_and_embed"]


@dataclass(frozen=True, slots=True)
class MinedConversation:
    """The conversation being mined, as the writers need it (no ORM object held open)."""

    id: int
    user_id: int
    external_id: str
    title: str | None
    agent: str | None


@dataclass(frozen=True, slots=True)
class Part:
    """One drawer to be: a verbatim slice of a turn with its hash and vectors."""

    index: int
    content: str
    content_hash: str
    vector: np.ndarray | None
    sentences: tuple[np.ndarray, ...] | None = None
    """One vector per `sentence_pieces` piece; None until they are done (``drawers.sentences_done``)."""
    sentence_hashes: tuple[str, ...] = ()
    """The content hash of each `sentence_pieces` piece, aligned with ``sentences``."""


@dataclass(frozen=True, slots=True)
class TurnPlan:
    """A turn ready to place: its day on its sender's clock (the room's name, `ingest.window`
    groups a continuous exchange under its opener's), and its parts."""

    turn: TurnView
    day: str
    parts: tuple[Part, ...]


@dataclass
class MiningTotals:
    """What a run did so far, summed over its windows for the result and the activity event."""

    turns: int = 0
    drawers: int = 0
    entities: int = 0
    relations: int = 0
    windows: int = 0
    extractors: set[str] = field(default_factory=set)
    fallbacks: list[dict[str, object]] = field(default_factory=list)
    calls: list[ChatResult] = field(default_factory=list)
    memories: MemoryTally = field(default_factory=MemoryTally)
    archive: dict[str, object] | None = None
    """What the run did to the conversation's archive summary (`ingest.archive.settle_archive`)."""
    seconds: dict[str, float] = field(
        default_factory=lambda: dict.fromkeys(("embed", "extract", "subject", "write"), 0.0)
    )

    def first_fallback(self) -> str | None:
        """The first fallback, where and why, for the job's result (`MiningResult`)."""
        return describe_fallback(self.fallbacks[0]) if self.fallbacks else None


def describe_fallback(entry: Mapping[str, object]) -> str:
    """One entry of the ``memory_mined`` event's ``fallbacks``, where and why, in one line: the
    job's ``first_fallback`` and the conversation list's say it the same way."""
    if "archive" in entry:
        return f"archive summary: {entry['archive']}"
    if "memories" in entry:
        return f"window {entry.get('window')} memories: {entry['memories']}"
    return f"window {entry.get('window')}: {entry.get('reason')}"


def day_key(at: datetime) -> str:
    """The calendar day of ``at`` on its own clock (a turn's: the sender's offset, UTC when it sent
    none, `loci.timexpr.local_time`): a conversation gets one room per day its sender lived, so a
    New York evening is one room, not two split at UTC midnight."""
    return at.date().isoformat()


async def split_and_embed(deps: MiningDeps, turns: Sequence[TurnView]) -> tuple[dict[int, TurnPlan], EmbedOutcome]:
    """Split every turn; embed only the parts of turns whose role ``embed_roles`` names.

    The others keep a NULL vector: keyword, time and room pooling still find them, and the
    backfill job embeds them should the setting later include their role. An embedded
    part's sentences (`sentence_pieces`) are embedded in the same call, when
    ``sentence_vectors`` is on. Returns the plans by turn seq.
    """
    limit = deps.embedder.max_seq_tokens
    roles = set(deps.settings.mining.embed_roles)
    with_sentences = deps.settings.mining.sentence_vectors
    pieces = [
        (t, i, chunk, t.role in roles)
        for t in turns
        for i, chunk in enumerate(split_text(t.content, deps.embedder.count_tokens, limit))
        if chunk.strip()  # a turn that was only an echoed Loci block (`ingest.echo_guard`) places nothing
    ]
    # For each part: the texts to embed, the part first, then its sentences.
    groups = [
        [chunk, *(sentence_pieces(chunk) if with_sentences else ())] if embed else [] for *_, chunk, embed in pieces
    ]
    embedded = await embed_groups(deps.db, deps.embedder, groups)
    parts: dict[int, list[Part]] = {}
    for (t, i, chunk, embed), vectors, hashes in zip(pieces, embedded.vectors, embedded.hashes, strict=True):
        if not embed:
            parts.setdefault(t.seq, []).append(Part(i, chunk, content_hash(chunk), None))
            continue
        sentences = _complete(vectors[0], vectors[1:]) if with_sentences else None
        parts.setdefault(t.seq, []).append(Part(i, chunk, hashes[0], vectors[0], sentences, tuple(hashes[1:])))
    plans = {t.seq: TurnPlan(t, day_key(t.created_at), tuple(parts.get(t.seq, ()))) for t in turns}
    return plans, embedded.outcome


def _complete(vector: np.ndarray | None, sentences: Sequence[np.ndarray | None]) -> tuple[np.ndarray, ...] | None:
    """The sentences' vectors, or None unless the part and every sentence got one.

    After an embedder failure some texts may still come from the cache; the backfill job
    then embeds the drawer and all its sentences together, so no drawer is half-covered.
    """
    if vector is None:
        return None
    complete = tuple(v for v in sentences if v is not None)
    return complete if len(complete) == len(sentences) else None
