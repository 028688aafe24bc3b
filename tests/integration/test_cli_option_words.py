"""A `loci` command's refusal names the option the person typed, not the API's field.

`loci users list --limit 0` answered ``loci: error: limit must be 1-1000`` and `loci keys
create 1 --agent "my bot"` ``agent_id must be …``: the API's names, which the person never
typed (``agent_id`` is not an option at all). Both ways the CLI reaches the accounts (the
stopped service's database, a running service's admin API) now say ``--limit``/``--agent``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from loci.embedder import Embedder
from loci.ownership import SERVER_FILE, write_record
from loci.settings import Settings
from service.cli import main
from tests.live_server import live_server

REFUSED = [
    (["users", "list", "--limit", "0"], "--limit"),
    (["users", "list", "--after", "-1"], "--after"),
    (["users", "create", "cli-words", "--agent", "my bot"], "--agent"),
    (["keys", "create", "{user}", "--agent", "my bot"], "--agent"),
    (["keys", "create", "{user}", "--name", ""], "--name"),
]


@pytest.fixture(scope="module")
def base_url(settings: Settings, embedder: Embedder) -> Iterator[str]:
    with live_server(settings, embedder) as url:
        yield url


def _refusals(env: dict[str, str]) -> None:
    runner = CliRunner()
    made = runner.invoke(main, ["users", "create", "cli-words", "--no-key"], env=env, catch_exceptions=False)
    assert made.exit_code == 0, made.output
    user = re.search(r"user (\d+) created", made.stdout).group(1)  # type: ignore[union-attr]
    for args, option in REFUSED:
        bad = runner.invoke(main, [a.format(user=user) for a in args], env=env)
        assert bad.exit_code == 2, bad.output
        line = bad.stderr.strip().splitlines()[-1]
        assert line.startswith(f"loci: error: {option}"), (args, line)
        assert "agent_id" not in line, line


def test_a_stopped_service_s_refusal_names_the_option(settings: Settings, tmp_path: Path) -> None:
    _refusals({"DATABASE_URL": settings.database.url or "", "LOCI_DATA_DIR": str(tmp_path)})


def test_a_running_service_s_refusal_names_the_option(base_url: str, settings: Settings, tmp_path: Path) -> None:
    write_record(tmp_path, SERVER_FILE, {"url": base_url})  # as `loci serve` does: the CLI uses its admin API
    _refusals({"LOCI_DATA_DIR": str(tmp_path), "LOCI_ADMIN_KEY": settings.server.admin_key or ""})
