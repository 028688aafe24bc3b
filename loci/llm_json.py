"""Finding and checking the JSON in a model's reply, apart from the transport.

Models wrap JSON in prose and code fences and slip on a field now and then; these pure
functions find the value and summarise a validation error compactly enough to send
back to the model, so `loci.llm.LLMClient.chat_json` only orchestrates the retry.
"""

from __future__ import annotations

import json

from pydantic import ValidationError

__all__ = ["extract_json_block", "format_validation_error"]


def _balanced_span(text: str, start: int) -> str | None:
    """The bracketed value starting at ``start``, honouring JSON strings; None if unclosed."""
    closers = {"{": "}", "[": "]"}
    stack: list[str] = []
    in_string = escaped = False
    for i in range(start, len(text)):
        ch = text[i]
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in closers:
            stack.append(closers[ch])
        elif ch in "}]":
            if not stack or stack.pop() != ch:
                return None
            if not stack:
                return text[start : i + 1]
    return None


def extract_json_block(text: str) -> str:
    """Find the JSON object or array in a model reply.

    Models wrap JSON in ```json fences or lead with prose ("Sure! Here it is:"), and
    prose may itself contain brackets. So each ``{``/``[`` is tried in order and the
    first balanced span that parses wins. When nothing parses, the first balanced span
    (or, for truncated output, everything from the first bracket) is returned so the
    validator's error message points at the real problem. Raises ``ValueError`` when
    the text holds no bracket at all.
    """
    starts = [i for i, ch in enumerate(text) if ch in "{["]
    if not starts:
        raise ValueError("no JSON object or array in the reply")
    first_span: str | None = None
    for start in starts:
        span = _balanced_span(text, start)
        if span is None:
            continue
        if first_span is None:
            first_span = span
        try:
            json.loads(span)
        except ValueError:
            continue
        return span
    return first_span if first_span is not None else text[starts[0] :].strip()


def format_validation_error(err: ValidationError) -> str:
    """Compact, URL-free summary of a pydantic error, short enough to send back to a model."""
    parts: list[str] = []
    for item in err.errors(include_url=False)[:5]:
        loc = ".".join(str(p) for p in item["loc"]) or "<root>"
        parts.append(f"{loc}: {item['msg']}")
    more = err.error_count() - len(parts)
    if more > 0:
        parts.append(f"(+{more} more)")
    return "; ".join(parts)
