"""Per-agent access in an export file, and what an import makes of it.

An export carries the access configuration as ``access``: the very document `GET /v1/access`
answers (`domain.agent_access_edit.AccessDoc`: the user's default modes and every configured
agent's categories, wings and modes), a field of the JSON document and one ``access`` line of
the NDJSON stream after the agent lines (left out, as ``null`` or no line, when the user has no
agent and no default mode: such a file imports as an older one does). Agent keys are secrets and never go out: an import
gives back what each agent may see, not the keys that act as it.

An import restores it exactly, in the import's own transaction: every agent of the file gets
the access the file gives it (an agent the file lists without an entry was unconfigured, and is
again), and the user's default modes are the file's. Agents this user had that the file does
not list are left as they are. Agents survive an empty memory, so an agent the user already had,
limited there, may come out of the import reading more (a category or wing it was not allowed,
or every one for an agent the file lists without an entry; a wider mode, its own over the
defaults, rag to all or a cap dropped or raised; recall switched back on by the file's agent
line, whether or not the file has ``access``): never in silence, the import's answer names them
(``agents_opened``). The default modes reach every agent without a mode of its own, those the
file does not list among them, and callers naming no agent: ``defaults_opened`` names each
category whose default the file widened. A malformed entry, a category this server does not have, an entry
for an agent not among the file's agents, or ``access`` in a file of version 1 or 2 (it arrived
with version 3) is a 400 naming the field, before anything is written.

A file without ``access`` (written before it travelled, or by hand) says nothing about what its
agents may see. Restoring them unconfigured would let each read every category and wing,
whatever it was limited to where the file came from, so every agent such an import creates
is **closed** (no category, no wing) until someone sets its access (`PUT /v1/access.yaml`
with the ``access.yaml`` kept beside the export, or `PUT /v1/agents/{id}/access`); the import's
answer names them (``agents_closed``). An agent this user already had keeps its access: the
file does not speak for it.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import NamedTuple

from sqlalchemy.ext.asyncio import AsyncSession

from domain.agent_access_edit import (
    AccessDefaults,
    AccessDoc,
    AgentAccess,
    ModeSpec,
    check_access,
    read_access,
    write_agent_access,
    write_default_modes,
)
from loci.errors import InvalidInput

__all__ = ["ACCESS_VERSION", "CLOSED", "Restored", "check_file_access", "exported_access", "restore_access"]

CLOSED = AgentAccess(categories=[], wings=[])
"""What an agent an old file brings may see until someone says otherwise: nothing."""
ACCESS_VERSION = 3
"""The export version ``access`` arrived with: an older file carrying it is refused."""


class Restored(NamedTuple):
    """What an import did to its agents' access, for its answer (all sorted)."""

    closed: list[str]
    """Created closed: the file carries no ``access``."""
    opened: list[str]
    """The user's already, and now allowed a category or wing they were not before, a wider
    mode (rag to all, a cap dropped or raised), or recall switched back on."""
    defaults_opened: list[str]
    """The categories whose default mode the file widened: every agent without a mode of its
    own for them, the ones the file does not list among them, and callers naming no agent."""


def exported_access(access: AccessDoc, agents: int) -> AccessDoc | None:
    """What an export of a user with ``agents`` agents carries: None when it would say nothing (no
    agent, no default mode), which an import reads the same way, so such a file stays as it was."""
    return access if agents or access.defaults.modes or access.agents else None


def check_file_access(
    access: AccessDoc, agents: Collection[str], known: tuple[str, ...], at: str, version: int = ACCESS_VERSION
) -> None:
    """The access document's own rules (`check_access`: ``known`` is the server's categories),
    every agent it configures among the file's ``agents``, and a file of a ``version`` that has
    it; a 400 naming the field below ``at``."""
    if version < ACCESS_VERSION:
        raise InvalidInput(
            f"a version {version} file cannot carry access, which arrived with export version {ACCESS_VERSION}"
            f" (leave it out, or say version {ACCESS_VERSION})",
            field=at.removesuffix(".") or "access",
        )
    check_access(access, known, at)
    for agent_id in access.agents:
        if agent_id not in agents:
            raise InvalidInput(
                f"agent {agent_id!r} has an access entry but is not in this file's agents",
                field=f"{at}agents.{agent_id}",
            )


def _reads_more(before: list[str] | None, after: list[str] | None) -> bool:
    """An allowlist (None: every one) that lets in something ``before`` did not."""
    return before is not None and (after is None or not set(after) <= set(before))


def _width(spec: ModeSpec | None) -> tuple[int, int]:
    """How much of a category a mode lets through, to compare: capped ``rag`` (by its cap) <
    uncapped ``rag`` < ``all`` (the session-start block); no mode is ``all``."""
    if spec is None or spec.mode == "all":
        return (2, 0)
    return (0, spec.cap) if spec.cap is not None else (1, 0)


def _widened(before: Mapping[str, ModeSpec], after: Mapping[str, ModeSpec]) -> list[str]:
    """The categories whose mode lets through more in ``after`` (rag to all, a cap dropped or raised)."""
    return sorted(c for c in set(before) | set(after) if _width(after.get(c)) > _width(before.get(c)))


def _opened(before: AgentAccess, after: AgentAccess, defaults: tuple[AccessDefaults, AccessDefaults]) -> bool:
    """Whether an agent the user had reads more: a category or wing, or a wider mode (its own
    over the user's defaults, ``defaults`` before and after: `agent_access.scope_of`)."""
    modes = [{**d.modes, **a.modes} for d, a in zip(defaults, (before, after), strict=True)]
    return (
        _reads_more(before.categories, after.categories)
        or _reads_more(before.wings, after.wings)
        or bool(_widened(*modes))
    )


async def restore_access(
    s: AsyncSession,
    user_id: int,
    access: AccessDoc | None,
    agents: Mapping[str, bool],
    recalls_again: Collection[str] = (),
) -> Restored:
    """Write what the file says each of its ``agents`` (external id -> created by this import)
    may see (module doc): the agents closed for want of an ``access`` part, those the user had
    that now read more (``recalls_again``: those whose recall the import switched back on,
    `AgentDoc.recall_enabled`), and the default modes it widened."""
    await s.flush()  # the import's rows (its settings among them) before these statements
    if access is None:
        closed = sorted(agent_id for agent_id, created in agents.items() if created)
        for agent_id in closed:
            await write_agent_access(s, user_id, agent_id, CLOSED)
        return Restored(closed, sorted(recalls_again), [])
    had = await read_access(s, user_id)
    opened = set(recalls_again)
    await write_default_modes(s, user_id, access.defaults.modes)
    for agent_id in sorted(agents):
        after = access.agents.get(agent_id, AgentAccess())
        before = had.agents.get(agent_id, AgentAccess())
        if not agents[agent_id] and _opened(before, after, (had.defaults, access.defaults)):
            opened.add(agent_id)
        await write_agent_access(s, user_id, agent_id, after)
    return Restored([], sorted(opened), _widened(had.defaults.modes, access.defaults.modes))
