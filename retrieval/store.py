"""The non-signal SQL of recall: per-user controls, hydrating results, neighbours, logs.

Runs inside the caller's `user_session` like the signals, scoped by ``user_id``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence, Set
from dataclasses import dataclass
from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from loci.db import Read, prepared_rows
from loci.llm import ChatResult
from loci.models import TOP_K_DEFAULT, UsageCost
from retrieval.fusion import Fused
from retrieval.render import Neighbour, RenderItem
from retrieval.request import RecalledDrawer

__all__ = [
    "DEFAULT_TOP_K", "Controls", "hydrate", "hydrate_read", "hydrated", "load_controls", "log_results",
    "log_timings", "record_rerank_costs",
]  # fmt: skip

DEFAULT_TOP_K = TOP_K_DEFAULT
"""Drawers recalled when neither the request nor the user's memory settings say."""


@dataclass(frozen=True, slots=True)
class Controls:
    enabled: bool = True
    agent_enabled: bool = True
    top_k: int = DEFAULT_TOP_K
    use_rerank: bool = False
    rerank_model: str | None = None
    palace_size: int = 0
    """Drawers the user has, counted up to ``size_cap`` (an index-only scan)."""
    palace_vectors: int = 0
    """Of those, the drawers with an embedding (``ix_drawers_user_vectors``), same cap."""
    graph_size: float = 0.0
    """Vectors in the whole HNSW graph, every user's, from the planner's statistics."""
    memory_rows: int = 0
    """The user's explicit memory rows, every version, counted up to ``size_cap`` (0 when
    the config searches no memories): recall skips the memory search at 0."""
    memory_table: float = 0.0
    """Rows of ``memories`` across users, from the planner's statistics (exact vs HNSW)."""
    named_speakers: bool = False
    """Some drawer of the user names its speaker (one probe of ``ix_drawers_user_speaker``):
    without one the speaker signal has nothing to find and sends no statement."""
    time_zone: str | None = None
    """The user's IANA zone (`loci.zones`): a recall without ``now`` reads its time words on it."""


_GRAPH_SIZE = "SELECT greatest(c.reltuples, 0) FROM pg_class c WHERE c.oid = to_regclass('ix_drawers_user_vectors')"
"""Entries of the partial index of embedded drawers, as of the last VACUUM or ANALYZE.

(Not ``pg_stats.null_frac``: Postgres hides the statistics of a table under row-level
security from the roles it applies to.)"""


_MEMORY_TABLE = "SELECT greatest(c.reltuples, 0) FROM pg_class c WHERE c.oid = to_regclass('memories')"
"""Every version of every user's memories: the rows HNSW's ``ix_memories_embedding_hnsw`` holds."""


_CONTROLS = text(
    "SELECT ms.enabled, ms.top_k, ms.use_rerank, ms.rerank_model, ms.time_zone, "
    "(SELECT a.recall_enabled FROM agents a WHERE a.user_id = :uid AND a.external_id = :aid), "
    "(SELECT count(*) FROM (SELECT 1 FROM drawers d WHERE d.user_id = :uid LIMIT :cap) x), "
    "(SELECT count(*) FROM (SELECT 1 FROM drawers d WHERE d.user_id = :uid AND d.embedding IS NOT NULL "
    "LIMIT :cap) x), "
    f"({_GRAPH_SIZE}), "
    "(SELECT count(*) FROM (SELECT 1 FROM memories m WHERE m.user_id = :uid LIMIT :mcap) x), "
    f"({_MEMORY_TABLE}), "
    "EXISTS (SELECT 1 FROM drawers d WHERE d.user_id = :uid AND d.speaker IS NOT NULL), "
    "set_config('synchronous_commit', 'off', true) "
    "FROM (SELECT 1) one LEFT JOIN memory_settings ms ON ms.user_id = :uid"
)


async def load_controls(
    session: AsyncSession, user_id: int, agent_id: str | None, size_cap: int, memory_cap: int = 0
) -> Controls:
    """The user's memory settings (their time zone among them), the agent's recall switch, the palace size, the
    user's count of explicit memories (``ix_memories_user_lineage``) and whether any
    drawer names its speaker, in one round trip, as a prepared statement (`prepared_rows`).
    It also turns off waiting for the WAL flush in this transaction: its only
    writes are the retrieval log row, bookkeeping that may be lost in a crash, and the
    disk sync would otherwise sit on the hot path."""
    bind = {"uid": user_id, "aid": agent_id, "cap": size_cap, "mcap": memory_cap}
    (row,) = await prepared_rows(session, _CONTROLS, bind)
    enabled, top_k, use_rerank, rerank_model, zone, agent_enabled, size, vectors, graph, memories, table, named, _ = row
    return Controls(
        enabled=True if enabled is None else bool(enabled),
        agent_enabled=True if agent_enabled is None else bool(agent_enabled),
        top_k=int(top_k) if top_k else DEFAULT_TOP_K,
        use_rerank=bool(use_rerank),
        rerank_model=rerank_model,
        palace_size=int(size),
        palace_vectors=int(vectors),
        graph_size=float(graph or 0.0),
        memory_rows=int(memories),
        memory_table=float(table or 0.0),
        named_speakers=bool(named),
        time_zone=zone,
    )


