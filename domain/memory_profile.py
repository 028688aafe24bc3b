"""The core profile as one Markdown document the user can read and edit.

The core layer is a set of short memories that goes into every session-start block,
capped at ``LOCI_MEMORY_CORE_MAX_CHARS`` in total. People edit it best as one text, so
`GET /v1/profile` renders it and `PUT /v1/profile` takes it back. The format is small
on purpose::

    # an optional title line (ignored)
    ## Profile
    - Lives in Lyon
    ## Response style
    - Short answers, no emoji

``## <Category>`` headings (a category name, ``_`` written as a space, any case) and one
``- `` (or ``* ``) bullet per memory; blank lines are ignored; anything else, and a bullet
too long for one memory, is a 400 naming the line (field ``markdown``). A PUT is diffed
against the active core memories by (category, text ignoring case and runs of white
space): unchanged lines are kept as they are (same ids, no history), removed lines are
forgotten, new lines are added, all ``source=user`` in one transaction under the cap
(over it: a 422 naming ``markdown`` or ``entries``, whichever was sent).

An agent key reads and replaces only the part of the profile it may see (`_visible_core`):
the memories no agent owns and its own, in its categories; its PUT writes as the agent
(``source=agent``, actor ``agent:<id>``, the new lines its own as a save's are) and leaves every
other core memory as it was.

A PUT may be conditional (HTTP's optimistic concurrency, RFC 9110 §13.1.1): every profile
carries an ``etag``, a hash of the ordered (id, category, content) of the core memories the
caller sees, which moves only when that part of the profile does (the ``revision`` moves on
any write the caller may see, in or out of the core: for an agent key, of memories it may
read). A PUT with ``if_match`` checks it against the current profile after taking the user's
memory lock, in the transaction that applies the diff, so of two writers that read the same
profile exactly one wins and the other gets `PreconditionFailed` (412) with nothing written;
``*`` matches any profile. Without it the last writer wins.
"""

from __future__ import annotations

import hashlib
import re

import msgspec
from sqlalchemy.ext.asyncio import AsyncSession

from domain.agent_access import ALLOW_ALL, AgentScope
from domain.memories import new_memory_row
from domain.memory_dto import MemoryEvent, ProfileIn, ProfileOut, ProfileWrite
from domain.memory_rows import (
    MemoryStore,
    actor_of,
    check_category,
    check_core_room,
    clean_content,
    core_rows,
    embed_texts,
    end_row,
    event_out,
    lock_user,
    memory_outs,
    record_event,
    transaction_now,
)
from domain.memory_scope import revision_query
from loci.db import Database
from loci.errors import Forbidden, InvalidInput, PreconditionFailed
from loci.models import Memory
from loci.settings import MemorySettings
from retrieval import visible

__all__ = [
    "IF_MATCH_ANY",
    "get_profile",
    "may_replace",
    "parse_profile",
    "profile_etag",
    "put_profile",
    "render_profile",
]

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*$")
_BULLETS = ("- ", "* ")

ETAG_HEX_CHARS = 32
"""128 bits of SHA-256, as the session block's ETag: two states of one profile never collide."""
IF_MATCH_ANY = "*"
"""``If-Match: *``: any current profile (there always is one, if only empty), so never a 412."""

Line = tuple[str, str]
"""(category, content) of one profile bullet."""


def _key(category: str, content: str) -> tuple[str, str]:
    """What a line is compared by: as the profile shows it (`_shown`), so the Markdown read back
    unchanged keeps every row, invisible characters and all."""
    return category, _shown(content).lower()


def _shown(content: str) -> str:
    """A core memory as one line of the profile, without the invisible characters the blocks
    drop too (`retrieval.visible`: tag characters that spell hidden instructions a model reads,
    bidi overrides). Not escaped: the profile is Markdown a person edits and PUTs back."""
    return " ".join(visible(content).split())


def _title(category: str) -> str:
    return category.replace("_", " ").capitalize()


def _order(rows: list[Memory], settings: MemorySettings) -> list[Memory]:
    """Categories in the configured order (others after, by name), then oldest first."""
    rank = {c: i for i, c in enumerate(settings.categories)}
    return sorted(rows, key=lambda r: (rank.get(r.category, len(rank)), r.category, r.id))


def render_profile(rows: list[Memory], settings: MemorySettings) -> str:
    """The Markdown of the core rows (deterministic: the same rows give the same bytes)."""
    sections: list[str] = []
    current = None
    for row in _order(rows, settings):
        if row.category != current:
            if sections:
                sections.append("")
            current = row.category
            sections.append(f"## {_title(current)}")
        sections.append("- " + _shown(row.content))
    return "\n".join(sections) + ("\n" if sections else "")


