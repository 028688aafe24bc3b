"""Programmatic alembic: `loci db …`, `serve` and the tests all migrate through here.

No alembic.ini: the script location is this installation's `migrations` package, and
the URL/schema are passed in, so a migration can never pick up the wrong database
from a stray config file.
"""

from __future__ import annotations

from io import StringIO
from pathlib import Path

from alembic import command
from alembic.config import Config

import migrations
from loci.db import valid_schema_name
from loci.vector_owner import claim_vectors

__all__ = ["alembic_config", "current", "downgrade", "upgrade"]


def alembic_config(url: str, schema: str | None = None) -> Config:
    cfg = Config(stdout=StringIO())
    cfg.set_main_option("script_location", str(Path(migrations.__file__).parent))
    cfg.attributes["url"] = url
    cfg.attributes["schema"] = valid_schema_name(schema) if schema else None
    return cfg


def upgrade(url: str, *, schema: str | None = None, revision: str = "head", embedder: str | None = None) -> None:
    """Migrate; with ``embedder``, then record it as the maker of the schema's vectors or
    refuse when another embedder's are stored (`loci.vector_owner.claim_vectors`)."""
    command.upgrade(alembic_config(url, schema), revision)
    if embedder is not None:
        claim_vectors(url, embedder, schema=schema)


def downgrade(url: str, *, schema: str | None = None, revision: str = "base") -> None:
    command.downgrade(alembic_config(url, schema), revision)


def current(url: str, *, schema: str | None = None) -> str:
    """The applied revision id(s), or 'base' for an empty database."""
    cfg = alembic_config(url, schema)
    command.current(cfg)
    out = cfg.stdout.getvalue().strip() if isinstance(cfg.stdout, StringIO) else ""
    return out.split()[0] if out else "base"
