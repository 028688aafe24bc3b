"""Answers of the per-agent access routes: what each agent may see, and how."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from loci_client._model import Model

__all__ = ["AccessDefaults", "AccessDoc", "AgentAccess", "AgentAccessOut", "ModeSpec"]


class ModeSpec(Model):
    """``all``: in the session-start block; ``rag``: recall only, at most ``cap`` per recall."""

    mode: Literal["all", "rag"] = "all"
    cap: int | None = None


class AgentAccessOut(Model):
    """One agent's access; None categories or wings: all of them."""

    agent_id: str
    categories: list[str] | None
    wings: list[str] | None
    modes: dict[str, ModeSpec]


class AgentAccess(Model):
    """One agent's entry in the whole configuration."""

    categories: list[str] | None = None
    wings: list[str] | None = None
    modes: dict[str, ModeSpec] = Field(default_factory=dict)


class AccessDefaults(Model):
    """The user's default context modes, which every agent starts from."""

    modes: dict[str, ModeSpec] = Field(default_factory=dict)


class AccessDoc(Model):
    """The whole access configuration: defaults and every configured agent."""

    defaults: AccessDefaults = Field(default_factory=AccessDefaults)
    agents: dict[str, AgentAccess] = Field(default_factory=dict)
