"""`POST /v1/memory/query`: one scoped query over an agent's view of the user's memory.

The request (`domain.memory_query_dto.QueryMemoryIn`) becomes the SQL filters of
`retrieval.scoped_query`, which ranks memories and drawers with recall's machinery; the
answer is short bullets within a token budget, or full rows.

What an agent may see comes in by value as a `domain.agent_access.AgentScope` (allowed
categories, allowed wings; None allows all). It is applied in SQL whatever the request asks: memories of other
categories and drawers of other wings are never candidates. Naming a category outside
the scope is refused (`check_scope`), not quietly narrowed, so a misconfigured agent
learns why it sees nothing.

Which filter applies to which kind, and why:

* ``categories``: memories only (a drawer is a conversation excerpt, it has none): asking
  for categories leaves drawers out;
* ``pinned``, ``importance_min``/``importance_max``, ``source``, ``layer``: properties only
  memories have, so setting one leaves drawers out. Without ``layer`` the profile and
  knowledge are searched, and the archive (conversation summaries) too when the query asks
  about the past ("how did we fix…"), as in recall; ``layer`` searches that layer alone;
* ``role`` (who spoke a turn): only drawers have one, so it leaves memories out;
* ``agent_id``: memories that agent wrote; drawers of conversations it held;
* ``conversation_id``: memories saved from that conversation; its drawers;
* ``updated_after``/``updated_before``: a memory version's ``valid_from`` (when it was
  written); a drawer's ``occurred_at`` (when it was said: a drawer never changes).

Agent-only categories (``procedure``: `MemorySettings.category_reach`) are searched only for
an agent whose allowlist names them (`AgentScope.hidden` is in the SQL otherwise), and
asking for one by name without that is the same 403.

An agent sees the memories nobody scoped (``agent_id`` NULL) and its own, as in recall
and the session-start block (`domain.memory_scope`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime

from sqlalchemy import select

from domain.agent_access import ALLOW_ALL, AgentScope
from domain.memory_dto import MemoryOut
from domain.memory_query_dto import (
    DRAWER_CATEGORY,
    QueryBullet,
    QueryDrawer,
    QueryFiltersIn,
    QueryItem,
    QueryMemoryIn,
    QueryOut,
)
from domain.memory_rows import check_category, memory_outs
from domain.memory_scope import parse_as_of
from loci.errors import InvalidInput
from loci.inputs import check_text
from loci.models import Memory
from loci.prompt_tokens import prompt_counter
from loci.settings import MemorySettings
from loci.speakers import speaker_label
from loci.zones import on_clock
from retrieval import MemoryFilters, RecallDeps, RecallFilters, ScopedHit, ScopedQuery, plain, scoped_query

__all__ = ["bullets_within", "check_scope", "query_memories", "scoped_request"]

DRAWER_BULLET_CHARS = 300
"""A drawer's bullet is cut here: a verbatim turn can run to pages, a bullet is a pointer
(``return: full`` has the whole text)."""
MEMORY_BULLET_CHARS = 500
"""A memory's bullet is cut here: the default ``LOCI_MEMORY_CONTENT_MAX_CHARS``."""


def check_scope(requested: Sequence[str], scope: AgentScope) -> None:
    """Refuse categories the scope does not allow (the agent asked for what it may not see):
    `Forbidden`, a 403 naming the first such category."""
    for category in requested:
        scope.check_category(category, field="categories")


def _categories(data: QueryMemoryIn, settings: MemorySettings, scope: AgentScope) -> frozenset[str] | None:
    """The categories searched: those asked (each known and allowed), else the scope's."""
    if data.categories is None:
        return scope.categories
    for value in data.categories:
        check_category(value, settings, field="categories")
    check_scope(data.categories, scope)
    return frozenset(data.categories)


def _stamps(f: QueryFiltersIn) -> tuple[datetime | None, datetime | None]:
    after = parse_as_of(f.updated_after, field="filters.updated_after")
    before = parse_as_of(f.updated_before, field="filters.updated_before")
    if after is not None and before is not None and after >= before:
        raise InvalidInput("filters.updated_after must be before filters.updated_before", field="filters.updated_after")
    return after, before


def _memory_only(data: QueryMemoryIn, f: QueryFiltersIn) -> bool:
    """A filter only memories can satisfy is set: drawers are left out."""
    properties = (f.pinned, f.importance_min, f.importance_max, f.source, f.layer)
    return data.categories is not None or any(p is not None for p in properties)


