"""Whose a product stays: the user's `owns` rows beside the thing's ``is`` (`ingest.relation_products`).

A product the speaker acquired is an `owns` row of theirs, under the same guards as the thing's ``is``
(another life, a purchase undone, a make-believe); and the acquisitions that say themselves without "I"
are doubted here:

* **talked into** ("my son talked me into a Pixel 9") holds unless a modal or a hedge says it did not
  happen ("would have talked me into …", "…, well almost"), a denial before or after it says it was
  not bought ("no one has talked me into …", "… but I never bought it", "… but left without it") or the
  sentence says the speaker still has the old one ("… but I'm still on my iPhone 12");
* **drove … home** is no purchase of a car someone else's ("well, my boss's new Corolla") nor of one a
  rental said earlier in the turn ("picked up the hire car." … "drove the Yaris home").

A product sold, traded in, returned, given away, got rid of, written off or stolen ends the user's `owns`
row: the sentence records `owned` with the product's name, which closes the current `owns` of the same
value as notice handed in closes a job (`ingest.predicates.ENDED_BY`, `ingest.relation_close`); bought
again, the new `owns` ends that `owned` in turn. Not where only a part of it went ("sold the Pixel 9 box",
"my Pixel's old case"), where it was "returned" to a state or a box ("to factory settings"), or got back
or replaced ("stolen but the police got it back", "returned under warranty for a replacement"): `kept`.
A product named with its maker ("Samsung Galaxy S23") and later without ("sold the Galaxy S23") is one
entity: the graph reads the short name as the one longer product name it ends (`ingest.entity_merge`).
"""

from __future__ import annotations

import re
from collections.abc import MutableMapping, Sequence

from ingest.entity_vocab import POSSESSIONS
from ingest.extraction import USER_ENTITY, RelationFact
from ingest.product_guards import NOT_REAL, past_life, undone
from ingest.product_lines import line_of

__all__ = [
    "MAKERS",
    "STILL_HAD",
    "doubted",
    "held_back",
    "kept",
    "owning_ended",
    "rental_said",
    "rented_before",
    "still_had",
]

MAKERS = ("samsung", "google", "apple", "sony", "microsoft", "amazon", "lenovo")
"""Makers of several kinds of thing, no line themselves, said before a line ("Samsung Galaxy A35")."""

ENDS_OWNING = frozenset({"sold", "traded in", "returned", "given away", "gone", "donated", "wrecked", "stolen"})
"""A product's ``status`` that says it is no longer the speaker's (`ingest.entity_vocab.VERB_VALUES`)."""
STILL_HAD = frozenset({"dead", "broken"})
"""A product that died or broke was the speaker's thing until then ("my MacBook Air finally died"):
named so, it may still open the thing's ``is``; one sold, traded, lost or stolen may not."""

_HEDGED_BEFORE = re.compile(
    r"\b(?:would|could|might|should|nearly|almost|tried|trying|try|tries|wants?|wanted|never|not|\w+n['’]t|nobody|"
    r"no\s+one|no-one|none|noone|"
    r"\w+['’]d)\b(?:\s+\w+){0,2}\s*$",
    re.I,
)
_HEDGED_AFTER = re.compile(
    r"[^.;!?]{0,60}?\b(?:well\s+almost|nearly|almost|not\s+quite|or\s+tried\s+to|still\s+(?:on|using|have|got|with|"
    r"rocking)|kept\s+my|\w+n['’]t|(?:have|has|did|do|wo|ca)nt|not|never|without|yet|walked\s+out|if\s+I)\b",
    re.I,
)
_SOMEONE_ELSES = r"[^.;!?]{{0,60}}?\b(?:\w+['’]s|his|her|their)\s+(?:\w+\s+){{0,2}}?{word}\b"
"""The product driven home said as someone else's after it ("…, well, my boss's new Corolla")."""
_RENTAL = "\0rental"


def doubted(text: str, m: re.Match[str], product: str, rental: bool) -> bool:
    """Whether an acquisition said without "I" (talked into, drove home) is doubted by its sentence:
    a modal or hedge before it, a hedge or the old thing still kept after it, the same product someone
    else's, or (``rental``) a hire said earlier in the turn."""
    said = m.group(0).lower()
    if not said.startswith(("talked", "convinced", "persuaded", "drove")):
        return False
    if said.startswith("drove"):
        theirs = re.compile(_SOMEONE_ELSES.format(word=re.escape(product.split()[-1])), re.I)
        return rental or theirs.match(text, m.end()) is not None
    return bool(_HEDGED_BEFORE.search(text, max(0, m.start() - 40), m.start()) or _HEDGED_AFTER.match(text, m.end()))


