"""What a database error means: the server unreachable (an outage), or one statement's failure.

The periodic jobs and mining read errors the same way whether SQLAlchemy wrapped them
(``sqlalchemy.exc.DBAPIError``, the driver's error in ``.orig``) or psycopg raised them
directly (`loci.column_insert`, the prepared reads of `loci.db`): by the SQLSTATE the server
sent, else, for a driver error that has none (the connection broke before the server could
answer), by what the driver says.

Only connection trouble is an outage. A statement cancelled by ``statement_timeout``
(``57014``), a deadlock's victim (``40P01``) or a full disk (``53100``) mean the database
answered: a job that met one failed for that user, and the next user may well pass.
"""

from __future__ import annotations

import re

import psycopg
import sqlalchemy.exc

__all__ = ["OUTAGE_SQLSTATES", "connection_trouble", "driver_error", "is_outage", "sqlstate_of"]

OUTAGE_SQLSTATES = frozenset({"57P01", "57P02", "57P03", "53300"})
"""Admin shutdown, crash shutdown, cannot connect now (starting up), too many connections;
with the whole class ``08`` (connection exception): the server cannot serve anyone now."""
_CONNECTION_TROUBLE = re.compile(r"connect|server closed|terminat|timeout|timed out", re.IGNORECASE)
"""What the driver says when a connection fails before the server gave an SQLSTATE.
psycopg also raises OperationalError for its own refusals (``number of parameters must be
between 0 and 65535``), which are not connection trouble, so the class alone cannot decide."""


def driver_error(exc: BaseException) -> BaseException:
    """psycopg's own error: SQLAlchemy's ``.orig`` when it wrapped one, else ``exc`` itself."""
    orig = getattr(exc, "orig", None) if isinstance(exc, sqlalchemy.exc.DBAPIError) else None
    return orig if isinstance(orig, BaseException) else exc


def sqlstate_of(exc: BaseException) -> str | None:
    """The SQLSTATE the server sent with ``exc`` (wrapped or raw), None when it sent none."""
    cause = driver_error(exc)
    return getattr(cause, "sqlstate", None) if isinstance(cause, psycopg.Error) else None


def connection_trouble(exc: BaseException) -> bool:
    """A driver error with no SQLSTATE whose message says the connection failed."""
    cause = driver_error(exc)
    if not isinstance(cause, psycopg.OperationalError | psycopg.InterfaceError) or sqlstate_of(cause):
        return False
    return bool(_CONNECTION_TROUBLE.search(str(cause)))


def is_outage(exc: BaseException) -> bool:
    """True when the database cannot answer anyone now (see the module doc)."""
    if isinstance(exc, sqlalchemy.exc.TimeoutError):  # no pooled connection free
        return True
    if isinstance(exc, sqlalchemy.exc.DBAPIError) and exc.connection_invalidated:
        return True
    sqlstate = sqlstate_of(exc)
    if sqlstate:
        return sqlstate[:2] == "08" or sqlstate in OUTAGE_SQLSTATES
    if isinstance(exc, sqlalchemy.exc.InterfaceError) or isinstance(driver_error(exc), psycopg.InterfaceError):
        return True  # the driver's connection is closed under us
    return connection_trouble(exc)
