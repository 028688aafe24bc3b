"""Owned things named by their product: "bought a 2021 RAV4", "traded in my Pixel 6", "the civic just clicks".

The relation rules (`ingest.relation_rules`) read an owned thing by its kind ("my car is a …", "sold
my bike"). Chat as often names the product alone, and the product line table
(`ingest.product_lines`) says what kind of thing it is. Read per sentence of a person's turn
(`product_facts`), in the mood the sentence says it (`ingest.mood`: "should I buy a RAV4?",
"if I sold the civic …" record nothing), with what the window named before it (`Recent`):

* **acquired** by the speaker ("I bought / got / picked up / ordered / leased a X", "upgraded /
  switched to a X", "replaced … with a X", "traded … for a X", "my new X"; "bought a car!! a used
  2021 RAV4" too): the thing's ``is`` is the product as said, year and model number kept ("2021
  RAV4", "Pixel 6"), which closes the thing's previous ``is`` as any single-valued fact does
  (`ingest.graph.record_relation`); bought, the product's ``status`` is ``bought``. Only a verb of the
  speaker's, not a modal or a negation before it ("I should get a …", "my brother bought a …");
* **disposed of** ("sold / traded in / returned / gave away / wrote off the X", "someone stole my X",
  "my X died / broke"): the product's ``status``, in the words of `VERB_VALUES` ("died" → dead), the
  product named as fully as the window knows it ("the pixel" after "my pixel 6" is Pixel 6);
* **named** where the speaker owns the thing ("my car won't start … the civic just clicks", "it
  was a Trek Checkpoint", "my pixel 6"): the thing's ``is``, when the window holds none yet or
  says the one it holds more fully ("it's a 2012 Civic" after "the civic").

`fuller_models` then reads a window's ``is`` values whole: "civic" said before "it's a 2012 Civic"
is the 2012 Civic, so the timeline holds one row, not two. What an earlier chat stored is not seen
here: "the civic" in a later chat, while the graph holds "2012 Civic", is a new value of its own.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace

from ingest.entity_vocab import POSSESSIONS, VERB_VALUES, words
from ingest.extraction import EntityMention, RelationFact
from ingest.mood import sentence_mood
from ingest.product_lines import CAPITALISED_ONLY, PRODUCT_LINES, line_of, spelled
from ingest.relation_context import Recent, Said

__all__ = ["fuller_models", "product_facts"]


def _alternatives(keys: Sequence[str], capital: bool) -> str:
    said = sorted(keys, key=len, reverse=True)
    if capital:  # first letter a capital, the rest in any case ("Golf", "GOLF", "BlackBerry")
        return "|".join(r"\s+".join(f"(?-i:[{w[0].upper()}])(?i:{re.escape(w[1:])})" for w in k.split()) for k in said)
    return "|".join(r"\s+".join(re.escape(w) for w in k.split()) for k in said)


_PLAIN = _alternatives([k for k in PRODUCT_LINES if k not in CAPITALISED_ONLY], capital=False)
_CAPITAL = _alternatives(sorted(CAPITALISED_ONLY), capital=True)
_NOT_MODEL = (
    r"\d+\s*(?:gb|tb|mb|mah|mm|cm|km|k|kg|lbs?|hz|w|v|%)\b|\d+\s+(?:years?|yrs?|months?|mos?|weeks?|wks?|days?|"
    r"hours?|hrs?|mins?|minutes?|times|ago|bucks|quid|dollars|pounds|euros|miles|km)\b|"
    r"(?-i:(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|January|February|March|April|June|July|"
    r"August|September|October|November|December|I)\b)"
)
_JOINING = (
    r"(?:for|at|in|on|to|from|with|about|around|under|over|and|or|was|is|by|after|before|since|of|like|last|this|"
    r"next|every|only|just|almost|nearly|got|had|have)\b"
)
_TOKEN = (
    rf"(?!{_NOT_MODEL})(?:[\w\-]*\d[\w\-]*(?:\.\d+)?|(?-i:[A-Z][\w\-]*)|pro|max|plus|mini|ultra|air|se|lite|fe"
    rf"|(?!{_JOINING})[a-z]+[ \t]+(?!{_NOT_MODEL})[\w\-]*\d[\w\-]*)"
)
"""A word of a model after its line: a number ("15", "X1"), a capitalised word ("Carbon"), a
tier ("pro", "air"), a word before a number ("kobo libra 2"); not a storage size, a count of
years or a price ("128gb", "4 years", "for 40")."""
_YEAR = r"(?:(?:19|20)\d\d[ \t]+)"
_PRODUCT = rf"(?<![\w\-])(?P<product>{_YEAR}?(?:{_PLAIN}|{_CAPITAL})(?![\w\-])(?:[ \t]+{_TOKEN}(?![\w\-])){{0,3}})"
_PLAIN_PRODUCT = re.compile(rf"(?<![\w\-]){_YEAR}?(?:{_PLAIN})(?![\w\-])", re.I)
_FRESH = (
    r"(?:(?P<det>an?|the|my|our|one|this|that)\s+)?"
    r"(?:(?:new|used|brand[\s-]new|second[\s-]hand|refurbished|shiny)\s+)*"
)
_ACQUIRED = tuple(
    re.compile(saying, re.I)
    for saying in (
        rf"\b(?P<verb>bought|purchased|got|picked\s+up|ordered|leased|treated\s+myself\s+to)\s+{_FRESH}{_PRODUCT}",
        rf"\b(?:upgraded|switched|moved|changed)\s+(?:over\s+)?(?:from\s+[^.,;!?]{{1,40}}?\s+)?to\s+{_FRESH}{_PRODUCT}",
        rf"\b(?:replaced|swapped|traded|exchanged)\s+(?!it\b)[^.,;!?]{{1,40}}?\s+(?:with|for)\s+{_FRESH}{_PRODUCT}",
        rf"\b(?:my|our)\s+(?:brand[\s-]new|new)\s+{_PRODUCT}",
    )
)
"""Ways of saying a product became the speaker's; only "bought" and its like say it was bought."""
_POSS = "|".join(sorted((re.escape(w).replace(r"\-", r"[\- ]") for w in POSSESSIONS), key=len, reverse=True))
_GONE = re.compile(
    rf"\b(?P<verb>sold|traded\s+in|returned|gave\s+away|got\s+rid\s+of|wrote\s+off|written\s+off|totall?ed|crashed|"
    rf"wrecked|lost|donated)\s+(?:the|my|our)\s+(?:old\s+)?{_PRODUCT}",
    re.I,
)
_STOLEN = re.compile(
    rf"\b(?P<verb>stole|nicked|pinched)\s+(?:my|our)\s+(?:old\s+)?(?:{_PRODUCT}|(?P<thing>{_POSS})\b)", re.I
)
_BROKE = re.compile(
    rf"\b(?:my|our)\s+(?:old\s+)?{_PRODUCT}\s+(?:(?:just|finally|completely|totally|has|had|have)\s+)*"
    r"(?P<verb>died|broke|stopped\s+working|got\s+stolen|was\s+stolen|got\s+nicked|(?:got\s+|was\s+)?written\s+off|bricked)\b",
    re.I,
)
"""A product of the speaker's gone: sold, stolen, dead."""
_GONE_VALUES = {
    **VERB_VALUES,
    "traded in": "traded in",
    "stole": "stolen",
    "nicked": "stolen",
    "pinched": "stolen",
    "got nicked": "stolen",
    "wrote off": "wrecked",
    "written off": "wrecked",
    "got written off": "wrecked",
    "was written off": "wrecked",
    "bricked": "broken",
}
_OWNS_SAID = re.compile(rf"\b(?:my|our)\s+(?:[a-z]+\s+)?(?P<thing>{_POSS})\b", re.I)
_NAMED = (
    re.compile(rf"\b(?P<det>the|my|our)\s+{_PRODUCT}(?!['’]s)", re.I),
    re.compile(rf"\bit(?:['’]s|\s+is|\s+was)\s+(?:an?\s+){_PRODUCT}", re.I),
)
"""A product named where the speaker owns its kind: "the civic", "my pixel 6", "it was a Trek …"."""
_FRAGMENT = re.compile(rf"^\W*(?:an?\s+){_FRESH}{_PRODUCT}", re.I)
"""A sentence that is only the product just said to be bought: "bought a car!! a used 2021 RAV4 …"."""
_ACQUIRED_THING = re.compile(rf"\b(?:bought|got|picked\s+up|ordered|leased)\s+{_FRESH}(?P<thing>{_POSS})\b", re.I)
_SUBJECT = re.compile(r"\b(?:i|we|he|she|they|you|someone|somebody)\b", re.I)
_NOT_DONE = re.compile(
    r"\b(?:should|could|would|might|may|must|wants?|wanted|wanna|plan\w*|thinking|considering|hop(?:e|ing)|gonna|"
    r"going|need|will|never|not|no|almost|nearly)\b|n['’]t\b|['’]ll\b",
    re.I,
)
_OPENING = re.compile(
    r"^\W*(?:(?:ok(?:ay)?|so|well|yes|yeah|oh|anyway|update|also|and|then|finally|just)\b\W*)*$", re.I
)


