"""Export the whole memory (JSON, NDJSON or Markdown) and import a JSON or NDJSON export."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Annotated, Any, Literal, cast

import msgspec
from litestar import Controller, MediaType, Request, Response, get, post
from litestar.openapi.spec import OpenAPIMediaType, OpenAPIType, Operation, Reference, RequestBody, Schema
from litestar.params import QueryParameter
from litestar.response import Stream

from domain.agent_access_edit import access_from_raw
from domain.export import ExportDoc, export_json, render_markdown
from domain.export_stream import export_ndjson
from domain.import_stream import import_ndjson
from domain.importer import ImportResult, import_json
from domain.stream_format import MEDIA_TYPE as NDJSON
from loci.errors import InvalidInput, PayloadTooLarge
from loci.inputs import TEXT_PATTERN
from service.deps import CallerDep, StateDep
from service.routes._docs import errors
from service.routes._openapi import also_as
from service.strict_body import refusal

_JSON_DECODER = msgspec.json.Decoder(ExportDoc)
STREAM_CHUNK_BYTES = 64 * 1024
"""Bytes joined per write of the NDJSON export: one ASGI write per line (40,000 for a
300-conversation memory) made the export take 7.3-10.2 s where its rows took 3.7 s to read;
in 64 KB writes it took 4.5-7.2 s (2 busy cores)."""


async def in_chunks(lines: AsyncIterator[bytes], size: int = STREAM_CHUNK_BYTES) -> AsyncIterator[bytes]:
    """``lines`` joined into writes of at least ``size`` bytes (the last may be shorter); still
    streamed, so the server holds one chunk, not the export."""
    pending: list[bytes] = []
    held = 0
    async for line in lines:
        pending.append(line)
        held += len(line)
        if held >= size:
            yield b"".join(pending)
            pending, held = [], 0
    if pending:
        yield b"".join(pending)


_NDJSON_SCHEMA = Schema(
    type=OpenAPIType.STRING,
    pattern=TEXT_PATTERN,  # JSON escapes control characters, so raw ones are no part of any line
    description="the lines of GET /v1/export?format=ndjson",
)


@dataclass
class _ImportOperation(Operation):
    """The handler reads the body itself (to stream NDJSON past the size limit), so Litestar
    sees no ``data`` parameter; this states the two bodies it takes."""

    def __post_init__(self) -> None:
        self.request_body = RequestBody(
            required=True,
            content={
                MediaType.JSON: OpenAPIMediaType(schema=Reference("#/components/schemas/ExportDoc")),
                NDJSON: OpenAPIMediaType(schema=_NDJSON_SCHEMA),
            },
        )


async def _json_body(request: Request[Any, Any, Any], limit: int) -> bytes:
    """The whole body, refused past ``limit`` with the limit and its setting named."""
    too_large = PayloadTooLarge(
        f"request body is over the limit of {limit} bytes (LOCI_MAX_BODY_BYTES); an export of any size "
        f"imports as {NDJSON} (GET /v1/export?format=ndjson)",
        field="body",
    )
    if (request.content_length or 0) > limit:
        raise too_large
    parts, total = [], 0
    async for chunk in request.stream():
        total += len(chunk)
        if total > limit:
            raise too_large
        parts.append(chunk)
    return b"".join(parts)


def _decode_doc(body: bytes) -> ExportDoc:
    try:
        return _JSON_DECODER.decode(body)
    except msgspec.ValidationError as e:  # named by its path ($.drawers[0].content: drawers[0].content)
        if "`$.access" in str(e):  # by its keys: msgspec says access.agents[...], not which agent
            access_from_raw(msgspec.json.decode(body)["access"], "access")
        raise refusal(e, context="not a loci export document: ", default="body", type_=ExportDoc) from e
    except msgspec.DecodeError as e:
        raise InvalidInput(f"not a loci export document: {e}", field="body") from e
    except RecursionError as e:  # msgspec's guard: a document 10,000 arrays deep was a 500
        # its limit is Python's recursion limit (1,000) less the frames already on the stack
        raise InvalidInput(
            "not a loci export document: it nests arrays and objects deeper than the decoder reads "
            "(a little under 1,000 levels)",
            field="body",
        ) from e


class PortabilityController(Controller):
    tags = ("export",)

    @get(
        "/v1/export",
        operation_id="exportMemory",
        summary="Export the whole palace and graph",
        description=(
            "`format=json` (default): every wing, room, closet, drawer (content, AAAK, tags, dates, embedding), "
            "entity, drawer-entity link, relation (with validity), conversation and turn, plus settings, "
            "agents and what each may see (`access`, as `GET /v1/access`; never a key); this document is what "
            "`POST /v1/import` takes. `format=ndjson`: the same rows streamed "
            "one JSON object a line (tagged by `type`: a header, rows in dependency order, turns on lines of "
            "their own, an `end` line with counts), for memories of any size; `POST /v1/import` takes it as "
            f"`{NDJSON}`. `embeddings=false` leaves vectors out (a far smaller file; an import embeds the "
            "drawers again). `format=markdown`: a readable book."
        ),
        responses=errors(400),
        operation_class=also_as(
            {
                "text/markdown": "format=markdown: the memory as a readable Markdown book",
                "application/x-ndjson": "format=ndjson: one JSON object per line, the rows streamed",
            }
        ),
    )
    async def export(
        self,
        app_state: StateDep,
        caller: CallerDep,
        format: Annotated[
            Literal["json", "ndjson", "markdown"], QueryParameter(description="json, ndjson or markdown")
        ] = "json",
        embeddings: Annotated[
            bool, QueryParameter(description="include drawer embeddings (false: ~10x smaller; re-embedded later)")
        ] = True,
    ) -> Response[ExportDoc | str]:
        if format == "ndjson":
            lines: AsyncIterator[bytes] = export_ndjson(app_state.db, caller.user_id, embeddings=embeddings)
            stream = Stream(
                in_chunks(lines),
                media_type=NDJSON,
                headers={"Content-Disposition": 'attachment; filename="loci-memory.ndjson"'},
            )
            # The annotation is what the OpenAPI schema shows (the document); a Stream is a Response.
            return cast("Response[ExportDoc | str]", stream)
        doc = await export_json(app_state.db, caller.user_id, embeddings=embeddings)
        if format == "markdown":
            return Response(
                render_markdown(doc),
                media_type="text/markdown",  # Litestar adds "; charset=utf-8" to text types
                headers={"Content-Disposition": 'attachment; filename="loci-memory.md"'},
            )
        return Response(doc, media_type=MediaType.JSON)

    @post(
        "/v1/import",
        status_code=201,
        operation_id="importMemory",
        summary="Import an export into an empty memory",
        description=(
            "Takes what `GET /v1/export` produced: the JSON document (`application/json`, up to "
            f"LOCI_MAX_BODY_BYTES, else 413 naming the limit) or the NDJSON stream (`{NDJSON}`, any size the "
            "server's disk can hold; spooled, every line checked before anything is written, a 400 naming "
            "the line otherwise). Ids in the file are remapped (never trusted); a reference the file does not "
            "define is a 400 naming the field. All or nothing. Per-agent access is restored as the file says; "
            "a file without `access` creates its agents closed (`agents_closed`), and an agent the caller already "
            "had that the file lets read more (a category, a wing, a wider mode, recall back on) is named in "
            "`agents_opened`, and a widened default mode in `defaults_opened`. Drawers without a vector are "
            "embedded. 409 when the caller already has wings, conversations or entities."
        ),
        responses=errors(400, 409, 413),
        request_max_body_size=None,  # the NDJSON stream has no limit; _json_body applies it to JSON
        operation_class=_ImportOperation,
    )
    async def import_(self, request: Request[Any, Any, Any], app_state: StateDep, caller: CallerDep) -> ImportResult:
        limits, embedder, memory = app_state.settings.mining, app_state.embedder, app_state.settings.memory
        if request.content_type[0] == NDJSON:
            chunks = request.stream()
            return await import_ndjson(app_state.db, embedder, caller.user_id, chunks, limits=limits, memory=memory)
        doc = _decode_doc(await _json_body(request, app_state.settings.server.max_body_bytes))
        return await import_json(app_state.db, caller.user_id, doc, limits=limits, embedder=embedder, memory=memory)
