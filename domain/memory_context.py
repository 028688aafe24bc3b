"""The session-start block (`GET /v1/context`): what an assistant should know before turn one.

One read, one snapshot: the revision and the memories come from a single statement, so
a block can never pair one revision with rows of another (two statements in READ
COMMITTED could, when a write lands between them). The text is built by
`domain.memory_block`, what is visible is decided by `domain.memory_scope` and, per agent,
`domain.agent_access` (categories it may not see are never read; those it gets by recall
only are dropped),
and the list of changes since the caller's last revision by `domain.memory_delta`.

An agent's revision counts only the writes of memories it may read
(`domain.memory_scope.reaches`): a write in a category kept from it leaves its block, its
revision and its ETag byte for byte as they were, so its provider's prompt cache keeps
hitting and nothing tells it the user wrote something it may not see. A caller that names
no agent gets the user-wide revision.

The delta is **not** part of the block: the block must stay byte-identical until a memory
changes, so that the provider's prompt-prefix cache keeps hitting, while the delta
depends on the caller's ``since_rev`` and would differ per session. It comes back as a
list (``delta``) and as ready text (``delta_text``) an app may place after the block,
or in the first user turn, where it costs no cached prefix.

A memory whose kind's time has run out (`loci.memory_kinds`) leaves the block at that
moment, by the ``expires_at`` test in the read, not when the daily sweep ends it: the
block then changes before the revision does (the sweep's ``expire`` event moves it), and
the ETag, a hash of the text, changes with it.

The ETag is a hash of the block and the delta only, so a client that sends it back in
``If-None-Match`` gets a 304 exactly while both are unchanged.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated

import msgspec
from sqlalchemy import TextClause, text

from domain.agent_access import SCOPE_SQL, AgentScope, scope_of
from domain.fields import When
from domain.memory_block import Block, BlockBudget, BlockEntry, TokenCounter, render_block
from domain.memory_delta import memory_delta, render_delta
from domain.memory_scope import (
    BLOCK_CHANGE,
    BLOCK_LAYERS,
    NON_REVISION_EVENTS,
    OUTSIDE_BLOCK,
    REACH,
    REACH_WINDOW,
    shown_text,
)
from loci.db import Database
from loci.settings import MemorySettings
from loci.zones import zone_of

__all__ = ["CategoryOut", "ContextOut", "ContextQuery", "SessionContext", "etag_matches", "session_context"]

BLOCK_EXAMPLE = (
    '<user_memory revision="41">\nSaved memories about this user, by category:\n## Profile\n'
    "- Name is Ana; lives in Lisbon\n</user_memory>"
)
ETAG_HEX_CHARS = 32
"""128 bits of SHA-256: collisions between two states of one user's block are out of reach."""


class CategoryOut(msgspec.Struct):
    category: Annotated[str, msgspec.Meta(examples=["preference"])]
    count: Annotated[int, msgspec.Meta(examples=[4], description="memories of this category in the block")]
    tokens: Annotated[int, msgspec.Meta(examples=[61], description="tokens of its heading and lines")]


class ContextOut(msgspec.Struct):
    block: Annotated[
        str,
        msgspec.Meta(
            examples=[BLOCK_EXAMPLE],
            description="byte-identical until a memory changes; empty when nothing is shown",
        ),
    ]
    revision: Annotated[int, msgspec.Meta(examples=[41], description="pass back as since_rev next session")]
    token_count: Annotated[int, msgspec.Meta(examples=[38])]
    categories: list[CategoryOut]
    omitted: Annotated[int, msgspec.Meta(examples=[0], description="memories that did not fit the budgets")]
    delta: Annotated[list[str], msgspec.Meta(examples=[["+ saved: Prefers tea over coffee"]])]
    delta_text: Annotated[str, msgspec.Meta(description="the delta as one element to put after the block; or empty")]
    as_of: When | None


@dataclass(frozen=True, slots=True)
class ContextQuery:
    """What a caller asks for: whose block, for which agent, at which time, changes since when."""

    user_id: int
    agent_id: str | None = None
    as_of: datetime | None = None
    since_rev: int | None = None


@dataclass(frozen=True, slots=True)
class SessionContext:
    body: ContextOut
    etag: str
    """A strong ETag, quoted as the header carries it."""


def budget_of(settings: MemorySettings) -> BlockBudget:
    return BlockBudget(settings.categories, settings.context_tokens, dict(settings.context_budgets))