def profile_etag(rows: list[Memory], settings: MemorySettings) -> str:
    """A strong ETag (quoted, as the header carries it) of the profile ``rows`` make: their ids,
    categories and contents in the profile's order. A row's id changes with any edit (an update
    adds a row), so the tag moves exactly when a line is added, removed or edited."""
    lines = [[r.id, r.category, r.content] for r in _order(rows, settings)]
    return f'"{hashlib.sha256(msgspec.json.encode(lines)).hexdigest()[:ETAG_HEX_CHARS]}"'


def _check_if_match(if_match: str | None, rows: list[Memory], settings: MemorySettings) -> None:
    """RFC 9110's ``If-Match``: ``*`` or any listed tag, by strong comparison (a weak ``W/`` tag
    never matches; a tag sent without its quotes is read as quoted)."""
    if if_match is None:
        return
    current = profile_etag(rows, settings)
    tags = {t.strip() for t in if_match.split(",")}
    if IF_MATCH_ANY in tags or current in tags or current.strip('"') in tags:
        return
    raise PreconditionFailed(
        f"If-Match {if_match.strip()[:80]!r} does not match the core profile's current ETag {current}: it "
        "changed since you read it, and nothing was written; GET /v1/profile again, re-apply your edit and "
        "send the new ETag",
        field="If-Match",
        etag=current,
    )


def _heading(name: str, number: int, settings: MemorySettings) -> str:
    category = name.strip().lower().replace(" ", "_")
    if category not in settings.categories:
        allowed = ", ".join(f"## {_title(c)}" for c in settings.categories)
        raise InvalidInput(f"markdown line {number}: unknown heading {name!r}; use one of {allowed}", field="markdown")
    return category


def parse_profile(markdown: str, settings: MemorySettings) -> list[Line]:
    """The bullets of a profile document (format in the module docstring)."""
    lines: list[Line] = []
    category: str | None = None
    for number, raw in enumerate(markdown.splitlines(), start=1):
        line = raw.strip()
        if not line:
            continue
        if heading := _HEADING.match(line):
            if len(heading.group(1)) != 1:  # "# title" is a title; "## name" a category
                category = _heading(heading.group(2), number, settings)
            continue
        if line[:2] not in _BULLETS:
            raise InvalidInput(f"markdown line {number}: expected '## Category' or '- text', got {line[:40]!r}",
                               field="markdown")  # fmt: skip
        if category is None:
            raise InvalidInput(f"markdown line {number}: a bullet before any '## Category' heading", field="markdown")
        lines.append((category, _bullet(line[2:], number, settings)))
    return lines


def _bullet(text: str, number: int, settings: MemorySettings) -> str:
    """One bullet's content, checked as a memory's; a refusal names the line, so a long
    profile says which bullet to shorten (the field stays ``markdown``, what was sent)."""
    content = text.strip()
    if len(content) > settings.content_max_chars:
        raise InvalidInput(
            f"markdown line {number}: the bullet {content[:30]!r}… is {len(content)} characters, over the limit "
            f"of {settings.content_max_chars} for one core memory (LOCI_MEMORY_CONTENT_MAX_CHARS): "
            "keep each bullet to one short statement",
            field="markdown",
        )
    try:
        return clean_content(content, settings, field=f"markdown line {number}")
    except InvalidInput as e:
        raise InvalidInput(str(e), field="markdown") from e


def _wanted(body: ProfileIn, settings: MemorySettings) -> list[Line]:
    if (body.markdown is None) == (body.entries is None):
        raise InvalidInput("send exactly one of markdown or entries", field="markdown")
    if body.markdown is not None:
        lines = parse_profile(body.markdown, settings)
    else:
        lines = [
            (check_category(e.category, settings, f"entries[{i}].category"),
             clean_content(e.content, settings, f"entries[{i}].content"))
            for i, e in enumerate(body.entries or [])
        ]  # fmt: skip
    unique: dict[tuple[str, str], Line] = {}
    for line in lines:
        unique.setdefault(_key(*line), line)
    return list(unique.values())


async def _revision(s: AsyncSession, user_id: int, scope: AgentScope) -> int:
    """The id of the latest content-changing event (`loci.models.memories`) the caller may
    see (`memory_scope.revision_query`: an agent's, the block's); 0 for none."""
    return int((await s.execute(revision_query(user_id, None, scope))).scalar_one() or 0)


