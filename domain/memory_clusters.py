"""Which of a user's extracted memories say the same thing: the clusters consolidation merges.

Two active extracted memories are duplicates when they are in the same category and layer
and either their contents are equal once case and spacing are ignored, or their vectors'
cosine similarity reaches ``duplicate_similarity`` (computed by pgvector in SQL, one user at
a time). Explicit memories never take part: what a user or an agent saved is changed only
by them. Two memories that fill a slot (``slot:location``) are duplicates only if they fill
the same slot with the same words: a slot holds one value, and a second value in it is a
correction mining already handles, not a repeat.

Clusters are stars, not chains: the best-ranked memory (`RANK_ORDER`) takes every unclaimed
memory close to *it*, then the next unclaimed one does the same, so every merged memory is
within the threshold of the one it is merged into, and a long chain of small steps never
merges two memories that are far apart.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from pgvector.sqlalchemy import VECTOR
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from loci.models import EMBEDDING_DIM

__all__ = [
    "Candidate",
    "Cluster",
    "Member",
    "apply_cap",
    "block_rows",
    "cluster_candidates",
    "clusters_of",
    "find_clusters",
    "read_candidates",
    "similar_pairs",
    "star_clusters",
    "users_with_duplicates_possible",
]


@dataclass(frozen=True, slots=True)
class Member:
    """One memory of a cluster and how close it is to the cluster's keeper (1.0 for the keeper)."""

    id: int
    content: str
    similarity: float


@dataclass(frozen=True, slots=True)
class Candidate:
    """One memory that may have duplicates: its group, vector (None: not embedded), normalised
    content and the first slot it fills."""

    id: int
    category: str
    layer: str
    embedding: Any
    norm: str
    slot: str | None


@dataclass(frozen=True, slots=True)
class Cluster:
    """A keeper and the duplicates merged into it, best-ranked first."""

    keeper: Member
    others: tuple[Member, ...]

    @property
    def members(self) -> tuple[Member, ...]:
        return (self.keeper, *self.others)

    @property
    def ids(self) -> frozenset[int]:
        return frozenset(m.id for m in self.members)


_USERS = text("""
SELECT user_id FROM memories
WHERE source = 'extracted' AND valid_until IS NULL
GROUP BY user_id HAVING count(*) >= 2
ORDER BY user_id
""")

RANK_ORDER = "pinned DESC, coalesce(confidence_base, confidence) DESC, valid_from DESC, id DESC"
"""Which memory of a cluster is kept: a pinned one (someone chose it), then the most confident
(its stated confidence, not what decay left of it), then the newest."""

_MEMBERS = text(f"""
SELECT id, content FROM memories
WHERE user_id = :uid AND source = 'extracted' AND valid_until IS NULL
ORDER BY {RANK_ORDER}
""")

_CANDIDATES = text("""
SELECT id, category, layer, embedding,
       lower(regexp_replace(btrim(content), '\\s+', ' ', 'g')) AS norm,
       (SELECT t FROM unnest(tags) AS t WHERE t LIKE 'slot:%' ORDER BY t LIMIT 1) AS slot
FROM memories
WHERE user_id = :uid AND source = 'extracted' AND valid_until IS NULL AND layer <> 'archive'
ORDER BY id
""").columns(embedding=VECTOR(EMBEDDING_DIM))
"""One user's active extracted memories (ix_memories_extracted_active finds them) but the
archive: each summary stands for its own conversation (`ingest.archive`), and two alike are
two conversations, not one fact said twice. Their pairs are found by `similar_pairs`."""
BLOCK_BYTES = 32 * 2**20
"""The most a block of a group's similarity matrix holds at once (float32): a user of 50,000
memories in one category is compared 167 rows at a time, not in one 10 GB matrix."""


def similar_pairs(rows: Sequence[Candidate], similarity: float) -> Iterator[tuple[int, int, float]]:
    """Every pair of one category and layer whose contents are equal once case and spacing are
    ignored, or whose cosine similarity reaches ``similarity``, with a slot only when both fill
    it with the same words; and the pair's similarity (1.0 when either has no vector, or a
    vector of length zero, which has no direction to compare).

    All pairs are compared, in memory, as one matrix product per block of rows against the
    rows after them (each pair once: the upper triangle), each block at most `BLOCK_BYTES`.
    This was a self-join in SQL, whose per-pair distance made a user of 3,000 memories in one
    category take 5.7 s, 6,000 take 24.9 s, and 7,200 run past the statement timeout; the
    product gives the same pairs (pgvector's cosine is computed in single precision too).
    It is CPU work of seconds for tens of thousands of memories: `find_clusters` runs it in a
    thread, off the event loop and outside any transaction."""
    groups: dict[tuple[str, str], list[Candidate]] = {}
    for row in rows:
        groups.setdefault((row.category, row.layer), []).append(row)
    for group in groups.values():
        yield from _group_pairs(group, similarity)


