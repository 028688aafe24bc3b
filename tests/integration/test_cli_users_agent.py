"""`loci users create NAME --agent …` refuses a bad ``--agent`` before it creates anyone.

The agent was checked only when the key was issued, after the user was made: `loci users
create carl --agent ""` printed ``user 4 created: carl`` and then an error, exit 2, leaving
a user with no key (and a second "carl" when the person ran it again with the agent fixed).
With ``--no-key`` the agent was ignored without a word. Both ways the CLI reaches the
accounts (a stopped service's database, a running service's admin API) are checked.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from click.testing import CliRunner

from loci.embedder import Embedder
from loci.ownership import SERVER_FILE, write_record
from loci.settings import Settings
from service.cli import main
from tests.live_server import live_server


@pytest.fixture(scope="module")
def base_url(settings: Settings, embedder: Embedder) -> Iterator[str]:
    with live_server(settings, embedder) as url:
        yield url


def _users_named(url: str, name: str) -> int:
    with psycopg.connect(url) as conn:
        row = conn.execute("SELECT count(*) FROM users WHERE name = %s", (name,)).fetchone()
    return int(row[0]) if row else 0


def _refused_before_creating(url: str, env: dict[str, str]) -> None:
    runner = CliRunner()
    name = f"agent-first-{secrets.token_hex(4)}"
    for agent in ("", "my bot"):
        bad = runner.invoke(main, ["users", "create", name, "--agent", agent], env=env)
        assert bad.exit_code == 2, bad.output
        assert bad.stderr.strip().splitlines()[-1].startswith("loci: error: --agent"), bad.stderr
        assert "created" not in bad.stdout, bad.stdout
    both = runner.invoke(main, ["users", "create", name, "--no-key", "--agent", "support-bot"], env=env)
    assert both.exit_code == 2 and "--no-key" in both.stderr and "--agent" in both.stderr, both.output
    assert _users_named(url, name) == 0
    made = runner.invoke(main, ["users", "create", name, "--agent", "support-bot"], env=env, catch_exceptions=False)
    assert made.exit_code == 0 and "api key for agent support-bot" in made.stdout, made.output
    assert _users_named(url, name) == 1


def test_a_stopped_service_creates_no_user_for_a_bad_agent(settings: Settings, tmp_path: Path) -> None:
    url = settings.database.url or ""
    _refused_before_creating(url, {"DATABASE_URL": url, "LOCI_DATA_DIR": str(tmp_path)})


def test_a_running_service_creates_no_user_for_a_bad_agent(base_url: str, settings: Settings, tmp_path: Path) -> None:
    write_record(tmp_path, SERVER_FILE, {"url": base_url})  # as `loci serve` does: the CLI uses its admin API
    env = {"LOCI_DATA_DIR": str(tmp_path), "LOCI_ADMIN_KEY": settings.server.admin_key or ""}
    _refused_before_creating(settings.database.url or "", env)
