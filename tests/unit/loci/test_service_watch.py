"""`ServiceWatch` with stand-in servers: it gives up with one line that `serve` exits 2 with,
starts a dead server again, and starts nothing once a stop has begun; a check that raises (a
full disk) neither ends the watch silently nor leaves a temp file beside the record."""

from __future__ import annotations

import errno
import os
import subprocess
import threading
from pathlib import Path
from typing import cast

import click
import pytest
from click.testing import CliRunner

from loci.ownership import SERVICES_FILE, read_record, write_record
from loci.runtime import EmbeddedServices
from loci.service_watch import ServiceWatch, Watched, _Record, collector_log
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


def test_why_a_server_stopped_is_read_where_it_logs_once_running(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """PostgreSQL's collector writes a running server's lines (a PANIC) to a file of the day, not to
    the file its start-up writes to: the warning quotes the former."""
    (tmp_path / "pg_log").mkdir()
    (tmp_path / "pg_log" / "postgresql-Mon.log").write_text(
        "PANIC:  could not write to file: No space left on device\n"
    )
    (tmp_path / "current_logfiles").write_text("stderr pg_log/postgresql-Mon.log\n")
    start_log = tmp_path / "log"
    start_log.write_text("LOG:  redirecting log output to logging collector process\n")
    server = StandIn(start_log, fails=0)
    watch = ServiceWatch(attempts=3, **QUICK)
    watch.watch(
        [Watched("PostgreSQL", server.ended, server.restart, start_log, lambda: collector_log(tmp_path, start_log))]
    )
    with caplog.at_level("WARNING", logger="loci.runtime"), watch.running(lambda: None):
        for _ in range(3000):
            if server.alive:
                break
            threading.Event().wait(0.01)
    stopped = [r.getMessage() for r in caplog.records if "stopped unexpectedly" in r.getMessage()]
    assert len(stopped) == 1 and "PANIC:  could not write to file" in stopped[0], stopped
    assert "postgresql-Mon.log" in stopped[0] and "redirecting" not in stopped[0]


def test_the_collectors_file_is_the_one_current_logfiles_names(tmp_path: Path) -> None:
    start_log = tmp_path / "log"
    assert collector_log(tmp_path, start_log) == start_log  # no collector (yet): the start-up file
    (tmp_path / "current_logfiles").write_text("stderr pg_log/postgresql-Tue.log\n")
    assert collector_log(tmp_path, start_log) == tmp_path / "pg_log" / "postgresql-Tue.log"


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


class FlakyCheck:
    """A server whose checks raise (as `_postgres`'s did when services.json could not be
    written: ENOSPC) ``raises`` times, then report it dead until it is started again."""

    def __init__(self, raises: int) -> None:
        self.raises, self.checks, self.tries, self.alive = raises, 0, 0, False

    def ended(self) -> str | None:
        self.checks += 1
        if self.checks <= self.raises:
            raise OSError(errno.ENOSPC, "No space left on device", "/data/services.json")
        return None if self.alive else "postmaster pid 4242 is gone"

    def restart(self) -> None:
        self.tries += 1
        self.alive = True


def test_a_check_that_raises_does_not_end_the_watch(tmp_path: Path) -> None:
    server = FlakyCheck(raises=2)
    watch = ServiceWatch(attempts=5, **QUICK)
    watch.watch([Watched("PostgreSQL", server.ended, server.restart, tmp_path / "log")])
    with watch.running(lambda: None):
        for _ in range(3000):
            if server.alive:
                break
            threading.Event().wait(0.01)
    assert server.alive and watch.restarts == 1 and watch.lost is None, "the death after the failed checks was missed"


def test_checks_that_keep_raising_end_serve_with_one_line(tmp_path: Path) -> None:
    server = FlakyCheck(raises=10**6)
    watch = ServiceWatch(attempts=3, **QUICK)
    watch.watch([Watched("PostgreSQL", server.ended, server.restart, tmp_path / "log")])
    gave_up = threading.Event()
    with watch.running(gave_up.set):
        assert gave_up.wait(30), "the watch never gave up"
    assert server.checks == 3 and server.tries == 0
    assert watch.lost is not None and watch.lost.startswith(
        "the embedded PostgreSQL could not be checked in 3 attempts"
    )
    assert "No space left on device" in watch.lost and "exiting so that a supervisor restarts Loci" in watch.lost


class Disk:
    """`EmbeddedServices._record` on a disk that is full until ``freed``."""

    def __init__(self) -> None:
        self.full, self.written = True, 0

    def _record(self) -> None:
        if self.full:
            raise OSError(errno.ENOSPC, "No space left on device")
        self.written += 1


def test_the_servers_record_is_written_best_effort_and_again_once_there_is_room() -> None:
    disk = Disk()
    record = _Record(cast(EmbeddedServices, disk))
    record.write()  # no error: a server that runs is not reported dead for its record
    record.again()
    assert record.stale and disk.written == 0
    disk.full = False
    record.again()
    record.again()
    assert not record.stale and disk.written == 1


def test_a_record_that_cannot_be_written_leaves_no_temp_file(tmp_path: Path) -> None:
    write_record(tmp_path, SERVICES_FILE, {"postgres": {"pid": 1}})
    with pytest.raises(TypeError):
        write_record(tmp_path, SERVICES_FILE, {"postgres": object()})  # fails inside json.dump, as ENOSPC does
    assert sorted(p.name for p in tmp_path.iterdir()) == [SERVICES_FILE]
    assert read_record(tmp_path, SERVICES_FILE) == {"pid": os.getpid(), "postgres": {"pid": 1}}