def block_rows(tail: int) -> int:
    """How many rows a block of the upper triangle takes when each row meets ``tail`` columns."""
    return max(1, min(tail, BLOCK_BYTES // (4 * max(tail, 1))))


def _unit_vectors(group: Sequence[Candidate]) -> tuple[np.ndarray, np.ndarray]:
    """The group's vectors scaled to length 1, and which rows have a direction at all."""
    unit = np.zeros((len(group), EMBEDDING_DIM), dtype=np.float32)
    for i, row in enumerate(group):
        if row.embedding is not None:
            unit[i] = np.asarray(row.embedding, dtype=np.float32)
    lengths = np.linalg.norm(unit, axis=1)
    has = lengths > 0
    unit[has] /= lengths[has, None]
    return unit, has


def _close_by_vector(unit: np.ndarray, has: np.ndarray, similarity: float) -> Iterator[tuple[int, int]]:
    """Pairs ``i < j`` whose vectors' cosine reaches ``similarity``, block by block: each block's
    rows against themselves and the rows after them, so the columns start where its rows do."""
    n = len(unit)
    start = 0
    while start < n - 1:
        stop = min(n, start + block_rows(n - start))
        rows, cols = np.nonzero(unit[start:stop] @ unit[start:].T >= similarity)
        keep = cols > rows  # above the diagonal: each pair once, never a row with itself
        rows, cols = rows[keep] + start, cols[keep] + start
        if not has.all():  # a row with no vector (all zeros) meets nothing by vector
            both = has[rows] & has[cols]
            rows, cols = rows[both], cols[both]
        yield from zip(rows.tolist(), cols.tolist(), strict=True)
        start = stop


def _group_pairs(group: Sequence[Candidate], similarity: float) -> Iterator[tuple[int, int, float]]:
    if len(group) < 2:
        return
    unit, has = _unit_vectors(group)
    same: dict[str, list[int]] = {}
    for i, row in enumerate(group):
        same.setdefault(row.norm, []).append(i)
    pairs = {(i, j) for members in same.values() for k, i in enumerate(members) for j in members[k + 1 :]}
    pairs.update(_close_by_vector(unit, has, similarity))
    for i, j in sorted(pairs):
        a, b = group[i], group[j]
        if a.slot is not None and b.slot is not None and (a.slot != b.slot or a.norm != b.norm):
            continue
        sim = float(unit[i] @ unit[j]) if has[i] and has[j] else 1.0
        yield a.id, b.id, sim


async def users_with_duplicates_possible(s: AsyncSession) -> list[int]:
    """Users with at least two active extracted memories (a system session: it reads across users)."""
    return [int(uid) for (uid,) in await s.execute(_USERS)]


async def read_candidates(s: AsyncSession, user_id: int) -> tuple[list[Member], list[Candidate]]:
    """The user's active extracted memories in `RANK_ORDER`, and those that may pair (`_CANDIDATES`)."""
    ranked = [Member(int(i), str(c), 1.0) for i, c in await s.execute(_MEMBERS, {"uid": user_id})]
    rows = [
        Candidate(int(i), str(c), str(la), e, str(n), t)
        for i, c, la, e, n, t in await s.execute(_CANDIDATES, {"uid": user_id})
    ]
    return ranked, rows


def clusters_of(ranked: Sequence[Member], rows: Sequence[Candidate], similarity: float) -> list[Cluster]:
    """The clusters of what `read_candidates` read: CPU only, no database."""
    edges: dict[int, dict[int, float]] = {}
    for a, b, sim in similar_pairs(rows, similarity):
        edges.setdefault(int(a), {})[int(b)] = float(sim)
        edges.setdefault(int(b), {})[int(a)] = float(sim)
    return star_clusters(ranked, edges)


async def cluster_candidates(ranked: Sequence[Member], rows: Sequence[Candidate], similarity: float) -> list[Cluster]:
    """`clusters_of` in a worker thread: the matrix products release the GIL, so the event
    loop (the API's, when `loci serve` runs the worker in-process) goes on serving meanwhile.
    Call it with no transaction open: it holds no connection while it computes."""
    return await asyncio.to_thread(clusters_of, ranked, rows, similarity)


async def find_clusters(s: AsyncSession, user_id: int, similarity: float) -> list[Cluster]:
    """The user's clusters of duplicates, best keeper first (read in ``s``, computed in a
    thread). Consolidation reads, closes its session, then calls `cluster_candidates`."""
    ranked, rows = await read_candidates(s, user_id)
    return await cluster_candidates(ranked, rows, similarity)


def star_clusters(ranked: Sequence[Member], edges: Mapping[int, Mapping[int, float]]) -> list[Cluster]:
    """Each memory, best first, claims its unclaimed neighbours (see the module), who keep
    their rank order."""
    position = {m.id: k for k, m in enumerate(ranked)}
    taken: set[int] = set()
    clusters: list[Cluster] = []
    for keeper in ranked:
        near = edges.get(keeper.id)
        if keeper.id in taken or not near:
            continue
        free = sorted(position[i] for i in near if i in position and i not in taken)
        others = tuple(Member(ranked[k].id, ranked[k].content, near[ranked[k].id]) for k in free)
        if not others:
            continue
        taken.add(keeper.id)
        taken.update(m.id for m in others)
        clusters.append(Cluster(keeper, others))
    return clusters


def apply_cap(clusters: Sequence[Cluster], cap: int) -> tuple[list[Cluster], int]:
    """The clusters cut to at most ``cap`` merged memories in all, and how many wait for the
    next run. A cluster cut short keeps its best-ranked duplicates; the rest meet again."""
    kept: list[Cluster] = []
    left = cap
    waiting = 0
    for cluster in clusters:
        take = min(left, len(cluster.others))
        waiting += len(cluster.others) - take
        left -= take
        if take:
            kept.append(Cluster(cluster.keeper, cluster.others[:take]))
    return kept, waiting
