"""A configured DATABASE_URL or REDIS_URL, and the data dir, are checked before use.

`loci serve` against PostgreSQL 15 without pgvector ended in a SQLAlchemy traceback from
alembic's ``CREATE EXTENSION``; a database that does not exist, a wrong host or a refused
port, in psycopg's; an unreachable Redis, in uvicorn's; a data dir that is a file, in a
FileExistsError's. Each is now one line naming the variable, with the password hidden.
"""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from loci.errors import ConfigurationError
from loci.preflight import check_database, check_queue, database_problem, make_data_dir, shown_url


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])  # closed again when the block ends: nothing listens there


def test_the_password_never_shows() -> None:
    assert shown_url("postgresql://loci:s3cret@db:5432/loci") == "postgresql://loci:***@db:5432/loci"
    assert shown_url("redis://:s3cret@cache/0") == "redis://:***@cache/0"
    assert shown_url("postgresql://postgres@/loci?host=/tmp/x") == "postgresql://postgres@/loci?host=/tmp/x"
    # libpq reads a password from the query too, and an IPv6 host keeps its brackets
    said = shown_url("postgresql://u:secret@[::1]:5432/db?password=hunter2&sslmode=require")
    assert said == "postgresql://u:***@[::1]:5432/db?password=***&sslmode=require", said
    # a socket URL keeps its empty host ("postgresql:/loci" was refused by libpq), other
    # parameters keep their spelling
    assert shown_url("postgresql:///loci?host=/var/run/postgresql") == "postgresql:///loci?host=/var/run/postgresql"
    said = shown_url("postgresql://u@h/db?options=-c%20a%3Db&sslpassword=x")
    assert said == "postgresql://u@h/db?options=-c%20a%3Db&sslpassword=***", said


def test_a_postgres_without_pgvector_says_to_install_it_or_use_the_embedded_one() -> None:
    said = database_problem("postgresql://h/db", 150020, "15.20", vector_available=False)
    assert said is not None
    assert said.startswith("DATABASE_URL (postgresql://h/db) is PostgreSQL 15.20 without the pgvector extension")
    assert "postgresql-15-pgvector" in said and "unset DATABASE_URL" in said
    too_old = database_problem("postgresql://h/db", 130011, "13.11", vector_available=True)
    assert too_old is not None and "needs 14 or later" in too_old
    assert database_problem("postgresql://h/db", 180001, "18.1", vector_available=True) is None


def test_a_database_that_does_not_answer_is_one_line_naming_database_url() -> None:
    url = f"postgresql://loci:s3cret@127.0.0.1:{closed_port()}/loci"
    with pytest.raises(ConfigurationError) as refused:
        check_database(url)
    said = str(refused.value)
    assert said.startswith("cannot connect to DATABASE_URL (postgresql://loci:***@127.0.0.1:"), said
    assert "s3cret" not in said and "\n" not in said and "refused" in said.lower()


def test_a_queue_that_does_not_answer_is_one_line_naming_redis_url() -> None:
    with pytest.raises(ConfigurationError) as refused:
        check_queue(f"redis://127.0.0.1:{closed_port()}/0", timeout_s=2)
    assert str(refused.value).startswith("cannot reach REDIS_URL (redis://127.0.0.1:"), refused.value
    with pytest.raises(ConfigurationError) as bad:
        check_queue("cache:6379")
    assert str(bad.value).startswith("invalid setting REDIS_URL: "), bad.value


def test_a_data_dir_that_cannot_be_one_is_named(tmp_path: Path) -> None:
    a_file = tmp_path / "afile"
    a_file.write_text("x")
    with pytest.raises(ConfigurationError, match=r"data dir .*afile is a file, not a directory; pass another"):
        make_data_dir(a_file)
    with pytest.raises(ConfigurationError, match=r"cannot create data dir .*afile/sub \(Not a directory\)"):
        make_data_dir(a_file / "sub")
    assert make_data_dir(tmp_path / "new" / "dir").is_dir()


def test_a_socket_url_reaches_libpq_as_written(monkeypatch: pytest.MonkeyPatch) -> None:
    """``postgresql:///loci?host=/var/run/postgresql`` (a local socket, no host) was re-joined as
    ``postgresql:/loci?…``, which libpq refuses ("invalid connection option"), so start-up
    refused a URL that works; a driver-qualified scheme becomes libpq's own."""
    import psycopg

    handed: list[str] = []

    def connect(conninfo: str, **_: object) -> object:
        handed.append(conninfo)
        raise psycopg.OperationalError("stop here")

    monkeypatch.setattr(psycopg, "connect", connect)
    for url in ("postgresql:///loci?host=/var/run/postgresql", "postgresql+psycopg:///loci?host=/tmp"):
        with pytest.raises(ConfigurationError):
            check_database(url)
    assert handed == ["postgresql:///loci?host=/var/run/postgresql", "postgresql:///loci?host=/tmp"]
