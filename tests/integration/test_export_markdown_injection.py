"""Stored text cannot add a line of its own to the Markdown book (``GET /v1/export?format=markdown``).

A memory saved as ``"tea\\n## Injected\\n```"`` opened a heading of its own and a code fence
that swallowed the rest of the book; a conversation titled ``"T\\n<script>…</script>"`` put a
raw ``<script>`` line under its room heading (run by a viewer that renders HTML), and
``![](https://tracker…)`` in a memory was an image every viewer fetched when the book opened.
Found over HTTP against a running server; this drives the same route, mining included.
An entity named ``# Forged heading`` still made its list item ``- # Forged heading (t)`` a
heading, as ``1. x``, ``---`` or a fence did a list, a rule or a code block: the book is read here
by a CommonMark parser (markdown-it-py) as a viewer reads it.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable

from litestar.testing import AsyncTestClient
from markdown_it import MarkdownIt
from sqlalchemy import select

from loci.models import Drawer, DrawerEntity, Entity
from service.state import AppState
from tests.conftest import UserHandle
from tests.integration.test_mining_api import post, run_jobs

NewUser = Callable[..., Awaitable[UserHandle]]
Client = AsyncTestClient  # type: ignore[type-arg]

HOSTILE = (
    "Likes tea\n## Injected heading\n```\n<img src=x onerror=alert(1)> ![](https://tracker.example/p.png)"
    " [click](javascript:alert(1)) \\[still text]"
)
BOOK_HEADING = re.compile(r"^(# Memory palace |## Wing \d{3}: |### Room \d+: |#### |## (Entities|Facts|Memories)$)")
UNESCAPED_BRACKET = re.compile(r"(?<!\\)(\\\\)*\[")
"""A ``[`` after an even number of backslashes (none included): one a viewer reads as a link's."""
TITLE = "Trip\n<script>alert(1)</script>\n# Forged wing"


async def test_stored_text_stays_inside_its_line_of_the_markdown_book(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    user = await new_user("md-book")
    saved = await post(client, user, "/v1/memories", {"content": HOSTILE, "category": "preference"})
    assert saved.status_code == 201, saved.text
    turns = [{"role": "user", "content": "I moved to Lisbon.\n```\n# Forged\n<script>alert(2)</script>"}]
    made = await post(client, user, "/v1/conversations", {"id": "c-md", "title": TITLE, "turns": turns})
    assert made.status_code == 201, made.text
    assert (await post(client, user, "/v1/conversations/c-md/complete")).status_code == 202
    await run_jobs(app_state)

    book = (await client.get("/v1/export", headers=user.headers, params={"format": "markdown"})).text
    lines = book.split("\n")
    headings = [line for line in lines if line.startswith("#")]
    assert headings and all(BOOK_HEADING.match(h) for h in headings), headings  # only the book's own
    assert not any(line.lstrip().startswith("```") for line in lines)  # no fence outside a quote
    assert "<" not in book and UNESCAPED_BRACKET.search(book) is None  # no tag, link or image
    memory = next(line for line in lines if "Likes tea" in line)
    assert memory.startswith("- *preference* (knowledge): Likes tea ## Injected heading ``` &lt;img src=x")
    assert "\\\\\\[still text]" in memory  # a stored backslash stays one, and its bracket is text
    room = next(line for line in lines if line.startswith("### Room"))
    assert "Trip &lt;script&gt;alert(1)&lt;/script&gt; # Forged wing" in room
    quoted = [line for line in lines if line.startswith("  >")]
    assert "  > ```" in quoted and "  > &lt;script&gt;alert(2)&lt;/script&gt;" in quoted  # inside the quote


NAMES = (
    *("# Forged heading", "```", "~~~ x", "1. one", "2) two", "- item", "+ item", "* item"),
    *("---", "***", "___", "=== x", "| a | b |", "Lisbon"),
)
OUTSIDE_A_QUOTE = {"fence", "code_block", "hr", "ordered_list_open", "table_open", "html_block"}
"""Blocks no line of the book opens but a drawer's quoted turn (which may: the quote holds it)."""


async def test_a_name_cannot_start_a_block_in_its_list_item(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    user = await new_user("md-names")
    made = await post(client, user, "/v1/conversations", {"id": "c-nm", "turns": [{"role": "user", "content": "Hi."}]})
    assert made.status_code == 201, made.text
    assert (await post(client, user, "/v1/conversations/c-nm/complete")).status_code == 202
    await run_jobs(app_state)
    async with app_state.db.user_session(user.id) as s:
        drawer = (await s.execute(select(Drawer.id).where(Drawer.user_id == user.id))).scalars().first()
        assert drawer is not None
        for i, name in enumerate(NAMES):  # as mined, but no extractor names things so
            entity = Entity(user_id=user.id, kind="t", name=name, slug=f"forged-{i}", mention_count=1)
            s.add(entity)
            await s.flush()
            s.add(DrawerEntity(drawer_id=drawer, entity_id=entity.id, user_id=user.id))

    book = (await client.get("/v1/export", headers=user.headers, params={"format": "markdown"})).text
    parser = MarkdownIt("commonmark").enable(["table", "strikethrough"])
    quoted = 0
    for token in parser.parse(book):
        quoted += {"blockquote_open": 1, "blockquote_close": -1}.get(token.type, 0)
        if quoted == 0:
            assert token.type not in OUTSIDE_A_QUOTE, (token.type, token.map, book)
            if token.type in ("heading_open", "bullet_list_open"):
                assert token.level == 0, (token.type, token.map)  # the book's own, no heading in a list
    shown = parser.render(book)
    for name in NAMES:
        assert f"<li>{name} (t), 1 mentions" in shown, name  # each reads as written
