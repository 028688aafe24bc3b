"""Export the whole memory (JSON or Markdown) and import a JSON export."""

from __future__ import annotations

from typing import Annotated, Literal

from litestar import Controller, MediaType, Response, get, post
from litestar.params import JSONBody, QueryParameter

from domain.export import ExportDoc, export_json, render_markdown
from domain.importer import ImportResult, import_json
from service.deps import CallerDep, StateDep
from service.routes._docs import errors
from service.routes._openapi import also_markdown


class PortabilityController(Controller):
    tags = ("export",)

    @get(
        "/v1/export",
        operation_id="exportMemory",
        summary="Export the whole palace and graph",
        description=(
            "`format=json` (default): every wing, room, closet, drawer (content, AAAK, tags, dates, embedding), "
            "entity, drawer-entity link, relation (with validity), conversation and turn, plus settings and "
            "agents; this document is what `POST /v1/import` takes. `embeddings=false` leaves vectors out "
            "(a far smaller file; drawers come back with a null embedding, like drawers not yet embedded). "
            "`format=markdown`: a readable book."
        ),
        responses=errors(400),
        operation_class=also_markdown("format=markdown: the memory as a readable Markdown book"),
    )
    async def export(
        self,
        app_state: StateDep,
        caller: CallerDep,
        format: Annotated[Literal["json", "markdown"], QueryParameter(description="json or markdown")] = "json",
        embeddings: Annotated[
            bool, QueryParameter(description="include drawer embeddings (false: ~10x smaller; re-embedded later)")
        ] = True,
    ) -> Response[ExportDoc | str]:
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
        summary="Import a JSON export into an empty memory",
        description=(
            "Takes the document `GET /v1/export` produced. Ids in the file are remapped (never trusted); a "
            "reference the file does not define is a 400 naming the field. All or nothing. 409 when the "
            "caller already has wings, conversations or entities. Bodies over LOCI_MAX_BODY_BYTES get 413."
        ),
        responses=errors(400, 409, 413),
    )
    async def import_(self, app_state: StateDep, caller: CallerDep, data: JSONBody[ExportDoc]) -> ImportResult:
        return await import_json(app_state.db, caller.user_id, data, limits=app_state.settings.mining)