_ROWS_NOW = "m.valid_until IS NULL AND (m.expires_at IS NULL OR m.expires_at > now())"
_ROWS_AS_OF = (
    "m.valid_from <= :as_of AND (m.valid_until IS NULL OR m.valid_until > :as_of) "
    "AND (m.expires_at IS NULL OR m.expires_at > :as_of)"
)
_READ = """
WITH scope AS ({scope}){reached}
SELECT scope.*, r.revision, (SELECT z.time_zone FROM memory_settings z WHERE z.user_id = :uid) AS time_zone,
       m.id, m.category, m.layer, m.content, m.summary, m.pinned, m.importance, m.valid_from, m.said_at
FROM scope
CROSS JOIN {revision} AS r
LEFT JOIN memories m ON m.user_id = :uid AND {valid} AND m.layer = ANY(:layers)
     AND (m.agent_id IS NULL OR m.agent_id = CAST(:aid AS text))
     AND (m.source <> 'extracted' OR m.confidence >= :conf)
     AND (scope.allowed_categories IS NULL OR m.category = ANY(scope.allowed_categories))
     AND m.category <> ALL(CAST(:unblocked AS text[]))
"""
_EVENTS = "h.user_id = :uid AND ((h.event <> ALL(:quiet) AND NOT h.meta ? :outside) OR h.meta ? :moved) {as_of}"
_MAY_READ = """v.layer = ANY(:layers) AND (v.agent_id IS NULL OR v.agent_id = CAST(:aid AS text))
          AND (scope.allowed_categories IS NULL OR v.category = ANY(scope.allowed_categories))
          AND (v.category <> ALL(CAST(:agent_only AS text[])) OR v.category = ANY(scope.allowed_categories))"""
_READABLE = "v.user_id = :uid AND " + _MAY_READ
_PURGE_REACHES = f"""(EXISTS (SELECT 1 FROM jsonb_to_recordset(h.meta -> :reach)
                           AS v(layer text, category text, agent_id text) WHERE {_MAY_READ})
         OR (h.event = 'purge' AND NOT h.meta ? :reach))"""
_USER_REVISION = "(SELECT max(h.id) AS revision FROM memory_history h WHERE " + _EVENTS + ")"
_AGENT_REVISION = f""",
reached AS MATERIALIZED (SELECT COALESCE(
    (SELECT h.id FROM (SELECT h.id, h.event, h.old_id, h.new_id, h.meta FROM memory_history h WHERE {_EVENTS}
                       ORDER BY h.id DESC LIMIT {REACH_WINDOW}) h
     WHERE EXISTS (SELECT 1 FROM memories v WHERE v.id IN (h.old_id, h.new_id) AND {_READABLE}) OR {_PURGE_REACHES}
     ORDER BY h.id DESC LIMIT 1),
    GREATEST(
        (SELECT max(x.id) FROM memories v
         CROSS JOIN LATERAL (SELECT max(h.id) AS id FROM memory_history h
                             WHERE (h.old_id = v.id OR h.new_id = v.id) AND {_EVENTS}) x
         WHERE {_READABLE}),
        (SELECT max(h.id) FROM memory_history h WHERE {_EVENTS} AND h.event = 'purge' AND {_PURGE_REACHES}))
    ) AS revision FROM scope)"""
"""`memory_scope.revision_query` for an agent, in a CTE of its own (computed once, not per row
of the block): the latest event of a memory it may read, or purge of one
(`memory_scope.reaches`), among the user's last `REACH_WINDOW` first, else by the memories it
may read, two index probes each, and the user's purges."""
_AS_OF = {"as_of": "AND h.created_at <= :as_of"}
_NOW = {"as_of": ""}


def _statement(as_of: bool, agent: bool) -> TextClause:
    when = _AS_OF if as_of else _NOW
    reached, revision = (_AGENT_REVISION.format(**when), "reached") if agent else ("", _USER_REVISION.format(**when))
    return text(
        _READ.format(scope=SCOPE_SQL, reached=reached, revision=revision, valid=_ROWS_AS_OF if as_of else _ROWS_NOW)
    )


_READS = {(as_of, agent): _statement(as_of, agent) for as_of in (False, True) for agent in (False, True)}
"""(as_of given?, agent named?) → `agent_access.read_scope`, `memory_scope.revision_query`,
`loci.models.valid_at` with `unexpired_at` and `memory_scope.visible` written out as one SQL
statement: this read runs before every LLM call. Building, caching and ORM-processing the same
statement from expressions took 2-3 ms of its ~4 (measured on the 2-core dev VM, 72 memories),
and reading the agent's scope first was one more round trip. It goes out through
`Database.user_reads`: the transaction's opening, the read and the COMMIT in one round trip,
the statement prepared once per connection instead of planned on every call. A NULL ``aid``
leaves only the shared memories, as ``visible(None, ...)`` does, and the user-wide revision
(a statement of its own, so neither plan carries the other's test); tests of the block pin
both to the same behaviour."""

