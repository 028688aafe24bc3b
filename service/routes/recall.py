"""Recall over HTTP: `POST /v1/recall` before each LLM call, `GET /v1/search` for browsing.

Thin: parse and validate the body into a `RecallRequest`, call `retrieval.recall`, map
the records to DTOs. Bad input raises `InvalidInput` naming the field (→ 400).
"""

from __future__ import annotations

import asyncio
import re
import time
from dataclasses import replace
from datetime import datetime
from typing import Annotated

import msgspec
from litestar import Controller, post
from litestar.params import JSONBody

from domain.agent_access import ALLOW_ALL, agent_scope
from domain.memory_delta import Changes, changes_since
from domain.memory_rows import check_category
from domain.memory_scope import parse_as_of
from loci.inputs import ID_PATTERN, MAX_ID_CHARS, NONBLANK_TEXT_PATTERN, TEXT_PATTERN
from loci.models import MEMORY_LAYERS, ROLES, TOP_K_MAX
from loci.settings import BUDGET_TOKENS_MAX, BUDGET_TOKENS_MIN, CATEGORY_PATTERN
from loci.timexpr import parse_timestamp
from retrieval import (
    MAX_MESSAGE_CHARS,
    PRESETS,
    GroupBy,
    LLMReranker,
    RecallDeps,
    RecalledDrawer,
    RecalledMemory,
    RecallFilters,
    RecallRequest,
    RecallResponse,
    RetrievalConfig,
    get_preset,
    recall,
)
from service.auth import AGENT_KEY_OPT
from service.deps import CallerDep, StateDep
from service.metrics import observe_recall
from service.routes._docs import errors
from service.state import AppState, Caller

__all__ = [
    "SEARCH_TOP_K",
    "RecallController",
    "RecallIn",
    "RecallOut",
    "SearchIn",
    "browsing_config",
    "recall_for",
    "search_palace",
]

SEARCH_TOP_K = 10
"""Results of a search for people browsing their palace (/v1/search and the /memory page)."""

# The rules `retrieval.validate_request` applies, stated in the schema from the same constants
# (the pipeline keeps its checks for callers that are not HTTP).
Message = Annotated[
    str,
    msgspec.Meta(
        min_length=1,
        max_length=MAX_MESSAGE_CHARS,
        pattern=NONBLANK_TEXT_PATTERN,
        description="the text to recall for; not blank, no control characters",
    ),
]
PRESET_PATTERN = "^(" + "|".join(re.sub(r"[^\w-]", r"\\\g<0>", p) for p in PRESETS) + ")$"
"""The named presets (`retrieval.PRESETS`, ``hybrid+rerank``'s plus escaped), so an unknown one is refused by the
schema as by `get_preset`."""
Preset = Annotated[
    str, msgspec.Meta(pattern=PRESET_PATTERN, description="a named retrieval preset", examples=["hybrid"])
]
Stamp = Annotated[str, msgspec.Meta(pattern=TEXT_PATTERN, description="ISO 8601 (no zone: UTC)")]
Text = Annotated[str, msgspec.Meta(pattern=TEXT_PATTERN)]
TopK = Annotated[int, msgspec.Meta(ge=1, le=TOP_K_MAX, description=f"drawers to return, 1-{TOP_K_MAX}")]
AgentId = Annotated[
    str, msgspec.Meta(pattern=ID_PATTERN, max_length=MAX_ID_CHARS, description="the agent's id, as in conversations")
]
ConversationId = Annotated[
    str,
    msgspec.Meta(
        pattern=ID_PATTERN,
        max_length=MAX_ID_CHARS,
        description="the caller's id for the conversation; repeated recalls within it are cached",
    ),
]
Budget = Annotated[
    int, msgspec.Meta(ge=BUDGET_TOKENS_MIN, le=BUDGET_TOKENS_MAX, description="token budget of the block")
]
Role = Annotated[str, msgspec.Meta(pattern=f"^({'|'.join(ROLES)})$", description=", ".join(ROLES))]


