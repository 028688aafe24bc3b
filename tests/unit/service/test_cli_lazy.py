"""`loci --help` stays fast: the bench (matplotlib) and the heavy libraries load only when used."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from service.cli import main

ROOT = Path(__file__).resolve().parents[3]
HEAVY = ("bench.cli", "matplotlib", "sqlalchemy", "pydantic_settings", "litestar", "torch", "alembic")


def test_help_imports_nothing_heavy() -> None:
    code = (
        "import sys\nfrom service.cli import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        f"print('loaded:' + ','.join(m for m in {HEAVY!r} if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert "bench" in done.stdout and "serve" in done.stdout  # bench is listed, by its stored summary
    assert done.stdout.rstrip().splitlines()[-1] == "loaded:", done.stdout


def test_bench_help_loads_the_bench_group() -> None:
    result = CliRunner().invoke(main, ["bench", "--help"])
    assert result.exit_code == 0 and "longmemeval" in result.output


def test_bench_without_matplotlib_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "matplotlib" else real(name, *a))
    result = CliRunner().invoke(main, ["bench", "longmemeval", "download", "--files", "s"])
    assert result.exit_code == 2
    assert result.output.strip() == "error: `loci bench` needs the bench extra: pip install 'loci[bench]'"
