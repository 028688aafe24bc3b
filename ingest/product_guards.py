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
* **when** (`PAST_LIFE`): a purchase of another life ("back in uni i bought …", "when i was 18",
  "my first car?", "as a kid") is no thing of now: its status, never its ``is``;
* **what for** (`NOT_REAL`, `for_someone_else`): a rental, a loan, a dream or a make-believe ("let's
  say i got …") is no purchase; a gift ("for my mum", "as a present") is someone else's;
* **what** (`trimmed`): the words after a line that name a day, a time, a holiday or a size are no
  part of its model ("pixel tuesday 3pm", "kindle Christmas morning", "macbook pro m3 16 inch").
"""

from __future__ import annotations

import re

__all__ = ["NOT_REAL", "PAST_LIFE", "by_speaker", "for_someone_else", "states_more", "trimmed"]

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


def by_speaker(text: str, at: int) -> bool:
    """Whether the verb at ``at`` is the speaker's own and done: "I" / "we" or the sentence's
    opening directly before it, adverbs aside; or opening a clause joined by "and" or a comma to
    one of the speaker's own with no one else, no modal and no negation in it ("I went to Olympia
    Cycle and bought …", "ok i did it, got an iPhone 15")."""
    lo = max(0, at - _LOOK_BACK)
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
    r"used\s+to|at\s+(?:1[5-9]|2\d)\b|decades?\s+ago|once\s+upon)\b",
    re.I,
)
"""A purchase of another life: its product's status stands, its ``is`` would close today's thing."""

NOT_REAL = re.compile(
    r"\b(?:rent(?:al|ed|ing)?|hire[ds]?|hiring|loaner|courtesy\s+car|borrow(?:ed|ing)?|test[\s-]*dr(?:ive|ove)|"
    r"airport|hertz|avis|sixt|europcar|zipcar|turo|dream(?:s|t|ed|ing)?|let['’]?s\s+say|say\s+(?:i|we)|suppose|"
    r"imagine|pretend|hypothetically|in\s+(?:the\s+)?game|for\s+the\s+(?:week|weekend|day|trip|holiday))\b",
    re.I,
)
"""A sentence of a rental, a loan, a dream or a make-believe: no product of the speaker's in it."""

_KIN = (
    r"(?:mum|mom|mam|mother|dad|father|son|daughter|kid|kids|child|children|wife|husband|partner|bf|gf|boyfriend|"
    r"girlfriend|sister|brother|sis|bro|niece|nephew|grandma|gran|nan|nana|grandpa|grandad|granddad|aunt|auntie|"
    r"uncle|cousin|friend|mate|boss|colleague|teacher|fianc[eé]e?|parents|folks|in-laws|family|neighbour|neighbor)"
)
_GIFT = re.compile(
    rf"[^.;!?]*?\b(?:for\s+(?:(?:my|our|his|her|their|the)\s+)?(?:(?:little|big|older|younger|old)\s+)?{_KIN}\b|"
    r"for\s+(?:him|her|them)\b|for\s+\w+['’]s\s+(?:birthday|bday|anniversary|christmas|graduation)|"
    r"as\s+an?\s+(?:gift|present|surprise|birthday\s+present|christmas\s+present))",
    re.I,
)


def for_someone_else(text: str, end: int) -> bool:
    """Whether the words just after a product bought make it a gift (a few words only: a long
    paste is read once, not once a product)."""
    return bool(_GIFT.match(text, end, end + 60))


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
