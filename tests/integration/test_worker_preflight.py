"""`loci worker` and `loci serve` check what they connect to before working, as an operator meets it.

Before: `loci worker` checked nothing. A DATABASE_URL naming a database that does not exist,
or a REDIS_URL that does not answer, left it loading its model and then retrying (or failing)
forever, where `loci serve` said one line and exited 2. A LOCI_DB_APP_ROLE naming no role
(the role every connection switches to for row-level security) started both commands, and then
every request answered 400 or 5xx. Each is now one line naming the variable, exit status 2.
"""

from __future__ import annotations

import functools
import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from urllib.parse import parse_qs, quote, urlsplit

import psycopg
import pytest

from loci import migrate, preflight
from loci.errors import ConfigurationError
from loci.preflight import Unreachable, check_app_role, wait_until_reachable
from loci.runtime import ServiceUrls
from tests.conftest import database_url
from tests.integration.test_serve_cli import LOCI, ROOT, free_port, start, stop

NO_ROLE = "loci_nosuch"
SERVICE_URLS = {"DATABASE_URL", "REDIS_URL"}
TIMEOUT_S = 120
"""Far more than a refusal takes (it comes before the model loads); a worker that starts instead never exits."""


def clean_env(**env: str) -> dict[str, str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("LOCI_") and k not in SERVICE_URLS}
    return {**clean, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(ROOT), **env}


def worker(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """`loci worker` run as a person runs it, with ``env`` on top of a clean environment."""
    try:
        return subprocess.run(
            [*LOCI, "worker", *args], env=clean_env(**env), capture_output=True, text=True, timeout=TIMEOUT_S
        )
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"`loci worker` started instead of refusing: {str(e.stderr or '')[-2000:]}")


