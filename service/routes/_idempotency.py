"""The ``Idempotency-Key`` header of the writes that create something, stated once.

A route takes the header as `IdempotencyKeyHeader` and passes ``Once.of(key, …the request)``
to its domain call, which claims the key in the write's transaction (`loci.idempotency`).
"""

from __future__ import annotations

from typing import Annotated

from litestar.params import HeaderParameter

from loci.idempotency import HEADER, KEY_PATTERN, MAX_KEY_CHARS

__all__ = ["IDEMPOTENT", "IdempotencyKeyHeader"]

IdempotencyKeyHeader = Annotated[
    str | None,
    HeaderParameter(
        name=HEADER,
        pattern=KEY_PATTERN,
        max_length=MAX_KEY_CHARS,
        description=(
            f"1-{MAX_KEY_CHARS} visible ASCII characters, unique per write (a UUID): a retry with the same key "
            "and request within a day answers the first try's answer and writes "
            "nothing; the same key with another request is a 409"
        ),
    ),
]
IDEMPOTENT = (
    f" An `{HEADER}` header makes a retry safe: the same key and request again (within a day) answer what the "
    "first one did and write nothing, also when two arrive at once; the same key with another request is a 409."
)
"""The sentence each such route's description ends with."""
