"""`loci users` and `loci keys`: accounts from the shell, through the running service's
admin API when one runs on the data dir, else straight on its (stopped) database.

A lazy subcommand of `service.cli` (`LAZY_COMMANDS`): `loci --help` imports none of it.
"""

from __future__ import annotations

import asyncio
import unicodedata
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
import msgspec

from loci.errors import ConfigurationError
from loci.runtime import holds_database
from service.cli import data_dir_option, ensure_admin_key, services, settings_from
from service.cli_errors import friendly_errors

if TYPE_CHECKING:
    from loci.db import Database
    from loci.settings import Settings
    from service.admin_client import AdminApi

__all__ = ["keys", "users"]


def _with_db(settings: Settings, action: Callable[[Database], Any]) -> Any:
    from loci import migrate
    from loci.db import Database

    with services(settings, need_queue=False) as resolved:
        url = resolved.database.url or ""
        migrate.upgrade(url)

        async def run() -> Any:
            database = Database(url, app_role=resolved.database.app_role)
            try:
                return await action(database)
            finally:
                await database.dispose()

        return asyncio.run(run())


def _running_api(settings: Settings) -> AdminApi | None:
    """The admin API of a `loci serve` running on this data dir, else None; refuses a
    data dir that holds no Loci database (a mistyped or missing --data-dir would otherwise
    create an empty one that the server never sees)."""
    from service.admin_client import AdminApi, running_service_url

    data_dir = settings.server.data_dir.expanduser().resolve()
    url = running_service_url(data_dir)
    if url is not None:
        admin_key = ensure_admin_key(settings).server.admin_key or ""
        return AdminApi(url, admin_key)
    if not settings.database.url and not holds_database(data_dir):
        raise ConfigurationError(
            f"no Loci service or database in {data_dir}; pass the server's data dir with --data-dir "
            "(or LOCI_DATA_DIR), or DATABASE_URL"
        )
    return None


def _cell(value: object) -> str:
    """One value as the admin API writes it: a time in ISO 8601 with ``Z`` (msgspec's form), so
    a listing reads the same whether it came from the running service or the stopped database
    (``str`` of a datetime had printed ``2026-11-28 22:59:34+00:00`` there). Stored text (a user's
    or a key's name) goes through `_terminal`."""
    if value is None:
        return "-"
    if isinstance(value, datetime):
        return str(msgspec.to_builtins(value.astimezone(UTC)))
    return _terminal(str(value)) or "-"


_KEPT_FORMAT_CHARACTERS = frozenset("\u200c\u200d")
"""The zero-width non-joiner and joiner: Persian and Indic spelling and emoji sequences need them."""


def _terminal(text: str) -> str:
    """``text`` as one line of a terminal table: white space (line breaks included) collapsed,
    and control and format characters (Unicode's Cc and Cf, but `_KEPT_FORMAT_CHARACTERS`)
    dropped. A name holding a newline split its row in two, a bidi override (U+202E) printed the
    rest of the line backwards, and an escape sequence would be run by the terminal. Not
    `retrieval.visible`: importing `retrieval` would add seconds to every listing."""
    one_line = " ".join(text.split())  # first: a line break is a control character too
    return "".join(c for c in one_line if c in _KEPT_FORMAT_CHARACTERS or unicodedata.category(c) not in ("Cc", "Cf"))


def _issued(key: str, agent: str | None) -> str:
    """The line that shows a new key once, saying the agent it acts as (it sees only what that agent may)."""
    if agent is None:
        return f"api key (shown once): {key}"
    return f"api key for agent {agent} (shown once; it acts as that agent, within its access list): {key}"


def _table(rows: Sequence[Sequence[object]]) -> None:
    """Rows as aligned columns (the first is the header), one line each."""
    cells = [[_cell(value) for value in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(cells[0]))]
    for row in cells:
        click.echo("  ".join(value.ljust(width) for value, width in zip(row, widths, strict=True)).rstrip())


@click.group()
def users() -> None:
    """Manage users (through the running service's admin API, or its database when it is stopped)."""


def _check_key_agent(with_key: bool, agent: str | None) -> None:
    """Refuse ``--agent`` before the user is created: a malformed one was refused only when its
    key was issued, after the user was made, so the command failed having created a user with no
    key (and running it again made a second); with ``--no-key`` it was ignored without a word."""
    from loci.inputs import check_id

    if agent is None:
        return
    if not with_key:
        raise click.UsageError("--agent names the agent of the key to issue, and --no-key issues none: drop one")
    check_id(agent, field="agent_id")