class RecallFiltersIn(msgspec.Struct, forbid_unknown_fields=True):
    wing: Annotated[Text, msgspec.Meta(description="drawers of this wing (its slug or name)")] | None = None
    entity: Annotated[Text, msgspec.Meta(description="drawers mentioning this entity (its slug or name)")] | None = None
    since: Stamp | None = None
    until: Stamp | None = None
    role: Role | None = None
    category: (
        Annotated[str, msgspec.Meta(pattern=CATEGORY_PATTERN, description="saved memories of this category only")]
        | None
    ) = None
    layer: (
        Annotated[
            str,
            msgspec.Meta(
                pattern=f"^({'|'.join(MEMORY_LAYERS)})$",
                description="saved memories of this layer only, whatever the message asks (archive: the "
                "conversation summaries, otherwise recalled only for questions about the past)",
            ),
        ]
        | None
    ) = None


class RecallIn(msgspec.Struct, forbid_unknown_fields=True):
    message: Message
    agent_id: AgentId | None = None
    top_k: TopK | None = None
    filters: RecallFiltersIn | None = None
    now: Stamp | None = None
    budget_tokens: Budget | None = None
    preset: Preset | None = None
    as_of: Annotated[str, msgspec.Meta(pattern=TEXT_PATTERN, description="ISO 8601 with its zone")] | None = None
    since_rev: Annotated[int, msgspec.Meta(ge=0, le=2**53 - 1, description="the memory revision last seen")] | None = (
        None
    )
    group_by: GroupBy | None = None
    """"room": ``top_k`` distinct rooms (one per conversation and UTC day), its best few drawers each, room by room."""
    conversation_id: ConversationId | None = None
    """The caller's id for the conversation: the same message recalled again within it reuses
    the last answer until the TTL or a write to the user's memory (`retrieval.cache`)."""


class RecalledOut(msgspec.Struct):
    drawer_id: int
    aaak: str
    wing: str
    room_id: int
    room_label: str
    session: str | None
    turn_seq: int | None
    part: int
    role: str
    content: str
    occurred_at: datetime
    ranks: dict[str, int]
    score: float
    speaker: str | None = None
    """Who said it (the turn's ``name``); null when the turn named nobody."""


class RecalledMemoryOut(msgspec.Struct):
    id: int
    layer: str
    category: str
    content: str
    source: str
    confidence: float | None
    valid_from: datetime
    ranks: dict[str, int]
    score: float
    said_at: datetime  # when it was said (a mined memory: its turn), the block's date; valid_from: when learned


class RecallStatsOut(msgspec.Struct):
    """What recall decided: how deep the message is (``skip``, ``ordinary``, ``memory``, ``long``
    or ``explicit`` for a caller's ``top_k``), the ``top_k`` it used (rooms with ``group_by``
    ``room``), ``cache``: ``hit``, ``miss`` or null when the request named no ``conversation_id``,
    and ``drawers``: how many came back."""

    depth: str
    top_k: int
    cache: str | None = None
    drawers: int = 0


class RecallOut(msgspec.Struct):
    items: list[RecalledOut]
    context: str | None
    timings_ms: dict[str, float]
    preset: str
    skipped: str | None = None
    memories: list[RecalledMemoryOut] = msgspec.field(default_factory=list)
    revision: int = 0
    """The caller's memory revision now (an agent's counts only what it may see): pass it back as
    ``since_rev`` on the next call."""
    delta: list[str] = msgspec.field(default_factory=list)
    """At most three bullets of what changed since ``since_rev`` (also at the start of ``context``)."""
    stats: RecallStatsOut | None = None


def _time(value: str | None, field: str, *, keep_offset: bool = False) -> datetime | None:
    """``keep_offset`` for ``now``: its offset is the asker's clock, whose days "yesterday" and
    "last week" name (`loci.timexpr.find_time_expressions` reads in the anchor's zone)."""
    return parse_timestamp(value, field=field, keep_offset=keep_offset) if value is not None else None


