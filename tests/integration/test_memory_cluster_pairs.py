"""Consolidation's pairs, found in memory (`domain.memory_clusters.similar_pairs`), are the
pairs the SQL self-join found, so the clusters are the same.

The self-join computed pgvector's distance for every pair of a user's memories of one
category in SQL: 5.7 s for 3,000, 24.9 s for 6,000, past the statement timeout at 7,200.
`REFERENCE` is that query, kept here to compare against on a user with hundreds of
memories: near-duplicates around shared topics, equal contents in other case and spacing,
slots, memories with no vector, several categories and layers.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from sqlalchemy import text

from domain.memory_clusters import _CANDIDATES, _MEMBERS, Candidate, Member, find_clusters, similar_pairs, star_clusters
from loci.db import Database
from tests.conftest import UserHandle

REFERENCE = text("""
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

MEMORIES = text("""
INSERT INTO memories (user_id, lineage_id, layer, category, content, source, confidence, tags, embedding)
SELECT :uid, (SELECT coalesce(max(lineage_id), 0) FROM memories) + i,
       CASE WHEN i % 11 = 0 THEN 'archive' WHEN i % 7 = 0 THEN 'core' ELSE 'knowledge' END,
       (ARRAY['fact', 'preference', 'event'])[1 + i % 3],
       CASE WHEN i % 13 = 0 THEN (CASE WHEN i % 2 = 0 THEN '  Likes   TEA ' ELSE 'likes tea' END)
            ELSE 'memory ' || i END,
       'extracted', 0.5 + (i % 5) / 10.0,
       CASE WHEN i % 17 = 0 THEN ARRAY['slot:location'] WHEN i % 19 = 0 THEN ARRAY['slot:job'] ELSE '{}' END,
       CASE WHEN i % 23 = 0 THEN NULL ELSE (
           SELECT array_agg(sin((i % 40) * 0.37 * k + k) + (random() - 0.5) * :noise ORDER BY k)::vector
           FROM generate_series(1, 384) AS k) END
FROM generate_series(1, :n) AS i
""")


async def test_the_pairs_found_in_memory_are_the_self_joins(
    db: Database, new_user: Callable[..., Awaitable[UserHandle]]
) -> None:
    user = await new_user("pairs")
    async with db.user_session(user.id) as s:
        await s.execute(MEMORIES, {"uid": user.id, "n": 700, "noise": 0.8})
    similarity = 0.9
    async with db.user_session(user.id) as s:
        expected = {
            (int(a), int(b)): float(sim)
            for a, b, sim in await s.execute(REFERENCE, {"uid": user.id, "similarity": similarity})
        }
        rows = [
            Candidate(int(i), str(c), str(la), e, str(n), t)
            for i, c, la, e, n, t in await s.execute(_CANDIDATES, {"uid": user.id})
        ]
        ranked = [Member(int(i), str(c), 1.0) for i, c in await s.execute(_MEMBERS, {"uid": user.id})]
        clusters = await find_clusters(s, user.id, similarity)
    found = {(min(a, b), max(a, b)): sim for a, b, sim in similar_pairs(rows, similarity)}

    assert sum(sim >= similarity for sim in expected.values()) > 100  # near the line too, not only equal texts
    assert found.keys() == expected.keys()
    assert all(abs(found[p] - expected[p]) < 1e-5 for p in expected)
    edges: dict[int, dict[int, float]] = {}
    for (a, b), sim in expected.items():
        edges.setdefault(a, {})[b] = sim
        edges.setdefault(b, {})[a] = sim
    assert [c.ids for c in clusters] == [c.ids for c in star_clusters(ranked, edges)]
