"""The tool table: every tool Loci offers an agent, as data, in one place.

The MCP server (`service.mcp.server`) and `GET /v1/tools` (function-calling schemas)
both read this table, so an agent sees the same names, descriptions and argument
schemas whichever way it connects. A row names its arguments' msgspec record (the
one its HTTP route decodes, so the schema is derived, not written twice) and the
call (`service.mcp.calls`), which makes the same domain call as the route.

Each row also names the record its call answers (``returns``), from which the MCP
``outputSchema`` is derived: the structured result a client can rely on and check.

What a caller is offered depends on its key (`tools_for`): a user key sees every tool, an
agent key only those it may call (``agent_keys``, and ``allows`` of its access scope: an agent
limited to some categories may not replace the whole profile). A tool listed to a model that
always refuses it costs a wasted call and reads as an invitation; the row says so, not a list of names.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import msgspec

from domain.agent_access import AgentScope, key_scope
from domain.memory_dto import (
    ConfirmIn,
    ForgetIn,
    LinkIn,
    MemoryEvent,
    MemoryIn,
    MemoryPage,
    MemoryUpdateIn,
    ProfileOut,
    ProfileWrite,
)
from domain.memory_profile import may_replace
from domain.memory_query_dto import QueryMemoryIn, QueryOut
from service.errors import DATABASE_DOWN
from service.mcp import calls
from service.mcp.calls import Answer
from service.mcp.inputs import EntityRef, ListMemoriesIn, NoArgs, ProfileWriteIn
from service.mcp.schema import input_schema, output_schema
from service.routes.entities import TimelineDTO
from service.routes.recall import RecallIn, RecallOut, SearchIn
from service.state import AppState, Caller

__all__ = ["TOOLS", "Tool", "tool_named", "tools_for"]

Call = Callable[[AppState, Caller, Any], Awaitable[Answer]]


@dataclass(frozen=True, slots=True)
class Tool:
    name: str
    description: str
    """Written for a model: when to use the tool, what it answers, what to pass."""
    args: type[msgspec.Struct]
    returns: type[msgspec.Struct]
    """The record the call answers as its structured result."""
    call: Call
    read_only: bool
    agent_keys: bool = True
    """Whether an agent's API key may call it. False for a tool that reads past any agent's
    access list (the entity graph is learned from drawers of every wing, as ``/v1/entities`` is
    closed to agent keys): such a key is not offered it, and a call is refused (`offered_to`)."""
    allows: Callable[[AgentScope], bool] | None = None
    """What the caller's access must allow for the tool to be listed: the domain's own test for
    the refusal its call would meet (``write_profile``: `memory_profile.may_replace`), so a key is
    never offered a tool whose every call is a 403. Called anyway, the call is refused as the
    route refuses it. None: any scope."""
    schema: dict[str, Any] = field(init=False)
    output: dict[str, Any] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "schema", input_schema(self.args))
        object.__setattr__(self, "output", output_schema(self.returns))

    def offered_to(self, caller: Caller) -> bool:
        """Whether ``caller`` may call it: any user key; an agent key (``caller.agent_id``) if `agent_keys`."""
        return caller.agent_id is None or self.agent_keys

    def listed_to(self, caller: Caller, scope: AgentScope) -> bool:
        """Whether ``caller``, whose key's access is ``scope`` (`agent_access.key_scope`), is offered it."""
        return self.offered_to(caller) and (self.allows is None or self.allows(scope))


_WRITE = (
    " Answers the `memory_event` (event, memory, previous version; to a user's key also the `undo` reference, "
    "for the user's own `POST /v1/memories/undo/{event_id}`) and one line saying what changed."
)
_NAMED = " The memory is named by `id_or_text`: its id, or text found in exactly one active memory."
"""Only for the tools that take ``id_or_text``: save_memory names none, link_memories takes two ids."""