_FUNCTION = words(
    """a an the my our to from for in on at of with and but or so as by yesterday today tonight last this that
    which who after before since because when while lol haha tho though too again now"""
)
_NEXT_WORD = re.compile(r"[ \t]+(?P<word>[a-z]+)\b")


def _found(patterns: Sequence[re.Pattern[str]], text: str) -> list[re.Match[str]]:
    """The matches of ``patterns`` whose product is one: not a capitalised everyday word that a
    lower-case noun follows ("a Golf ball", "the Giant slalom")."""
    out = []
    for pattern in patterns:
        for m in pattern.finditer(text):
            product = m.groupdict().get("product")
            after = _NEXT_WORD.match(text, m.end("product")) if product else None
            if product and product.lower() in CAPITALISED_ONLY and after and after.group("word") not in _FUNCTION:
                continue
            out.append(m)
    return out


def _by_speaker(text: str, at: int) -> bool:
    """Whether the verb at ``at`` is the speaker's own and done: its subject "I" or "we" (or none,
    the sentence opening on it), with no modal or negation between ("I should get …", "I never sold …")."""
    before = text[:at]
    subjects = list(_SUBJECT.finditer(before))
    if not subjects:
        return bool(_OPENING.match(before))
    last = subjects[-1]
    return last.group(0).lower() in {"i", "we"} and not _NOT_DONE.search(before, last.end())