_PART_OF = re.compile(
    r"(?:['’]s)?\s+(?:(?:old|original|spare|broken|cracked|empty|first|second)\s+)?(?:box|boxes|case|cases|cover|charger|"
    r"cables?|leads?|adapters?|plugs?|screen\s+protectors?|straps?|bands?|docks?|stands?|mounts?|batter(?:y|ies)|parts?|"
    r"accessor(?:y|ies)|manuals?|packaging|sim|tyres?|tires?|wheels?|seats?|mats?|keys?|remotes?|controllers?|pads?|"
    r"lens(?:es)?|bags?|sleeves?|headphones|earbuds|pens?|skins?|stickers?|receipts?)\b",
    re.I,
)
"""A part or accessory of the product said after it ("sold the Pixel 9 *box*", "my Pixel's old *case*"):
the product itself stays."""
_STAYS = re.compile(
    r"[^.;!?]{0,80}?\b(?:got\s+(?:it|them|him|her)\s+back|(?:was|were|been)\s+(?:recovered|found|returned)|"
    r"(?:recovered|found|returned)\s+(?:it|them)|gave\s+(?:it|them)\s+back|turned\s+up|(?:a|the)\s+replacement|"
    r"replaced\s+(?:it|them)|swapped\s+(?:it|them)|under\s+warranty|for\s+(?:a\s+)?(?:repair|fix)|repaired|fixed)\b",
    re.I,
)
"""Words after a loss or a return that give the thing back ("stolen but the police got it back", "returned
under warranty and got a replacement"): the speaker still has it, or one in its place."""
_PUT_BACK = re.compile(
    r"\s+(?:back\s+)?to\s+(?:factory|default|original|normal|its|their|the\s+(?:box|drawer|shelf|cupboard|case))\b",
    re.I,
)
"""A product "returned" to a state or a place of the speaker's ("returned it to factory settings", "… to its box")."""


def kept(text: str, m: re.Match[str]) -> bool:
    """Whether the reading ``m`` of a product gone (its ``verb`` group the verb) leaves the product the
    speaker's: a part of it gone, not it (`_PART_OF`), returned to a state or a box (`_PUT_BACK`), or
    given back or replaced after (`_STAYS`)."""
    verb = m.group("verb").lower()
    if _PART_OF.match(text, m.end()):
        return True
    if verb.startswith("returned") and _PUT_BACK.match(text, m.end()):
        return True
    return _STAYS.match(text, m.end()) is not None


def held_back(text: str, at: int, end: int, refused: bool) -> bool:
    """Whether a product acquired at ``at`` (its reading ending at ``end``) opens neither the thing's ``is``
    nor the user's `owns`: ``refused`` already (another life said before, or sold in the same sentence),
    of another life (`past_life`), or taken back at once (`undone`)."""
    return refused or past_life(text, at) or undone(text, end)


def rental_said(text: str, seq: int, notes: MutableMapping[str, str], speaker: str) -> bool:
    """Whether ``text`` speaks of a rental, a loan or a make-believe (`NOT_REAL`); noted for the turn
    (``seq``) so a later sentence of it that drives a car home is read as the same hire (`doubted`)."""
    if NOT_REAL.search(text):
        notes[speaker + _RENTAL] = str(seq)
        return True
    return False


def rented_before(seq: int, notes: MutableMapping[str, str], speaker: str) -> bool:
    return notes.get(speaker + _RENTAL) == str(seq)


def still_had(gone: Sequence[RelationFact]) -> list[tuple[str, str, int]]:
    """(thing, product, 0) for each product gone dead or broken (`STILL_HAD`): it was the thing until then."""
    return [(t, f.subject.name, 0) for f in gone if f.value in STILL_HAD and (t := line_of(f.subject.name))]


def owning_ended(gone: Sequence[RelationFact]) -> list[RelationFact]:
    """An `owned` row of the user's for each product ``gone`` says left them (`ENDS_OWNING`): it ends the
    current `owns` of that product (`ingest.predicates.ENDED_BY`). A thing named by its kind ("someone stole
    my bike") names no product an `owns` row holds."""
    return [
        RelationFact(USER_ENTITY, "owned", f.subject.name, "i", f.valid_from, f.turn_seq, f.confidence)
        for f in gone
        if f.predicate == "status" and f.value in ENDS_OWNING and f.subject.name not in POSSESSIONS
    ]
