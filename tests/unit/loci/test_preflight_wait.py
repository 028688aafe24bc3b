"""`loci worker` waits for a PostgreSQL or Valkey that does not answer yet, for a bounded time.

Its start-up checks ended it (exit 2) at the first refused connection, so a worker started
while the database restarted, or before it (``docker compose up``), stayed down where it
used to ride the outage out. What a retry cannot mend (a wrong password, a missing database)
still ends it at once. The clock and the sleep are the test's: no test here waits.
"""

from __future__ import annotations

import socket
from collections.abc import Callable

import pytest

from loci.errors import ConfigurationError
from loci.preflight import Unreachable, check_database, check_queue, wait_until_reachable


class Clock:
    """A monotonic clock that only a (fake) sleep moves."""

    def __init__(self) -> None:
        self.now = 100.0
        self.slept: list[float] = []

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


def failing(times: int, error: ConfigurationError) -> Callable[[], None]:
    calls = {"n": 0}

    def check() -> None:
        calls["n"] += 1
        if calls["n"] <= times:
            raise error

    return check


def test_a_service_that_answers_after_a_while_is_waited_for() -> None:
    clock, said = Clock(), list[str]()
    database = failing(3, Unreachable("cannot connect to DATABASE_URL (x): Connection refused"))
    wait_until_reachable(
        [database, failing(0, Unreachable("-"))], said.append, sleep=clock.sleep, clock=lambda: clock.now
    )
    assert clock.slept == [1.0, 2.0, 4.0]
    assert len(said) == 3 and all(
        line.startswith("cannot connect to DATABASE_URL (x): Connection refused; trying again in ") for line in said
    ), said
    assert "\n" not in "".join(said)


def test_what_waiting_cannot_mend_ends_it_at_once() -> None:
    clock, said = Clock(), list[str]()
    wrong = ConfigurationError('cannot connect to DATABASE_URL (x): database "loci" does not exist')
    with pytest.raises(ConfigurationError) as raised:
        wait_until_reachable([failing(5, wrong)], said.append, sleep=clock.sleep, clock=lambda: clock.now)
    assert raised.value is wrong and not isinstance(raised.value, Unreachable)
    assert clock.slept == [] and said == []


def test_the_wait_is_bounded_and_ends_with_the_last_error() -> None:
    clock, said = Clock(), list[str]()
    down = Unreachable("cannot reach REDIS_URL (redis://cache:6379/0): Connection refused")
    with pytest.raises(Unreachable) as raised:
        wait_until_reachable([failing(1000, down)], said.append, wait_s=60, sleep=clock.sleep, clock=lambda: clock.now)
    assert raised.value is down
    assert sum(clock.slept) == 60 and max(clock.slept) == 8.0, clock.slept
    assert len(said) == len(clock.slept)


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_refused_connection_is_one_to_wait_for() -> None:
    with pytest.raises(Unreachable):
        check_database(f"postgresql://loci:pw@127.0.0.1:{closed_port()}/loci")
    with pytest.raises(Unreachable):
        check_queue(f"redis://127.0.0.1:{closed_port()}/0", timeout_s=1)
    with pytest.raises(ConfigurationError) as malformed:
        check_queue("http://cache:6379/0")
    assert not isinstance(malformed.value, Unreachable)
