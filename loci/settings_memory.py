"""The explicit memories' settings (``LOCI_MEMORY_…``), a group of `loci.settings` in a module
of its own: the group is the largest, and its fields name categories that must exist.

A value naming a category the user's ``LOCI_MEMORY_CATEGORIES`` does not hold (a budget,
a kind, a reach, a step category) was accepted without a word and never applied: a typo
such as ``{"facts": 800}`` left the block's budget where it was. It is refused now, naming
the variable, the unknown names and the known ones; so is a negative budget. Loci's own
category names always pass: the defaults name some that a shorter list may leave out.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import Field, ValidationInfo, field_validator
from pydantic_settings import BaseSettings, NoDecode

from loci.sensitive_fields import field_names
from loci.settings_base import BUDGET_TOKENS_MAX, BUDGET_TOKENS_MIN, group_config

__all__ = [
    "ARCHIVE_CATEGORY",
    "CATEGORY_PATTERN",
    "CONTENT_MAX_CHARS_MAX",
    "DEFAULT_CATEGORY_REACH",
    "DEFAULT_MEMORY_CATEGORIES",
    "MemorySettings",
    "Reach",
]


DEFAULT_MEMORY_CATEGORIES = (
    "profile", "preference", "response_style", "fact", "goal", "relationship", "procedure", "insight", "summary",
)  # fmt: skip
"""``summary``: the archive summaries mining files for each conversation (`ingest.archive`)."""
ARCHIVE_CATEGORY = "summary"
"""The category of the summary mining files for each conversation (`ingest.archive.ArchiveParams`):
with the archive on, ``LOCI_MEMORY_CATEGORIES`` must hold it (`loci.settings.load_settings`)."""
Reach = Literal["recall", "agent"]
"""How far a category reaches when `MemorySettings.category_reach` names it: ``recall``
(recall and the scoped query find it, the session-start block never shows it) or
``agent`` (only `POST /v1/memory/query` and its MCP tool, for an agent whose allowlist
names the category; never the block nor ordinary recall). A category not named reaches
everywhere, as configured per agent."""
DEFAULT_CATEGORY_REACH: dict[str, Reach] = {"procedure": "agent", "insight": "recall"}
CATEGORY_PATTERN = r"^[a-z][a-z0-9_]{0,31}$"
CONTENT_MAX_CHARS_MAX = 5_000
"""The largest `content_max_chars` may be set to: the API schema states this bound, the setting a tighter one."""


def _known(value: dict[str, Any], info: ValidationInfo) -> dict[str, Any]:
    """``value``, unless it names a category that is neither configured nor one Loci ships
    (``categories`` is validated first, being declared first; absent when it was itself
    refused). A shipped name is no typo, and the defaults name some a shorter list leaves out
    (pydantic-settings validates defaults too): such an entry is simply never used."""
    categories: tuple[str, ...] | None = info.data.get("categories")
    known = {*DEFAULT_MEMORY_CATEGORIES, *(categories or ())}
    unknown = sorted(set(value) - known) if categories is not None else []
    if unknown and categories is not None:
        raise ValueError(f"unknown categories {unknown}; LOCI_MEMORY_CATEGORIES has {', '.join(categories)}")
    return value


class MemorySettings(BaseSettings):
    """Explicit memories (`domain.memories`) and the session-start block (`domain.memory_context`)."""

    model_config = group_config("LOCI_MEMORY_")

    categories: Annotated[tuple[str, ...], NoDecode] = Field(
        default=DEFAULT_MEMORY_CATEGORIES,
        description="the categories a memory may have, comma-separated; a save naming another is a 400",
    )
    core_max_chars: int = Field(
        default=1000,
        ge=100,
        le=20_000,
        description="total characters of a user's core profile: it goes into every session-start block, "
        "so it stays small enough to be worth its tokens on every call",
    )
    content_max_chars: int = Field(
        default=500, ge=50, le=CONTENT_MAX_CHARS_MAX, description="one memory's content: one short line"
    )
    context_min_confidence: float = Field(
        default=0.7,
        ge=0,
        le=1,
        description="extracted memories below this confidence stay out of the session-start block "
        "(recall still finds them); explicit ones are always in",
    )
    context_budgets: dict[str, int] = Field(
        default_factory=lambda: {"profile": 300, "preference": 500, "response_style": 200, "fact": 500},
        description="token budget per category in the session-start block (JSON object); categories not "
        "named share what is left of context_tokens",
    )
    context_tokens: int = Field(default=1500, ge=BUDGET_TOKENS_MIN, le=BUDGET_TOKENS_MAX)
    duplicate_similarity: float = Field(
        default=0.9,
        gt=0,
        le=1,
        description="cosine similarity at which an extracted statement is the same as a saved memory "
        "(mining confirms it instead of adding it; consolidation merges extracted ones this close)",
    )
    decay_half_life_days: float = Field(
        default=180,
        gt=0,
        description="an unconfirmed extracted memory's confidence halves over this many days (explicit "
        "memories never decay); with the 0.8 a stated fact starts at, it leaves the session-start "
        "block after about five weeks and stays recallable",
    )
    decay_step: float = Field(
        default=0.05, gt=0, le=1, description="the smallest fall in confidence the daily job writes (and records)"
    )
    expire_after_days: int = Field(
        default=60,
        ge=1,
        description="extracted memories neither recalled nor confirmed for this long, of low importance and "
        "not pinned, move to the trash",
    )
    expire_max_importance: int = Field(default=2, ge=1, le=5, description="'low importance': at most this")
    trash_days: int = Field(
        default=30, ge=1, description="expired memories are purged (deleted for good) after this many days"
    )
    contextual_days: float = Field(
        default=7,
        gt=0,
        le=3650,
        description="a contextual memory leaves the block and recall this long after it "
        "was saved, then goes to the trash (`loci.memory_kinds`)",
    )
    temporary_days: float = Field(default=1, gt=0, le=3650, description="the same for a temporary memory")
    category_kinds: dict[str, Literal["durable", "contextual", "temporary"]] = Field(
        default_factory=dict,
        description="the kind a memory of a category gets when its writer names none and its text has no "
        'time cue (JSON object, e.g. {"goal": "contextual"}); a category not named is durable',
    )
    consolidate_max_per_user: int = Field(
        default=20, ge=0, description="merges the daily consolidation makes per user at most (0: off)"
    )
    category_reach: dict[str, Reach] = Field(
        default_factory=lambda: dict(DEFAULT_CATEGORY_REACH),
        description="JSON object: categories that never enter the session-start block, and how far they "
        "reach instead: 'recall' (recall and the scoped query) or 'agent' (only the scoped query and its "
        "MCP tool, for an agent whose access list names the category). The one place that says it",
    )
    step_categories: Annotated[tuple[str, ...], NoDecode] = Field(
        default=("procedure",),
        description="categories whose body is numbered steps: checked and renumbered on save ('1. ...')",
    )
    insights_per_day: int = Field(
        default=3, ge=0, le=3, description="insights the daily job may derive per user (LLM only; 0: off)"
    )
    insight_max_chars: int = Field(default=200, ge=20, le=500, description="one insight's length at most")
    insights_lookback_days: int = Field(
        default=7, ge=1, le=90, description="how far back the insight job reads a user's activity"
    )
    consent_fields: Annotated[tuple[str, ...], NoDecode] = Field(
        default=field_names(),
        description="sensitive profile fields (loci/sensitive_fields.py) whose changes mining proposes for the "
        "user's approval instead of writing, comma-separated; empty: mining writes them at once",
    )
    proposal_days: int = Field(
        default=7, ge=1, le=365, description="a proposal nobody approves or rejects lapses after this many days"
    )

    @field_validator("categories", "step_categories", "consent_fields", mode="before")
    @classmethod
    def _comma_list(cls, value: Any) -> Any:
        if isinstance(value, str):
            return tuple(part.strip() for part in value.split(",") if part.strip())
        return value

    @field_validator("categories")
    @classmethod
    def _category_names(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        bad = [c for c in value if not re.match(CATEGORY_PATTERN, c)]
        if bad or not value:
            raise ValueError(f"categories must be lowercase names ([a-z][a-z0-9_]*, up to 32), got {bad or 'none'}")
        return value

    @field_validator("context_budgets")
    @classmethod
    def _budgets(cls, value: dict[str, int], info: ValidationInfo) -> dict[str, int]:
        """A budget is tokens, none below zero, for a category that exists."""
        negative = sorted(c for c, tokens in value.items() if tokens < 0)
        if negative:
            raise ValueError(f"a budget is a number of tokens, 0 or more; negative for {negative}")
        return _known(value, info)

    @field_validator("category_kinds", "category_reach")
    @classmethod
    def _known_keys(cls, value: dict[str, Any], info: ValidationInfo) -> dict[str, Any]:
        return _known(value, info)

    @field_validator("step_categories")
    @classmethod
    def _known_steps(cls, value: tuple[str, ...], info: ValidationInfo) -> tuple[str, ...]:
        _known(dict.fromkeys(value), info)
        return value

    @property
    def agent_only_categories(self) -> frozenset[str]:
        """Categories only an agent that names them in its allowlist reaches, by the scoped query."""
        return frozenset(c for c, reach in self.category_reach.items() if reach == "agent")

    @property
    def unblocked_categories(self) -> frozenset[str]:
        """Categories the session-start block never shows (every one `category_reach` names)."""
        return frozenset(self.category_reach)

    @field_validator("consent_fields")
    @classmethod
    def _field_names(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        unknown = [f for f in value if f not in field_names()]
        if unknown:
            raise ValueError(f"unknown sensitive fields {unknown}; known: {', '.join(field_names())}")
        return value
