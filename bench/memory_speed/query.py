"""Timing `POST /v1/memory/query` as an agent sees it: a real `loci serve` on the loaded
database (100k memories across the users, the palace's drawers), sequential calls over one
keep-alive connection per user, the request variants interleaved per question so a slow
patch of the machine hits them all the same."""

from __future__ import annotations

from typing import Any

import httpx

from bench.memory_speed.http import timed, user_keys
from bench.memory_speed.report import pct, print_latencies

__all__ = ["BASELINE", "VARIANTS", "measure_query", "request"]

WARM_UP = 10
PATH = "/v1/memory/query"
VARIANTS: dict[str, dict[str, Any]] = {
    "bullets": {},
    "bullets, 2 categories": {"categories": ["preference", "fact"]},
    "bullets, importance>=3": {"filters": {"importance_min": 3}},
    "bullets, role=user": {"filters": {"role": "user"}},
    "full": {"return": "full"},
}
"""The target (p95 <= 50 ms at 100k memories) is for plain bullets; the others show what a
filter or the full rows cost. ``role`` searches drawers only, the categories memories only."""
BASELINE = "recall (baseline)"
"""`POST /v1/recall` with the same question, interleaved: what the machine's load does to the
hot path the query shares its signals with, so a figure can be read against it."""


def request(name: str, question: str) -> tuple[str, dict[str, Any], int]:
    """Path, body and the status a success answers for one variant (or the baseline); both are
    reads, so 200 (recall answered 201 once, and the bench's stale 201 failed every run)."""
    if name == BASELINE:
        return "/v1/recall", {"message": question, "agent_id": "bench"}, 200
    return PATH, {"agent": "bench", "query": question, **VARIANTS[name]}, 200


def _one(client: httpx.Client, name: str, question: str) -> tuple[float, Any]:
    path, body, status = request(name, question)
    return timed(client, "POST", path, body, status)


def measure_query(base: str, admin_key: str, qs: list[tuple[int, str]]) -> None:
    """Every variant for each ``(user, question)``; prints client-side p50/p95/p99, the
    server's own total (``timings_ms.total``) and how many results came back."""
    keys = user_keys(base, admin_key, sorted({uid for uid, _ in qs}))
    clients = {uid: httpx.Client(base_url=base, headers={"Authorization": f"Bearer {k}"}) for uid, k in keys.items()}
    try:
        for i, (uid, question) in enumerate(qs[:WARM_UP] * 2):
            _one(clients[uid], [*VARIANTS, BASELINE][i % (len(VARIANTS) + 1)], question)
        names = [*VARIANTS, BASELINE]
        times: dict[str, list[float]] = {name: [] for name in names}
        server: dict[str, list[float]] = {name: [] for name in names}
        stages: dict[str, list[float]] = {}
        found: dict[str, int] = dict.fromkeys(names, 0)
        for i, (uid, question) in enumerate(qs):
            for name in names[i % len(names) :] + names[: i % len(names)]:
                ms, out = _one(clients[uid], name, question)
                times[name].append(ms)
                server[name].append(float(out["timings_ms"]["total"]))
                found[name] += len(out.get("bullets") or out.get("items") or [])
                if name == "bullets":
                    for stage, value in out["timings_ms"].items():
                        stages.setdefault(stage, []).append(float(value))
        print_latencies("memory query over HTTP, sequential", times)
        for name in names:
            print(f"    {name:<22} server total p50={pct(server[name], 50):7.2f} p95={pct(server[name], 95):7.2f} "
                  f"results/query={found[name] / max(len(qs), 1):.1f}", flush=True)  # fmt: skip
        print("    bullets' stages p50 ms: " + ", ".join(f"{k}={pct(v, 50):.2f}" for k, v in stages.items()))
    finally:
        for client in clients.values():
            client.close()
