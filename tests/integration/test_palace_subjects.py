"""Wings are the subjects of the user's life, measured on a labelled fixture.

`tests/fixtures/palace_subjects/conversations.json` holds nine dated conversations of one
user (81 turns) with the subject(s) a person would file each under. They are mined in
date order through the real pipeline (offline extractor, real embedder, embedded
Postgres), then compared with what the palace holds:

* a wing **matches** a subject when its name or one of its aliases contains one of the
  subject's keys, case-insensitive;
* **precision**: share of the wings that match some subject;
* **recall**: share of the subjects that some wing matches;
* **wing-subject match**: share of the conversations whose wing matches one of the
  subjects expected for it. All three must reach 0.8.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from domain.accounts import create_user
from domain.palace import list_level
from ingest import MiningDeps, TurnIn, mine_conversation, store_conversation
from loci.db import Database
from loci.embedder import Embedder
from loci.models import Room, Wing
from loci.settings import Settings

FIXTURE = Path(__file__).parents[1] / "fixtures" / "palace_subjects" / "conversations.json"
THRESHOLD = 0.8


@dataclass(frozen=True)
class MinedPalace:
    user_id: int
    wings: dict[int, tuple[str, str, tuple[str, ...]]]
    """wing id → (kind, name, aliases)"""
    wing_of: dict[str, int]
    """conversation id → the wing its rooms are in"""
    fixture: dict[str, Any]


def matches(wing: tuple[str, str, tuple[str, ...]], keys: list[str]) -> bool:
    """The fixture's rule: the wing's name or an alias contains one of the subject's keys."""
    _, name, aliases = wing
    spellings = [name.lower(), *(a.lower() for a in aliases)]
    return any(key.lower() in spelled for key in keys for spelled in spellings)


def load_fixture(path: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(path.read_text())
    return loaded


async def mine_palace(db: Database, embedder: Embedder, settings: Settings, fixture: dict[str, Any]) -> MinedPalace:
    """A fresh user's palace after the fixture's conversations are mined in date order."""
    user = await create_user(db, f"subjects-{secrets.token_hex(3)}")
    deps = MiningDeps(db=db, embedder=embedder, settings=settings)
    ids: dict[str, int] = {}
    for conv in sorted(fixture["conversations"], key=lambda c: c["started_at"]):
        start = datetime.fromisoformat(conv["started_at"])
        turns = [TurnIn(role, text, start + timedelta(minutes=2 * i)) for i, (role, text) in enumerate(conv["turns"])]
        ref = await store_conversation(db, user.id, external_id=conv["id"], agent_id=None, turns=turns)
        await mine_conversation(deps, ref.id)
        ids[conv["id"]] = ref.id
    async with db.user_session(user.id) as s:
        wings = {w.id: (w.kind, w.name, tuple(w.aliases)) for w in (await s.execute(select(Wing))).scalars()}
        rooms = (await s.execute(select(Room.conversation_id, Room.wing_id))).all()
    by_conv = {conv_id: wing_id for conv_id, wing_id in rooms}
    wing_of = {external: by_conv[conv_id] for external, conv_id in ids.items()}
    return MinedPalace(user.id, wings, wing_of, fixture)


@pytest.fixture(scope="module")
async def palace(db: Database, embedder: Embedder, settings: Settings) -> MinedPalace:
    return await mine_palace(db, embedder, settings, load_fixture(FIXTURE))


def palace_scores(palace: MinedPalace) -> tuple[float, float, float, str]:
    """Precision, recall and wing-subject match (see the module doc), and a report."""
    subjects: dict[str, dict[str, Any]] = palace.fixture["subjects"]
    wings = palace.wings
    matched_wings = [w for w in wings.values() if any(matches(w, s["keys"]) for s in subjects.values())]
    found = [name for name, s in subjects.items() if any(matches(w, s["keys"]) for w in wings.values())]
    convs = palace.fixture["conversations"]
    right = [
        c["id"]
        for c in convs
        if any(matches(wings[palace.wing_of[c["id"]]], subjects[e]["keys"]) for e in c["expected"])
    ]
    precision, recall = len(matched_wings) / len(wings), len(found) / len(subjects)
    match = len(right) / len(convs)
    report = (
        f"wings {sorted(w[1] for w in wings.values())}: precision {precision:.2f}, recall {recall:.2f}, "
        f"wing-subject match {match:.2f} (wrong: {sorted({c['id'] for c in convs} - set(right))})"
    )
    return precision, recall, match, report


def test_wings_match_the_labelled_subjects(palace: MinedPalace) -> None:
    precision, recall, match, report = palace_scores(palace)
    print(report)
    assert min(precision, recall, match) >= THRESHOLD, report


def test_one_subject_under_two_surface_forms_is_one_wing(palace: MinedPalace) -> None:
    """ "efoil" / "my e-foil build"; "my brother Derek" / "my brother" (no name said)."""
    assert palace.wing_of["efoil-1"] == palace.wing_of["efoil-2"]
    assert palace.wing_of["derek-birthday"] == palace.wing_of["brother-move"]
    assert palace.wing_of["kyoto-plan"] == palace.wing_of["kyoto-back"]
    assert palace.wing_of["marathon-plan"] == palace.wing_of["marathon-taper"]
    kind, name, aliases = palace.wings[palace.wing_of["brother-move"]]
    assert (kind, name) == ("person", "Derek") and "my brother" in aliases


def test_time_and_incidental_words_never_become_wings(palace: MinedPalace) -> None:
    never = set(palace.fixture["never_wings"])
    for _, name, aliases in palace.wings.values():
        assert name.lower() not in never and not never & set(aliases), (name, aliases)


async def test_palace_top_level_reads_as_subjects_with_kinds(db: Database, palace: MinedPalace) -> None:
    page = await list_level(db, palace.user_id)
    kinds = {item.label.lower(): item.kind for item in page.items}
    expected = {name: s["kind"] for name, s in palace.fixture["subjects"].items()}
    for item in page.items:
        assert item.first_at is not None and item.first_at.year >= 2026  # dated by its rooms
    got = {name: next((k for label, k in kinds.items() if name in label.replace("-", "")), None) for name in expected}
    assert got == expected, kinds
