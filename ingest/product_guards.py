"""What keeps a product said in chat from becoming a false fact about the user's things.

`ingest.relation_products` reads "bought a 2021 RAV4" as the user's car. The same words say other
things often enough that each reading is guarded here (the review of 2026-11-30 found each one
writing false facts):

* **whose** act it is (`by_speaker`): "I" or "we" directly before the verb, or no subject at all
  (the sentence opens on it), with only an adverb between ("we just bought", "i finally
  upgraded to"); "my sister upgraded to …", "i heard Dan got …" and "i went with my brother who
  bought …" are someone else's. One verb joined by "and" to the speaker's own clause counts too
  ("I went to the shop and bought …"). Only a few words before the verb are read, so a long
  paste costs time in step with its length;
  Words in quotation marks are someone's words, never the speaker's act ('he said "i just bought …"');
* **when** (`past_life`): a purchase of another life ("back in uni i bought …", "when i was 18",
  "my first car?", "as a kid") is no thing of now: its status, never its ``is``; read in the verb's
  own clause ("i used to drive a Golf, but i just bought a Tesla" is a Tesla of now), and an age
  is no amount ("at 20% off", "at 19 grand");
* **what for** (`NOT_REAL`, `for_someone_else`): a rental, a loan, a dream, a make-believe ("let's
  say i got …"), a game or a ride ("in Forza", "as my Uber") is no purchase; a gift said right
  after the product ("for my mum", "as a present") is someone else's, the family's car is the
  speaker's ("for the family"; "we … for the kids"); a rental "for the week" only ends its clause
  ("for the weekend rides" is a use); a product bought and at once taken back (`undone`: "but
  returned it") opens no thing;
* **what** (`trimmed`): the words after a line that name a day, a time, a holiday or a size are no
  part of its model ("pixel tuesday 3pm", "kindle Christmas morning", "macbook pro m3 16 inch").
"""

from __future__ import annotations

import re

__all__ = ["NOT_REAL", "PAST_LIFE", "by_speaker", "for_someone_else", "past_life", "states_more", "trimmed", "undone"]

_ADVERB = (
    r"(?:ok(?:ay)?|so|well|yes|yeah|oh|omg|anyway|update|also|and|then|finally|just|recently|actually|already|"
    r"literally|eventually|officially|now|even|both|all|have|has|had|went\s+and|ended\s+up|guess\s+what|lol|"
    r"today|yesterday|btw)"
)
_DIRECT = re.compile(rf"(?:^\W*|\b(?:i|we)(?:['’](?:ve|d))?\s+)(?:{_ADVERB}\b[\s,:;!.—–-]*)*$", re.I)
"""The speaker's verb: "I" or "we", or the sentence's opening, then only adverbs before it."""
_JOINED = re.compile(rf"(?:\b(?:and|then)|[&,;])\s+(?:{_ADVERB}\s+)*$", re.I)
_OWN_CLAUSE = re.compile(
    rf"^\W*(?:{_ADVERB}\b\W*)*(?:i|we)(?:['’](?:ve|d|m))?\s+(?![^,;:]*\b(?:who|which|that|he|she|they|you|"
    r"someone|somebody|should|could|would|might|wants?|wanted|gonna|going|need|will|never|not|no)\b)[^,;:]*$",
    re.I,
)
_LOOK_BACK = 160
"""How many characters before a verb are read for its subject: a clause, not the whole paste."""
_QUOTES = re.compile(r'["“”]')


def _quoted(text: str, lo: int, at: int) -> bool:
    """Whether ``at`` is inside a quotation opened in ``text[lo:at]``: someone's words
    ('my brother said "i just bought …"'), not the speaker's act. A straight quote after a
    digit is an inch mark ('13" screen'), no quotation."""
    inside = False
    for q in _QUOTES.finditer(text, lo, at):
        if q.group() == '"' and text[q.start() - 1 : q.start()].isdigit():
            continue
        inside = q.group() == "“" or (q.group() == '"' and not inside)
    return inside


