"""compose.yaml declares the services and variables the code actually reads."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from loci.settings import load_settings

ROOT = Path(__file__).resolve().parents[2]


def test_compose_services_and_variables() -> None:
    compose = yaml.safe_load((ROOT / "compose.yaml").read_text())
    services = compose["services"]
    assert {"postgres", "redis", "api", "worker", "migrate"} <= set(services)
    assert "pgvector" in services["postgres"]["image"]
    for name in ("postgres", "redis", "api", "worker"):
        assert "healthcheck" in services[name], name
    assert any("pgdata" in v for v in services["postgres"]["volumes"])
    api_env = services["api"]["environment"]
    assert api_env["DATABASE_URL"].startswith("postgresql://")
    assert api_env["REDIS_URL"].startswith("redis://")
    assert "LOCI_ADMIN_KEY" in api_env
    assert services["worker"]["command"][:2] == ["loci", "worker"]
    for name in ("api", "worker"):  # long-running: a worker that gave up waiting for its database comes back
        assert services[name].get("restart") == "unless-stopped", name
    assert "--no-worker" in services["api"]["command"]


def _expand(value: str) -> str:
    """Compose-style ${VAR:-default} / ${VAR:?msg} with nothing set: default or a stand-in."""
    value = re.sub(r"\$\{\w+:-([^}]*)\}", r"\1", value)
    return re.sub(r"\$\{\w+:\?[^}]*\}", "x" * 32, value)


def test_compose_variables_are_ones_settings_read(monkeypatch: pytest.MonkeyPatch) -> None:
    compose = yaml.safe_load((ROOT / "compose.yaml").read_text())
    env = {k: _expand(str(v)) for k, v in compose["services"]["api"]["environment"].items()}
    for key, value in env.items():
        if value:
            monkeypatch.setenv(key, value)
    settings = load_settings()
    assert settings.database.url == "postgresql://loci:loci@postgres:5432/loci"
    assert settings.queue.url == env["REDIS_URL"]
    assert settings.server.admin_key == "x" * 32
