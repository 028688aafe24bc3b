"""Slugs and name keys shared by wings and entities, so one spelling rule dedupes both.

The rule lives in the core (`loci.name_keys`), where migration 0042 reads it too."""

from __future__ import annotations

from loci.name_keys import compact_key, name_key, slugify

__all__ = ["compact_key", "name_key", "slugify"]
