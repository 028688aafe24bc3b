"""Explicit memories: save, update, forget, confirm, restore, link and unlink.

What a user or an agent states on purpose. Rows are append-only in what they say
(`loci.models.memories`): an update inserts a version and end-dates the old one, a forget
end-dates, a restore inserts a copy; each write is one transaction with its history row,
so nothing is half-written and every write can be listed and undone
(`domain.memory_undo`). Reads are in `domain.memory_read`, the core profile in
`domain.memory_profile`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import msgspec
from sqlalchemy import func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from domain.agent_access import ALLOW_ALL, AgentScope, agent_scope
from domain.memory_citations import cited_conversation
from domain.memory_dto import ConfirmIn, ForgetIn, LinkIn, MemoryEvent, MemoryIn, MemoryUpdateIn
from domain.memory_lookup import active_by_id, any_version, resolve
from domain.memory_rows import (
    MemoryStore,
    actor_of,
    check_category,
    check_core_room,
    clean_content,
    copy_links,
    copy_row,
    embedding_beside,
    end_row,
    event_out,
    link_out,
    lock_user,
    memory_outs,
    outside_block,
    record_event,
    transaction_now,
    user_lock,
)
from domain.memory_scope import BLOCK_CHANGE, moves_block
from domain.procedures import numbered_steps, steps_checked
from domain.user_clock import in_utc, users_now
from loci.errors import Conflict, InvalidInput, NotFound
from loci.idempotency import Once, claim, remember
from loci.memory_kinds import KindRule, check_ahead, deadline_of, expiry_of, kind_of
from loci.memory_writes import changed_fields, new_memory_row
from loci.models import Memory, MemoryLink, unexpired_at
from loci.settings import MemorySettings

__all__ = [
    "MemoryStore",
    "confirm_memory",
    "forget_memory",
    "link_memories",
    "new_memory_row",
    "reactivate",
    "restore_memory",
    "save_memory",
    "unlink_memories",
    "update_memory",
]

_UPDATABLE = ("content", "summary", "body", "category", "layer", "importance", "pinned", "tags", "kind")


def clean_tags(tags: list[str]) -> list[str]:
    """Trimmed, without repeats, in the order given."""
    return list(dict.fromkeys(t.strip() for t in tags if t.strip()))


async def same_content(
    s: AsyncSession, user_id: int, category: str, content: str, agent_id: str | None = None
) -> Memory | None:
    """An active memory of ``category`` saying exactly ``content`` (ignoring case and outer
    space), not past its time: said again after it expired, it is a new memory. Only one
    the writer would read back counts: a shared one (no agent), or ``agent_id``'s own. Another
    agent's note saying the same words is not the writer's memory: answering it would show
    that note to an agent that may not read it, and the writer's own would never be saved."""
    owner = Memory.agent_id.is_(None)
    query = select(Memory).where(
        Memory.user_id == user_id,
        Memory.valid_until.is_(None),
        unexpired_at(None),
        Memory.category == category,
        func.lower(func.btrim(Memory.content)) == content.lower(),
        owner if agent_id is None else or_(owner, Memory.agent_id == agent_id),
    )
    return (await s.execute(query.order_by(Memory.id).limit(1))).scalar_one_or_none()


async def _writer_scope(store: MemoryStore, user_id: int, agent_id: str | None) -> AgentScope:
    """What the writing agent may see: it finds (and so changes) only memories of those
    categories, as `domain.memory_lookup.resolve` reads them; the user: everything."""
    return (
        ALLOW_ALL
        if agent_id is None
        else await agent_scope(store.db, user_id, agent_id, agent_only=store.settings.agent_only_categories)
    )


def _core_counted(
    scope: AgentScope, settings: MemorySettings, key_agent: str | None
) -> tuple[frozenset[str] | None, str | None]:
    """The ``within`` and ``reader`` the core cap counts by (`check_core_room`): the KEY's, never
    the body's ``agent_id``. An agent key's write counts what that agent may read (its
    ``scope``); a user key's counts every core memory, whatever agent the body names (that name
    is only the app's label, taken at its word: counting by it let a user key pass the cap by
    naming another agent on each write)."""
    return (None, None) if key_agent is None else (scope.within(settings.categories), key_agent)


def unchanged(memory: Any) -> MemoryEvent:
    return MemoryEvent(None, "unchanged", memory, None, None)


