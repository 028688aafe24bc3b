"""Reciprocal Rank Fusion over scored, ranked candidate lists (pure).

RRF (Cormack et al. 2009) needs no score calibration between signals: a drawer's fused
score is the weighted sum of ``1 / (k + rank)`` over the lists it appears in, so cosine
similarities, ``ts_rank_cd`` values and time distances combine without normalising.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

__all__ = ["Fused", "Scored", "pool_rooms", "rrf", "rrf_scores"]


@dataclass(frozen=True, slots=True)
class Scored:
    """One candidate from one signal, best first within its list."""

    drawer_id: int
    score: float
    occurred_at: datetime | None = None
    role: str | None = None
    room_id: int | None = None
    rank: int | None = None
    """The 1-based rank RRF counts for it, when its list is another list filtered and keeps
    that list's ranks (`retrieval.answer_list`); None: its place in its own list."""
    answers: int | None = None
    """For a reply in the reply list: the drawer id of the user turn it answers
    (`retrieval.reply`), whose evidence it inherits after fusion."""


@dataclass(frozen=True, slots=True)
class Fused:
    drawer_id: int
    score: float
    ranks: Mapping[str, int] = field(default_factory=dict)
    """1-based rank in each list that contained the drawer."""


def rrf_scores(
    ranked_ids: Mapping[str, Sequence[int]],
    weights: Mapping[str, float] | None = None,
    k: int = 60,
    positions: Mapping[str, Sequence[int]] | None = None,
) -> tuple[dict[int, float], dict[int, dict[str, int]]]:
    """RRF itself over lists of ids of any kind (drawers here, explicit memories in
    `retrieval.memory_search`): each id's fused score and its 1-based rank per list.

    ``weights`` default to 1 per list; an id repeated within one list keeps its first rank.
    ``positions`` gives a list's ranks explicitly (one per id, ascending) where the list is
    another one filtered: a drawer 17th by similarity that passes the filter counts as 17th,
    not as the filtered list's 1st.
    """
    if k < 0:
        raise ValueError("k must be >= 0")
    scores: dict[int, float] = {}
    ranks: dict[int, dict[str, int]] = {}
    for name, ids in ranked_ids.items():
        weight = 1.0 if weights is None else weights.get(name, 1.0)
        if weight <= 0:
            continue
        explicit = positions.get(name) if positions is not None else None
        for index, item_id in enumerate(ids):
            position = explicit[index] if explicit is not None else index + 1
            seen = ranks.setdefault(item_id, {})
            if name in seen:
                continue
            seen[name] = position
            scores[item_id] = scores.get(item_id, 0.0) + weight / (k + position)
    return scores, ranks


def rrf(
    ranked_lists: Mapping[str, Sequence[Scored]],
    weights: Mapping[str, float] | None = None,
    k: int = 60,
    multipliers: Mapping[int, float] | None = None,
) -> list[Fused]:
    """Fuse ranked lists; ties broken by best single rank, then by drawer id (stable).

    ``weights`` default to 1 per list; ``multipliers`` scale one drawer's fused score
    (used for the role prior). A drawer repeated within one list keeps its first rank.
    """
    ids = {name: [item.drawer_id for item in items] for name, items in ranked_lists.items()}
    positions = {
        name: [item.rank if item.rank is not None else n for n, item in enumerate(items, start=1)]
        for name, items in ranked_lists.items()
        if any(item.rank is not None for item in items)
    }
    scores, ranks = rrf_scores(ids, weights, k, positions)
    if multipliers:
        for drawer_id, factor in multipliers.items():
            if drawer_id in scores:
                scores[drawer_id] *= factor
    fused = [Fused(d, s, ranks[d]) for d, s in scores.items()]
    fused.sort(key=lambda f: (-f.score, min(f.ranks.values()), f.drawer_id))
    return fused


def pool_rooms(
    fused: Sequence[Fused],
    room_of: Mapping[int, int],
    depth: int,
    decay: float,
    relevant: Collection[int] | None = None,
    spread: float = 1.0,
) -> list[Fused]:
    """Let a room's other strong drawers vouch for it: evidence pooling per conversation.

    A memory discussed over several turns is usually what the question is about, while a
    lone drawer that happens to share a word with it often is not. The room's score is
    the decayed sum of its ``depth`` best fused scores (``s1 + decay*s2 + decay**2*s3``);
    every drawer of the room gains ``room score - s1``, so the room's best drawer ends up
    with exactly the room's score and the order inside a room is unchanged. ``depth`` 1
    (or a drawer without a room) changes nothing.

    Only drawers in ``relevant`` (when given: those past recall's relevance floor) count
    towards a room or gain from it; otherwise a room's many weak matches would add up
    and outrank one strong drawer, which in a small palace is every room's case.

    ``spread`` < 1 gives the room's n-th drawer (0-based, in fused order) only
    ``spread**n`` of the bonus: the pool says the *conversation* is about the question,
    not which of its turns holds the fact, and lifting all of them equally lets one
    conversation's lesser turns crowd the other conversations' best ones out of the top
    ranks. The room's best drawer still carries the room's score (rooms rank as before)
    and the order inside a room is unchanged.
    """
    if depth <= 1 or not fused:
        return list(fused)
    by_room: dict[int, list[float]] = {}
    for f in fused:
        room = room_of.get(f.drawer_id)
        if room is not None and (relevant is None or f.drawer_id in relevant):
            by_room.setdefault(room, []).append(f.score)
    bonus: dict[int, float] = {}
    for room, scores in by_room.items():
        top = sorted(scores, reverse=True)[:depth]
        bonus[room] = sum(s * decay**i for i, s in enumerate(top[1:], start=1))
    seen: dict[int, int] = {}
    pooled: list[Fused] = []
    for f in fused:
        room = room_of.get(f.drawer_id, -1)
        position = seen[room] = seen.get(room, -1) + 1
        pooled.append(Fused(f.drawer_id, f.score + bonus.get(room, 0.0) * spread**position, f.ranks))
    pooled.sort(key=lambda f: (-f.score, min(f.ranks.values(), default=0), f.drawer_id))
    return pooled
