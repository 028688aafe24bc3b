"""Clusters as stars around the best-ranked memory, and the per-user cap, without a database."""

from __future__ import annotations

import numpy as np
import pytest

from domain import memory_clusters
from domain.memory_clusters import Candidate, Cluster, Member, apply_cap, similar_pairs, star_clusters
from domain.memory_merge_llm import MergeReply, check_reply


def ranked(*ids: int) -> list[Member]:
    return [Member(i, f"memory {i}", 1.0) for i in ids]


def edges(*pairs: tuple[int, int, float]) -> dict[int, dict[int, float]]:
    out: dict[int, dict[int, float]] = {}
    for a, b, sim in pairs:
        out.setdefault(a, {})[b] = sim
        out.setdefault(b, {})[a] = sim
    return out


def test_a_chain_is_not_a_cluster_beyond_the_keepers_neighbours() -> None:
    # 1~2 and 2~3 but 1 is far from 3: 1 (best ranked) takes 2; 3 has nobody left
    clusters = star_clusters(ranked(1, 2, 3), edges((1, 2, 0.93), (2, 3, 0.95)))
    assert [(c.keeper.id, [(m.id, m.similarity) for m in c.others]) for c in clusters] == [(1, [(2, 0.93)])]


def test_the_keeper_is_the_best_ranked_and_members_keep_rank_order() -> None:
    clusters = star_clusters(ranked(5, 2, 9, 4), edges((2, 9, 0.91), (9, 5, 0.92), (5, 2, 0.97)))
    assert [(c.keeper.id, [m.id for m in c.others]) for c in clusters] == [(5, [2, 9])]


def test_the_cap_cuts_a_cluster_short_and_counts_what_waits() -> None:
    a = Cluster(Member(1, "a", 1.0), tuple(ranked(2, 3)))
    b = Cluster(Member(4, "b", 1.0), tuple(ranked(5)))
    kept, waiting = apply_cap([a, b], 1)
    assert [(c.keeper.id, [m.id for m in c.others]) for c in kept] == [(1, [2])] and waiting == 2
    assert apply_cap([a, b], 20) == ([a, b], 0)


def test_a_reply_narrows_the_cluster_to_the_ids_it_names() -> None:
    cluster = Cluster(Member(1, "a", 1.0), (Member(2, "b", 0.95), Member(3, "c", 0.91)))
    proposal = check_reply(MergeReply(content="  Lives in Porto ", ids=[3, 1]), cluster, 500)
    assert proposal.content == "Lives in Porto"
    assert (proposal.cluster.keeper.id, [m.id for m in proposal.cluster.others]) == (1, [3])


def test_similar_pairs_by_vector_by_equal_words_and_by_slot() -> None:
    """`similar_pairs`' rules, as the SQL self-join had them: one category and layer; equal
    words (case and spacing aside) or a close vector; two slots only when the same, in the
    same words; a memory with no vector pairs by its words alone, at similarity 1.0."""

    def vec(*head: float) -> np.ndarray:
        v = np.zeros(384, dtype=np.float32)
        v[: len(head)] = head
        return v

    rows = [
        Candidate(1, "fact", "knowledge", vec(1, 0), "likes tea", None),
        Candidate(2, "fact", "knowledge", vec(1, 0.1), "enjoys tea", None),  # close to 1
        Candidate(3, "fact", "knowledge", vec(0, 1), "likes tea", None),  # far, but 1's words
        Candidate(4, "fact", "knowledge", None, "likes tea", None),  # no vector: words only
        Candidate(5, "preference", "knowledge", vec(1, 0), "likes tea", None),  # another category
        Candidate(6, "fact", "knowledge", vec(1, 0), "lives in leeds", "slot:location"),
        Candidate(7, "fact", "knowledge", vec(1, 0), "lives in york", "slot:location"),  # slot, other words
        Candidate(8, "fact", "knowledge", vec(1, 0), "lives in leeds", "slot:location"),
    ]
    pairs = {(a, b): round(sim, 4) for a, b, sim in similar_pairs(rows, 0.9)}
    assert pairs == {
        (1, 2): 0.995, (1, 3): 0.0, (1, 4): 1.0, (3, 4): 1.0, (1, 6): 1.0, (1, 7): 1.0, (1, 8): 1.0,
        (2, 6): 0.995, (2, 7): 0.995, (2, 8): 0.995, (6, 8): 1.0,
    }  # fmt: skip


