"""Names written all in capitals: an institution's initials and a model's code.

`ingest.entity_scan` drops a name in capitals ("LOL", "NOT AGAIN", "the MRI"): chat shouts and
abbreviates far more often than it names that way. Two kinds of capitals are names all the same:
initials where an institution goes, after "at", "from", "with", "for", "by" or "joined" ("adopted
from the RSPCA", "a nurse at the QEII"), an organisation unless a cue says a place, never a chat,
file, part, test or medical abbreviation (`ingest.entity_vocab.ACRONYM_WORDS`: "a plan for GERD")
nor the initials of a document or a test ("for the PPS number"); and a model's code, letters
then digits ("CX5", "RAV4"), an item.
"""

from __future__ import annotations

import re

from ingest.entity_vocab import ACRONYM_WORDS

__all__ = ["institution_acronym", "model_code", "shouted"]

_ACRONYM = re.compile(r"[A-Z]{3,7}")
_MODEL = re.compile(r"[A-Z]{2,4}\d{1,3}[A-Z]?")
_ACRONYM_BEFORE = re.compile(r"\b(?:at|from|with|for|joined|join|by)\s+(?:the\s+)?$", re.I)
_DOCUMENT_AFTER = re.compile(
    r"\s+(?:number|no\.|card|code|form|test|tests|scan|score|levels?|results?|reading|certificate)\b", re.I
)
"""A noun after the initials that makes them a document's or a test's, not an institution's ("for
the PPS number", "with the TSH levels")."""


def shouted(name: str) -> bool:
    """Every letter of the name a capital ("LOL", "NHS", "RAV4"), or but a plural's "s" ("NSAIDs",
    "ATMs": initials made a common noun)."""
    letters = name.replace(" ", "").replace(".", "")
    return letters.isupper() or (len(letters) > 3 and letters.endswith("s") and letters[:-1].isupper())


def model_code(name: str) -> bool:
    return _MODEL.fullmatch(name) is not None


def institution_acronym(text: str, start: int, name: str) -> bool:
    """Whether ``name``, found at ``start`` of ``text``, is an institution's initials (module doc)."""
    return (
        _ACRONYM.fullmatch(name) is not None
        and name.lower() not in ACRONYM_WORDS
        and _ACRONYM_BEFORE.search(text, max(0, start - 24), start) is not None
        and _DOCUMENT_AFTER.match(text, start + len(name)) is None
    )
