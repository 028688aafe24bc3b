"""`loci mcp`: the MCP server over stdio, for desktop clients (one process per user).

The client starts this process with the user's API key in ``LOCI_API_KEY``; the key is
checked at start, with the same function the HTTP middleware uses, and every tool call then
acts as that user. A missing, invalid or revoked key exits at once with one line and
status 2, before the model loads. The key is looked up again on every request (as the HTTP
middleware does), so one revoked while the session runs is refused from its next call on;
it had gone on reading and writing the user's memory until the process ended. stdout
carries only MCP messages: logs go to stderr.

It does not migrate: the schema is the service's (`loci serve`, `loci db upgrade`), and the
command that issued the key (`loci users create`) has already brought it up to date.

Beside a running `loci serve` on the same data dir (the common desktop set-up) it cannot
own the embedded PostgreSQL: one process owns a data dir. It then connects to the server's
PostgreSQL through the URL the server records (`loci.ownership.live_services`) and starts
and stops nothing; it also bumps the server's write generations in its Valkey, so a memory
saved here drops the server's cached recalls. When no server runs it owns the embedded
services for its lifetime, as before. A server that stops mid-session makes each tool call
a "database unavailable" tool error, never the end of the session.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import TYPE_CHECKING

import click

from service.cli import beside_server, data_dir_option, services, settings_from
from service.cli_errors import fail, friendly_errors

if TYPE_CHECKING:
    from loci.settings import Settings
    from service.mcp.server import UserOf
    from service.state import AppState, Caller

__all__ = ["API_KEY_ENV", "mcp"]

API_KEY_ENV = "LOCI_API_KEY"


REVOKED = f"{API_KEY_ENV} is no longer valid (revoked, or its user deleted): restart loci mcp with a live key"


def key_holder(state: AppState, key: str, caller: Caller) -> UserOf:
    """Who each request acts as: ``caller``, while ``key`` is still live. With the database down
    the call goes ahead, and answers the tool error every call answers then."""
    from mcp.shared.exceptions import MCPError
    from mcp_types import INVALID_REQUEST

    from domain.accounts import authenticate
    from service.errors import DATABASE_DOWN

    async def current(_ctx: object) -> Caller:
        try:
            owner = await authenticate(state.db, key)
        except DATABASE_DOWN:
            return caller
        if owner is None:
            raise MCPError(INVALID_REQUEST, REVOKED)
        return caller

    return current


async def _serve(settings: Settings, key: str) -> None:
    from mcp.server.stdio import stdio_server

    from domain.accounts import authenticate
    from service.app import build_state
    from service.mcp.server import build_server
    from service.state import Caller, build_llm, connect_cache

    state = build_state(settings)
    cache = connect_cache(state)  # only beside a server: its Valkey, else no queue URL and None
    try:
        owner = await authenticate(state.db, key)
        if owner is None:
            fail(f"{API_KEY_ENV} is not a valid API key (unknown or revoked)")
            return
        await asyncio.to_thread(state.embedder.load)
        state.llm = build_llm(settings)
        caller = Caller(owner.user_id, owner.agent_id)  # an agent key serves as its agent throughout
        server = build_server(state, key_holder(state, key, caller))
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())
    finally:
        if state.llm is not None:
            await state.llm.aclose()
        if cache is not None:
            await cache.aclose()
        await state.db.dispose()


@click.command("mcp")
@data_dir_option
@friendly_errors
def mcp(data_dir: Path | None) -> None:
    """Serve Loci's MCP tools over stdio as the user whose API key is in LOCI_API_KEY."""
    key = os.environ.get(API_KEY_ENV, "").strip()
    if not key:
        fail(f"{API_KEY_ENV} is not set: give the MCP server the user's API key (loci users create NAME)")
    settings = settings_from(data_dir)
    beside = beside_server(settings, "loci mcp")
    if beside is not None:
        asyncio.run(_serve(beside, key))
        return
    with services(settings, need_queue=False) as resolved:
        asyncio.run(_serve(resolved, key))