async def save_memory(
    store: MemoryStore, user_id: int, body: MemoryIn, once: Once | None = None, *, key_agent: str | None = None
) -> MemoryEvent:
    """Save one memory; the same content (ignoring case) already active in the category is
    returned as it is, with event ``unchanged`` and nothing written (retries are safe). With
    ``once`` (the request's idempotency key, `loci.idempotency`), a retry answers the first
    try's event. The conversation and turns it cites must be there (`cited_conversation`: for
    an agent key, ``key_agent``, among its agent's own), and a deadline must lie ahead
    (`loci.memory_kinds.check_ahead`)."""
    settings = store.settings
    content = clean_content(body.content, settings)
    summary = None if body.summary is None else clean_content(body.summary, settings, field="summary")
    detail = (body.body or "").strip() or None  # a blank body says nothing: stored as none
    check_category(body.category, settings)
    if body.category in settings.step_categories:  # a procedure: its body is the steps, renumbered
        detail = numbered_steps(body.body)
    # an agent may not write what its access list would not let it read back
    scope = await _writer_scope(store, user_id, body.agent_id)
    scope.check_category(body.category, field="category")
    source = body.source or ("agent" if body.agent_id else "user")
    async with (
        embedding_beside(store.embedder, [content]) as vectors,
        store.db.user_session(user_id, lock=user_lock(user_id)) as s,
    ):
        await lock_user(s, user_id)
        if (again := await claim(s, user_id, once, MemoryEvent)) is not None:
            return again
        conversation_id = await cited_conversation(
            s, user_id, body.conversation_id, body.turn_seqs, body.agent_id, key_agent=key_agent
        )
        if (existing := await same_content(s, user_id, body.category, content, body.agent_id)) is not None:
            event = unchanged((await memory_outs(s, [existing]))[0])
        else:
            if body.layer == "core":
                within, reader = _core_counted(scope, settings, key_agent)
                await check_core_room(s, user_id, settings, adding=[content], within=within, reader=reader)
            now = await transaction_now(s)  # its time words are read on the user's clock
            local = await users_now(s, user_id)
            kind, expires_at = kind_of(KindRule.of(settings), body.kind, body.category, content, local)
            expires_at = in_utc(expires_at)
            check_ahead(kind, expires_at, now, field="content" if body.kind is None else "kind")
            row = await new_memory_row(
                s, user_id, layer=body.layer, category=body.category, content=content, summary=summary,
                body=detail, source=source, importance=body.importance, pinned=body.pinned,
                tags=clean_tags(body.tags), agent_id=body.agent_id, conversation_id=conversation_id,
                turn_seqs=sorted(set(body.turn_seqs)), valid_from=now, embedding=(await vectors)[0],
                kind=kind, expires_at=expires_at,
            )  # fmt: skip
            history = await record_event(
                s, user_id, "add", actor=actor_of(body.agent_id), lineage_id=row.id, new_id=row.id,
                layer=row.layer, category=row.category, kind=kind, **outside_block(settings, row),
            )  # fmt: skip
            event = await event_out(s, history, row)
        await remember(s, user_id, once, event)
        return event


def _requested_changes(body: MemoryUpdateIn, store: MemoryStore) -> dict[str, Any]:
    changes = {f: v for f in _UPDATABLE if (v := getattr(body, f)) is not msgspec.UNSET}
    if "content" in changes:
        changes["content"] = clean_content(changes["content"], store.settings)
    if changes.get("summary") is not None:  # a summary is injected instead of the content: the same rules
        changes["summary"] = clean_content(changes["summary"], store.settings, field="summary")
    if "body" in changes:
        changes["body"] = (changes["body"] or "").strip() or None
    if "category" in changes:
        check_category(changes["category"], store.settings)
    if "tags" in changes:
        changes["tags"] = clean_tags(changes["tags"])
    return changes