_SCOPE_COLUMNS = 4
"""`SCOPE_SQL`'s columns, first in every row of `_READ`; the revision and the user's zone follow."""
_MEMORY_COLUMNS = _SCOPE_COLUMNS + 2
"""Where a row's memory begins."""


async def _read(
    db: Database, query: ContextQuery, settings: MemorySettings
) -> tuple[AgentScope, int, str | None, list[BlockEntry]]:
    """The agent's scope, the revision, the user's zone (the block's dates are its days) and
    the visible rows in one statement (see the module docstring). Categories the agent may
    not see, and those no block shows (`MemorySettings.category_reach`), are never read;
    those it gets by recall only (``rag``) are dropped here, by the scope the same row carries."""
    statement = _READS[query.as_of is not None, query.agent_id is not None]
    bind = {
        "uid": query.user_id, "quiet": list(NON_REVISION_EVENTS), "moved": BLOCK_CHANGE, "outside": OUTSIDE_BLOCK,
        "as_of": query.as_of, "layers": list(BLOCK_LAYERS), "aid": query.agent_id,
        "conf": settings.context_min_confidence, "unblocked": sorted(settings.unblocked_categories),
        "agent_only": sorted(settings.agent_only_categories), "reach": REACH,
    }  # fmt: skip
    if query.as_of is None:
        del bind["as_of"]
    if query.agent_id is None:
        del bind["agent_only"], bind["reach"]
    (result,) = await db.user_reads(query.user_id, [(statement, bind)])
    scope = scope_of(query.agent_id, *result[0][:_SCOPE_COLUMNS], agent_only=settings.agent_only_categories)
    left_out = _left_out(scope, settings)
    entries = [
        BlockEntry(mid, category, layer, shown_text(content, summary), pinned, importance, valid_from, said_at)
        for mid, category, layer, content, summary, pinned, importance, valid_from, said_at in (
            row[_MEMORY_COLUMNS:] for row in result
        )
        if mid is not None and category not in left_out
    ]
    return scope, int(result[0][_SCOPE_COLUMNS] or 0), result[0][_SCOPE_COLUMNS + 1], entries


def _left_out(scope: AgentScope, settings: MemorySettings) -> frozenset[str]:
    """Categories the block never shows for this agent: its recall-only (``rag``) ones and
    every one `MemorySettings.category_reach` names (procedures, insights)."""
    return scope.rag_only | settings.unblocked_categories


def _etag(block: str, delta_text: str) -> str:
    digest = hashlib.sha256(b"\0".join((block.encode(), delta_text.encode()))).hexdigest()
    return f'"{digest[:ETAG_HEX_CHARS]}"'


def etag_matches(if_none_match: str | None, etag: str) -> bool:
    """RFC 9110's weak comparison for ``If-None-Match``: any listed tag (or ``*``) matches."""
    if not if_none_match:
        return False
    tags = [t.strip().removeprefix("W/") for t in if_none_match.split(",")]
    return "*" in tags or etag in tags


async def session_context(
    db: Database, settings: MemorySettings, count_tokens: TokenCounter, query: ContextQuery
) -> SessionContext:
    """The block for ``query`` (see the module docstring), with its delta and ETag."""
    scope, revision, zone, entries = await _read(db, query, settings)
    block: Block = render_block(entries, revision, budget_of(settings), count_tokens, zone_of(zone))
    delta: list[str] = []
    if query.since_rev is not None and query.since_rev < revision:
        delta = await memory_delta(
            db,
            query.user_id,
            query.since_rev,
            agent_id=query.agent_id,
            until_rev=revision,
            min_confidence=settings.context_min_confidence,
            categories=scope.categories,
            left_out=_left_out(scope, settings),
        )
    delta_text = render_delta(delta, query.since_rev or 0, revision)
    body = ContextOut(
        block=block.text,
        revision=revision,
        token_count=block.token_count,
        categories=[CategoryOut(u.category, u.count, u.tokens) for u in block.categories],
        omitted=block.omitted,
        delta=delta,
        delta_text=delta_text,
        as_of=query.as_of,
    )
    return SessionContext(body, _etag(block.text, delta_text))
