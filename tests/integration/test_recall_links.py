"""A pasted link's path names no entity, so its words never match a question (`ingest.prose`).

A walkthrough mined "I moved to Lisbon" beside a turn holding a ~300-character link and a
few words, and "Which city should I look for flats in?" ranked the link's turn first. The
keyword signal matched it: the offline extractor read a capitalised path segment of the link
("Skyline-City-Poster-Print-Frame") as an entity, and the drawer's ``tag_text`` (indexed
with the 'simple' configuration, which splits at hyphens) gave the keyword index "city".
The content's own index keeps a URL as one lexeme, so nothing else matched. Each link here
is about something other than flats, in a palace of its own beside the Lisbon turn, and
shares one word with the question only inside its path.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select

from domain.accounts import create_user
from ingest import MiningDeps, TurnIn, complete_conversation, mine_conversation, store_conversation
from loci.db import Database
from loci.embedder import Embedder
from loci.models import Drawer
from loci.settings import Settings
from retrieval import RecallDeps, RecallRequest, recall

NOW = datetime(2024, 6, 20, 9, 0, tzinfo=UTC)
LISBON = "I moved to Lisbon last week."
QUESTION = "Which city should I look for flats in?"
_TRACKING = "utm_source=newsletter&utm_medium=email&utm_campaign=weekly_digest_2024_06&fbclid=IwAR3xYzAbCdEfGhIjKlMnOp"

LINKS = {
    "product": "Saving this for later: https://www.amazon.com/Skyline-City-Poster-Print-Frame/dp/B07QXV6N1B/ref=sr_1_3"
    f"?crid=2XK9Q8ZP1LM4R&keywords=poster&qid=1718871234&sprefix=poster%2Caps%2C187&sr=8-3&{_TRACKING}",
    "listing": "My sister sent me this: https://www.etsy.com/listing/1234567890/Vintage-Look-Wooden-Toy-Train"
    f"?click_key=8f7e6d5c4b3a29181716151413121110&click_sum=a1b2c3d4&ref=hp_rv-2&pro=1&frs=1&{_TRACKING}",
    "report": "The club's report, for the record: https://www.example-football.co.uk/news/Manchester-City-Season-Review"
    f"-2024?at_medium=RSS&at_campaign=rss&at_link_origin=homepage&at_ptr_name=share&sessionid=3f9a8b7c6d5e&{_TRACKING}",
}


@pytest.fixture(scope="module")
async def palaces(db: Database, embedder: Embedder, settings: Settings) -> dict[str, int]:
    """One user per link: the Lisbon turn, then (more recent) the link's turn."""
    deps = MiningDeps(db=db, embedder=embedder, settings=settings)
    users: dict[str, int] = {}
    for name, said in LINKS.items():
        assert 250 <= len(said) <= 420, (name, len(said))
        user = await create_user(db, f"links-{name}")
        chats = {"move": (LISBON, NOW - timedelta(days=9)), "link": (said, NOW - timedelta(days=2))}
        for chat, (text, at) in chats.items():
            turns = [TurnIn("user", text, at)]
            ref = await store_conversation(db, user.id, external_id=chat, agent_id=None, turns=turns)
            await complete_conversation(db, user.id, chat)
            await mine_conversation(deps, ref.id)
        users[name] = user.id
    return users


@pytest.mark.parametrize("name", list(LINKS))
async def test_a_word_inside_a_link_does_not_rank_its_turn(
    db: Database, embedder: Embedder, settings: Settings, palaces: dict[str, int], name: str
) -> None:
    deps = RecallDeps(db=db, embedder=embedder, settings=settings)
    response = await recall(deps, RecallRequest(palaces[name], QUESTION, now=NOW))
    ranks = {d.conversation_external_id: dict(d.ranks) for d in response.items}
    assert response.items[0].conversation_external_id == "move", ranks
    assert "keyword" not in ranks["link"], ranks
    assert response.context is not None and LISBON in response.context and "://" not in response.context


@pytest.mark.parametrize("name", list(LINKS))
async def test_the_links_drawer_keeps_its_verbatim_text_and_no_tag_from_the_link(
    db: Database, palaces: dict[str, int], name: str
) -> None:
    async with db.user_session(palaces[name]) as s:
        content, tag_text = (
            await s.execute(
                select(Drawer.content, Drawer.tag_text)
                .where(Drawer.role == "user")
                .where(Drawer.content.contains("://"))
            )
        ).one()
    assert content == LINKS[name]
    path = LINKS[name].split("://", 1)[1]
    assert not any(word and word in path for word in tag_text.replace("@", " ").split() if len(word) > 2), tag_text
