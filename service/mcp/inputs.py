"""Argument records for the tools whose routes take query parameters rather than a body.

Each states the same rules as its route's parameters, from the same constants, so a tool
refuses exactly what the route refuses. Tools whose routes take a body use that body's
record (`domain.memory_dto`, `service.routes.recall`) as it is.
"""

from __future__ import annotations

from typing import Annotated

import msgspec

from domain.memory_dto import MAX_ID, ProfileIn
from domain.memory_read import LIST_LIMIT_MAX
from ingest import MAX_ENTITY_OFFSET
from loci.inputs import ID_PATTERN, MAX_ID_CHARS, NONBLANK_TEXT_PATTERN, TEXT_PATTERN
from loci.models import MEMORY_LAYERS, MEMORY_SOURCES
from loci.settings import CATEGORY_PATTERN

__all__ = ["MAX_ETAG_CHARS", "EntityRef", "ListMemoriesIn", "NoArgs", "ProfileWriteIn"]

ENTITY_NAME_MAX = 200
"""As `ingest.search_entities` caps its ``q``."""


def _one_of(values: tuple[str, ...]) -> str:
    return f"^({'|'.join(values)})$"


class NoArgs(msgspec.Struct, forbid_unknown_fields=True):
    """A tool that takes nothing (the profile read)."""


MAX_ETAG_CHARS = 1000
"""As the route's ``If-Match`` header (`service.routes.profile.MAX_IF_MATCH_CHARS`)."""


class ProfileWriteIn(ProfileIn, forbid_unknown_fields=True):
    """`PUT /v1/profile`'s body, plus its ``If-Match`` header as ``etag``."""

    etag: (
        Annotated[
            str,
            msgspec.Meta(
                max_length=MAX_ETAG_CHARS,
                pattern=TEXT_PATTERN,
                description="read_profile's etag: write only if nobody changed the profile since (else refused)",
            ),
        ]
        | None
    ) = None


class ListMemoriesIn(msgspec.Struct, forbid_unknown_fields=True):
    """`GET /v1/memories`'s query parameters."""

    layer: Annotated[str, msgspec.Meta(pattern=_one_of(MEMORY_LAYERS), description=", ".join(MEMORY_LAYERS))] | None = (
        None
    )
    category: Annotated[str, msgspec.Meta(pattern=CATEGORY_PATTERN, description="one category")] | None = None
    source: (
        Annotated[str, msgspec.Meta(pattern=_one_of(MEMORY_SOURCES), description=", ".join(MEMORY_SOURCES))] | None
    ) = None
    agent_id: Annotated[str, msgspec.Meta(pattern=ID_PATTERN, max_length=MAX_ID_CHARS)] | None = None
    as_of: (
        Annotated[
            str,
            msgspec.Meta(
                max_length=64, pattern=TEXT_PATTERN, description="ISO 8601 time with its zone: what was valid then"
            ),
        ]
        | None
    ) = None
    limit: Annotated[int, msgspec.Meta(ge=1, le=LIST_LIMIT_MAX, description=f"1-{LIST_LIMIT_MAX}")] = 50
    before: Annotated[int, msgspec.Meta(ge=1, le=MAX_ID, description="the previous page's next_before")] | None = None


class EntityRef(msgspec.Struct, forbid_unknown_fields=True):
    """An entity by id, or by its name or an alias (as `GET /v1/entities?q=` finds it)."""

    entity: Annotated[
        Annotated[int, msgspec.Meta(ge=1, le=MAX_ID)]
        | Annotated[str, msgspec.Meta(max_length=ENTITY_NAME_MAX, pattern=NONBLANK_TEXT_PATTERN)],
        msgspec.Meta(
            description=f"the entity's id, or its name or an alias (1-{ENTITY_NAME_MAX} characters, "
            "case-insensitive, no control characters); a name several entities share is an error listing them",
            examples=["Alice"],
        ),
    ]
    """Bounded as the timeline route's id and the entity search's ``q``, so a bad value is refused
    here naming ``entity``, not by the database ("bigint out of range") or as the search's ``q``."""
    offset: Annotated[
        int, msgspec.Meta(ge=0, le=MAX_ENTITY_OFFSET, description="how many relations to skip: the last answer's more")
    ] = 0
    """The timeline is read a page at a time (`service.routes.entities.entity_timeline`)."""