async def update_memory(
    store: MemoryStore, user_id: int, body: MemoryUpdateIn, *, key_agent: str | None = None
) -> MemoryEvent:
    """A new version (same lineage) with the fields given; the old one is end-dated
    (``update``, superseded by the new) and its links are copied to the new one. A core
    version counts against the cap as the key (``key_agent``) sees it (`_core_counted`)."""
    changes = _requested_changes(body, store)
    scope = await _writer_scope(store, user_id, body.agent_id)
    if "category" in changes:  # not into a category the agent could not read back
        scope.check_category(changes["category"], field="category")
    texts = [changes["content"]] if "content" in changes else []
    async with (
        embedding_beside(store.embedder, texts) as vectors,
        store.db.user_session(user_id, lock=user_lock(user_id)) as s,
    ):
        await lock_user(s, user_id)
        old = await resolve(s, user_id, body.id_or_text, scope.within(store.settings.categories), body.agent_id)
        changes = steps_checked(changes, old.category, old.body, store.settings)
        diff = {k: v for k, v in changes.items() if getattr(old, k) != v}
        if not diff:
            return unchanged((await memory_outs(s, [old]))[0])
        if diff.get("layer", old.layer) == "core":
            within, reader = _core_counted(scope, store.settings, key_agent)
            await check_core_room(
                s, user_id, store.settings, adding=[diff.get("content", old.content)], removing=[old.id],
                within=within, reader=reader,
            )  # fmt: skip
        now = await transaction_now(s)
        if "content" in diff or "kind" in diff:  # the kind's time restarts with this version
            kind = diff.get("kind", old.kind)
            field = "kind" if "kind" in diff else "content"
            diff["expires_at"] = in_utc(
                expiry_of(
                    KindRule.of(store.settings), kind, diff.get("content", old.content),
                    await users_now(s, user_id), field,
                )
            )  # fmt: skip
            check_ahead(kind, diff["expires_at"], now, field=field)
        if "content" in diff:
            diff["embedding"] = (await vectors)[0]
            diff["said_at"] = None  # new words are the writer's, said now; other edits keep the date
        source = "agent" if body.agent_id else "user"
        # the owner stays: an agent's own note edited by the user is still that agent's, and a
        # shared memory an agent corrects stays shared (who wrote it is the history's actor)
        new = await copy_row(s, old, **diff, source=source, confidence=None, confidence_base=None, valid_from=now)
        s.add(new)
        await s.flush()
        end_row(old, now, "update", superseded_by=new.id)
        await copy_links(s, user_id, old.id, new.id)
        history = await record_event(
            s, user_id, "update", actor=actor_of(body.agent_id), lineage_id=old.lineage_id, old_id=old.id,
            new_id=new.id, changed=changed_fields(old, new),
            **outside_block(store.settings, old, new),
        )  # fmt: skip
        return await event_out(s, history, new, old)


async def forget_memory(store: MemoryStore, user_id: int, body: ForgetIn) -> MemoryEvent:
    """End-date the memory (``forget``); the row stays for history, ``as_of`` reads and restore."""
    scope = await _writer_scope(store, user_id, body.agent_id)
    async with store.db.user_session(user_id, lock=user_lock(user_id)) as s:
        await lock_user(s, user_id)
        row = await resolve(s, user_id, body.id_or_text, scope.within(store.settings.categories), body.agent_id)
        end_row(row, await transaction_now(s), "forget")
        history = await record_event(
            s, user_id, "forget", actor=actor_of(body.agent_id), lineage_id=row.lineage_id, old_id=row.id,
            reason=body.reason, **outside_block(store.settings, row),
        )  # fmt: skip
        return await event_out(s, history, row)


async def confirm_memory(store: MemoryStore, user_id: int, body: ConfirmIn) -> MemoryEvent:
    """Mark the memory as still true now. An extracted memory also gets its stated
    confidence back (``confidence_base``: a person said it holds, so what decay took is
    returned, `domain.memory_decay`). Bookkeeping, so the revision stays, unless the
    confidence comes back over the block's floor (`memory_scope.BLOCK_CHANGE`). The
    previous timestamp and confidence go into the event, so an undo can put both back."""
    scope = await _writer_scope(store, user_id, body.agent_id)
    async with store.db.user_session(user_id, lock=user_lock(user_id)) as s:
        await lock_user(s, user_id)
        row = await resolve(s, user_id, body.id_or_text, scope.within(store.settings.categories), body.agent_id)
        previous, was = row.last_confirmed_at, row.confidence
        row.last_confirmed_at = await transaction_now(s)
        meta: dict[str, Any] = {"previous_confirmed_at": previous.isoformat() if previous else None}
        if row.source == "extracted" and was is not None:
            row.confidence = row.confidence_base if row.confidence_base is not None else was
            meta["previous_confidence"], meta["confidence"] = was, row.confidence
            moved = moves_block(row.layer, was, row.confidence, store.settings.context_min_confidence)
            if moved is not None:
                meta[BLOCK_CHANGE] = moved
        history = await record_event(
            s, user_id, "confirm", actor=actor_of(body.agent_id), lineage_id=row.lineage_id, old_id=row.id,
            new_id=row.id, **meta,
        )  # fmt: skip
        return await event_out(s, history, row)


def fresh_expiry(row: Memory, settings: MemorySettings, now: datetime) -> datetime | None:
    """The expiry of ``row`` brought back at ``now``: its own while that is still ahead; once
    passed, a fresh period of its kind from ``now`` (a deadline is read again from ``now``,
    and one whose date lies behind even so gets a temporary period, to be seen and changed)."""
    if row.expires_at is None or row.expires_at > now:
        return row.expires_at
    rule = KindRule.of(settings)
    if row.kind == "deadline":
        again = deadline_of(row.content, now)
        return again if again is not None and again > now else now + rule.periods["temporary"]
    return expiry_of(rule, row.kind, row.content, now)