def scoped_request(user_id: int, data: QueryMemoryIn, settings: MemorySettings, scope: AgentScope) -> ScopedQuery:
    """The retrieval request: the body's filters and the scope as SQL filters per kind (see
    the module docstring); a kind nothing of which may match is left out."""
    check_text(data.query, field="query")  # as `QueryMemoryIn` states: a NUL must not reach PostgreSQL
    f = data.filters or QueryFiltersIn()
    if f.importance_min is not None and f.importance_max is not None and f.importance_min > f.importance_max:
        raise InvalidInput("filters.importance_min must not exceed importance_max", field="filters.importance_min")
    after, before = _stamps(f)
    categories = _categories(data, settings, scope)
    drawers = None
    if not _memory_only(data, f) and scope.wings != frozenset():
        drawers = RecallFilters(
            since=after, until=before, role=f.role, wings=scope.wings, conversation=f.conversation_id, agent=f.agent_id
        )
    memories = None
    if f.role is None and categories != frozenset():
        memories = MemoryFilters(
            categories, f.pinned, f.importance_min, f.importance_max, after, before, f.source, f.agent_id,
            f.conversation_id, excluded=scope.hidden,
        )  # fmt: skip
    request = ScopedQuery(user_id, data.query, data.agent, drawers, memories, data.top_k, data.threshold)
    return request if f.layer is None else replace(request, layers=(f.layer,), past_layers=())


def _bullet(hit: ScopedHit, zone: str | None) -> QueryBullet:
    if hit.memory is not None:
        m = hit.memory
        return QueryBullet(m.memory_id, "memory", m.category, plain(m.content, MEMORY_BULLET_CHARS))
    assert hit.drawer is not None  # a hit is one or the other (`retrieval.ScopedHit`)
    d = hit.drawer
    # who said it, as the recall block labels it: "other: I'm allergic to latex" read as anyone's;
    # the day on the user's zone, as the recall block dates it (a 22:30 chat in New York is that day)
    day = f"{on_clock(d.occurred_at, zone):%Y-%m-%d}"
    text = f"{day} {speaker_label(d.role, d.speaker)}: {plain(d.content, DRAWER_BULLET_CHARS)}"
    return QueryBullet(d.drawer_id, "drawer", DRAWER_CATEGORY, text)


def bullets_within(
    hits: Sequence[ScopedHit],
    budget: int,
    count_tokens: Callable[[Sequence[str]], list[int]],
    zone: str | None = None,
) -> tuple[list[QueryBullet], int]:
    """The best bullets whose text fits ``budget`` tokens together, in rank order (the first
    that does not fit ends the list: a lower one never jumps ahead), and how many were left;
    a drawer's is dated by its day on ``zone``, the user's (None: UTC)."""
    bullets = [_bullet(h, zone) for h in hits]
    kept: list[QueryBullet] = []
    spent = 0
    counted = prompt_counter(count_tokens)([b.text for b in bullets])  # as a chat model's prompt spends them
    for bullet, tokens in zip(bullets, counted, strict=True):
        if spent + tokens > budget:
            break
        kept.append(bullet)
        spent += tokens
    return kept, len(bullets) - len(kept)


async def _memory_rows(deps: RecallDeps, user_id: int, ids: list[int]) -> dict[int, MemoryOut]:
    if not ids:
        return {}
    async with deps.db.user_session(user_id) as session:
        rows = (await session.scalars(select(Memory).where(Memory.user_id == user_id, Memory.id.in_(ids)))).all()
        return {out.id: out for out in await memory_outs(session, rows)}


async def _items(deps: RecallDeps, user_id: int, hits: Sequence[ScopedHit]) -> list[QueryItem]:
    """Full rows: the memory as the memory API shows it, the drawer as recall does."""
    rows = await _memory_rows(deps, user_id, [h.memory.memory_id for h in hits if h.memory is not None])
    items: list[QueryItem] = []
    for h in hits:
        similarity = None if h.similarity is None else round(h.similarity, 6)
        if h.memory is not None and (memory := rows.get(h.memory.memory_id)) is not None:
            ranks = dict(h.memory.ranks)
            items.append(QueryItem(memory.id, "memory", memory.category, round(h.score, 6), similarity, ranks, memory))
        elif (d := h.drawer) is not None:
            drawer = QueryDrawer(
                d.aaak,
                d.wing,
                d.room_label,
                d.conversation_external_id,
                d.turn_seq,
                d.role,
                d.content,
                d.occurred_at,
                speaker=d.speaker,
            )
            score = round(h.score, 6)
            items.append(
                QueryItem(d.drawer_id, "drawer", DRAWER_CATEGORY, score, similarity, dict(d.ranks), None, drawer)
            )
    return items


async def query_memories(
    deps: RecallDeps, settings: MemorySettings, user_id: int, data: QueryMemoryIn, scope: AgentScope = ALLOW_ALL
) -> QueryOut:
    """The scoped query's answer: bullets within ``budget_tokens`` (default: recall's
    budget), or full rows (``top_k`` of them; the budget applies to bullets only)."""
    result = await scoped_query(deps, scoped_request(user_id, data, settings, scope))
    timings = dict(result.timings_ms)
    if data.mode == "full":
        return QueryOut("full", [], await _items(deps, user_id, result.hits), 0, result.skipped, timings)
    budget = data.budget_tokens or deps.settings.retrieval.budget_tokens
    bullets, omitted = bullets_within(result.hits, budget, deps.embedder.count_tokens, result.zone)
    return QueryOut("bullets", bullets, [], omitted, result.skipped, timings)
