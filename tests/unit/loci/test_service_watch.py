"""`ServiceWatch` with stand-in servers: it gives up with one line that `serve` exits 2 with,
starts a dead server again, and starts nothing once a stop has begun."""

from __future__ import annotations

import subprocess
import threading
from pathlib import Path

import click
from click.testing import CliRunner

from loci.service_watch import ServiceWatch, Watched
from service.cli_errors import friendly_errors

QUICK = {"wait_s": 0.01, "poll_s": 0.01, "settle_s": 0.01}
"""Waits short enough for a unit test; the logic under test is the same at any length."""


class StandIn:
    """A server that died (``alive`` False) and whose first ``fails`` restarts fail."""

    def __init__(self, log: Path, fails: int) -> None:
        self.log, self.fails, self.tries, self.alive = log, fails, 0, False

    def ended(self) -> str | None:
        return None if self.alive else "postmaster pid 4242 is gone"

    def restart(self) -> None:
        self.tries += 1
        if self.tries <= self.fails:
            with self.log.open("a") as log:  # as a PostgreSQL that cannot start says why
                log.write('FATAL:  could not write lock file "postmaster.pid": No space left on device\n')
            raise subprocess.CalledProcessError(1, ["/opt/pg/bin/pg_ctl", "-D", "/data", "start"])
        self.alive = True

    def watched(self) -> Watched:
        return Watched("PostgreSQL", self.ended, self.restart, self.log)


def test_a_server_that_will_not_start_again_ends_serve_with_one_line_and_status_2(tmp_path: Path) -> None:
    log = tmp_path / "log"
    log.write_text("FATAL:  terminating connection due to unexpected postmaster exit\n")  # from before: not the reason
    server = StandIn(log, fails=99)
    watch = ServiceWatch(attempts=3, **QUICK)
    watch.watch([server.watched()])
    gave_up = threading.Event()

    @click.command()
    @friendly_errors
    def serve() -> None:  # as `loci serve` does: serve until told to stop, then say why
        with watch.running(gave_up.set):
            assert gave_up.wait(30), "the watch never gave up"
        watch.raise_if_lost()

    result = CliRunner().invoke(serve)
    assert server.tries == 3
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.startswith("loci: error:")]  # not log records
    assert len(lines) == 1 and lines[0].startswith("loci: error: the embedded PostgreSQL stopped"), result.output
    assert "did not start again in 3 attempts" in lines[0] and "No space left on device" in lines[0]
    assert str(log) in lines[0] and "pg_ctl start exited with status 1" in lines[0] and "/opt/pg" not in lines[0]
    assert "unexpected postmaster exit" not in lines[0]


def test_a_dead_server_is_started_again_after_failed_tries(tmp_path: Path) -> None:
    server = StandIn(tmp_path / "log", fails=2)
    watch = ServiceWatch(attempts=5, **QUICK)
    watch.watch([server.watched()])
    with watch.running(lambda: None):
        for _ in range(3000):
            if server.alive:
                break
            threading.Event().wait(0.01)
    assert server.alive and server.tries == 3 and watch.restarts == 1 and watch.lost is None


def test_nothing_is_started_again_once_a_stop_began(tmp_path: Path) -> None:
    """A Ctrl-C reaches the embedded Valkey too: its death during a stop is not a crash."""
    server = StandIn(tmp_path / "log", fails=0)
    seen = threading.Event()

    def ended() -> str | None:
        seen.set()
        return server.ended()

    watch = ServiceWatch(poll_s=0.01, settle_s=30)
    watch.watch([Watched("Valkey", ended, server.restart, server.log)])
    with watch.running(lambda: None):
        assert seen.wait(30)
        watch.stop()  # what `serve`'s signal handler does first
    assert server.tries == 0 and watch.restarts == 0 and watch.lost is None
