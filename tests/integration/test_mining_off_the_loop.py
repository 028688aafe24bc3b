"""Mining's rules run off the event loop.

Their cost is linear in what the turns say, milliseconds for a chat turn and seconds for a
pasted document: a window of eight 100 KB pastes held the loop for ~16 s here and ~30 s on
a slow machine. The worker shares the API's process and loop, so every request waited that
long, and the job's lease, renewed on the loop (`service.worker`), lapsed: arq started the
same job again in the same worker, and a job that had mined everything was reported failed
(`tests.integration.test_worker_same_job`). Each rule that reads whole turns is checked here
by the thread it runs on, since how long a loop may stall depends on the machine.
"""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from litestar.testing import AsyncTestClient

from ingest import archive, extract_offline, memory_mining
from service.state import AppState
from tests.conftest import UserHandle
from tests.integration.test_mining_api import run_jobs

NewUser = Callable[..., Awaitable[UserHandle]]
Client = AsyncTestClient  # type: ignore[type-arg]

TURNS = [
    {"role": "user", "content": "I moved to Lisbon in May; I am vegetarian.", "created_at": "2023-05-01T09:00:00Z"},
    {"role": "assistant", "content": "Lisbon has great vegetarian food.", "created_at": "2023-05-01T09:01:00Z"},
    {"role": "user", "content": "My sister Maya works at Globex in Porto.", "created_at": "2023-05-01T09:02:00Z"},
]
RULES = [
    (extract_offline, "extract_window"),
    (memory_mining, "extract_memory_candidates"),
    (archive, "extractive_summary"),
]


async def test_the_rules_that_read_whole_turns_run_in_a_thread_not_on_the_loop(
    client: Client, app_state: AppState, new_user: NewUser, monkeypatch: pytest.MonkeyPatch
) -> None:
    loop_thread = threading.get_ident()  # the worker below runs on this test's loop
    threads: dict[str, list[int]] = {name: [] for _, name in RULES}

    def recording(name: str, rule: Callable[..., Any]) -> Callable[..., Any]:
        def run(*args: Any, **kwargs: Any) -> Any:
            threads[name].append(threading.get_ident())
            return rule(*args, **kwargs)

        return run

    for module, name in RULES:
        monkeypatch.setattr(module, name, recording(name, getattr(module, name)))
    user = await new_user()
    made = await client.post("/v1/conversations", json={"id": "moves", "turns": TURNS}, headers=user.headers)
    assert made.status_code == 201, made.text
    job_id = (await client.post("/v1/conversations/moves/complete", headers=user.headers)).json()["job_id"]
    await run_jobs(app_state)
    job = (await client.get(f"/v1/jobs/{job_id}", headers=user.headers)).json()
    assert job["status"] == "done", job
    assert all(threads.values()), threads  # each rule ran
    on_the_loop = {name for name, idents in threads.items() if loop_thread in idents}
    assert not on_the_loop, f"run on the event loop: {sorted(on_the_loop)}"
