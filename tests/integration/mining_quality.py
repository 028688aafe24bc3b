"""Chats from a labelled fixture mined as the worker mines them, and what that stored read back,
for `test_mining_quality` and its held-out twins; `bench.entity_labels` scores it (its doc says
how). `load_fixture` reads ``tests/fixtures/mining_quality/conversations.json`` or another
fixture in its format (`tests/fixtures/mining_quality_held_out*/`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import aliased

from bench.entity_labels import Fact, Score, Stored, labelled_chats, object_matches, score
from ingest import MiningDeps, TurnIn, canonical_predicate, complete_conversation, mine_conversation, store_conversation
from ingest.names import name_key
from loci.db import Database
from loci.models import Entity, Relation, Room, Wing
from loci.timexpr import parse_timestamp
from tests.conftest import UserHandle

FIXTURE = Path(__file__).parent.parent / "fixtures" / "mining_quality" / "conversations.json"

__all__ = [
    "Fact",
    "Floors",
    "Score",
    "Stored",
    "load_fixture",
    "mine",
    "mine_and_check",
    "object_matches",
    "score",
    "stored",
    "timelines_right",
    "wing_match",
]


def load_fixture(path: Path = FIXTURE) -> dict[str, Any]:
    return labelled_chats(path)


async def mine(db: Database, deps: MiningDeps, user: UserHandle, conversations: list[dict[str, Any]]) -> dict[str, int]:
    """Each chat stored and mined as the worker does; answers chat id → conversation id."""
    ids: dict[str, int] = {}
    for conv in conversations:
        turns = [TurnIn(t["role"], t["content"], parse_timestamp(t["at"])) for t in conv["turns"]]
        ref = await store_conversation(db, user.id, external_id=conv["id"], agent_id=None, turns=turns)
        await complete_conversation(db, user.id, conv["id"])
        result = await mine_conversation(deps, ref.id)
        assert (result.extractor, result.turns_mined) == ("offline", len(turns))
        ids[conv["id"]] = ref.id
    return ids


async def stored(db: Database, user_id: int) -> tuple[list[Stored], list[Fact], dict[str, list[Any]]]:
    """Entities (times and the user aside), every relation, and each subject's rows by predicate."""
    subject = aliased(Entity)
    async with db.user_session(user_id) as s:
        entities = [
            Stored(e.kind, e.name, tuple(e.aliases))
            for e in (await s.execute(select(Entity).where(Entity.kind != "t"))).scalars()
            if e.slug != "user"
        ]
        rows = (await s.execute(select(subject.name, Relation).join(subject, subject.id == Relation.subject_id))).all()
    facts = [Fact(name, r.predicate, r.object_value or "") for name, r in rows]
    by_subject: dict[str, list[Any]] = {}
    for name, r in rows:
        by_subject.setdefault(f"{name_key(name)}|{r.predicate}", []).append(r)
    return entities, facts, by_subject


def timelines_right(
    labelled: list[dict[str, Any]], by_subject: dict[str, list[Any]]
) -> tuple[list[bool], dict[str, list[str | None]]]:
    """Each labelled timeline right or not (its values in order, each closed when the next opened,
    the last current), and the values stored for it, to print."""
    right: list[bool] = []
    seen: dict[str, list[str | None]] = {}
    for line in labelled:
        key = f"{name_key(line['entity'])}|{canonical_predicate(line['predicate'])}"
        rows = sorted(by_subject.get(key, []), key=lambda r: r.valid_from)
        closed = [r.valid_to for r in rows] == [r.valid_from for r in rows[1:]] + [None]
        right.append([r.object_value for r in rows] == line["values"] and closed)
        seen[f"{line['entity']}|{line['predicate']}"] = [r.object_value for r in rows]
    return right, seen


def _squash(text: str) -> str:
    return text.lower().replace("-", "").replace(" ", "")


async def wing_match(
    db: Database, user_id: int, ids: dict[str, int], conversations: list[dict[str, Any]]
) -> tuple[float, dict[str, str]]:
    """`test_palace_subjects`' rule, hyphens and spaces aside: the share of chats whose wing's name
    or an alias contains one of the subjects a person would file the chat under (``expected_wings``),
    and each chat's wing name, to print."""
    async with db.user_session(user_id) as s:
        rows = (await s.execute(select(Room.conversation_id, Wing.name, Wing.aliases).join(Wing))).all()
    wing_of = {conv_id: (name, *aliases) for conv_id, name, aliases in rows}
    right = [
        c
        for c in conversations
        if any(_squash(e) in _squash(w) for e in c["expected_wings"] for w in wing_of[ids[c["id"]]])
    ]
    return len(right) / max(1, len(conversations)), {c["id"]: wing_of[ids[c["id"]]][0] for c in conversations}


@dataclass(frozen=True)
class Floors:
    """What a labelled set must keep reaching (its test says why each figure is where it is)."""

    type_precision: float
    entity_recall: float
    relation_recall: float
    timelines: int
    wings: float | None = None
    """None: the set's wings are printed, not held to a floor."""


async def mine_and_check(db: Database, deps: MiningDeps, user: UserHandle, path: Path, floors: Floors) -> None:
    """A held-out set mined as the worker mines it, its reading printed (``pytest -s``: figures,
    misses, timelines, wings, what was stored), and each figure held to its floor."""
    data = load_fixture(path)
    ids = await mine(db, deps, user, data["conversations"])
    entities, facts, by_subject = await stored(db, user.id)
    result = score(data["conversations"], entities, facts)
    wings, wing_names = await wing_match(db, user.id, ids, data["conversations"])
    lines, seen = timelines_right(data["timelines"], by_subject)
    print(result.report(), f"\n  timelines right: {sum(lines)} of {len(lines)}: {seen}")
    print(f"  wing-subject match {wings:.2f}: {wing_names}")
    print("  stored:", sorted(f"{e.kind}:{e.name}" for e in entities))
    print("  facts:", sorted(f"{f.subject} —{f.predicate}→ {f.object}" for f in facts))
    assert result.type_precision >= floors.type_precision, result.report()
    assert result.entity_recall >= floors.entity_recall, result.report()
    assert result.relation_recall >= floors.relation_recall, result.report()
    assert sum(lines) >= floors.timelines, seen
    assert floors.wings is None or wings >= floors.wings, wing_names