def refusal(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 2, result.stderr[-2000:]
    assert "Traceback" not in result.stderr, result.stderr[-2000:]
    (line,) = result.stderr.strip().splitlines()
    return line


def test_worker_refuses_a_database_or_queue_it_cannot_use(migrated_url: str, service_urls: ServiceUrls) -> None:
    missing = database_url(migrated_url, "loci_no_such_database")
    said = refusal(worker(DATABASE_URL=missing, REDIS_URL=service_urls.redis_url))
    assert said.startswith("loci: error: cannot connect to DATABASE_URL (") and "does not exist" in said, said

    closed = f"redis://127.0.0.1:{free_port()}/0"  # waited for (below), but not with --wait 0
    said = refusal(worker("--wait", "0", DATABASE_URL=migrated_url, REDIS_URL=closed))
    assert said.startswith(f"loci: error: cannot reach REDIS_URL ({closed}): "), said


def test_worker_waits_for_a_queue_that_does_not_answer_then_gives_up(
    migrated_url: str, service_urls: ServiceUrls
) -> None:
    """Refused is what a restarting Valkey answers: each try is one line, and the last error ends it."""
    closed = f"redis://127.0.0.1:{free_port()}/0"
    result = worker("--wait", "2", DATABASE_URL=migrated_url, REDIS_URL=closed)
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr[-2000:]
    *waits, last = result.stderr.strip().splitlines()
    assert waits and all(w.startswith(f"loci: waiting: cannot reach REDIS_URL ({closed}): ") for w in waits), waits
    assert last.startswith(f"loci: error: cannot reach REDIS_URL ({closed}): "), last


def test_worker_started_before_its_database_starts_once_it_answers(
    fresh_database: Callable[[str], str], service_urls: ServiceUrls, tmp_path: Path
) -> None:
    """The database's socket appears only after the worker's first try, as a PostgreSQL started
    after the worker (``docker compose up``) or restarting under it: the worker waits, then runs
    (``--burst``: until its own empty queue is drained) and exits 0, where it exited 2 at once."""
    url = fresh_database("loci_late_worker")
    migrate.upgrade(url)
    real = Path(parse_qs(urlsplit(url).query)["host"][0])
    late = tmp_path / "late-socket"
    late.mkdir()
    late_url = url.replace(f"host={quote(str(real), safe='/')}", f"host={quote(str(late), safe='/')}")
    assert late_url != url
    queue = urlsplit(service_urls.redis_url)._replace(path="/13").geturl()  # its own queue, drained at once
    proc = subprocess.Popen(
        [*LOCI, "worker", "--burst"],
        env=clean_env(DATABASE_URL=late_url, REDIS_URL=queue),
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert proc.stderr is not None
        first = proc.stderr.readline()
        assert first.startswith("loci: waiting: cannot connect to DATABASE_URL ("), first
        for socket_file in real.glob(".s.PGSQL.*"):
            if not socket_file.name.endswith(".lock"):
                (late / socket_file.name).symlink_to(socket_file)
        rest = proc.stderr.read()
        assert proc.wait(timeout=TIMEOUT_S) == 0, first + rest[-3000:]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_worker_refuses_an_app_role_that_does_not_exist(migrated_url: str, service_urls: ServiceUrls) -> None:
    result = worker(DATABASE_URL=migrated_url, REDIS_URL=service_urls.redis_url, LOCI_DB_APP_ROLE=NO_ROLE)
    said = refusal(result)
    assert said.startswith(f"loci: error: invalid setting LOCI_DB_APP_ROLE: no role {NO_ROLE!r} on DATABASE_URL ("), (
        said
    )


def test_serve_refuses_an_app_role_that_does_not_exist(
    migrated_url: str, service_urls: ServiceUrls, tmp_path: Path
) -> None:
    os.chmod(tmp_path, 0o755)
    data_dir, port = tmp_path / "loci-data", free_port()
    proc = start(data_dir, port, DATABASE_URL=migrated_url, REDIS_URL=service_urls.redis_url, LOCI_DB_APP_ROLE=NO_ROLE)
    try:
        status = proc.wait(timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        stop(proc)
        pytest.fail("`loci serve` started with a LOCI_DB_APP_ROLE that names no role")
    said = (tmp_path / f"serve-{port}.log").read_text()
    assert status == 2 and "Traceback" not in said and "Loci ready" not in said, said[-2000:]
    assert (
        said.strip()
        .splitlines()[-1]
        .startswith(f"loci: error: invalid setting LOCI_DB_APP_ROLE: no role {NO_ROLE!r} on DATABASE_URL (")
    ), said[-2000:]


def test_an_app_role_the_user_may_not_assume_is_named(migrated_url: str) -> None:
    """A role that exists but that DATABASE_URL's user may not switch to failed every request too."""
    plain = "loci_h2_plain"
    with psycopg.connect(migrated_url, autocommit=True) as conn:
        conn.execute(f"DROP ROLE IF EXISTS {plain}")
        conn.execute(f"CREATE ROLE {plain} LOGIN")
    try:
        with pytest.raises(ConfigurationError) as refused:
            check_app_role(migrated_url.replace("postgres@", f"{plain}@", 1), "loci_app")
        said = str(refused.value)
        # the setting is the default: it is not what is wrong, and "unset it" would change nothing
        assert said.startswith(f"the user of DATABASE_URL (postgresql://{plain}@"), said
        assert "may not SET ROLE 'loci_app'; grant it" in said and "LOCI_DB_APP_ROLE" not in said, said
        with pytest.raises(ConfigurationError) as refused:
            check_app_role(migrated_url.replace("postgres@", f"{plain}@", 1), "pg_monitor")
        said = str(refused.value)
        assert said.startswith("invalid setting LOCI_DB_APP_ROLE: the user of DATABASE_URL (postgresql://"), said
        assert "unset LOCI_DB_APP_ROLE to use loci_app" in said, said
        check_app_role(migrated_url, "loci_app")  # the migrations' role, assumed by their user: no refusal
    finally:
        with psycopg.connect(migrated_url, autocommit=True) as conn:
            conn.execute(f"DROP ROLE IF EXISTS {plain}")


def test_the_default_role_missing_says_to_migrate(migrated_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A database no migration has reached lacks the default role: the line said to unset
    LOCI_DB_APP_ROLE "to use loci_app", which it already was. (This server's ``loci_app``
    exists, made by the session's migrations, so a missing default is played by another name.)"""
    with pytest.raises(ConfigurationError) as refused:
        check_app_role(migrated_url, NO_ROLE)
    said = str(refused.value)
    assert said.startswith("invalid setting LOCI_DB_APP_ROLE: ") and "unset it to use loci_app" in said, said
    monkeypatch.setattr(preflight, "APP_ROLE", NO_ROLE)
    with pytest.raises(ConfigurationError) as refused:
        check_app_role(migrated_url, NO_ROLE)
    said = str(refused.value)
    assert said.startswith(f"no role {NO_ROLE!r} on DATABASE_URL (postgresql://postgres@"), said
    assert "the first migration creates it" in said and "`loci db upgrade`" in said, said
    assert "unset" not in said and "LOCI_DB_APP_ROLE" not in said, said


def test_the_default_role_a_migration_is_still_creating_is_waited_for(
    migrated_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under compose a worker can start on a fresh database while `serve` (or `loci db
    upgrade`) still runs the first migration, which creates ``loci_app``: the worker exited 2
    at once. The default role missing is now waited for; another missing role is a setting
    no wait mends. (``loci_app`` exists here, so the default is played by another name; the
    fake sleep is the migration finishing.)"""
    said: list[str] = []

    def migration_finishes(seconds: float) -> None:
        with psycopg.connect(migrated_url, autocommit=True) as conn:
            conn.execute(f"CREATE ROLE {NO_ROLE} NOLOGIN")

    not_default = functools.partial(check_app_role, migrated_url, NO_ROLE)
    with pytest.raises(ConfigurationError) as refused:
        wait_until_reachable([not_default], said.append, sleep=migration_finishes, clock=lambda: 0.0)
    assert not isinstance(refused.value, Unreachable) and said == []  # a typo in LOCI_DB_APP_ROLE: at once
    monkeypatch.setattr(preflight, "APP_ROLE", NO_ROLE)
    try:
        wait_until_reachable([not_default], said.append, sleep=migration_finishes, clock=lambda: 0.0)
    finally:
        with psycopg.connect(migrated_url, autocommit=True) as conn:
            conn.execute(f"DROP ROLE IF EXISTS {NO_ROLE}")
    assert len(said) == 1 and said[0].startswith(f"no role {NO_ROLE!r} on DATABASE_URL ("), said
    assert "; trying again in 1s" in said[0], said
