"""The owned things a turn names: "my battery", "the car", "bought a kettle" (`POSSESSIONS`).

In a person's turn these are the speaker's; in the assistant's only "your X" is, since its
"the bed", "a jacket" are advice about things in general ("give her a quiet bed").
`ingest.entity_scan` lists each as an item mention beside the names it finds.
"""

from __future__ import annotations

import re

from ingest.entity_vocab import POSSESSIONS

__all__ = ["owned_things"]

_OWNED_THING = r"\s+(?:(?:old|new|current|used|second-hand|broken|first)\s+)?([a-z][a-z\-]+(?:\s[a-z][a-z\-]+)?)"
_POSSESSED = re.compile(rf"\b(?i:my|our|the|his|her|their){_OWNED_THING}")
_YOURS = re.compile(rf"\b(?i:your){_OWNED_THING}")
"""The user's things as the assistant names them: "your battery". Its "the bed", "a jacket"
are advice about things in general ("give her a quiet bed"), no one's possessions."""
_BOUGHT = re.compile(
    r"\b(?:bought|purchased|ordered|adopted|got)\s+(?:(?:a|an|the|my|some|new|brand|second-hand|used)\s+)+"
    r"([a-z][a-z\-]+(?:\s[a-z][a-z\-]+)?)"
)
_GENERIC_WORDS = frozenset({"a", "an", "the", "some", "new", "used"})


_NOT_HELD = re.compile(r"\b(?:from|at|by)\s+the\s+$", re.I)
"""Where something is got or eaten, not a thing owned: "tacos from the truck", "lunch at the desk"."""
_FIXTURES = frozenset({"truck", "van", "desk", "counter", "stall", "cart", "kiosk", "machine", "hatch"})
"""Things one gets food or sits at that are no one's own there (not "the radio from the car", "at the piano")."""
_ASPECT = re.compile(r"\s+(?:stuff|role|duties)\b")
"""A word after the thing that makes it a matter's name: "the chair stuff" (the chair's role)."""


def owned_things(text: str, *, speaker_owns: bool) -> list[str]:
    """The owned things ``text`` names, in order of pattern then place (duplicates kept); "the X" is
    none where it is somewhere one gets or stands (`_NOT_HELD`) or names a matter (`_ASPECT`)."""
    found: list[str] = []
    for pattern in (_POSSESSED, _BOUGHT) if speaker_owns else (_YOURS,):
        for m in pattern.finditer(text):
            thing = _possession(m.group(1))
            if thing and pattern is _POSSESSED and text[m.start() : m.start(1)].strip().lower() == "the":
                at = m.start(1) + len(thing)
                held = thing.lower() not in _FIXTURES or not _NOT_HELD.search(text, max(0, m.start() - 12), m.start(1))
                if not held or _ASPECT.match(text, at):
                    continue
            if thing:
                found.append(thing)
    return found


def _possession(phrase: str) -> str | None:
    """The owned thing a phrase starts with ("rice cooker", "battery"), if it is one."""
    words = [w for w in phrase.split() if w not in _GENERIC_WORDS]
    if len(words) >= 2 and "-".join(words[:2]) in POSSESSIONS:
        return " ".join(words[:2])
    return words[0] if words and words[0] in POSSESSIONS else None
