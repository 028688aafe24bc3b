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

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

__all__ = ["Cluster", "Member", "apply_cap", "find_clusters", "star_clusters", "users_with_duplicates_possible"]


@dataclass(frozen=True, slots=True)
class Member:
    """One memory of a cluster and how close it is to the cluster's keeper (1.0 for the keeper)."""

    id: int
    content: str
    similarity: float


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

# A self-join over one user's active extracted memories (ix_memories_extracted_active finds
# them) but the archive: each summary stands for its own conversation (`ingest.archive`),
# and two alike are two conversations, not one fact said twice. The distances are
# computed for pairs of one category and layer only. A daily job over
# a few hundred memories a user needs no index for that, and the HNSW index, built across all
# users, would filter out most of what it returns.
_PAIRS = text("""
WITH m AS (
    SELECT id, category, layer, embedding,
           lower(regexp_replace(btrim(content), '\\s+', ' ', 'g')) AS norm,
           (SELECT t FROM unnest(tags) AS t WHERE t LIKE 'slot:%' ORDER BY t LIMIT 1) AS slot
    FROM memories
    WHERE user_id = :uid AND source = 'extracted' AND valid_until IS NULL AND layer <> 'archive'
)
SELECT a.id, b.id, coalesce(1 - (a.embedding <=> b.embedding), 1.0) AS similarity
FROM m AS a JOIN m AS b ON a.id < b.id AND a.category = b.category AND a.layer = b.layer
WHERE (a.norm = b.norm OR 1 - (a.embedding <=> b.embedding) >= :similarity)
  AND (a.slot IS NULL OR b.slot IS NULL OR (a.slot = b.slot AND a.norm = b.norm))
""")


async def users_with_duplicates_possible(s: AsyncSession) -> list[int]:
    """Users with at least two active extracted memories (a system session: it reads across users)."""
    return [int(uid) for (uid,) in await s.execute(_USERS)]


async def find_clusters(s: AsyncSession, user_id: int, similarity: float) -> list[Cluster]:
    """The user's clusters of duplicates, best keeper first."""
    ranked = [Member(int(i), str(c), 1.0) for i, c in await s.execute(_MEMBERS, {"uid": user_id})]
    edges: dict[int, dict[int, float]] = {}
    for a, b, sim in await s.execute(_PAIRS, {"uid": user_id, "similarity": similarity}):
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
