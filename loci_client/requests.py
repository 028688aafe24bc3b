"""Request parts that are structured: turns, recall filters, profile entries.

Flat arguments are keyword arguments of the client's methods; these are the nested
pieces. Each method also accepts a plain dict in their place.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any
from urllib.parse import quote

from pydantic import BaseModel, ConfigDict

from loci_client._sendable import refuse_unsendable

__all__ = [
    "IDEMPOTENCY_HEADER",
    "ProfileEntry",
    "QueryFilters",
    "RecallFilters",
    "Turn",
    "body",
    "dump_all",
    "idempotent",
    "path",
]


IDEMPOTENCY_HEADER = "Idempotency-Key"
"""The header that makes a write safe to send twice (the transport retries such a write when its answer is lost)."""


class _In(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Turn(_In):
    """One conversation turn; `created_at` is ISO 8601 (no zone means UTC), or a `datetime`,
    sent with its offset (``datetime.now(ZoneInfo("Asia/Kathmandu"))`` goes as ``…+05:45``; a
    naive one means UTC): the server reads the turn's "tomorrow" on that clock and gives the time
    back with it.

    `name` says who wrote it, as in the OpenAI message format: in a chat between people the
    account owner's turns are role `user` and everyone else's `other`, each with a name."""

    role: str
    content: str
    created_at: str | datetime | None = None
    name: str | None = None


class RecallFilters(_In):
    """Narrow recall to a wing, an entity, a role or a time range; saved memories to a category."""

    wing: str | None = None
    entity: str | None = None
    since: str | None = None
    until: str | None = None
    role: str | None = None
    category: str | None = None


class QueryFilters(_In):
    """Narrow a memory query (`LociClient.memory_query`); times are ISO 8601 with a zone."""

    agent_id: str | None = None
    conversation_id: str | None = None
    role: str | None = None
    pinned: bool | None = None
    importance_min: int | None = None
    importance_max: int | None = None
    updated_after: str | None = None
    updated_before: str | None = None
    source: str | None = None


class ProfileEntry(_In):
    """One line of the core profile, in a category."""

    category: str
    content: str


def dump(item: BaseModel | Mapping[str, Any]) -> dict[str, Any]:
    """A request part as JSON, leaving out fields not given (the server's defaults apply)."""
    if isinstance(item, BaseModel):
        return item.model_dump(mode="json", exclude_none=True)
    return dict(item)


def dump_all(items: Sequence[BaseModel | Mapping[str, Any]]) -> list[dict[str, Any]]:
    return [dump(item) for item in items]


def body(**fields: Any) -> dict[str, Any]:
    """A JSON body of the given fields, without those left as None (the server's defaults apply)."""
    return {k: (dump(v) if isinstance(v, BaseModel) else v) for k, v in fields.items() if v is not None}


def idempotent(key: str | None) -> dict[str, str]:
    """The ``Idempotency-Key`` header of a write that creates something: ``key``, or a fresh
    random one. The request is built once per call and sent as it is on each retry, so a
    retry after a 503 or a lost answer replays the first answer instead of writing twice.
    Pass your own key to make a retry across calls (or processes) safe as well."""
    return {IDEMPOTENCY_HEADER: key if key is not None else uuid.uuid4().hex}


def path(template: str, **ids: str | int) -> str:
    """``template`` with each ``{name}`` filled by its id, quoted so no id can change the path.
    The names are the API's path parameters, so an id that cannot be sent (a lone surrogate
    has no UTF-8 to quote) is refused naming the parameter, as the server would name it."""
    for name, value in ids.items():
        refuse_unsendable(value, name)
    return template.format(**{name: quote(str(value), safe="") for name, value in ids.items()})