def _fact(said: Said, subject: EntityMention, predicate: str, value: str, kind: str | None) -> RelationFact:
    return RelationFact(subject, predicate, value, kind, said.since(), said.seq, said.confidence)


def _name(product: str) -> str:
    """The product as an entity: its words as said, less a year ("2012 civic" → Civic), its line as
    its maker spells it (`spelled`)."""
    said = product.split()
    return spelled(" ".join(said[1:] if len(said) > 1 and said[0].isdigit() else said))


def product_facts(said: Said, recent: Recent, here: Sequence[RelationFact]) -> list[RelationFact]:
    """What one sentence (as said: models not yet read as their things) tells of the speaker's
    products: acquired, gone, or named (the module doc). ``here``: the facts the sentence already
    gave, so a thing gets one ``is`` from it. Notes in ``recent`` the thing the sentence bought
    ("bought a car!!"), which the next sentence may name ("a used 2021 RAV4")."""
    mood = sentence_mood(said.text)
    has_is = {f.subject.name for f in here if f.predicate == "is"}
    out: list[RelationFact] = []

    def model(thing: str, product: str) -> None:
        if thing not in has_is:
            has_is.add(thing)
            out.append(_fact(said, EntityMention("i", thing), "is", spelled(" ".join(product.split())), "i"))

    for m in _found(_ACQUIRED, said.text):
        thing = line_of(m.group("product"))
        verb = m.groupdict().get("verb")
        if thing is None or not mood.states(m.start()) or (verb is not None and not _by_speaker(said.text, m.start())):
            continue
        if verb and verb.lower() != "bought" and (m.groupdict().get("det") or "").lower() in {"my", "our"}:
            continue  # "got my iPhone back", "picked up my Civic from the garage": had already
        model(thing, m.group("product"))
        if verb is not None:
            out.append(_fact(said, EntityMention("i", _name(m.group("product"))), "status", "bought", None))
    out.extend(_gone(said, recent, mood.states))
    speaker = said.speaker.name.lower()
    fragment = _FRAGMENT.match(said.text)
    if fragment and (thing := line_of(fragment.group("product"))) and recent.acquired.get(speaker) == thing:
        model(thing, fragment.group("product"))
        out.append(_fact(said, EntityMention("i", _name(fragment.group("product"))), "status", "bought", None))
    acquired = _ACQUIRED_THING.search(said.text)
    recent.acquired[speaker] = _thing(acquired.group("thing")) if acquired and mood.states(acquired.start()) else ""
    for thing, product in _named(said, recent):
        if thing not in recent.current or _fuller(product, recent.current[thing]):
            model(thing, product)
    return out


