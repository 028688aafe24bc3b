"""Migration 0034 names the conversation of each key stored before it, and drops the purged ones'.

Keys written by an older Loci name no conversation, so the cascade that deletes a purged
conversation's keys missed them: a conversation purged after the upgrade had its old answer
replayed for the rest of the key's day (a 201 that stored nothing), and one purged before it
too. The upgrade reads the conversation from each conversation answer (`ConversationRef`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import psycopg

from loci import migrate

LATER = datetime.now(UTC) + timedelta(hours=12)


def _ref(conversation: int, external: str) -> dict[str, object]:
    """A conversation write's stored answer, as `msgspec.to_builtins(ConversationRef)` wrote it."""
    return {"id": conversation, "external_id": external, "user_id": 1, "status": "open", "turn_count": 1,
            "mined_seq": 0, "mining_error": None, "mining_failed_at": None, "stored": True, "last_seq": 1}  # fmt: skip


KEYS = (  # key, user, stored answer
    ("live", 1, _ref(10, "live")),
    ("trashed", 1, _ref(11, "trashed")),  # in the trash, not purged: its key stays, named
    ("purged", 1, _ref(12, "purged")),  # purged before the upgrade: its answer quotes nothing
    ("theirs", 2, _ref(10, "live")),  # another user's answer quoting user 1's id: no such conversation of theirs
    ("memory", 1, {"event_id": 5, "event": "save", "memory": None, "previous": None, "undo": None}),
    ("claimed", 1, None),  # claimed, no answer yet
)


def _seed(conn: psycopg.Connection[tuple[object, ...]]) -> None:
    conn.execute("SET loci.system = 'on'")
    conn.execute("INSERT INTO users (id, name) VALUES (1, 'ann'), (2, 'bo')")
    conn.execute(
        "INSERT INTO conversations (id, user_id, external_id, deleted_at) VALUES (10, 1, 'live', NULL),"
        " (11, 1, 'trashed', now())"
    )
    for key, user, answer in KEYS:
        conn.execute(
            "INSERT INTO idempotency_keys (user_id, key, request, response, expires_at) VALUES (%s, %s, 'r', %s, %s)",
            (user, key, None if answer is None else json.dumps(answer), LATER),
        )


def _keys(url: str) -> dict[str, int | None]:
    with psycopg.connect(url) as conn:
        conn.execute("SET loci.system = 'on'")
        rows = conn.execute("SELECT key, conversation_id FROM idempotency_keys").fetchall()
    return {str(key): None if conversation is None else int(str(conversation)) for key, conversation in rows}


def test_older_keys_name_their_conversation_and_a_purged_ones_go(fresh_database: Callable[[str], str]) -> None:
    url = fresh_database("idempotency_conversation")
    migrate.upgrade(url, revision="0033")
    with psycopg.connect(url) as conn:
        _seed(conn)
    migrate.upgrade(url, revision="0034")
    assert _keys(url) == {"live": 10, "trashed": 11, "memory": None, "claimed": None}
    with psycopg.connect(url) as conn:  # a purge after the upgrade takes the older key with it
        conn.execute("SET loci.system = 'on'")
        conn.execute("DELETE FROM conversations WHERE id = 11")
    assert set(_keys(url)) == {"live", "memory", "claimed"}
    migrate.downgrade(url, revision="0033")
    migrate.upgrade(url)
