"""Listing users and keys as an admin: over HTTP, and from `loci users list` / `loci keys list`
on a stopped service's database; a second revoke and a malformed e-mail are clear errors."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

from click.testing import CliRunner
from litestar.testing import AsyncTestClient

from loci.settings import Settings
from service.cli import main

Client = AsyncTestClient[Any]


async def test_admin_pages_through_users_by_id(client: Client, admin_headers: dict[str, str]) -> None:
    made = [
        (await client.post("/v1/admin/users", json={"name": f"lister-{i}"}, headers=admin_headers)).json()
        for i in range(3)
    ]
    first = made[0]["id"]
    page = await client.get("/v1/admin/users", params={"after": first - 1, "limit": 2}, headers=admin_headers)
    assert page.status_code == 200, page.text
    assert [u["id"] for u in page.json()] == [first, made[1]["id"]]
    assert set(page.json()[0]) == {"id", "name", "email", "created_at"}
    rest = await client.get("/v1/admin/users", params={"after": made[1]["id"], "limit": 1000}, headers=admin_headers)
    assert [u["name"] for u in rest.json()][:1] == ["lister-2"]
    bad_pages = [
        ({"limit": 0}, "limit"),
        ({"limit": 1001}, "limit"),
        ({"after": -1}, "after"),
        ({"after": 2**63}, "after"),
    ]
    for params, field in bad_pages:
        bad = await client.get("/v1/admin/users", params=params, headers=admin_headers)
        assert bad.status_code == 400 and field in bad.text, bad.text
    assert (await client.get("/v1/admin/users")).status_code == 401


async def test_a_second_revoke_says_when_the_key_was_revoked(client: Client, admin_headers: dict[str, str]) -> None:
    user = (await client.post("/v1/admin/users", json={"name": "revoker"}, headers=admin_headers)).json()
    key = (await client.post(f"/v1/admin/users/{user['id']}/keys", headers=admin_headers)).json()
    path = f"/v1/admin/users/{user['id']}/keys/{key['id']}"
    assert (await client.delete(path, headers=admin_headers)).status_code == 204
    again = await client.delete(path, headers=admin_headers)
    assert again.status_code == 409 and "already revoked at" in again.json()["detail"], again.text
    missing = await client.delete(f"/v1/admin/users/{user['id']}/keys/987654", headers=admin_headers)
    assert missing.status_code == 404 and "987654" in missing.json()["detail"]


async def test_an_email_must_look_like_one(client: Client, admin_headers: dict[str, str]) -> None:
    for bad in ["not an email", "ann@", "@example.org", "ann@example", "a@b@c.org", "x" * 250 + "@ex.org"]:
        answer = await client.post("/v1/admin/users", json={"name": "ann", "email": bad}, headers=admin_headers)
        assert answer.status_code == 400, bad
        assert answer.json()["extra"][0]["key"] == "email", answer.text
    good = await client.post("/v1/admin/users", json={"name": "ann", "email": "ann@example.org"}, headers=admin_headers)
    assert good.status_code == 201 and good.json()["email"] == "ann@example.org"


def test_the_cli_lists_users_and_keys_of_a_stopped_service(settings: Settings, tmp_path: Path) -> None:
    env = {"DATABASE_URL": settings.database.url or "", "LOCI_DATA_DIR": str(tmp_path)}
    runner = CliRunner()

    def loci(*args: str) -> str:
        result = runner.invoke(main, list(args), env=env, catch_exceptions=False)
        assert result.exit_code == 0, result.output
        return result.stdout  # without the migration's log lines

    created = loci("users", "create", "cli-lister", "--email", "cli@example.org")
    user_id = int(re.search(r"user (\d+) created", created).group(1))  # type: ignore[union-attr]
    listed = loci("users", "list", "--after", str(user_id - 1), "--limit", "1")
    header, row = listed.splitlines()
    assert header.split() == ["id", "name", "email", "created"]
    assert row.split()[:3] == [str(user_id), "cli-lister", "cli@example.org"]
    assert "no users after id" in loci("users", "list", "--after", str(user_id + 10**6))

    keys = loci("keys", "list", str(user_id)).splitlines()
    assert keys[0].split()[:3] == ["id", "name", "prefix"] and len(keys) == 2  # the key `users create` issued
    key_id = keys[1].split()[0]
    loci("keys", "revoke", str(user_id), key_id)
    assert loci("keys", "list", str(user_id)).splitlines()[1].split()[-1] != "-"  # revoked: a time
    again = runner.invoke(main, ["keys", "revoke", str(user_id), key_id], env=env)
    assert again.exit_code == 2 and "already revoked" in again.output, again.output
    for args, field in [(["--limit", "0"], "limit"), (["--after", str(2**63)], "after")]:
        bad = runner.invoke(main, ["users", "list", *args], env=env)
        assert bad.exit_code == 2 and field in bad.output, bad.output


async def test_the_cli_writes_times_as_the_api_does_and_names_a_key_s_agent(
    client: Client, admin_headers: dict[str, str], settings: Settings, tmp_path: Path
) -> None:
    """A stopped service's listings printed ``2026-11-28 22:59:34+00:00``, a running one's (the admin
    API's) ``2026-11-28T22:59:34Z``; and `users create --agent` printed a key without its agent."""
    env = {"DATABASE_URL": settings.database.url or "", "LOCI_DATA_DIR": str(tmp_path)}

    async def loci(*args: str) -> str:
        result = await asyncio.to_thread(CliRunner().invoke, main, list(args), env=env, catch_exceptions=False)
        assert result.exit_code == 0, result.output
        return result.stdout

    created = await loci("users", "create", "cli-agent", "--agent", "helper")
    user_id = int(re.search(r"user (\d+) created", created).group(1))  # type: ignore[union-attr]
    assert re.search(r"^api key for agent helper \(shown once\b.*\): loci_\S+$", created, re.M), created
    (key,) = (await client.get(f"/v1/admin/users/{user_id}/keys", headers=admin_headers)).json()
    assert key["agent_id"] == "helper" and key["created_at"].endswith("Z"), key
    assert key["created_at"] in (await loci("keys", "list", str(user_id))).splitlines()[1].split()
    users = await client.get("/v1/admin/users", params={"after": user_id - 1, "limit": 1}, headers=admin_headers)
    listed = (await loci("users", "list", "--after", str(user_id - 1), "--limit", "1")).splitlines()[1]
    assert listed.split()[-1] == users.json()[0]["created_at"], listed


async def test_a_name_cannot_split_its_row_or_reverse_the_terminal_s_line(
    client: Client, admin_headers: dict[str, str], settings: Settings, tmp_path: Path
) -> None:
    """The admin API takes a name with a line break and a bidi override; `loci users list` printed
    it raw: the row split in two and the rest of the line showed backwards."""
    name = "mallory\u202e evil\nid  name  email\r\n\u2028x\x85y"
    made = await client.post("/v1/admin/users", json={"name": name}, headers=admin_headers)
    assert made.status_code == 201, made.text
    user_id = made.json()["id"]
    env = {"DATABASE_URL": settings.database.url or "", "LOCI_DATA_DIR": str(tmp_path)}
    args = ["users", "list", "--after", str(user_id - 1), "--limit", "1"]
    result = await asyncio.to_thread(CliRunner().invoke, main, args, env=env, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    _header, row = result.stdout.splitlines()  # one row, however many line breaks the name holds
    assert row.split()[:8] == [str(user_id), "mallory", "evil", "id", "name", "email", "x", "y"], row
    assert not any(c in row for c in "\u202e\r\x85\u2028")