_HYDRATE_SQL = (
    "SELECT d.id, d.aaak, w.name, d.room_id, r.label, c.external_id, t.seq, d.part, d.role, d.content, "
    "d.occurred_at, d.closet_id, cl.topic, d.seq, nb.role, nb.content, d.speaker, nb.speaker, d.embedding IS NULL "
    "FROM drawers d JOIN rooms r ON r.id = d.room_id JOIN wings w ON w.id = d.wing_id "
    "JOIN closets cl ON cl.id = d.closet_id "
    "LEFT JOIN conversations c ON c.id = r.conversation_id LEFT JOIN turns t ON t.id = d.turn_id "
    # The neighbouring turn rides along (one round trip, not two): see `_wanted_neighbour`.
    "LEFT JOIN LATERAL (SELECT n.role, n.content, n.speaker FROM drawers n "
    " WHERE CAST(:neighbours AS boolean) AND n.room_id = d.room_id AND n.user_id = :uid AND n.deleted_at IS NULL"
    " AND n.seq = CASE WHEN d.role = 'user' THEN d.seq + 1 WHEN d.role IN ('assistant', 'other') THEN d.seq - 1 END"
    " ORDER BY n.id LIMIT 1) nb ON true "
    "WHERE d.user_id = :uid AND d.id = ANY(:ids) AND d.deleted_at IS NULL AND r.deleted_at IS NULL"
)
_HYDRATE = text(_HYDRATE_SQL)
_HYDRATE_IN_WINGS = text(_HYDRATE_SQL + " AND w.slug = ANY(:wings)")
"""A cached answer re-read for an agent limited to some wings (`retrieval.rehydrate`)."""


def _wanted_neighbour(role: str, seq: int) -> tuple[int, tuple[str, ...]] | None:
    """A user turn is completed by the next turn, the assistant's or another person's
    reply; an answer (the assistant's or another person's) by the user's turn before it."""
    if role == "user":
        return seq + 1, ("assistant", "other")
    if role in ("assistant", "other"):
        return seq - 1, ("user",)
    return None


def _neighbour(row: Any) -> Neighbour | None:
    want = _wanted_neighbour(row[8], int(row[13]))
    if want is None or row[14] not in want[1]:
        return None
    return Neighbour(role=row[14], content=row[15], before=want[0] < int(row[13]), speaker=row[17])


def hydrate_read(user_id: int, fused: Sequence[Fused], with_neighbours: bool, wings: Set[str] | None = None) -> Read:
    """The statement reading the full rows of the fused ids (with ``wings``, only those in
    these wing slugs), for `hydrated`."""
    bind: dict[str, Any] = {"uid": user_id, "ids": [f.drawer_id for f in fused], "neighbours": with_neighbours}
    if wings is None:
        return _HYDRATE, bind
    bind["wings"] = sorted(wings)
    return _HYDRATE_IN_WINGS, bind


def hydrated(fused: Sequence[Fused], rows: Iterable[Sequence[Any]]) -> tuple[list[RenderItem], set[int]]:
    """`hydrate_read`'s rows in fused order (rows trashed meanwhile drop out), and the ids of
    those without a vector (only the keyword-like signals can find them)."""
    by_id = {int(r[0]): r for r in rows}
    items: list[RenderItem] = []
    vectorless = {i for i, r in by_id.items() if r[18]}
    for f in fused:
        r = by_id.get(f.drawer_id)
        if r is None:
            continue
        drawer = RecalledDrawer(
            drawer_id=int(r[0]), aaak=r[1], wing=r[2], room_id=int(r[3]), room_label=r[4],
            conversation_external_id=r[5], turn_seq=r[6], part=int(r[7]), role=r[8], content=r[9],
            occurred_at=r[10], ranks=dict(f.ranks), score=f.score, speaker=r[16],
        )  # fmt: skip
        items.append(RenderItem(drawer, int(r[11]), r[12], _neighbour(r)))
    return items, vectorless


async def hydrate(
    session: AsyncSession, user_id: int, fused: Sequence[Fused], with_neighbours: bool
) -> tuple[list[RenderItem], set[int]]:
    """`hydrated` rows for the fused ids, read in ``session`` (prepared: `prepared_rows`)."""
    if not fused:
        return [], set()
    statement, bind = hydrate_read(user_id, fused, with_neighbours)
    return hydrated(fused, await prepared_rows(session, statement, bind))


def log_results(items: Sequence[RecalledDrawer]) -> list[dict[str, Any]]:
    """A log row's ``results``: what came back, by id, with its score and ranks."""
    return [{"drawer_id": i.drawer_id, "score": round(i.score, 6), "ranks": dict(i.ranks)} for i in items]


def log_timings(timings_ms: Mapping[str, float]) -> dict[str, float]:
    return {k: round(v, 3) for k, v in timings_ms.items()}


def record_rerank_costs(session: AsyncSession, user_id: int, calls: Sequence[ChatResult], ref: dict[str, Any]) -> None:
    for call in calls:
        session.add(
            UsageCost(
                user_id=user_id,
                source="memory_rerank",
                model=call.model,
                tokens_in=call.prompt_tokens,
                tokens_out=call.completion_tokens,
                cost=call.cost,
                ref=ref,
            )
        )