@users.command("create")
@click.argument("name")
@click.option("--email", default=None, help="the user's e-mail (checked for its shape: name@example.org)")
@click.option("--with-key/--no-key", default=True, help="also issue an API key")
@click.option("--agent", default=None, help="make the key an agent key (see `loci keys create --help`)")
@data_dir_option
@friendly_errors
def users_create(name: str, email: str | None, with_key: bool, agent: str | None, data_dir: Path | None) -> None:
    """Create a user (and, by default, an API key for it)."""
    from domain.accounts import create_key, create_user

    _check_key_agent(with_key, agent)
    settings = settings_from(data_dir)
    api = _running_api(settings)
    if api is not None:
        with api:
            user = api.create_user(name, email)
            click.echo(f"user {user['id']} created: {user['name']}")
            if with_key:
                click.echo(_issued(api.create_key(user["id"], "default", agent)["key"], agent))
        return

    async def action(database: Database) -> None:
        user = await create_user(database, name, email)
        click.echo(f"user {user.id} created: {user.name}")
        if with_key:
            issued = await create_key(database, user.id, agent=agent)
            click.echo(_issued(issued.key, agent))

    _with_db(settings, action)


@users.command("list")
@click.option("--after", type=int, default=0, show_default=True, help="list users with a larger id (the next page)")
@click.option("--limit", type=int, default=100, show_default=True, help="at most this many (1-1000)")
@data_dir_option
@friendly_errors
def users_list(after: int, limit: int, data_dir: Path | None) -> None:
    """List users by id: id, name, e-mail, created."""
    from domain.accounts import list_users

    settings = settings_from(data_dir)
    api = _running_api(settings)
    if api is not None:
        with api:
            found = [(u["id"], u["name"], u["email"], u["created_at"]) for u in api.list_users(after, limit)]
    else:

        async def action(database: Database) -> list[tuple[object, ...]]:
            listed = await list_users(database, after=after, limit=limit)
            return [(u.id, u.name, u.email, u.created_at) for u in listed]

        found = _with_db(settings, action)
    if not found:
        click.echo("no users" + (f" after id {after}" if after else ""))
        return
    _table([("id", "name", "email", "created"), *found])


@click.group()
def keys() -> None:
    """Manage API keys (through the running service's admin API, or its database when it is stopped)."""


@keys.command("create")
@click.argument("user_id", type=int)
@click.option("--name", default="default")
@click.option("--agent", default=None, help="bind the key to this agent id: it acts as it, within its access list")
@data_dir_option
@friendly_errors
def keys_create(user_id: int, name: str, agent: str | None, data_dir: Path | None) -> None:
    """Issue an API key for USER_ID (printed once); with --agent, an agent key."""
    from domain.accounts import create_key

    settings, whose = settings_from(data_dir), f"user {user_id}" + (f", agent {agent}" if agent else "")
    api = _running_api(settings)
    if api is not None:
        with api:
            issued = api.create_key(user_id, name, agent)
        click.echo(f"key {issued['id']} for {whose} (shown once): {issued['key']}")
        return

    async def action(database: Database) -> None:
        issued = await create_key(database, user_id, name, agent)
        click.echo(f"key {issued.id} for {whose} (shown once): {issued.key}")

    _with_db(settings, action)


@keys.command("list")
@click.argument("user_id", type=int)
@data_dir_option
@friendly_errors
def keys_list(user_id: int, data_dir: Path | None) -> None:
    """List USER_ID's keys, revoked ones too (never their secrets)."""
    from domain.accounts import list_keys

    settings = settings_from(data_dir)
    api = _running_api(settings)
    if api is not None:
        with api:
            listed = api.list_keys(user_id)
        found = [
            (k["id"], k["name"], k["prefix"], k["agent_id"], k["created_at"], k["last_used_at"], k["revoked_at"])
            for k in listed
        ]
    else:

        async def action(database: Database) -> list[tuple[object, ...]]:
            return [
                (k.id, k.name, k.prefix, k.agent_id, k.created_at, k.last_used_at, k.revoked_at)
                for k in await list_keys(database, user_id)
            ]

        found = _with_db(settings, action)
    if not found:
        click.echo(f"user {user_id} has no keys")
        return
    _table([("id", "name", "prefix", "agent", "created", "last used", "revoked"), *found])


@keys.command("revoke")
@click.argument("user_id", type=int)
@click.argument("key_id", type=int)
@data_dir_option
@friendly_errors
def keys_revoke(user_id: int, key_id: int, data_dir: Path | None) -> None:
    """Revoke KEY_ID of USER_ID; takes effect on the next request."""
    from domain.accounts import revoke_key

    settings = settings_from(data_dir)
    api = _running_api(settings)
    if api is not None:
        with api:
            api.revoke_key(user_id, key_id)
        click.echo(f"key {key_id} revoked")
        return

    async def action(database: Database) -> None:
        await revoke_key(database, user_id, key_id)
        click.echo(f"key {key_id} revoked")

    _with_db(settings, action)