async def reactivate(s: AsyncSession, user_id: int, row: Memory, settings: MemorySettings, *, field: str) -> Memory:
    """A copy of the ended ``row`` as the lineage's active version, with its links; a lineage
    that already has an active version is a 409 (one active version per memory) naming
    ``field``, the input that asked for it (a restore's ``memory_id``, an undo's ``event_id``)."""
    active = await s.execute(
        select(Memory.id).where(
            Memory.user_id == user_id, Memory.lineage_id == row.lineage_id, Memory.valid_until.is_(None)
        )
    )
    if (current := active.scalar_one_or_none()) is not None:
        raise Conflict(
            f"memory {row.id} has an active version already ({current}): update that one instead", field=field
        )
    if row.layer == "core":
        await check_core_room(s, user_id, settings, adding=[row.content])
    now = await transaction_now(s)
    expires_at = in_utc(fresh_expiry(row, settings, await users_now(s, user_id)))  # the user's days
    new = await copy_row(s, row, valid_from=now, expires_at=expires_at)
    s.add(new)
    await s.flush()
    await copy_links(s, user_id, row.id, new.id)
    return new


async def restore_memory(store: MemoryStore, user_id: int, memory_id: int) -> MemoryEvent:
    """Bring an ended version back as a new row of its lineage (event ``restore``)."""
    async with store.db.user_session(user_id, lock=user_lock(user_id)) as s:
        await lock_user(s, user_id)
        row = await any_version(s, user_id, memory_id, field="memory_id")
        new = await reactivate(s, user_id, row, store.settings, field="memory_id")
        history = await record_event(
            s, user_id, "restore", actor="user", lineage_id=row.lineage_id, old_id=row.id, new_id=new.id,
            **outside_block(store.settings, row, new),
        )  # fmt: skip
        return await event_out(s, history, new, row)


async def link_memories(store: MemoryStore, user_id: int, body: LinkIn) -> MemoryEvent:
    """Link two active memories; an existing active link is ``unchanged``, a removed one comes back."""
    scope = await _writer_scope(store, user_id, body.agent_id)
    async with store.db.user_session(user_id, lock=user_lock(user_id)) as s:
        await lock_user(s, user_id)
        within = scope.within(store.settings.categories)
        # unknown ids first: a 404 naming the one not found
        source = await active_by_id(s, user_id, body.from_id, within, body.agent_id, field="from_id")
        await active_by_id(s, user_id, body.to_id, within, body.agent_id, field="to_id")
        if body.from_id == body.to_id:
            raise InvalidInput("to_id must differ from from_id: a memory cannot link to itself", field="to_id")
        link = (
            await s.execute(
                select(MemoryLink).where(
                    MemoryLink.user_id == user_id,
                    MemoryLink.from_id == body.from_id,
                    MemoryLink.to_id == body.to_id,
                    MemoryLink.relation == body.relation,
                )
            )
        ).scalar_one_or_none()
        if link is not None and link.removed_at is None:
            return msgspec.structs.replace(unchanged((await memory_outs(s, [source]))[0]), link=link_out(link))
        if link is None:
            link = MemoryLink(user_id=user_id, from_id=body.from_id, to_id=body.to_id, relation=body.relation)
            s.add(link)
        else:  # the pair is unique: an unlinked link is re-opened rather than duplicated
            link.removed_at = None
        await s.flush()
        history = await record_event(
            s, user_id, "link", actor=actor_of(body.agent_id), lineage_id=source.lineage_id, old_id=body.from_id,
            new_id=body.to_id, link_id=link.id, relation=body.relation,
        )  # fmt: skip
        return await event_out(s, history, source, link=link)


async def unlink_memories(store: MemoryStore, user_id: int, link_id: int) -> MemoryEvent:
    """Mark the link removed (it stays for ``as_of`` reads and undo). Removing it again is a 409
    saying when it was removed, as a second revoke of a key is: a 404 read as a mistyped id."""
    async with store.db.user_session(user_id, lock=user_lock(user_id)) as s:
        await lock_user(s, user_id)
        link = (
            await s.execute(select(MemoryLink).where(MemoryLink.user_id == user_id, MemoryLink.id == link_id))
        ).scalar_one_or_none()
        if link is None:
            raise NotFound(f"link {link_id} not found", field="link_id")
        if link.removed_at is not None:
            removed = link.removed_at.isoformat(timespec="seconds")
            raise Conflict(f"link {link_id} was already removed at {removed}", field="link_id")
        link.removed_at = await transaction_now(s)
        source = await any_version(s, user_id, link.from_id, field="link_id")
        history = await record_event(
            s, user_id, "unlink", actor="user", lineage_id=source.lineage_id, old_id=link.from_id,
            new_id=link.to_id, link_id=link.id, relation=link.relation,
        )  # fmt: skip
        return await event_out(s, history, source, link=link)
