"""What every settings group shares: how a group reads its variables, and the token bounds
both the retrieval and the memory groups state (`loci.settings`, `loci.settings_memory`)."""

from __future__ import annotations

from pydantic_settings import SettingsConfigDict

__all__ = ["BUDGET_TOKENS_MAX", "BUDGET_TOKENS_MIN", "group_config"]

BUDGET_TOKENS_MIN = 64
BUDGET_TOKENS_MAX = 32_000
"""Bounds of a memory context block's token budget, for the setting and per request."""


def group_config(prefix: str) -> SettingsConfigDict:
    """A group's variables under ``prefix`` (and `.env`). No nan or inf: "nan" was told "should
    be <= 600", and "inf" passed where a bound was meant."""
    return SettingsConfigDict(
        env_prefix=prefix, env_file=".env", extra="ignore", populate_by_name=True, allow_inf_nan=False
    )
