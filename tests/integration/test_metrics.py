"""GET /metrics over real HTTP: admin key only; recall, mining and HTTP counters move with the
right labels after real requests and a real worker's job; no label names a user, key or id."""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable

from litestar.testing import AsyncTestClient
from prometheus_client.parser import text_string_to_metric_families

from loci.embedder import Embedder
from loci.settings import Settings
from service.app import create_app
from service.state import AppState
from tests.conftest import UserHandle, make_state
from tests.integration.test_mining_api import TURNS, run_jobs

NewUser = Callable[..., Awaitable[UserHandle]]
Client = AsyncTestClient  # type: ignore[type-arg]
Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


async def scrape(client: Client, admin_headers: dict[str, str]) -> tuple[str, Samples]:
    got = await client.get("/metrics", headers=admin_headers)
    assert got.status_code == 200, got.text
    assert got.headers["content-type"].startswith("text/plain; version=")
    assert got.headers["content-type"].count("charset") == 1
    samples = {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(got.text)
        for s in family.samples
    }
    return got.text, samples


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


async def test_metrics_need_the_admin_key(client: Client, new_user: NewUser, admin_headers: dict[str, str]) -> None:
    user = await new_user()
    for headers in ({}, user.headers, {"Authorization": "Bearer not-the-admin-key-at-all"}):
        refused = await client.get("/metrics", headers=headers)
        assert refused.status_code == 401, refused.text
        assert "loci_" not in refused.text
    _, samples = await scrape(client, admin_headers)
    assert value(samples, "loci_queue_up") == 1  # the queue's length is read from Valkey at scrape time
    assert ("loci_queue_jobs", ()) in samples


async def test_recall_and_mining_move_their_counters_and_no_label_names_anyone(
    client: Client, app_state: AppState, new_user: NewUser, admin_headers: dict[str, str]
) -> None:
    user = await new_user()
    conversation = f"metrics-{secrets.token_hex(4)}"
    _, before = await scrape(client, admin_headers)
    made = await client.post("/v1/conversations", json={"id": conversation, "turns": TURNS}, headers=user.headers)
    assert made.status_code == 201, made.text
    done = await client.post(f"/v1/conversations/{conversation}/complete", headers=user.headers)
    assert done.status_code == 202, done.text
    await run_jobs(app_state)
    body = {"message": "What did I say about my favorite tea?", "conversation_id": conversation}
    first = await client.post("/v1/recall", json=body, headers=user.headers)
    second = await client.post("/v1/recall", json=body, headers=user.headers)
    assert first.status_code == second.status_code == 200, first.text
    stats = first.json()["stats"], second.json()["stats"]
    assert [s["cache"] for s in stats] == ["miss", "hit"] and stats[0]["depth"] == stats[1]["depth"]
    assert (await client.get(f"/v1/conversations/{conversation}", headers=user.headers)).status_code == 200
    assert (await client.post("/v1/recall", json=body)).status_code == 401  # auth's: not counted, least of all as 200
    text, after = await scrape(client, admin_headers)

    def moved(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    depth = stats[0]["depth"]
    assert moved("loci_recall_duration_seconds_count", depth=depth) == 2
    assert moved("loci_recall_cache_total", result="miss") == 1
    assert moved("loci_recall_cache_total", result="hit") == 1
    assert moved("loci_mining_jobs_total", outcome="done") >= 1
    assert moved("loci_mining_job_duration_seconds_count", outcome="done") >= 1
    assert moved("loci_mining_turns_total") >= len(TURNS)
    http = {"app_name": "loci", "method": "POST", "path": "/v1/recall", "status_code": "200"}
    assert moved("loci_http_requests_total", **http) == 2
    assert moved("loci_http_request_duration_seconds_count", **http) == 2
    assert moved("loci_http_requests_total", **{**http, "status_code": "401"}) == 0
    by_id = {**http, "method": "GET", "path": "/v1/conversations/{conversation_id}"}
    assert moved("loci_http_requests_total", **by_id) == 1  # the route's template, not the id asked for
    # a user's id would be a number among others: what makes it impossible is that no label is named for one
    names = {k for (name, pairs) in after if name.startswith("loci_") for k, _ in pairs}
    assert names == {"app_name", "method", "path", "status_code", "depth", "result", "outcome", "le", "reason"}, names
    values = {v for (_, pairs) in after for _, v in pairs}
    for private in (conversation, user.key, body["message"], TURNS[0]["content"]):
        assert not any(private in v for v in values), private
    assert conversation not in text and user.key not in text


async def test_refused_keys_and_unrouted_addresses_are_counted_apart_from_the_routes(
    client: Client, new_user: NewUser, admin_headers: dict[str, str]
) -> None:
    """What the HTTP metrics cannot see (the key check refuses before any route runs; an unknown
    address matches none) has its own counters: a key-guessing client shows up."""
    user = await new_user()
    _, before = await scrape(client, admin_headers)
    assert (await client.get("/v1/me")).status_code == 401
    for _ in range(2):
        assert (await client.get("/v1/me", headers={"Authorization": "Bearer loci_guessed"})).status_code == 401
    assert (await client.get("/v1/admin/users", headers=user.headers)).status_code == 401
    assert (await client.get("/v1/no-such-thing", headers=user.headers)).status_code == 404
    assert (await client.delete("/v1/recall", headers=user.headers)).status_code == 405
    missing = await client.get("/v1/conversations/not-there", headers=user.headers)
    assert missing.status_code == 404  # a route's own 404: the HTTP metrics count it, not unrouted
    _, after = await scrape(client, admin_headers)

    def moved(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    assert moved("loci_http_auth_refused_total", reason="missing_key") == 1
    assert moved("loci_http_auth_refused_total", reason="bad_api_key") == 2
    assert moved("loci_http_auth_refused_total", reason="bad_admin_key") == 1
    assert moved("loci_http_unrouted_total", status_code="404") == 1
    assert moved("loci_http_unrouted_total", status_code="405") == 1
    route = {"app_name": "loci", "method": "GET", "path": "/v1/conversations/{conversation_id}", "status_code": "404"}
    assert moved("loci_http_requests_total", **route) == 1


async def test_metrics_off_removes_the_route(settings: Settings, embedder: Embedder) -> None:
    off = settings.model_copy(update={"server": settings.server.model_copy(update={"metrics_enabled": False})})
    app = create_app(off, state=make_state(off, embedder), run_worker=False)
    async with AsyncTestClient(app=app) as client:
        assert (await client.get("/metrics")).status_code == 404
