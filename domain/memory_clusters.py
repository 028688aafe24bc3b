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
    "find_clusters",
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
ROW_BLOCK = 1024
"""Rows of a group's similarity matrix computed at once: 1,024 x 7,200 float32 is 30 MB."""


def similar_pairs(rows: Sequence[Candidate], similarity: float) -> Iterator[tuple[int, int, float]]:
    """Every pair of one category and layer whose contents are equal once case and spacing are
    ignored, or whose cosine similarity reaches ``similarity``, with a slot only when both fill
    it with the same words; and the pair's similarity (1.0 when either has no vector).

    All pairs are compared, in memory, as one matrix product per block of rows: a user's few
    thousand vectors are a few MB. This was a self-join in SQL, whose per-pair distance made
    a user of 3,000 memories in one category take 5.7 s, 6,000 take 24.9 s, and 7,200 run past
    the statement timeout; the product takes about a second for 7,200 and gives the same pairs
    (pgvector's cosine is computed in single precision too)."""
    groups: dict[tuple[str, str], list[Candidate]] = {}
    for row in rows:
        groups.setdefault((row.category, row.layer), []).append(row)
    for group in groups.values():
        yield from _group_pairs(group, similarity)


def _group_pairs(group: Sequence[Candidate], similarity: float) -> Iterator[tuple[int, int, float]]:
    n = len(group)
    if n < 2:
        return
    has = np.array([r.embedding is not None for r in group])
    vectors = np.zeros((n, EMBEDDING_DIM), dtype=np.float32)
    for i, row in enumerate(group):
        if row.embedding is not None:
            vectors[i] = np.asarray(row.embedding, dtype=np.float32)
    lengths = np.linalg.norm(vectors, axis=1)
    unit = vectors / np.where(lengths > 0, lengths, 1.0)[:, None]
    same: dict[str, list[int]] = {}
    for i, row in enumerate(group):
        same.setdefault(row.norm, []).append(i)
    pairs = {(i, j) for members in same.values() for k, i in enumerate(members) for j in members[k + 1 :]}
    for start in range(0, n, ROW_BLOCK):
        block = unit[start : start + ROW_BLOCK] @ unit.T
        close = (block >= similarity) & has[start : start + ROW_BLOCK, None] & has[None, :]
        close &= np.arange(n)[None, :] > np.arange(start, start + len(block))[:, None]  # each pair once
        pairs.update((start + int(i), int(j)) for i, j in np.argwhere(close))
    for i, j in sorted(pairs):
        a, b = group[i], group[j]
        if a.slot is not None and b.slot is not None and (a.slot != b.slot or a.norm != b.norm):
            continue
        sim = float(unit[i] @ unit[j]) if has[i] and has[j] else 1.0
        yield a.id, b.id, sim


async def users_with_duplicates_possible(s: AsyncSession) -> list[int]:
    """Users with at least two active extracted memories (a system session: it reads across users)."""
    return [int(uid) for (uid,) in await s.execute(_USERS)]


async def find_clusters(s: AsyncSession, user_id: int, similarity: float) -> list[Cluster]:
    """The user's clusters of duplicates, best keeper first."""
    ranked = [Member(int(i), str(c), 1.0) for i, c in await s.execute(_MEMBERS, {"uid": user_id})]
    rows = [
        Candidate(int(i), str(c), str(la), e, str(n), t)
        for i, c, la, e, n, t in await s.execute(_CANDIDATES, {"uid": user_id})
    ]
    edges: dict[int, dict[int, float]] = {}
    for a, b, sim in similar_pairs(rows, similarity):
        edges.setdefault(int(a), {})[int(b)] = float(sim)
        edges.setdefault(int(b), {})[int(a)] = float(sim)
    return star_clusters(ranked, edges)


def star_clusters(ranked: Sequence[Member], edges: Mapping[int, Mapping[int, float]]) -> list[Cluster]:
    """Each memory, best first, claims its unclaimed neighbours (see the module)."""
    taken: set[int] = set()
    clusters: list[Cluster] = []
    for keeper in ranked:
        if keeper.id in taken:
            continue
        near = edges.get(keeper.id, {})
        others = tuple(Member(m.id, m.content, near[m.id]) for m in ranked if m.id in near and m.id not in taken)
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
