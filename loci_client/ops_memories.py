"""Operations on explicit memories and the core profile. Every write answers with the
`MemoryEvent` it made, whose `undo` reverses it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from loci_client._transport import Request, model, operation
from loci_client.models_memories import (
    HistoryOut,
    MemoryDetail,
    MemoryEvent,
    MemoryPage,
    ProfileOut,
    ProfileWrite,
    ProposalDecision,
    ProposalPage,
)
from loci_client.models_query import QueryOut
from loci_client.requests import ProfileEntry, QueryFilters, body, dump_all, idempotent, path


@operation("saveMemory", model(MemoryEvent))
def save_memory(
    content: str,
    category: str,
    *,
    layer: str | None = None,
    summary: str | None = None,
    body_text: str | None = None,
    importance: int | None = None,
    pinned: bool | None = None,
    tags: Sequence[str] | None = None,
    agent_id: str | None = None,
    source: str | None = None,
    conversation_id: str | None = None,
    turn_seqs: Sequence[int] | None = None,
    kind: str | None = None,
    idempotency_key: str | None = None,
) -> Request:
    """Save a memory (``body_text`` is the API's ``body``); saving the same content again answers the stored one.
    ``kind`` (durable, contextual, temporary, deadline) sets when it expires; None: the server infers it.
    Sent with an ``Idempotency-Key`` (``idempotency_key``, else a fresh one): a retry answers the first try."""
    fields = body(
        content=content, category=category, layer=layer, summary=summary, body=body_text, importance=importance,
        pinned=pinned, tags=_list(tags), agent_id=agent_id, source=source, conversation_id=conversation_id,
        turn_seqs=_list(turn_seqs), kind=kind,
    )  # fmt: skip
    return Request("POST", "/v1/memories", json=fields, headers=idempotent(idempotency_key))


@operation("updateMemory", model(MemoryEvent))
def update_memory(
    id_or_text: int | str,
    *,
    content: str | None = None,
    summary: str | None = None,
    body_text: str | None = None,
    category: str | None = None,
    layer: str | None = None,
    importance: int | None = None,
    pinned: bool | None = None,
    tags: Sequence[str] | None = None,
    agent_id: str | None = None,
    kind: str | None = None,
) -> Request:
    """Change a memory, found by id or by its text; the old version stays in its history."""
    fields = body(
        id_or_text=id_or_text, content=content, summary=summary, body=body_text, category=category, layer=layer,
        importance=importance, pinned=pinned, tags=_list(tags), agent_id=agent_id, kind=kind,
    )  # fmt: skip
    return Request("POST", "/v1/memories/update", json=fields)


@operation("forgetMemory", model(MemoryEvent))
def forget_memory(id_or_text: int | str, *, reason: str | None = None, agent_id: str | None = None) -> Request:
    """End a memory (it stays in history and can be restored)."""
    return Request("POST", "/v1/memories/forget", json=body(id_or_text=id_or_text, reason=reason, agent_id=agent_id))


@operation("purgeMemory", model(MemoryEvent))
def purge_memory(id_or_text: int | str) -> Request:
    """Delete a memory for good: every version (any version's id names it) and what quotes it.
    Cannot be undone; a user key only (an agent key gets `Forbidden`)."""
    return Request("POST", "/v1/memories/purge", json=body(id_or_text=id_or_text))


@operation("confirmMemory", model(MemoryEvent))
def confirm_memory(id_or_text: int | str, *, agent_id: str | None = None) -> Request:
    """Say a memory is still true, restoring its confidence."""
    return Request("POST", "/v1/memories/confirm", json=body(id_or_text=id_or_text, agent_id=agent_id))


@operation("restoreMemory", model(MemoryEvent))
def restore_memory(memory_id: int) -> Request:
    """Bring a forgotten memory back."""
    return Request("POST", path("/v1/memories/{memory_id}/restore", memory_id=memory_id))


@operation("linkMemories", model(MemoryEvent))
def link_memories(from_id: int, to_id: int, relation: str, *, agent_id: str | None = None) -> Request:
    """Link two memories with a named relation."""
    fields = body(from_id=from_id, to_id=to_id, relation=relation, agent_id=agent_id)
    return Request("POST", "/v1/memories/links", json=fields)


@operation("unlinkMemories", model(MemoryEvent))
def unlink_memories(link_id: int) -> Request:
    """Remove a link."""
    return Request("DELETE", path("/v1/memories/links/{link_id}", link_id=link_id))


@operation("undoMemoryEvent", model(MemoryEvent))
def undo(event_id: int) -> Request:
    """Reverse a memory event (a write's `MemoryEvent.event_id`)."""
    return Request("POST", path("/v1/memories/undo/{event_id}", event_id=event_id))


@operation("listMemories", model(MemoryPage))
def list_memories(
    *,
    layer: str | None = None,
    category: str | None = None,
    source: str | None = None,
    agent_id: str | None = None,
    as_of: str | None = None,
    limit: int | None = None,
    before: int | None = None,
) -> Request:
    """Memories valid now (or at ``as_of``), newest first; page with ``before=page.next_before``."""
    params = {
        "layer": layer, "category": category, "source": source, "agent_id": agent_id, "as_of": as_of,
        "limit": limit, "before": before,
    }  # fmt: skip
    return Request("GET", "/v1/memories", params=params)


@operation("listMemoryProposals", model(ProposalPage))
def list_proposals(*, status: str | None = None, limit: int | None = None, before: int | None = None) -> Request:
    """Mined changes to sensitive profile fields, newest first; ``status``: pending (default), approved,
    rejected, lapsed, all; page with ``before=page.next_before``."""
    return Request("GET", "/v1/memories/proposals", params={"status": status, "limit": limit, "before": before})


@operation("approveMemoryProposal", model(ProposalDecision))
def approve_proposal(proposal_id: int) -> Request:
    """Write a proposal as the user's own core memory."""
    return Request("POST", path("/v1/memories/proposals/{proposal_id}/approve", proposal_id=proposal_id))


@operation("rejectMemoryProposal", model(ProposalDecision))
def reject_proposal(proposal_id: int) -> Request:
    """Refuse a proposal; mining never proposes the same words again."""
    return Request("POST", path("/v1/memories/proposals/{proposal_id}/reject", proposal_id=proposal_id))


@operation("getMemory", model(MemoryDetail))
def get_memory(memory_id: int, *, as_of: str | None = None) -> Request:
    """One memory and its links."""
    return Request("GET", path("/v1/memories/{memory_id}", memory_id=memory_id), params={"as_of": as_of})


@operation("getMemoryHistory", model(list[HistoryOut]))
def get_memory_history(memory_id: int) -> Request:
    """Every event in a memory's lineage, oldest first."""
    return Request("GET", path("/v1/memories/{memory_id}/history", memory_id=memory_id))


@operation("getProfile", model(ProfileOut))
def get_profile() -> Request:
    """The core profile: the memories always in the session-start block."""
    return Request("GET", "/v1/profile")


@operation("putProfile", model(ProfileWrite))
def put_profile(
    *,
    markdown: str | None = None,
    entries: Sequence[ProfileEntry | Mapping[str, Any]] | None = None,
    if_match: str | None = None,
) -> Request:
    """Replace the core profile, as markdown or as entries. ``if_match`` (the `etag` of the
    profile the edit was made on, or ``"*"``) writes only if nobody changed it since, else
    raises `PreconditionFailed` with nothing written; without it the last writer wins."""
    fields = body(markdown=markdown, entries=None if entries is None else dump_all(entries))
    headers = {"If-Match": if_match} if if_match is not None else {}
    return Request("PUT", "/v1/profile", json=fields, headers=headers)


def _list(items: Sequence[Any] | None) -> list[Any] | None:
    return None if items is None else list(items)


@operation("queryMemory", model(QueryOut))
def memory_query(
    query_or_agent: str | None = None,
    query: str | None = None,
    *,
    agent: str | None = None,
    categories: Sequence[str] | None = None,
    filters: QueryFilters | Mapping[str, Any] | None = None,
    top_k: int | None = None,
    threshold: float | None = None,
    mode: str | None = None,
    budget_tokens: int | None = None,
) -> Request:
    """Saved memories and conversation excerpts ``agent`` may see about ``query``, best first:
    bullets within ``budget_tokens``, or every field with ``mode="full"`` (the API's ``return``).

    ``memory_query("seats on flights", agent="assistant")``; with an agent key leave ``agent``
    out (the key asks as its agent). The older ``memory_query("assistant", "seats on flights")``
    (agent first) still works: with two positional arguments the first is the agent."""
    if query is not None and query_or_agent is not None:  # memory_query(agent, query): the older form
        if agent is not None:
            raise TypeError("memory_query() got the agent twice: pass memory_query(query, agent=...)")
        agent = query_or_agent
    elif query is None:
        query = query_or_agent
    if query is None:
        raise TypeError("memory_query() missing the query: memory_query(query, agent=...)")
    fields = body(
        agent=agent, query=query, categories=_list(categories), filters=filters, top_k=top_k, threshold=threshold,
        budget_tokens=budget_tokens,
    )  # fmt: skip
    if mode is not None:
        fields["return"] = mode
    return Request("POST", "/v1/memory/query", json=fields)
