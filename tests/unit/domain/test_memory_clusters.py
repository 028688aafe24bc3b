"""Clusters as stars around the best-ranked memory, and the per-user cap, without a database."""

from __future__ import annotations

from domain.memory_clusters import Cluster, Member, apply_cap, star_clusters
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
