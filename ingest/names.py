"""Slugs and name keys shared by wings and entities, so one spelling rule dedupes both."""

from __future__ import annotations

import re
import unicodedata

__all__ = ["compact_key", "name_key", "slugify"]

_NON_ALNUM = re.compile(r"[^a-z0-9]+")
_INITIAL = re.compile(r"^[A-Za-z]\.?$")
_TITLE = re.compile(r"^(?:dr|mr|mrs|ms|prof|sr|sra|fr)\.?$", re.I)


def slugify(text: str) -> str:
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    slug = _NON_ALNUM.sub("-", ascii_text.lower()).strip("-")
    return slug[:200] or "x"


def name_key(name: str) -> str:
    """The dedupe key: case-insensitive, a leading title and trailing initials dropped
    ("Derek M." → "derek", "Dr. Sousa" → "sousa")."""
    words = name.split()
    if len(words) > 1 and _TITLE.match(words[0]):
        words.pop(0)
    while len(words) > 1 and _INITIAL.match(words[-1]):
        words.pop()
    return slugify(" ".join(words))


def compact_key(name: str) -> str:
    """`name_key` without hyphens or spaces: "e-foil", "E Foil" and "efoil" are one word."""
    return name_key(name).replace("-", "")
