"""The domain layer is callable without HTTP: importing all of it must not pull in `service`."""

from __future__ import annotations

import pkgutil
import subprocess
import sys
from pathlib import Path

import domain

ROOT = Path(__file__).resolve().parents[3]


def test_domain_does_not_import_service() -> None:
    modules = [f"domain.{m.name}" for m in pkgutil.iter_modules(domain.__path__)]
    assert "domain.palace" in modules
    code = (
        f"import sys, importlib; [importlib.import_module(m) for m in {modules!r}]; "
        "print(any(m == 'service' or m.startswith('service.') for m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )
    assert done.stdout.strip() == "False"
