"""Operations on per-agent access: allowlists of categories and wings, and context modes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import httpx

from loci_client._transport import Decoder, Request, model, operation
from loci_client.models_access import AccessDoc, AgentAccessOut, ModeSpec
from loci_client.requests import body, dump, path

YAML = "application/yaml"


@operation("getAgentAccess", model(AgentAccessOut))
def get_agent_access(agent_id: str) -> Request:
    """What one agent may see (an agent never configured: everything)."""
    return Request("GET", path("/v1/agents/{external_id}/access", external_id=agent_id))


@operation("putAgentAccess", model(AgentAccessOut))
def put_agent_access(
    agent_id: str,
    *,
    categories: list[str] | None = None,
    wings: list[str] | None = None,
    modes: Mapping[str, ModeSpec | Mapping[str, Any]] | None = None,
) -> Request:
    """Replace one agent's access; None leaves that list open (every category or wing)."""
    shown = {c: dump(m) for c, m in (modes or {}).items()}
    return Request(
        "PUT",
        path("/v1/agents/{external_id}/access", external_id=agent_id),
        json=body(categories=categories, wings=wings, modes=shown),
    )


@operation("getAccess", model(AccessDoc))
def get_access() -> Request:
    """The whole configuration: the user's default modes and every configured agent."""
    return Request("GET", "/v1/access")


@operation("putAccess", model(AccessDoc))
def put_access(document: AccessDoc | Mapping[str, Any]) -> Request:
    """Replace the whole configuration (agents it does not list are reset to everything)."""
    return Request("PUT", "/v1/access", json=dump(document))


def _text(response: httpx.Response) -> str:
    return response.text


@operation("exportAccessYaml", Decoder(_text))
def export_access_yaml() -> Request:
    """The configuration as YAML, to keep or edit and import."""
    return Request("GET", "/v1/access.yaml")


@operation("importAccessYaml", Decoder(_text))
def import_access_yaml(document: str) -> Request:
    """Replace the configuration with a YAML document; answers it as stored."""
    return Request("PUT", "/v1/access.yaml", content=document.encode(), headers={"Content-Type": YAML})
