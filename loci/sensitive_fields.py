"""Which core-profile fields are sensitive, and how a proposed memory is judged to be one.

Mining may learn a name, a home city or a health condition from a conversation, but those
are the facts a person most wants to see before an assistant repeats them in every
session. A change mining proposes to one of these fields waits for the user's approval
(`ingest.memory_proposals`, `domain.memory_proposals`); everything else is written at
once, as before. Explicit writes (the user's, an agent's) never wait.

The table is the one place that says so: a field is a name, the slots it covers
(`ingest.memory_candidates.SLOTS`, by name, since the core may not import ``ingest``) and
a pattern over the statement's text, for what arrives without a slot (an LLM's "Speaks
Portuguese", a rule's "Is allergic to shellfish"). Only statements of the categories in
`SENSITIVE_CATEGORIES` are judged: a preference for Italian food mentions no one's city.
`LOCI_MEMORY_CONSENT_FIELDS` picks which rows apply (all by default; empty turns consent off).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["SENSITIVE_CATEGORIES", "SENSITIVE_FIELDS", "SensitiveField", "field_names", "sensitive_field"]


@dataclass(frozen=True, slots=True)
class SensitiveField:
    """One sensitive profile field: the slots it is and the wording that gives it away."""

    name: str
    slots: tuple[str, ...]
    pattern: re.Pattern[str]


def _words(*alternatives: str) -> re.Pattern[str]:
    return re.compile(r"(?i)\b(?:" + "|".join(alternatives) + r")\b")


_HEALTH_WORDS = (
    r"allerg\w*", r"intoleran\w*", r"diabet\w*", r"asthma\w*", r"c[o]?eliac", r"epilep\w*", r"diagnos\w*",
    r"disease", r"disorder", r"syndrome", r"condition", r"adhd", r"autis\w*", r"dyslexi\w*", r"depress\w*",
    r"anxiety", r"migraines?", r"arthritis", r"blood pressure", r"pregnan\w*", r"deaf", r"hard of hearing",
    r"colou?r-?blind", r"ibs", r"crohn'?s", r"pcos", r"apnea", r"tinnitus", r"covid", r"medication",
    r"cancer", r"therapy", r"disabilit\w*", r"surgery",
)  # fmt: skip
"""Conditions, allergies and care: what a health statement names."""

SENSITIVE_FIELDS: tuple[SensitiveField, ...] = (
    SensitiveField(
        "name",
        ("name", "preferred_name"),
        re.compile(r"(?i)^(?:name is|prefers to be called|is called|goes by|full name is|surname is)\b"),
    ),
    SensitiveField("pronouns", ("pronouns",), _words(r"pronouns?", r"(?:she|he|they|ze|xe)/\w+")),
    SensitiveField(
        "city",
        ("location",),
        re.compile(r"(?i)^(?:lives|resides|is based|is living|moved|has moved|relocated|has relocated)\b"),
    ),
    SensitiveField(
        "language",
        (),
        _words(r"speaks", r"native language", r"mother tongue", r"first language", r"is fluent in", r"native speaker"),
    ),
    SensitiveField(
        "health",
        (),
        _words(*_HEALTH_WORDS),
    ),
)
"""Every sensitive field, in the order the proposals list shows them."""
SENSITIVE_CATEGORIES = ("profile",)
"""The memory categories whose statements are judged at all."""


def field_names() -> tuple[str, ...]:
    return tuple(f.name for f in SENSITIVE_FIELDS)


def sensitive_field(category: str, content: str, slot: str | None, enabled: Iterable[str]) -> str | None:
    """The name of the first ``enabled`` field the statement sets, or None when it sets none."""
    if category not in SENSITIVE_CATEGORIES:
        return None
    wanted = set(enabled)
    for field in SENSITIVE_FIELDS:
        if field.name not in wanted:
            continue
        if (slot is not None and slot in field.slots) or field.pattern.search(content):
            return field.name
    return None