async def _visible_core(s: AsyncSession, user_id: int, settings: MemorySettings, scope: AgentScope) -> list[Memory]:
    """The core memories ``scope`` may read, as every other read applies it: its categories (an
    agent with no list still misses the agent-only ones, e.g. procedures) and, for an agent, the
    memories no agent owns and its own, never another agent's."""
    return await core_rows(s, user_id, scope.within(settings.categories), scope.agent_id)


async def _profile(
    s: AsyncSession, user_id: int, settings: MemorySettings, scope: AgentScope = ALLOW_ALL
) -> ProfileOut:
    rows = _order(await _visible_core(s, user_id, settings, scope), settings)
    return ProfileOut(
        render_profile(rows, settings),
        sum(len(r.content) for r in rows),
        settings.core_max_chars,
        await _revision(s, user_id, scope),
        await memory_outs(s, rows),
        profile_etag(rows, settings),
    )


async def get_profile(
    db: Database, settings: MemorySettings, user_id: int, scope: AgentScope = ALLOW_ALL
) -> ProfileOut:
    """The core profile; for an agent with a category allowlist, the part of it in those categories."""
    async with db.user_session(user_id) as s:
        return await _profile(s, user_id, settings, scope)


def may_replace(scope: AgentScope) -> bool:
    """Whether ``scope``'s caller may PUT the profile: a user, or an agent with no category list.
    A PUT replaces the whole profile, which an agent limited to some categories cannot see
    (`put_profile` refuses it, 403). One test for the refusal and for the tool lists
    (`service.mcp.tools`), so ``write_profile`` is offered exactly to the keys that may call it."""
    return scope.categories is None


async def put_profile(
    store: MemoryStore, user_id: int, body: ProfileIn, scope: AgentScope = ALLOW_ALL, *, if_match: str | None = None
) -> ProfileWrite:
    """Make the active core memories what ``body`` lists (see the module), in one transaction;
    given ``if_match``, only if it matches the profile's current ETag (else `PreconditionFailed`).
    A PUT replaces the whole profile, so an agent that may not see every category may not
    make one (403): it saves core memories one at a time instead."""
    if not may_replace(scope):
        raise Forbidden(
            f"agent {scope.agent_id!r} may see only some categories, so it may not replace the whole profile; "
            "save core memories one at a time instead",
            field="profile",
        )
    wanted = _wanted(body, store.settings)
    field = "markdown" if body.markdown is not None else "entries"
    for category, _ in wanted:  # a line it could never read back, as a save of one is (403)
        scope.check_category(category, field=field)
    actor, source = actor_of(scope.agent_id), "agent" if scope.agent_id else "user"
    vectors = dict(zip((_key(*w) for w in wanted), await embed_texts(store.embedder, [c for _, c in wanted]),
                       strict=True))  # fmt: skip
    async with store.db.user_session(user_id) as s:
        await lock_user(s, user_id)
        current = await _visible_core(s, user_id, store.settings, scope)  # what it cannot see it cannot drop
        _check_if_match(if_match, current, store.settings)  # under the lock: no write can land between
        have = {_key(r.category, r.content) for r in current}
        keep = set(vectors)
        removed = [r for r in current if _key(r.category, r.content) not in keep]
        added = [w for w in wanted if _key(*w) not in have]
        await check_core_room(
            s, user_id, store.settings, adding=[c for _, c in added], removing=[r.id for r in removed],
            field=field, within=scope.within(store.settings.categories), reader=scope.agent_id,
        )  # fmt: skip
        now = await transaction_now(s)
        events: list[MemoryEvent] = []
        for row in removed:
            end_row(row, now, "forget")
            history = await record_event(
                s, user_id, "forget", actor=actor, lineage_id=row.lineage_id, old_id=row.id, via="profile"
            )
            events.append(await event_out(s, history, row))
        for category, content in added:
            row = await new_memory_row(
                s, user_id, layer="core", category=category, content=content, source=source, importance=3,
                pinned=False, tags=[], turn_seqs=[], valid_from=now, embedding=vectors[_key(category, content)],
                agent_id=scope.agent_id,  # an agent's line is its own, as its save_memory's is
            )  # fmt: skip
            history = await record_event(
                s, user_id, "add", actor=actor, lineage_id=row.id, new_id=row.id, layer="core", category=category,
                via="profile",
            )  # fmt: skip
            events.append(await event_out(s, history, row))
        return ProfileWrite(await _profile(s, user_id, store.settings, scope), events)
