"""What `/healthz` and `/readyz`, which answer without a key, tell whoever reaches the port.

Before: `/readyz` said the PostgreSQL server's version (``"detail": "18.1"``), the embedding
model, the text of a down component's error (hosts, ports, user names) and the workers' job
counts, and every answer carried ``server: uvicorn``. Now the public body is the verdict and
each component's status (what an orchestrator acts on); the details need the admin key.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import psycopg
import pytest

from loci.runtime import ServiceUrls
from tests.integration.test_serve_cli import LOCI, ROOT, free_port, stop

ADMIN_KEY = "loci_admin_public_probes_" + "x" * 16


@pytest.fixture
def served(migrated_url: str, service_urls: ServiceUrls, tmp_path: Path) -> Iterator[str]:
    """A real `loci serve --no-worker` on the session's PostgreSQL and Valkey; its base URL."""
    os.chmod(tmp_path, 0o755)
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("LOCI_")}
    env.update({"DATABASE_URL": migrated_url, "REDIS_URL": service_urls.redis_url, "LOCI_ADMIN_KEY": ADMIN_KEY})
    env.update({"LOCI_DATA_DIR": str(tmp_path / "data"), "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(ROOT)})
    log = tmp_path / "serve.log"
    with log.open("w") as out:
        proc = subprocess.Popen([*LOCI, "serve", "--port", str(port), "--no-worker"], env=env, stdout=out,
                                stderr=subprocess.STDOUT, cwd=tmp_path)  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while "Loci ready at" not in log.read_text():
            assert proc.poll() is None and time.monotonic() < deadline, log.read_text()[-2000:]
            time.sleep(0.2)
        yield f"http://127.0.0.1:{port}"
    finally:
        stop(proc)


def test_public_probes_say_statuses_and_nothing_that_fingerprints(served: str, migrated_url: str) -> None:
    with psycopg.connect(migrated_url) as conn:
        version = str(conn.execute("SHOW server_version").fetchone()[0])  # type: ignore[index]
    healthz = httpx.get(f"{served}/healthz", timeout=10)
    assert healthz.json() == {"status": "ok"}
    ready = httpx.get(f"{served}/readyz", timeout=10)
    body = ready.json()
    assert ready.status_code == 200 and body["status"] == "ready", body
    for name in ("database", "queue", "embedder"):
        assert body["components"][name]["status"] == "ready", body
    assert all("detail" not in c for c in body["components"].values()), body
    said = json.dumps(body)
    assert version not in said and "MiniLM" not in said and "j_complete" not in said, said
    for answer in (healthz, ready):
        assert "server" not in answer.headers, answer.headers

    admin = httpx.get(f"{served}/readyz", headers={"Authorization": f"Bearer {ADMIN_KEY}"}, timeout=10).json()
    assert admin["components"]["database"]["detail"] == version, admin  # the operator still sees it
    wrong = httpx.get(f"{served}/readyz", headers={"Authorization": "Bearer loci_not_the_admin_key"}, timeout=10)
    assert "detail" not in json.dumps(wrong.json()), wrong.text
