"""What a recall request may ask, checked before any stage runs (→ HTTP 400 naming the field).

The HTTP schema states the same bounds from these constants; the check stays here for
callers that are not HTTP (the CLI, MCP, the benchmark).
"""

from __future__ import annotations

from loci.errors import InvalidInput
from loci.inputs import check_text
from loci.models import ROLES
from loci.settings import BUDGET_TOKENS_MAX, BUDGET_TOKENS_MIN
from retrieval.request import RecallRequest

__all__ = ["MAX_CANDIDATES", "MAX_MESSAGE_CHARS", "MAX_TOP_K", "validate_request"]

MAX_MESSAGE_CHARS = 20_000
MAX_TOP_K = 500
MAX_CANDIDATES = 1000


def validate_request(request: RecallRequest) -> None:
    """Reject what no stage could honour, naming the field (→ HTTP 400)."""
    if not request.message or not request.message.strip():
        raise InvalidInput("message must not be empty", field="message")
    if len(request.message) > MAX_MESSAGE_CHARS:
        raise InvalidInput(f"message is longer than {MAX_MESSAGE_CHARS} characters", field="message")
    # The message is logged and the filters are compared in SQL: a NUL in either reached
    # PostgreSQL (a filter's gave a 500, the message's lost the log batch it rode in).
    check_text(request.message, field="message")
    if request.top_k is not None and not 1 <= request.top_k <= MAX_TOP_K:
        raise InvalidInput(f"top_k must be between 1 and {MAX_TOP_K}", field="top_k")
    if not 1 <= request.candidate_limit <= MAX_CANDIDATES:
        raise InvalidInput(f"candidate_limit must be between 1 and {MAX_CANDIDATES}", field="candidate_limit")
    budget = request.budget_tokens
    if budget is not None and not BUDGET_TOKENS_MIN <= budget <= BUDGET_TOKENS_MAX:
        raise InvalidInput(
            f"budget_tokens must be between {BUDGET_TOKENS_MIN} and {BUDGET_TOKENS_MAX}", field="budget_tokens"
        )
    f = request.filters
    for field, text in (("filters.wing", f.wing), ("filters.entity", f.entity)):
        if text is not None:
            check_text(text, field=field)
    if f.role is not None and f.role not in ROLES:
        raise InvalidInput(f"role must be one of {', '.join(ROLES)}", field="filters.role")
    if f.since and f.until and f.since >= f.until:
        raise InvalidInput("filters.since must be before filters.until", field="filters.since")
    stamps = (("filters.since", f.since), ("filters.until", f.until), ("now", request.now), ("as_of", request.as_of))
    for name, value in stamps:
        if value is not None and value.tzinfo is None:
            raise InvalidInput("timestamps need a timezone (e.g. 2024-05-01T10:00:00Z)", field=name)
