"""Recall's words in other scripts: a Hindi word whole, "İstanbul" as PostgreSQL lower-cases it,
accents ignored ("Ines" finds "Inês", an NFD "Inês" the NFC one), Chinese and Japanese words
found inside a clause, a speaker named "İlker" and entity search without accents."""

from __future__ import annotations

import unicodedata
from dataclasses import replace
from datetime import UTC, datetime

import pytest
from sqlalchemy import select, update

from domain.accounts import create_user
from ingest import search_entities
from ingest.names import name_key, slugify
from loci.db import Database
from loci.embedder import Embedder
from loci.models import Drawer, Entity
from loci.settings import Settings
from retrieval import RecallDeps, RecallRequest, Signal, get_preset, recall
from tests.integration.palace_fixture import ConversationSpec, EntitySpec, PlacedConversation, place_conversation

NOW = datetime(2024, 6, 15, 12, 0, tzinfo=UTC)
AT = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)
NFD_INES = unicodedata.normalize("NFD", "Inês")

TURNS = {
    "istanbul": "We flew to İstanbul for the architecture conference.",
    "greek": "The boat was called ΟΔΥΣΣΕΥΣ, painted in blue letters.",
    "ines": f"{NFD_INES} moved to Lisbon for her new job.",
    "strasse": "Jürgen still lives on that Straße near the hôpital.",
    "hindi": "मेरी बहन दिल्ली में रहती है",
    "chinese": "我的妹妹王芳在上海工作",
    "japanese": "京都で食べたラーメンが好き",
    "english": "Zoltan fixed the brakes on the Subaru.",
    "ilker": "I will bring the projector to the meetup.",
}

Palace = tuple[int, dict[str, int]]


@pytest.fixture(scope="module")
async def palace(db: Database, embedder: Embedder) -> Palace:
    user = await create_user(db, "recall-scripts")
    ids: dict[str, int] = {}
    entities = tuple(EntitySpec(n, k, turns=(0,)) for n, k in (("Inês", "p"), ("São Paulo", "l"), ("Montréal", "l")))
    for i, (name, content) in enumerate(TURNS.items()):
        spec = ConversationSpec([("user", content, AT)], topic=name, entities=entities if i == 0 else ())
        placed: PlacedConversation = await place_conversation(db, embedder, user.id, spec)
        ids[name] = placed.drawer_ids[0]
    async with db.user_session(user.id) as s:
        await s.execute(update(Drawer).where(Drawer.id == ids["ilker"]).values(speaker="İlker"))
        for entity in (await s.execute(select(Entity).where(Entity.user_id == user.id))).scalars():
            entity.slug = name_key(entity.name) if entity.kind == "p" else slugify(entity.name)  # as mining keys them
    return user.id, ids


async def _keyword(db: Database, embedder: Embedder, settings: Settings, user_id: int, message: str) -> list[int]:
    deps = RecallDeps(db=db, embedder=embedder, settings=settings)
    request = RecallRequest(user_id, message, now=NOW, config=get_preset("keyword-only"))
    return [i.drawer_id for i in (await recall(deps, request)).items]


@pytest.mark.parametrize(
    ("message", "turn"),
    [
        ("İstanbul", "istanbul"),
        ("Istanbul", "istanbul"),
        ("ΟΔΥΣΣΕΥΣ", "greek"),
        ("Ines", "ines"),
        ("Inês", "ines"),  # NFC asks, NFD was stored
        ("Strasse", "strasse"),
        ("Jurgen", "strasse"),
        ("hopital", "strasse"),
        ("दिल्ली", "hindi"),
        ("रहती", "hindi"),
        ("上海", "chinese"),
        ("王芳", "chinese"),
        ("京都", "japanese"),
        ("ラーメン", "japanese"),
        ("Zoltan", "english"),
    ],
)
async def test_keyword_only_recall_finds_words_of_every_script(  # type: ignore[no-untyped-def]
    db, embedder, settings, palace, message: str, turn: str
) -> None:
    user_id, ids = palace
    assert (await _keyword(db, embedder, settings, user_id, message))[:1] == [ids[turn]]


async def test_a_cjk_word_is_not_found_where_only_its_characters_are_apart(db, embedder, settings, palace) -> None:  # type: ignore[no-untyped-def]
    user_id, _ = palace
    # 上 and 海 are both in the Chinese clause, but not side by side: "海上" is no word of it
    assert await _keyword(db, embedder, settings, user_id, "海上") == []


async def test_a_speaker_named_with_a_dotted_capital_i_is_found(db, embedder, settings, palace) -> None:  # type: ignore[no-untyped-def]
    user_id, ids = palace
    deps = RecallDeps(db=db, embedder=embedder, settings=settings)
    config = replace(get_preset("keyword-only"), weights={Signal.SPEAKER: 1.0})
    found = await recall(deps, RecallRequest(user_id, "What did İlker say?", now=NOW, config=config))
    assert [i.drawer_id for i in found.items][:1] == [ids["ilker"]]


@pytest.mark.parametrize(
    ("q", "name"), [("ines", "Inês"), ("INÊS", "Inês"), ("sao paulo", "São Paulo"), ("montreal", "Montréal")]
)
async def test_entity_search_ignores_accents_and_case(db, palace, q: str, name: str) -> None:  # type: ignore[no-untyped-def]
    user_id, _ = palace
    assert [e.name for e in await search_entities(db, user_id, unicodedata.normalize("NFD", q))] == [name]