TOOLS: tuple[Tool, ...] = (
    Tool(
        "recall",
        "Recall what you know about the user that is relevant to a message, before answering it. Pass the "
        "user's message (or what you are about to discuss). Answers a ready-to-use `<memory_context>` block "
        "(saved memories first, then past conversation excerpts), the memories and drawers with their ids, and "
        "`revision`: pass it back as `since_rev` next time to also learn what changed since.",
        RecallIn,
        RecallOut,
        calls.recall,
        read_only=True,
    ),
    Tool(
        "memory_query",
        "Look up what you may know about the user on one subject, as short bullets: saved memories (facts, "
        "preferences, instructions) and excerpts of past conversations, best first. Pass `agent` (your agent "
        "id) and `query` (what to look for). Narrow with `categories` (memories only), `filters` (agent_id, "
        "conversation_id, role, pinned, importance_min/max 1-5, updated_after/updated_before as ISO times "
        "with a zone, source user|agent|extracted, layer core|knowledge|archive: archive holds summaries of "
        "past conversations, otherwise searched only when the query asks about the past), `top_k` (default "
        "10) and `threshold` (0-1 minimum "
        "similarity). Answers `bullets` `{id, kind, category, text}` within `budget_tokens` (a conversation "
        "excerpt has category `conversation`); `return: full` answers every field instead. Use recall before "
        "answering a message; use this to look something specific up.",
        QueryMemoryIn,
        QueryOut,
        calls.memory_query,
        read_only=True,
    ),
    Tool(
        "save_memory",
        "Save one durable fact, preference or instruction about the user, as one short statement in the "
        "third person (e.g. 'Prefers answers in metric units'). Saving the same content again writes nothing. "
        "`layer` core is the always-shown profile; knowledge (default) is recalled when relevant. `kind` says "
        "how long it holds: durable (never expires), contextual (a week), temporary (a day) or deadline (until "
        "the date in its text, e.g. 'The report is due Friday'); left out, it is inferred from the text's "
        "time words." + _WRITE,
        MemoryIn,
        MemoryEvent,
        calls.save,
        read_only=False,
    ),
    Tool(
        "update_memory",
        "Correct or change a saved memory when the user says it is wrong or has changed. Fields left out keep "
        "their value; the old version stays in history." + _WRITE + _NAMED,
        MemoryUpdateIn,
        MemoryEvent,
        calls.update,
        read_only=False,
    ),
    Tool(
        "forget_memory",
        "Forget a saved memory when the user asks you to, or it is no longer true. It stops being recalled "
        "(kept in history, restorable). Deleting it for good is the user's own step (the /memory page), "
        "not a tool's." + _WRITE + _NAMED,
        ForgetIn,
        MemoryEvent,
        calls.forget,
        read_only=False,
    ),
    Tool(
        "confirm_memory",
        "Mark a saved memory as still true now, when the user confirms it; confirmed memories stay fresh "
        "and confident." + _WRITE + _NAMED,
        ConfirmIn,
        MemoryEvent,
        calls.confirm,
        read_only=False,
    ),
    Tool(
        "link_memories",
        "Link two saved memories by id, e.g. one that supersedes, contradicts or relates to another." + _WRITE,
        LinkIn,
        MemoryEvent,
        calls.link,
        read_only=False,
    ),
    Tool(
        "list_memories",
        "List the user's saved memories, newest first, optionally by layer, category, source or agent. "
        "Paginated: pass the answer's `next_before` as `before` for older ones. Use recall to find memories "
        "about a topic; use this to browse or to find ids.",
        ListMemoriesIn,
        MemoryPage,
        calls.list_memories,
        read_only=True,
    ),
    Tool(
        "read_profile",
        "Read the user's core profile: the always-relevant facts and preferences, as Markdown with one "
        "`## Category` section per category and one bullet per memory.",
        NoArgs,
        ProfileOut,
        calls.read_profile,
        read_only=True,
    ),
    Tool(
        "write_profile",
        "Replace the user's whole core profile, as Markdown (`## Category` headings, `- ` bullets) or as "
        "entries. Lines kept are unchanged, lines removed are forgotten, new lines are saved. Read it first "
        "and send it back edited, with its `etag` so a change made meanwhile is refused instead of dropped; "
        "prefer save_memory or update_memory for one change.",
        ProfileWriteIn,
        ProfileWrite,
        calls.write_profile,
        read_only=False,
        allows=may_replace,
    ),
    Tool(
        "search_palace",
        "Search the user's past conversations (the memory palace) for passages about a topic, optionally "
        "within one wing or by one role. Answers the matching excerpts with their palace address; saved "
        "memories are not included (use recall for those).",
        SearchIn,
        RecallOut,
        calls.search,
        read_only=True,
    ),
    Tool(
        "entity_timeline",
        "The history of one person, place or thing the user has talked about: the relations learned about "
        "it (current and ended), newest first, with the dates each held, 500 at a time (offset for more).",
        EntityRef,
        TimelineDTO,
        calls.timeline,
        read_only=True,
        agent_keys=False,
    ),
)

_BY_NAME = {tool.name: tool for tool in TOOLS}


def tool_named(name: str) -> Tool | None:
    return _BY_NAME.get(name)


async def tools_for(state: AppState, caller: Caller) -> tuple[Tool, ...]:
    """The tools ``caller`` is offered (MCP ``tools/list``, `GET /v1/tools`), in the table's order:
    for an agent key, read against its access scope (one lookup; none for a user key). With the
    database down (`service.errors.DATABASE_DOWN`) the list still answers (stdio ``loci mcp``
    keeps serving through an outage, `service.mcp.cli.key_holder`), with what any agent key may
    call (`Tool.offered_to`) less every tool whose row has an ``allows`` check it cannot read:
    clients keep the list they got, and a tool listed then would be offered all session to a key
    whose every call of it is a 403. A key that may call it sees it on its next tools/list."""
    try:
        scope = await key_scope(
            state.db, caller.user_id, caller.agent_id, agent_only=state.settings.memory.agent_only_categories
        )
    except DATABASE_DOWN:
        return tuple(tool for tool in TOOLS if tool.offered_to(caller) and tool.allows is None)
    return tuple(tool for tool in TOOLS if tool.listed_to(caller, scope))
