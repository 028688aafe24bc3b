"""Clusters as stars around the best-ranked memory, and the per-user cap, without a database."""

from __future__ import annotations

import numpy as np

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
