"""Operations on agents, settings, the activity feed, and export/import of a whole memory."""

from __future__ import annotations

from typing import Any, Literal

from loci_client._transport import Decoder, Request, model, operation
from loci_client.models_recall import ActivityPage, AgentOut, AgentPage, ExportDoc, ImportResult, SettingsOut
from loci_client.requests import body, path


@operation("listAgents", model(AgentPage))
def list_agents(*, limit: int | None = None, offset: int | None = None) -> Request:
    """The agents that have written to this memory, by id; pass `next_offset` as ``offset`` for the next page."""
    return Request("GET", "/v1/agents", params={"limit": limit, "offset": offset})


@operation("getAgent", model(AgentOut))
def get_agent(external_id: str) -> Request:
    """One agent."""
    return Request("GET", path("/v1/agents/{external_id}", external_id=external_id))


@operation("putAgent", model(AgentOut))
def put_agent(external_id: str, *, name: str | None = None, recall_enabled: bool | None = None) -> Request:
    """Create or change an agent (``recall_enabled=False``: recall answers it nothing)."""
    return Request(
        "PUT",
        path("/v1/agents/{external_id}", external_id=external_id),
        json=body(name=name, recall_enabled=recall_enabled),
    )


@operation("getSettings", model(SettingsOut))
def get_settings() -> Request:
    """The user's memory settings."""
    return Request("GET", "/v1/settings")


@operation("putSettings", model(SettingsOut))
def put_settings(
    *,
    enabled: bool | None = None,
    top_k: int | None = None,
    use_rerank: bool | None = None,
    rerank_model: str | None = None,
    auto_mine: bool | None = None,
    time_zone: str | None = None,
) -> Request:
    """Change the given settings; the others stay. ``time_zone`` is an IANA name (``"Asia/Tokyo"``):
    memory saves and recalls without ``now`` read "tomorrow" and "yesterday" on it (``"UTC"`` goes back)."""
    fields = body(
        enabled=enabled, top_k=top_k, use_rerank=use_rerank, rerank_model=rerank_model, auto_mine=auto_mine,
        time_zone=time_zone,
    )  # fmt: skip
    return Request("PUT", "/v1/settings", json=fields)


@operation("listActivity", model(ActivityPage))
def list_activity(*, limit: int | None = None, before: int | None = None, type: str | None = None) -> Request:
    """The activity feed, newest first; page with ``before=page.next_before``."""
    return Request("GET", "/v1/activity", params={"limit": limit, "before": before, "type": type})


@operation("exportMemory", model(ExportDoc))
def export(*, embeddings: bool | None = None) -> Request:
    """The whole memory as one JSON document (``embeddings=False``: ~10x smaller)."""
    return Request("GET", "/v1/export", params={"format": "json", "embeddings": embeddings})


def _text(response: Any) -> str:
    return str(response.text)


@operation("exportMemory", Decoder(_text))
def export_text(format: Literal["ndjson", "markdown"], *, embeddings: bool | None = None) -> Request:
    """The whole memory as NDJSON (one record a line, for `import_ndjson`) or Markdown (to read)."""
    return Request("GET", "/v1/export", params={"format": format, "embeddings": embeddings})


@operation("importMemory", model(ImportResult))
def import_memory(document: ExportDoc | dict[str, Any]) -> Request:
    """Load an export into this (empty) memory."""
    return Request("POST", "/v1/import", json=document)


@operation("importMemory", model(ImportResult))
def import_ndjson(lines: bytes) -> Request:
    """Load an NDJSON export (streamed by the server, so not held to its body-size limit)."""
    return Request("POST", "/v1/import", content=lines, headers={"Content-Type": "application/x-ndjson"})


@operation("listTools", model(list[dict[str, Any]]))
def list_tools(format: Literal["openai", "anthropic"] = "openai") -> Request:
    """The agent tools (the MCP server's) as function-calling schemas, for an agent loop without MCP."""
    return Request("GET", "/v1/tools", params={"format": format})
