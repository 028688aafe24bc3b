"""Procedures: how-to steps an agent saves for itself, held to one shape on every write.

A memory of a *step category* (`MemorySettings.step_categories`, ``procedure`` by default)
keeps its title as the content (one line, what a query matches) and its steps as the body.
The body is read leniently (numbered lines "1." / "2)" / "Step 3:", bullets, or plain lines)
and stored in one form, ``1. …`` one per line, so every agent that reads a procedure back
gets the same numbering whoever wrote it. A line that is not a step while others are
(no number or bullet under a numbered one) continues the step above it.

Where a procedure may be read is not decided here: `MemorySettings.category_reach` makes the
category agent-only (`domain.agent_access`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from loci.errors import InvalidInput
from loci.inputs import check_text
from loci.settings import MemorySettings

__all__ = ["MAX_STEPS", "STEP_MAX_CHARS", "numbered_steps", "steps_checked"]

MAX_STEPS = 50
"""Steps one procedure may have: past that it is a document, not a how-to."""
STEP_MAX_CHARS = 1_000
"""One step's length at most (a command line with its explanation fits)."""
_MARKER = re.compile(r"^\s*(?:(?:step\s*)?\d{1,3}\s*[.):\-](?!\d)\s*|[-*\u2022]\s+)", re.IGNORECASE)
"""A step's number or bullet. A digit right after the mark makes it part of the step's own
text, not a number: "1.5 cups flour", "10-15 minutes rest", "10:30 preheat"."""


def _steps(lines: list[str]) -> list[str]:
    """The steps: marked lines start one (unmarked lines continue it) when any line is
    marked; otherwise every line is a step."""
    marked = any(_MARKER.match(line) for line in lines)
    steps: list[str] = []
    for line in lines:
        match = _MARKER.match(line)
        text = " ".join(line[match.end() :].split()) if match else " ".join(line.split())
        if marked and not match and steps:
            steps[-1] = f"{steps[-1]} {text}"
        else:
            steps.append(text)
    return [s for s in steps if s]


def numbered_steps(body: str | None, field: str = "body") -> str:
    """``body`` as ``1. …`` lines; a 400 naming ``field`` when there are no steps, too many,
    or one too long."""
    check_text(body or "", field=field)
    lines = [line for line in (body or "").splitlines() if line.strip()]
    steps = _steps(lines)
    if not steps:
        raise InvalidInput(
            f"{field} must hold the procedure's steps, one per line (e.g. '1. Open the door')", field=field
        )
    if len(steps) > MAX_STEPS:
        raise InvalidInput(f"{field} has {len(steps)} steps; a procedure has at most {MAX_STEPS}", field=field)
    for i, step in enumerate(steps, 1):
        if len(step) > STEP_MAX_CHARS:
            raise InvalidInput(f"{field}: step {i} is longer than {STEP_MAX_CHARS} characters", field=field)
    return "\n".join(f"{i}. {step}" for i, step in enumerate(steps, 1))


def steps_checked(
    changes: Mapping[str, Any], category: str, body: str | None, settings: MemorySettings
) -> dict[str, Any]:
    """An update's ``changes`` with the body renumbered when the memory is (or becomes) of a
    step category and its body or category changes; ``category`` and ``body`` are the
    current version's."""
    out = dict(changes)
    into = out.get("category", category)
    if into in settings.step_categories and ("body" in out or into != category):
        out["body"] = numbered_steps(out.get("body", body))
    return out