def by_speaker(text: str, at: int) -> bool:
    """Whether the verb at ``at`` is the speaker's own and done: "I" / "we" or the sentence's
    opening directly before it, adverbs aside; or opening a clause joined by "and" or a comma to
    one of the speaker's own with no one else, no modal and no negation in it ("I went to Olympia
    Cycle and bought …", "ok i did it, got an iPhone 15")."""
    lo = max(0, at - _LOOK_BACK)
    if _quoted(text, lo, at):
        return False
    if _DIRECT.search(text, lo, at):
        return True
    joined = _JOINED.search(text, lo, at)
    if joined is None:
        return False
    start = max(text.rfind(c, lo, joined.start()) for c in ",;:")
    if start < 0 and lo > 0:
        return False  # the clause began before the words read
    return bool(_OWN_CLAUSE.match(text[start + 1 : joined.start()]))


PAST_LIFE = re.compile(
    r"\b(?:back\s+(?:in|when|then)|when\s+(?:i|we)\s+(?:was|were)|as\s+an?\s+(?:kid|child|teen(?:ager)?|student)|"
    r"(?:my|our)\s+(?:very\s+)?first\s+(?:\w+\s+)?(?:car|phone|bike|laptop|console|van|motorbike|scooter|tablet)|"
    r"years\s+ago|in\s+(?:uni|college|school|high\s+school|my\s+(?:teens|twenties|20s|youth))|growing\s+up|"
    r"used\s+to|at\s+(?:1[5-9]|2\d)\b(?![.:,]?\d|\s*(?:%|percent|per\s*cent|k\b|grand|quid|bucks|dollars|pounds|euros|"
    r"off|mph|miles|km|an?\s+hour|am\b|pm\b|o['’]clock))|decades?\s+ago|once\s+upon)\b",
    re.I,
)
"""A purchase of another life: its product's status stands, its ``is`` would close today's thing.
An age is no amount, price or time ("at 20% off", "at 19 grand", "at 20:30")."""
_CLAUSE_TURN = re.compile(
    r";|\b(?:but|though|although|whereas|now|nowadays|these\s+days|so\s+(?:last|this)\s+\w+)\b", re.I
)
"""Where a sentence turns from one time to another ("i used to drive a Golf, but i just bought …")."""


_REACH = 300
"""How far either side of a product its clause is read: a long paste read whole for each of its
products took quadratic time."""


def past_life(text: str, at: int, reach: int = _REACH) -> bool:
    """Whether the clause of ``text`` around ``at`` speaks of another life (`PAST_LIFE`): its
    bounds are where the sentence turns (`_CLAUSE_TURN`), so "when i was 18, i bought …" is one,
    and ``reach`` characters either side of ``at`` at most."""
    lo = max((t.end() for t in _CLAUSE_TURN.finditer(text, max(0, at - reach), at)), default=max(0, at - reach))
    hi = min(len(text), at + reach)
    turn = _CLAUSE_TURN.search(text, at, hi)
    return bool(PAST_LIFE.search(text, lo, turn.start() if turn else hi))


NOT_REAL = re.compile(
    r"\b(?:rent(?:al|ed|ing)?|hire[ds]?|hiring|loaner|courtesy\s+car|borrow(?:ed|ing)?|test[\s-]*dr(?:ive|ove)|"
    r"airport|hertz|avis|sixt|europcar|zipcar|turo|dream(?:s|t|ed|ing)?|let['’]?s\s+say|say\s+(?:i|we)|suppose|"
    r"imagine|pretend|hypothetically|in\s+(?:the\s+)?game|in[\s-]game|video\s*game|"
    r"in\s+(?:forza|gta|gran\s+turismo|need\s+for\s+speed|the\s+crew|mario\s+kart|the\s+sims|sims|"
    r"rocket\s+league|minecraft|roblox|fortnite|assetto\s+corsa|beamng)|"
    r"as\s+(?:my|our|an?|the)\s+(?:uber|lyft|taxi|cab)|"
    r"for\s+the\s+(?:week|weekend|day|trip|holiday)(?=\s*(?:$|[.,;:!?)]|and\b|but\b|so\b|while\b)))\b",
    re.I,
)
"""A sentence of a rental, a loan, a dream, a make-believe, a game or a ride: no product of the
speaker's in it. "For the week" is a rental only ending its clause ("for the weekend rides" is a use)."""

