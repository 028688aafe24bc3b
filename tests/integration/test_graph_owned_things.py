"""A product the user acquired is an `owns` row of theirs until they say it left them: sold, returned,
stolen (`owned`, which ends the `owns` of the same product: `loci.relation_ends.ENDED_BY`), whether the
later chat names it with its maker or without ("Samsung Galaxy S24" … "the Galaxy S24": one entity,
`ingest.entity_merge`). Mined as the worker mines them (offline) on embedded Postgres + Valkey, read
over HTTP.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from litestar.testing import AsyncTestClient

from ingest import MiningDeps
from loci.db import Database
from loci.embedder import Embedder
from loci.settings import Settings
from tests.conftest import UserHandle
from tests.graph_timeline import mine_chat, spans, users_rows

NewUser = Callable[..., Awaitable[UserHandle]]
Client = AsyncTestClient  # type: ignore[type-arg]


async def test_a_product_sold_in_a_later_chat_is_owned_no_longer(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser, client: Client
) -> None:
    user = await new_user()
    deps = MiningDeps(db=db, embedder=embedder, settings=settings)
    await mine_chat(deps, user, "bought", ["I bought a Samsung Galaxy S24 on the weekend, lovely screen."], day=0)
    await mine_chat(deps, user, "sold", ["so I sold the Galaxy S24 on eBay yesterday."], day=60)
    rows = await users_rows(client, user, "Samsung Galaxy S24")
    assert spans(rows, "owns") == [("Samsung Galaxy S24", False)], rows
    assert [current for _, current in spans(rows, "owned")] == [True], rows


async def test_a_product_bought_again_after_a_sale_is_owned_again_and_no_longer_sold(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser, client: Client
) -> None:
    user = await new_user()
    deps = MiningDeps(db=db, embedder=embedder, settings=settings)
    await mine_chat(deps, user, "first", ["I bought a Pixel 8 last month, great camera."], day=0)
    await mine_chat(deps, user, "gone", ["I sold the Pixel 8 to a colleague last week."], day=30)
    await mine_chat(deps, user, "again", ["Regretted it, so I bought a Pixel 8 again, refurbished."], day=60)
    rows = await users_rows(client, user, "Pixel 8")
    assert [current for _, current in spans(rows, "owns")] == [False, True], rows
    assert [current for _, current in spans(rows, "owned")] == [False], rows
