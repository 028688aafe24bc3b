"""Timing the memory API as an app sees it: a real `loci serve` on the loaded database,
sequential HTTP calls over one keep-alive connection, so every figure includes routing,
validation, the embedding of the new text, the transaction and its history row."""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

from bench.memory_speed.report import print_latencies

__all__ = ["measure_api", "serving", "timed", "user_keys"]

READY_TIMEOUT_S = 180.0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def serving(database_url: str, data_dir: Path) -> Iterator[tuple[str, str]]:
    """``loci serve`` on ``database_url`` (its own embedded Valkey); yields (base URL, admin key)."""
    port, admin_key = _free_port(), secrets.token_hex(16)
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    env.update({"DATABASE_URL": database_url, "LOCI_ADMIN_KEY": admin_key, "LOCI_LOG_LEVEL": "WARNING",
                "HF_HUB_OFFLINE": "1", "LOCI_RUN_WORKER": "false"})  # fmt: skip
    args = [sys.executable, "-m", "service.cli", "serve", "--port", str(port), "--data-dir", str(data_dir)]
    proc = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        began = time.perf_counter()
        while True:
            if proc.poll() is not None:
                raise SystemExit(f"loci serve exited with {proc.returncode}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{base}/readyz", timeout=1).status_code == 200:
                    break
            if time.perf_counter() - began > READY_TIMEOUT_S:
                raise SystemExit(f"loci serve not ready after {READY_TIMEOUT_S:.0f} s")
            time.sleep(0.1)
        yield base, admin_key
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()


def user_keys(base: str, admin_key: str, users: list[int]) -> dict[int, str]:
    admin = {"Authorization": f"Bearer {admin_key}"}
    keys = {}
    for uid in users:
        response = httpx.post(f"{base}/v1/admin/users/{uid}/keys", headers=admin, json={"name": "bench"})
        response.raise_for_status()
        keys[uid] = response.json()["key"]
    return keys


def timed(client: httpx.Client, method: str, path: str, body: dict[str, Any] | None, expect: int) -> tuple[float, Any]:
    began = time.perf_counter()
    response = client.request(method, path, json=body)
    ms = (time.perf_counter() - began) * 1000.0
    if response.status_code != expect:
        raise SystemExit(f"{method} {path}: expected {expect}, got {response.status_code}: {response.text[:300]}")
    return ms, (response.json() if response.content else None)


def measure_api(base: str, admin_key: str, users: list[int], ops: int) -> None:
    """``ops`` saves, then an update and a forget of each saved memory, then ``ops``
    session-start blocks, round-robin over ``users``; prints p50/p95/p99 of each."""
    keys = user_keys(base, admin_key, users)
    clients = {
        uid: httpx.Client(base_url=base, headers={"Authorization": f"Bearer {key}"}) for uid, key in keys.items()
    }
    try:
        for client in clients.values():  # warm-up: connections, the model, the plans
            timed(client, "GET", "/v1/context", None, 200)
        times: dict[str, list[float]] = {"save": [], "update": [], "forget": [], "context": []}
        saved: list[tuple[int, int]] = []
        order = [users[i % len(users)] for i in range(ops)]
        for i, uid in enumerate(order):
            body: dict[str, Any] = {
                "content": f"My colleague number {i} prefers tea at {i % 24:02d}:00",
                "category": "fact",
            }
            ms, out = timed(clients[uid], "POST", "/v1/memories", body, 201)
            times["save"].append(ms)
            saved.append((uid, int(out["memory"]["id"])))
        for i, (uid, mid) in enumerate(saved):
            body = {"id_or_text": mid, "content": f"My colleague number {i} now prefers coffee"}
            ms, out = timed(clients[uid], "POST", "/v1/memories/update", body, 200)
            times["update"].append(ms)
            saved[i] = (uid, int(out["memory"]["id"]))
        for uid, mid in saved:
            ms, _ = timed(clients[uid], "POST", "/v1/memories/forget", {"id_or_text": mid}, 200)
            times["forget"].append(ms)
        for uid in order:
            ms, _ = timed(clients[uid], "GET", "/v1/context", None, 200)
            times["context"].append(ms)
        print_latencies("HTTP, sequential", times)
    finally:
        for client in clients.values():
            client.close()
