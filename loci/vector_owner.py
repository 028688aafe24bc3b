"""Which embedder made the stored vectors, recorded in the schema and checked at start.

Why: every vector column (drawers, their sentences, memories) and its HNSW graph hold one
model's vectors for all users. Two models of the same size (MiniLM and e5-small are both
384) fit the same columns, so switching `LOCI_EMBEDDING_MODEL` on an existing database
would raise no error at all: recall would compare new query vectors with old passage
vectors and quietly return noise. Migration 0010 dropped a per-user ``embedding_model``
setting for the same reason (one model per process), but nothing recorded which model
that was.

The record is the comment on ``drawers.embedding`` (``made by <embedder name>``): it lives
in the schema it describes (each benchmark schema has its own), needs no table, and is
written by the role that migrates. `claim_vectors` runs after the migrations: an
unrecorded or vector-free schema is claimed by the configured embedder; one whose
vectors another embedder made is refused with a ConfigurationError that says how to
re-embed (export, then import into a fresh database under the new embedder: the
import re-embeds what the export's embedder did not make, see `domain.import_embed`).
"""

from __future__ import annotations

from sqlalchemy import create_engine, text
from sqlalchemy.engine import Connection

from loci.db import sqlalchemy_url, valid_schema_name
from loci.errors import ConfigurationError

__all__ = ["MARK", "claim_vectors", "recorded_embedder"]

MARK = "made by "
"""What precedes the embedder's name in the column comment."""

_COMMENT = text(
    "SELECT col_description(a.attrelid, a.attnum) FROM pg_attribute a "
    "WHERE a.attrelid = 'drawers'::regclass AND a.attname = 'embedding'"
)
_HAS_VECTORS = text(
    "SELECT EXISTS (SELECT 1 FROM drawers WHERE embedding IS NOT NULL)"
    " OR EXISTS (SELECT 1 FROM drawer_sentences)"
    " OR EXISTS (SELECT 1 FROM memories WHERE embedding IS NOT NULL)"
)


def recorded_embedder(conn: Connection) -> str | None:
    """The embedder the schema's vectors are recorded as made by, or None."""
    comment = conn.execute(_COMMENT).scalar()
    return comment[len(MARK) :] if isinstance(comment, str) and comment.startswith(MARK) else None


def _literal(value: str) -> str:
    """A SQL string literal (COMMENT takes no bind parameters)."""
    return "'" + value.replace("'", "''") + "'"


def claim_vectors(url: str, embedder: str, *, schema: str | None = None) -> str | None:
    """Record ``embedder`` as the maker of the schema's vectors, or refuse when another
    embedder's vectors are stored. Returns the embedder recorded before (None: none).

    Runs as the migrating role (the app's role cannot comment on a table it does not own),
    under an advisory lock so two starts do not race, with ``loci.system`` on so row-level
    security lets it see every user's rows."""
    options = f"-c search_path={valid_schema_name(schema)},public" if schema else ""
    engine = create_engine(sqlalchemy_url(url), connect_args={"options": options} if options else {})
    try:
        with engine.begin() as conn:
            conn.execute(text("SELECT pg_advisory_xact_lock(hashtext('loci.vector_owner'))"))
            conn.execute(text("SELECT set_config('loci.system', 'on', true)"))
            before = recorded_embedder(conn)
            if before == embedder:
                return before
            if before is not None and conn.execute(_HAS_VECTORS).scalar():
                raise ConfigurationError(
                    f"invalid setting LOCI_EMBEDDING_MODEL: the stored vectors were made by {before!r}, "
                    f"not {embedder!r}; set it back, or re-embed: `loci export` every user, then "
                    "`loci import` into a fresh database started with the new model (README: Embedders)"
                )
            conn.exec_driver_sql(f"COMMENT ON COLUMN drawers.embedding IS {_literal(MARK + embedder)}")
            return before
    finally:
        engine.dispose()
