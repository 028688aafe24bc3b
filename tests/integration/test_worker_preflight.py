"""`loci worker` and `loci serve` check what they connect to before working, as an operator meets it.

Before: `loci worker` checked nothing. A DATABASE_URL naming a database that does not exist,
or a REDIS_URL that does not answer, left it loading its model and then retrying (or failing)
forever, where `loci serve` said one line and exited 2. A LOCI_DB_APP_ROLE naming no role
(the role every connection switches to for row-level security) started both commands, and then
every request answered 400 or 5xx. Each is now one line naming the variable, exit status 2.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import psycopg
import pytest

from loci.errors import ConfigurationError
from loci.preflight import check_app_role
from loci.runtime import ServiceUrls
from tests.conftest import database_url
from tests.integration.test_serve_cli import LOCI, ROOT, free_port, start, stop

NO_ROLE = "loci_nosuch"
SERVICE_URLS = {"DATABASE_URL", "REDIS_URL"}
TIMEOUT_S = 120
"""Far more than a refusal takes (it comes before the model loads); a worker that starts instead never exits."""


def worker(**env: str) -> subprocess.CompletedProcess[str]:
    """`loci worker` run as a person runs it, with ``env`` on top of a clean environment."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("LOCI_") and k not in SERVICE_URLS}
    clean.update({"HF_HUB_OFFLINE": "1", "PYTHONPATH": str(ROOT), **env})
    try:
        return subprocess.run([*LOCI, "worker"], env=clean, capture_output=True, text=True, timeout=TIMEOUT_S)
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

    closed = f"redis://127.0.0.1:{free_port()}/0"
    said = refusal(worker(DATABASE_URL=migrated_url, REDIS_URL=closed))
    assert said.startswith(f"loci: error: cannot reach REDIS_URL ({closed}): "), said


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
        assert said.startswith(f"invalid setting LOCI_DB_APP_ROLE: the user of DATABASE_URL (postgresql://{plain}@"), (
            said
        )
        assert "may not SET ROLE 'loci_app'" in said, said
        check_app_role(migrated_url, "loci_app")  # the migrations' role, assumed by their user: no refusal
    finally:
        with psycopg.connect(migrated_url, autocommit=True) as conn:
            conn.execute(f"DROP ROLE IF EXISTS {plain}")
