"""A name holding a bidi override cannot reverse the rest of its line on the /memory pages.

A speaker (or wing, room, entity) named ``\u202eEve`` (U+202E RIGHT-TO-LEFT OVERRIDE) turned
"Eve · 12 March 2026, 09:00" into the date read backwards: an override runs to the end of its
paragraph whatever inline element holds it. Each such name now sits in ``<bdi>``, which
isolates it; the drawer page's ``<title>`` wraps it in U+2068/U+2069, the plain-text isolate.
The override itself is dropped, as the block a model reads drops it (`retrieval.visible`), so
the name does not read backwards inside its isolate either. Fetched over real HTTP from a
running server.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Awaitable, Callable, Iterator

import httpx
import pytest
from sqlalchemy import text

from loci.db import Database
from loci.embedder import Embedder
from loci.settings import Settings
from tests.conftest import UserHandle
from tests.live_server import live_server
from tests.palace_seed import seed_palace

NewUser = Callable[..., Awaitable[UserHandle]]
RLO = "\u202e"


@pytest.fixture(scope="module")
def base_url(settings: Settings, embedder: Embedder) -> Iterator[str]:
    with live_server(settings, embedder) as url:
        yield url


def _isolated(page: str, name: str) -> None:
    """Every place ``name`` is shown sits directly inside a ``<bdi>`` (attributes aside)."""
    shown = [m.start() for m in re.finditer(re.escape(name), page) if page[m.start() - 1] not in '"= ']
    assert shown, f"{name!r} not on the page"
    for at in shown:
        assert page[:at].endswith("<bdi>") or page[:at].endswith("\u2068"), page[max(0, at - 120) : at + 60]


async def test_names_with_an_override_are_isolated(base_url: str, db: Database, new_user: NewUser) -> None:
    user = await new_user("bidi-names")
    marker = f"bd{secrets.token_hex(3)}"
    speaker, wing, entity = (f"{RLO}{what}{marker}" for what in ("Eve", "Wing", "Ent"))
    seeded = await seed_palace(db, user.id, marker)
    async with db.system_session() as s:
        bind = {"u": user.id, "n": speaker, "w": wing, "e": entity, "wing": seeded.wings[0], "ent": seeded.entities[0]}
        await s.execute(text("UPDATE drawers SET speaker = :n WHERE user_id = :u"), bind)
        await s.execute(text("UPDATE wings SET name = :w WHERE user_id = :u AND id = :wing"), bind)
        await s.execute(text("UPDATE entities SET name = :e WHERE user_id = :u AND id = :ent"), bind)
    async with httpx.AsyncClient(base_url=base_url) as http:
        signed = await http.post("/memory/login", data={"key": user.key})
        assert signed.status_code == 303, signed.text
        pages = {
            "wings": await http.get("/memory"),
            "closet": await http.get("/memory", params={"closet": seeded.closets[0]}),
            "drawer": await http.get(f"/memory/drawers/{seeded.drawers[0]}"),
            "search": await http.get("/memory/search", params={"q": f"what did {marker} say about the garden"}),
            "entities": await http.get("/memory/entities", params={"q": marker}),
            "entity": await http.get(f"/memory/entities/{seeded.entities[0]}"),
        }
    html = {name: answer.text for name, answer in pages.items() if answer.status_code == 200}
    assert html.keys() == pages.keys(), {name: answer.status_code for name, answer in pages.items()}
    assert not [name for name, page in html.items() if RLO in page]
    speaker, wing, entity = (name.removeprefix(RLO) for name in (speaker, wing, entity))
    for name in ("closet", "drawer", "search"):
        _isolated(html[name], speaker)
    for name in ("wings", "drawer", "search"):
        _isolated(html[name], wing)
    for name in ("entities", "entity"):
        _isolated(html[name], entity)
    assert f"<title>\u2068{speaker} (you)\u2069," in html["drawer"]  # the drawer is the user's turn