def _filters(raw: RecallFiltersIn | None) -> RecallFilters:
    if raw is None:
        return RecallFilters()
    return RecallFilters(
        wing=raw.wing or None,
        entity=raw.entity or None,
        since=_time(raw.since, "filters.since"),
        until=_time(raw.until, "filters.until"),
        role=raw.role or None,
        category=raw.category or None,
        layer=raw.layer or None,
    )


def _config(preset: str | None) -> RetrievalConfig | None:
    """A named preset's config (unknown names are a 400 on ``preset``); None is the default."""
    return get_preset(preset) if preset else None


def browsing_config(state: AppState, preset: str | None = None) -> RetrievalConfig:
    """A search of the palace by a person (`/v1/search`, the /memory page): saved memories
    have their own pages, and browsing must not count as recalling them for a model."""
    return replace(_config(preset) or get_preset(state.settings.retrieval.preset), memories=None)


def _deps(state: AppState) -> RecallDeps:
    settings = state.settings
    reranker = None
    if state.llm is not None:
        timeout_s = settings.retrieval.rerank_timeout_s
        reranker = LLMReranker(state.llm, settings.llm.rerank_model, timeout_s, state.rerank_breaker)
    return RecallDeps(
        db=state.db, embedder=state.embedder, settings=settings, reranker=reranker, cache=state.recall_cache
    )


def _out(response: RecallResponse, changes: Changes | None = None) -> RecallOut:
    def item(d: RecalledDrawer) -> RecalledOut:
        return RecalledOut(
            d.drawer_id, d.aaak, d.wing, d.room_id, d.room_label, d.conversation_external_id, d.turn_seq,
            d.part, d.role, d.content, d.occurred_at, dict(d.ranks), round(d.score, 6), d.speaker,
        )  # fmt: skip

    def memory(m: RecalledMemory) -> RecalledMemoryOut:
        return RecalledMemoryOut(
            m.memory_id, m.layer, m.category, m.content, m.source, m.confidence, m.valid_from, dict(m.ranks),
            round(m.score, 6), m.dated,
        )  # fmt: skip

    context = response.context
    if changes is not None and changes.text and not response.skipped:  # what changed, then what is recalled
        context = changes.text + ("\n" + context if context else "")
    return RecallOut(
        items=[item(d) for d in response.items],
        context=context,
        timings_ms=dict(response.timings_ms),
        preset=response.preset,
        skipped=response.skipped,
        memories=[memory(m) for m in response.memories],
        revision=changes.revision if changes is not None else 0,
        delta=changes.bullets if changes is not None else [],
        stats=msgspec.convert(response.stats, RecallStatsOut, from_attributes=True) if response.stats else None,
    )


async def recall_for(state: AppState, caller: Caller, data: RecallIn) -> RecallOut:
    """`POST /v1/recall` and the MCP `recall` tool: one recall plus what changed since ``since_rev``,
    both within what the agent may see (`domain.agent_access`; 403 for a category or wing it may not,
    or for an agent key naming another agent)."""
    filters = _filters(data.filters)
    if filters.category is not None:  # an unknown one matched nothing, in silence
        check_category(filters.category, state.settings.memory, field="filters.category")
    user_id, agent_id = caller.user_id, caller.agent(data.agent_id or None)
    scope = await agent_scope(state.db, user_id, agent_id, agent_only=state.settings.memory.agent_only_categories)
    request = RecallRequest(
        user_id=user_id,
        message=data.message,
        agent_id=agent_id,
        top_k=data.top_k,
        filters=scope.recall_filters(filters),
        now=_time(data.now, "now", keep_offset=True),
        budget_tokens=data.budget_tokens,
        config=_config(data.preset),
        as_of=parse_as_of(data.as_of),
        category_caps=scope.recall_caps,
        group_by=data.group_by,
        conversation_id=data.conversation_id,
    )
    started = time.perf_counter()
    recalled, changes = await asyncio.gather(
        recall(_deps(state), request),
        changes_since(state.db, user_id, data.since_rev, scope),
    )
    observe_recall(recalled.stats, time.perf_counter() - started)
    return _out(recalled, changes)