def _gone(said: Said, recent: Recent, states: Callable[[int], bool]) -> list[RelationFact]:
    """The products the sentence says the speaker sold, lost or broke (`_GONE`, `_STOLEN`, `_BROKE`)."""
    out: list[RelationFact] = []
    for m in _found((_GONE, _STOLEN, _BROKE), said.text):
        if not states(m.start()) or (m.re is _GONE and not _by_speaker(said.text, m.start())):
            continue
        value = _GONE_VALUES.get(" ".join(m.group("verb").lower().split()))
        product = m.group("product")
        if value is None:
            continue
        if product is None:  # "someone stole my bike": the thing itself
            out.append(_fact(said, EntityMention("i", _thing(m.group("thing"))), "status", value, None))
            continue
        out.append(_fact(said, EntityMention("i", _name(_known(product, recent))), "status", value, None))
    return out


def _known(product: str, recent: Recent) -> str:
    """The product as fully as the window knows it: "pixel" when the window's one Pixel is a Pixel 6."""
    if len(product.split()) != 1:
        return product
    thing = line_of(product)
    fuller = {w for w, of in recent.models.items() if of == thing and w.split()[0] == product.lower() and " " in w}
    return fuller.pop() if len(fuller) == 1 else product


def _named(said: Said, recent: Recent) -> list[tuple[str, str]]:
    """(thing, product) for each product the sentence names where the speaker owns that thing:
    said "my <product>", or its kind is the speaker's ("my car …" before it in the sentence, or the
    last thing the speaker named). Only lines that are no everyday word ("the civic", not "the golf")."""
    owned = {_thing(m.group("thing")) for m in _OWNS_SAID.finditer(said.text)}
    last = recent.owned.get(said.speaker.name.lower())
    mood = sentence_mood(said.text)
    out: list[tuple[str, str]] = []
    for m in _found(_NAMED, said.text):
        product = m.group("product")
        thing = line_of(product)
        if thing is None or not _PLAIN_PRODUCT.match(product) or not mood.states(m.start()):
            continue
        if (m.groupdict().get("det") or "").lower() in {"my", "our"} or thing in owned or thing == last:
            out.append((thing, product))
    return out


def _fuller(product: str, current: str) -> bool:
    """Whether ``product`` is the current model said more fully ("2012 Civic" after "civic")."""
    said, now = " ".join(product.lower().split()), " ".join(current.lower().split())
    return said != now and said.endswith(" " + now)


def _thing(said: str) -> str:
    thing = " ".join(said.lower().replace("-", " ").split())
    return thing.replace(" ", "-") if thing.replace(" ", "-") in POSSESSIONS else thing


def fuller_models(relations: Sequence[RelationFact]) -> list[RelationFact]:
    """A window's ``is`` facts with a model said short ("civic") read as the one fuller spelling
    the window gives that thing and that ends with it ("2012 Civic", "Honda Civic"): words before
    a model add a year or a make, never a different model ("Pixel 6" is no "Pixel 6 Pro")."""
    said: dict[str, set[str]] = {}
    for f in relations:
        if f.predicate == "is" and f.subject.kind == "i":
            said.setdefault(f.subject.name, set()).add(" ".join(f.value.split()))
    out: list[RelationFact] = []
    for f in relations:
        if f.predicate == "is" and f.subject.kind == "i":
            short = " ".join(f.value.split()).lower()
            fuller = sorted((v for v in said[f.subject.name] if v.lower().endswith(" " + short)), key=len)
            if fuller and all(fuller[-1].lower().endswith(v.lower()) for v in fuller):
                f = replace(f, value=fuller[-1])
        out.append(f)
    return out