_KIN = (
    r"(?:mum|mom|mam|mother|dad|father|son|daughter|kid|kids|child|children|wife|husband|partner|bf|gf|boyfriend|"
    r"girlfriend|sister|brother|sis|bro|niece|nephew|grandma|gran|nan|nana|grandpa|grandad|granddad|aunt|auntie|"
    r"uncle|cousin|friend|mate|boss|colleague|teacher|fianc[eé]e?|parents|folks|in-laws|family|neighbour|neighbor)"
)
_GIFT = re.compile(
    r"(?:[ \t]+(?!(?:and|or|but|plus|with|then|so)\b)[\w'’$£€-]+){0,3}?[ \t]+"
    rf"(?:for\s+(?:(?P<whose>my|our|his|her|their|the)\s+)?(?:(?:little|big|older|younger|old)\s+)?(?P<who>{_KIN})\b|"
    r"for\s+(?:him|her|them)\b|for\s+\w+['’]s\s+(?:birthday|bday|anniversary|christmas|graduation)|"
    r"as\s+an?\s+(?:gift|present|surprise|birthday\s+present|christmas\s+present))",
    re.I,
)
"""A gift said right after its product, a few words at most and no other thing between ("a Kindle
for my mum", "an iPad as a gift"; not "a Pixel 9 and a case for my mum", "a Sienna, room for the kids")."""
_HOUSEHOLD = frozenset({"family", "kids", "children"})
"""Whom a household buys for: the family's car is the speaker's own, and so are "our kids'" things
when "we" bought them; "I" buying "for the kids" gives."""
_WE = re.compile(rf"\b(?:we|and\s+i)(?:['’](?:ve|d))?\s+(?:{_ADVERB}\b[\s,]*)*$", re.I)


def for_someone_else(text: str, end: int, start: int = -1) -> bool:
    """Whether the words just after a product bought (ending at ``end``; its verb at ``start``)
    make it a gift (a few words only: a long paste is read once, not once a product)."""
    gift = _GIFT.match(text, end, end + 60)
    if gift is None or (gift.group("who") or "").lower() not in _HOUSEHOLD:
        return gift is not None
    if gift.group("who").lower() == "family" or (gift.group("whose") or "").lower() == "our":
        return False
    return not (start >= 0 and _WE.search(text, max(0, start - 40), start))


_UNDONE = re.compile(r"[^.;!?]{0,40}?\b(?:returned|sent|took|gave|sold|cancell?ed)\s+(?:it|them|the\s+order)\b", re.I)


def undone(text: str, end: int) -> bool:
    """Whether the sentence takes back the product just bought ("but returned it the next day",
    ", returned it", "and cancelled the order"): it was never the speaker's thing. ``end`` -1: none said."""
    return end >= 0 and bool(_UNDONE.match(text, end))


_VERB_AFTER = re.compile(
    r"\b(?:was|is|were|are|would|could|should|will|might|may|must|looks?|costs?|seems?|sounds?|has|had|have)\b|"
    r"['’]s\b|n['’]t\b",
    re.I,
)


def states_more(rest: str) -> bool:
    """Whether the words after a product fragment go on to say something of it ("a Tesla was way too
    expensive"), so the fragment is no answer to what was just bought ("a used 2021 RAV4 from a dealer")."""
    return bool(_VERB_AFTER.search(rest))


_NOT_A_MODEL = re.compile(
    r"^(?:(?:mon|tues|wednes|thurs|fri|satur|sun)day|january|february|march|april|june|july|august|september|"
    r"october|november|december|christmas|xmas|easter|black|cyber|boxing|prime|halloween|thanksgiving|\d+(?:am|pm))$",
    re.I,
)


def trimmed(product: str, line_words: int) -> str:
    """``product`` less what follows its model: a day, a month, a holiday, a time; a capitalised word
    after a line typed in lower case ("trek Dan"); a second bare number or a long one after a word
    ("pixel 7 24 7", "Pixel 8 Pro 256")."""
    said = product.split()
    head = 1 if len(said) > line_words and said[0].isdigit() and len(said[0]) == 4 else 0
    line = said[head : head + line_words]
    keep = first = head + line_words
    lower = " ".join(line).islower()
    for i in range(keep, len(said)):
        word, prior = said[i], said[i - 1]
        bare = word.isdigit()
        if _NOT_A_MODEL.match(word) or (lower and word[:1].isupper() and not any(c.isdigit() for c in word)):
            break
        if bare and i > first and (prior.isdigit() or len(word) >= 3):
            break
        keep = i + 1
    return " ".join(said[:keep])
