"""The operations people and agents perform on their memory, callable without HTTP.

Browsing the palace, the trash, export and import, settings and agents, accounts and
keys, the activity feed, and queueing mining: each is a plain async function over a
`loci.db.Database` and the caller's user id, holding its own SQL. The HTTP routes, the
``/memory`` pages, the CLI, the worker (and later the MCP server) are adapters that
call these functions, so they all behave the same. This package may import the public
surfaces of `loci`, `ingest` and `retrieval`; it never imports `service`.
"""