class SearchIn(msgspec.Struct, forbid_unknown_fields=True):
    """A person's (or an agent's) search of the palace: `GET /v1/search`'s query, as a record."""

    q: Message
    top_k: TopK | None = None
    preset: Preset | None = None
    wing: Text | None = None
    role: Role | None = None
    agent_id: AgentId | None = None


async def search_palace(state: AppState, caller: Caller, data: SearchIn) -> RecallOut:
    """`GET /v1/search` and the MCP `search_palace` tool: the recall pipeline over drawers only,
    within the wings ``agent_id`` (or the key's agent) may see (403 for a ``wing`` it may not)."""
    agent_id = caller.agent(data.agent_id or None)
    scope = ALLOW_ALL
    if agent_id:
        scope = await agent_scope(
            state.db, caller.user_id, agent_id, agent_only=state.settings.memory.agent_only_categories
        )
    request = RecallRequest(
        user_id=caller.user_id,
        message=data.q,
        top_k=data.top_k or SEARCH_TOP_K,
        filters=scope.recall_filters(RecallFilters(wing=data.wing or None, role=data.role or None), prefix=""),
        config=browsing_config(state, data.preset),
    )
    return _out(await recall(_deps(state), request))


class RecallController(Controller):
    tags = ("recall",)

    @post(
        "/v1/recall",
        operation_id="recall",
        status_code=200,  # a read: it creates nothing, so not 201 Created
        opt=AGENT_KEY_OPT,
        summary="Recall memories for a message before an LLM call",
        description=(
            "Runs the hybrid pipeline (semantic, keyword, temporal and preference signals fused by RRF, "
            "optional LLM rerank) over the caller's drawers, and a semantic and keyword search over their "
            "saved memories fused by the same RRF, and returns the ranked drawers with their per-signal "
            "ranks, the memories past the relevance floor, the rendered <memory_context> block (saved "
            "memories first; null when nothing is relevant) and timings per stage. `now` anchors time "
            "expressions such as 'last week'; `as_of` recalls the memories valid at that moment. "
            "`revision` is the memory revision of what the caller may see (an agent's moves only on writes it may "
            "read); passing the last one seen as `since_rev` puts at "
            "most three bullets of what changed since (`+ saved`, `↑ updated`, `− forgotten`, `− faded`, "
            "`↔ merged`) "
            "in `delta` and, as a `<user_memory_changes>` element, at the start of `context`. Only what "
            "`agent_id` may see comes back (its access list, `PUT /v1/agents/{id}/access`); asking for a "
            "category (`filters.category`, saved memories only) or wing outside it is a 403 naming it. "
            '`group_by: "room"` returns `top_k` distinct rooms (one per conversation and UTC day) instead of '
            "`top_k` drawers, each with its best few drawers (items room by room). "
            "An agent key always recalls as its agent: `agent_id` may be left out, and naming another is a 403. "
            "How many drawers come back follows the message unless `top_k` is given: none for a trivial "
            "continuation, the user's `top_k` for an ordinary turn, more for a question about memory or a long "
            "message (`stats.depth`, `stats.top_k`). With `conversation_id`, the same message recalled again "
            "within the conversation reuses the last answer (re-read by id, `stats.cache` `hit`) for "
            "`LOCI_RETRIEVAL_CACHE_TTL_S` seconds, until any write to the user's memories or palace."
        ),
        responses=errors(400, 403),
    )
    async def recall_memories(self, caller: CallerDep, app_state: StateDep, data: JSONBody[RecallIn]) -> RecallOut:
        return await recall_for(app_state, caller, data)