def test_a_zero_vector_with_the_same_words_pairs_at_similarity_one() -> None:
    """A vector of length zero has no direction: like no vector, its pair by words is 1.0 (was 0.0)."""
    zero = np.zeros(384, dtype=np.float32)
    rows = [Candidate(1, "fact", "knowledge", zero, "likes tea", None),
            Candidate(2, "fact", "knowledge", zero.copy(), "likes tea", None),
            Candidate(3, "fact", "knowledge", np.ones(384, dtype=np.float32), "likes tea", None)]  # fmt: skip
    assert list(similar_pairs(rows, 0.9)) == [(1, 2, 1.0), (1, 3, 1.0), (2, 3, 1.0)]


def _brute_pairs(rows: list[Candidate], similarity: float) -> set[tuple[int, int]]:
    unit = np.stack([np.asarray(r.embedding, dtype=np.float64) for r in rows])
    unit /= np.linalg.norm(unit, axis=1)[:, None]
    full = unit @ unit.T
    return {
        (rows[i].id, rows[j].id) for i in range(len(rows)) for j in range(i + 1, len(rows)) if full[i, j] >= similarity
    }


def test_the_upper_triangle_in_small_blocks_finds_every_pair_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Blocks of a few rows against the rows after them (the budget forced down to 3 rows of
    300) find the pairs the whole matrix finds, none twice, none with itself."""
    rng = np.random.default_rng(7)
    centres = rng.standard_normal((12, 384))
    vectors = centres[rng.integers(0, 12, 300)] + rng.standard_normal((300, 384)) * 0.25
    rows = [Candidate(i + 1, "fact", "knowledge", vectors[i].astype(np.float32), f"text {i}", None) for i in range(300)]
    monkeypatch.setattr(memory_clusters, "BLOCK_BYTES", 3 * 300 * 4)
    assert memory_clusters.block_rows(300) == 3
    found = [(a, b) for a, b, _ in similar_pairs(rows, 0.9)]
    expected = _brute_pairs(rows, 0.9)
    assert len(found) == len(set(found)) and len(expected) > 300
    assert set(found) == expected


def test_a_block_stays_within_its_budget() -> None:
    for tail in (1, 2, 1000, 7_200, 50_000, 1_000_000):
        rows = memory_clusters.block_rows(tail)
        assert 1 <= rows <= tail
        assert rows * tail * 4 <= max(memory_clusters.BLOCK_BYTES, tail * 4)


def test_star_clusters_by_rank_position_match_the_walk_over_every_memory() -> None:
    """The stars found from each keeper's neighbours are the stars the walk over all ranked memories found."""
    rng = np.random.default_rng(3)
    order = [int(i) for i in rng.permutation(400) + 1]
    ranked_members = ranked(*order)
    pairs = {(int(a), int(b)) for a, b in rng.integers(1, 401, (600, 2)) if a != b}
    graph = edges(*((a, b, 0.9 + (a * b % 97) / 1000) for a, b in pairs))

    def walk() -> list[Cluster]:  # the former O(n²) form
        taken: set[int] = set()
        out: list[Cluster] = []
        for keeper in ranked_members:
            if keeper.id in taken:
                continue
            near = graph.get(keeper.id, {})
            others = tuple(
                Member(m.id, m.content, near[m.id]) for m in ranked_members if m.id in near and m.id not in taken
            )
            if others:
                taken.add(keeper.id)
                taken.update(m.id for m in others)
                out.append(Cluster(keeper, others))
        return out

    assert star_clusters(ranked_members, graph) == walk()
