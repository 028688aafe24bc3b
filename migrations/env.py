"""Alembic environment: runs against the URL and schema handed over by `loci.migrate`.

Only this package changes the schema. A run in a named schema (benchmark isolation)
creates that schema, keeps its own ``alembic_version`` there, and resolves every
unqualified name through ``search_path``, so revisions never hard-code a schema.
"""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine, pool, text

from loci.db import sqlalchemy_url
from loci.models import Base

config = context.config
target_metadata = Base.metadata


def run_migrations_online() -> None:
    url = config.attributes["url"]
    schema: str | None = config.attributes.get("schema")
    connect_args = {"options": f"-c search_path={schema},public"} if schema else {}
    engine = create_engine(sqlalchemy_url(url), poolclass=pool.NullPool, connect_args=connect_args)
    with engine.connect() as connection:
        if schema:
            connection.execute(text(f'CREATE SCHEMA IF NOT EXISTS "{schema}"'))
            connection.commit()
        context.configure(
            connection=connection,
            target_metadata=target_metadata,
            version_table_schema=schema,
            compare_server_default=True,
            include_schemas=False,
        )
        with context.begin_transaction():
            context.run_migrations()
    engine.dispose()


if context.is_offline_mode():
    raise SystemExit("offline (SQL script) migrations are not supported; run against a database")
run_migrations_online()
