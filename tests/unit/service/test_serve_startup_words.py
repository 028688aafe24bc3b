"""`loci serve`'s start-up failures are one line, whatever fails.

A data dir that is a file ended in a FileExistsError traceback; a DATABASE_URL that does not
answer, in psycopg's; a failure inside the app's lifespan (the model, the queue) in uvicorn's,
exit status 3, and asyncio's "Task exception was never retrieved".
"""

from __future__ import annotations

import asyncio
import signal
import socket
from collections.abc import Iterator, MutableMapping
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from loci.errors import ConfigurationError
from service.cli import main
from service.cli_startup import LifespanErrors


@pytest.fixture(autouse=True)
def _keep_sigterm() -> Iterator[None]:
    """`serve` installs its SIGTERM handler first thing; the test process keeps its own."""
    before = signal.getsignal(signal.SIGTERM)
    yield
    signal.signal(signal.SIGTERM, before)


def test_a_data_dir_that_is_a_file_is_one_line(tmp_path: Path) -> None:
    a_file = tmp_path / "afile"
    a_file.write_text("x")
    answer = CliRunner().invoke(main, ["serve", "--port", "0", "--data-dir", str(a_file)])
    assert answer.exit_code == 2, answer.output
    assert answer.stderr.strip().splitlines() == [
        f"loci: error: data dir {a_file} is a file, not a directory; pass another with --data-dir or LOCI_DATA_DIR"
    ]


def test_a_database_url_that_does_not_answer_is_one_line(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {"DATABASE_URL": f"postgresql://loci:pw@127.0.0.1:{port}/loci", "LOCI_DATA_DIR": str(tmp_path)}
    for args in (["db", "current"], ["db", "upgrade"], ["users", "list"]):  # `serve`: tests/integration
        answer = CliRunner().invoke(main, args, env=env)
        assert answer.exit_code == 2, (args, answer.output)
        (line,) = answer.stderr.strip().splitlines()
        assert line.startswith(
            f"loci: error: cannot connect to DATABASE_URL (postgresql://loci:***@127.0.0.1:{port}/loci)"
        )


def test_a_start_up_that_fails_in_the_lifespan_is_kept_and_said_in_one_line() -> None:
    async def app(scope: MutableMapping[str, Any], receive: Any, send: Any) -> None:
        await receive()
        try:  # as Litestar does: the failure is sent from inside the `except`, then raised again
            raise ExceptionGroup("lifespan", [ConfigurationError("invalid setting LOCI_X: bad")])
        except BaseException:
            await send({"type": "lifespan.startup.failed", "message": "Traceback (most recent call last): ..."})
            raise

    sent: list[MutableMapping[str, Any]] = []

    async def receive() -> MutableMapping[str, Any]:
        return {"type": "lifespan.startup"}

    async def send(message: MutableMapping[str, Any]) -> None:
        sent.append(message)

    kept = LifespanErrors(app)
    with pytest.raises(ExceptionGroup):
        asyncio.run(kept({"type": "lifespan"}, receive, send))
    assert kept.reason("http://127.0.0.1:1") == "invalid setting LOCI_X: bad"
    assert sent == [{"type": "lifespan.startup.failed", "message": "start-up failed: invalid setting LOCI_X: bad"}]
