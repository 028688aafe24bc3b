"""`loci db current` beside a running `loci serve` reads the server's database.

It was refused ("another Loci process (pid …) is using data dir …; stop it first or pass
--data-dir", though --data-dir was passed), as `upgrade` and `downgrade` are: reading the
revision changes nothing, and the running server's PostgreSQL is there to read, as
`loci mcp` and `loci memories sweep` read it. The serve-like owner here is this process:
it holds the data dir's lock and writes the records `loci serve` writes.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from click.testing import CliRunner

from loci import migrate
from loci.ownership import SERVER_FILE, SERVICES_FILE, write_record
from service.cli import main


def test_current_reads_the_running_server_s_database(migrated_url: str, tmp_path: Path) -> None:
    pid = os.getpid()
    with (tmp_path / "loci.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        lock.write(str(pid))
        lock.flush()
        write_record(tmp_path, SERVICES_FILE, {"postgres": {"pid": pid, "url": migrated_url}, "valkey": {}})
        write_record(tmp_path, SERVER_FILE, {"url": "http://127.0.0.1:9"})
        env = {"DATABASE_URL": None, "LOCI_DATABASE_URL": None, "LOCI_DATA_DIR": str(tmp_path)}
        result = CliRunner().invoke(main, ["db", "current"], env=env)
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == migrate.current(migrated_url)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["loci.lock", SERVER_FILE, SERVICES_FILE]  # nothing started
