"""The spellings a stored text names a known entity by, read off the text alone.

Mining records the spellings each drawer used for each entity it links
(``drawer_entities.surfaces``), so trash, restore and purge can name the entity again from
its live drawers (`ingest.entity_names`). Links made without mining have no such record:
those migration 0028 backfilled, and those an import writes. Both read them off the drawer's
text by this one rule, which lives in the core because a migration may import nothing else:

* the candidates are the entity's aliases and its name, matched as mining matched a mention to
  a part (lower case, anywhere in the text);
* one found only inside a longer one found ("callum" inside "Callum Hendry") is left out;
* each is given in the text's own spelling, in the order the text says them;
* a text that contains none of them (a speaker's own turn, a resolved date) gives the name.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["spellings_in"]


def spellings_in(name: str, aliases: Sequence[str], content: str) -> list[str]:
    """The entity's known spellings ``content`` says (see the module doc), else its ``name``."""
    low = content.lower()
    same_length = len(low) == len(content)  # lower() kept every offset: the text's case can be read back
    taken: list[tuple[int, int]] = []
    found: list[tuple[int, str]] = []
    for spelling in sorted({a for a in (*aliases, name.lower()) if a}, key=lambda a: (-len(a), a)):
        spans = []
        start = low.find(spelling)
        while start >= 0:
            end = start + len(spelling)
            if not any(s <= start and end <= e for s, e in taken):
                spans.append((start, end))
            start = low.find(spelling, start + 1)
        if spans:
            at = spans[0][0]
            if same_length:
                found.append((at, content[at : at + len(spelling)]))
            else:
                found.append((at, name if spelling == name.lower() else spelling))
            taken.extend(spans)
    return [spelling for _, spelling in sorted(found)] or [name]
