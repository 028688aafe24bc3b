"""`loci db` names a revision alembic cannot find in one line and exits 2.

Why: `loci db downgrade nosuch` (or `upgrade`) ended in alembic's CommandError traceback, where
every other `loci` command prints `loci: error: ...` and exits 2.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from service.cli import main


def test_an_unknown_revision_is_one_line(migrated_url: str, tmp_path: Path) -> None:
    # resolving the revision fails before anything is changed
    env = {"DATABASE_URL": migrated_url, "LOCI_DATA_DIR": str(tmp_path)}
    for command in ("upgrade", "downgrade"):
        result = CliRunner().invoke(main, ["db", command, "nosuch"], env=env)
        assert result.exit_code == 2, result.output
        assert "loci: error: alembic: Can't locate revision identified by 'nosuch'" in result.output
        assert result.exception is None or isinstance(result.exception, SystemExit)
    current = CliRunner().invoke(main, ["db", "current"], env=env, catch_exceptions=False)
    assert current.exit_code == 0 and current.stdout.strip(), current.output  # still at its revision


@pytest.mark.parametrize("command", ["current", "downgrade"])
def test_a_data_dir_without_a_database_is_named_and_left_as_it_was(tmp_path: Path, command: str) -> None:
    """`loci db current` used to start an embedded PostgreSQL there (initdb, a database) to
    read its revision; `downgrade` did the same before finding nothing to step back."""
    empty, missing = tmp_path / "empty", tmp_path / "missing"
    empty.mkdir()
    for data_dir in (empty, missing):
        env = {"DATABASE_URL": None, "LOCI_DATABASE_URL": None, "LOCI_DATA_DIR": str(data_dir)}
        result = CliRunner().invoke(main, ["db", command], env=env)
        assert result.exit_code == 2, result.output
        assert result.stderr.splitlines() == [
            f"loci: error: no Loci database in {data_dir} (`loci db upgrade` or `loci serve` makes one); "
            "pass the server's data dir with --data-dir (or LOCI_DATA_DIR), or DATABASE_URL"
        ]
    assert list(empty.iterdir()) == [] and not missing.exists()
