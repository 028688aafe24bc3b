"""Owned things named by their product: "bought a 2021 RAV4", "traded in my Pixel 6", "the civic just clicks".

The relation rules (`ingest.relation_rules`) read an owned thing by its kind ("my car is a …"). Chat as often
names the product alone, and `ingest.product_lines` says what kind of thing it is. Read per sentence of a
person's turn (`product_facts`), in its mood (`ingest.mood`: "should I buy a RAV4?" records nothing), with
what the window named before it (`Recent`):

* **acquired or held** by the speaker ("I bought / got / picked up / ordered / leased a X", "upgraded /
  switched to a X", "replaced … with a X", "traded … for a X", "my new X", "I have / own / drive a X" or
  "went with / opted for a X" ending its clause: no "Tesla appointment", "Corolla for work", "went with a
  Toyota guy to …"; "bought a car!! a used 2021 RAV4" too): the thing's ``is`` is the product as said, year
  and model kept ("2021 RAV4"), closing the thing's previous ``is`` as any single-valued fact does; bought,
  the product's ``status`` is ``bought``. Only a verb of the speaker's, not a modal or a negation before it
  ("I should get a …", "my brother bought a …"), not a gift, a rental or a make-believe, and of another
  life ("back in uni …") its status only (`ingest.product_guards`);
* **disposed of** ("sold / traded in / returned / gave away / wrote off the X", "someone stole my X",
  "my X died / broke"): the product's ``status``, in the words of `VERB_VALUES` ("died" → dead), the
  product named as fully as the window knows it ("the pixel" after "my pixel 6" is Pixel 6);
* **named** where the speaker owns the thing ("my car won't start, the civic just clicks", "it
  was a Trek Checkpoint", "my pixel 6"): the thing's ``is``, when the window holds none yet or
  says the one it holds more fully ("it's a 2012 Civic" after "the civic"); never a product the
  sentence says is sold, traded, lost or stolen, nor "the <product>" as a verb's object ("borrowed
  the civic").

Only the user's turns are read: another speaker's "my car" is theirs. A line that is an everyday
word, or one an accessory follows ("an iPhone case"), is no product (`ingest.product_lines`).

`fuller_models` then reads a window's ``is`` values whole: "civic" said before "it's a 2012 Civic"
is the 2012 Civic, so the timeline holds one row, not two. What an earlier chat stored is not seen
here: "the civic" in a later chat, while the graph holds "2012 Civic", is a new value of its own.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import replace
from functools import lru_cache

from ingest import product_ownership as owning
from ingest.entity_vocab import POSSESSIONS, VERB_VALUES, words
from ingest.extraction import USER_ENTITY, EntityMention, RelationFact
from ingest.mood import sentence_mood
from ingest.product_guards import by_speaker, for_someone_else, past_life, states_more, trimmed
from ingest.product_lines import CAPITALISED_ONLY, EVERYDAY, NOT_THE_THING, PRODUCT_LINES, line_at, line_of, spelled
from ingest.product_models import one_line
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
    r"\d+\s*(?:gb|tb|mb|mah|mm|cm|km|k|kg|lbs?|hz|w|v|%|inch(?:es)?|hp|bhp|percent)\b|"
    r"\d+(?:am|pm|/)|\d+(?:\.\d+)?\s+(?:years?|yrs?|months?|mos?|weeks?|wks?|days?|"
    r"hours?|hrs?|mins?|minutes?|times|ago|bucks|quid|dollars|pounds|euros|miles|km)\b|"
    r"(?-i:(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|January|February|March|April|June|July|"
    r"August|September|October|November|December|I)\b)"
)
_JOINING = (
    r"(?:for|at|in|on|to|from|with|about|around|under|over|and|or|was|is|by|after|before|since|of|like|last|this|"
    r"next|every|only|just|almost|nearly|got|had|have|yesterday|today|tonight|tomorrow|morning|evening|night|"
    r"weekend|week|month|year|(?:mon|tues|wednes|thurs|fri|satur|sun)day)\b"
)
_TOKEN = (
    rf"(?!{_NOT_MODEL})(?:[\w\-]*\d[\w\-]*(?:\.\d+)?|(?-i:[A-Z][\w\-]*)|pro|max|plus|mini|ultra|air|se|lite|fe"
    rf"|(?!{_JOINING})[a-z]+[ \t]+(?!{_NOT_MODEL})[\w\-]*\d[\w\-]*|{_PLAIN})"
)
"""A model word ("15", "X1", "pro", "kobo libra 2"; one line after its maker: `one_line`), no size, age or price."""
_LEAD = rf"(?:(?:(?:19|20)\d\d[ \t]+)?(?:(?:{'|'.join(owning.MAKERS)})[ \t]+)?)"
"""A year, and a maker of several kinds of thing (no line itself), before a line: "2019 Samsung Galaxy A35"."""
_PRODUCT = rf"(?<![\w\-])(?P<product>{_LEAD}(?:{_PLAIN}|{_CAPITAL})(?![\w\-])(?:[ \t]+{_TOKEN}(?![\w\-])){{0,3}})"
_HELD_ENDS = r"(?=\s*(?:$|[.,;:!?)]|(?:and|but|so|which|now|too|lol|haha|atm|rn|since|these\s+days)\b))"
_PLAIN_PRODUCT = re.compile(rf"(?<![\w\-]){_LEAD}(?:{_PLAIN})(?![\w\-])", re.I)
_FRESH = (
    r"(?:(?P<det>an?|the|my|our|one|this|that)\s+)?"
    r"(?:(?:new|used|brand[\s-]new|second[\s-]hand|refurbished|shiny)\s+)*"
)
_CHOSEN_ENDS = r"(?=\s*(?:$|[.,;:!?)]|(?:in\s+the\s+end|instead|after|over|because|cos|since|so|lol|haha)\b))"
_ACQUIRED = tuple(
    re.compile(saying, re.I)
    for saying in (
        rf"\b(?P<verb>bought|purchased|got|picked\s+up|ordered|leased|treated\s+myself\s+to|(?<=ended up )buying|"
        rf"(?<=ended up )getting)\s+{_FRESH}{_PRODUCT}",
        rf"\b(?P<verb>went\s+with|opted\s+for|settled\s+on)\s+{_FRESH}{_PRODUCT}{_CHOSEN_ENDS}",
        rf"\b(?:upgraded|switched|changed)\s+(?:over\s+)?(?:from\s+[^.,;!?]{{1,40}}?\s+)?to\s+{_FRESH}{_PRODUCT}",
        rf"\b(?:replaced|swapped|traded)\s+(?!it\b)[^.,;!?]{{1,40}}?\s+(?:with|for)\s+{_FRESH}{_PRODUCT}",
        rf"\b(?:I|we)\s+(?:still\s+|now\s+|currently\s+|also\s+)?(?:have|own|drive|ride)\s+{_FRESH}{_PRODUCT}{_HELD_ENDS}",
        rf"\bdrove\s+(?:the|a|an)\s+(?:new\s+)?{_PRODUCT}\s+home\b",
        rf"(?:\b(?:the|my|our)\s+(?:new\s+)?|^\W*|(?<=[.!?,;:]\s))(?=[^.!?,;]{{1,40}}?\bis\s+(?:\w+\s+)?mine)"
        rf"{_PRODUCT}\s+(?P<mine>is\s+(?:now\s+|officially\s+|finally\s+|all\s+)*mine)(?:\s+now)?(?=\s*(?:[.!?]|$))",
        rf"(?<!nearly )(?<!almost )\b(?:talked|convinced|persuaded)\s+(?:me|us)\s+into\s+(?:getting\s+|buying\s+)?"
        rf"{_FRESH}{_PRODUCT}",
        rf"\b(?:my|our)\s+(?:brand[\s-]new|new)\s+{_PRODUCT}",
    )
)
"""Ways of saying a product became or is the speaker's; the last two whoever talked ("my son talked me into …")."""
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
_OBJECT_OF = (_GONE, _STOLEN, _BROKE)
"""Readings that say a product well enough by themselves ("sold the civic", "my pixel died"): a line that is
an everyday word counts there in lower case too; they give a status, never an ``is``."""
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
_FUNCTION = words(
    """a an the my our to from for in on at of with and but or so as by yesterday today tonight last this that
    which who after before since because when while lol haha tho though too again now"""
)
_NEXT_WORD = re.compile(r"[ \t]+(?P<word>[A-Za-z]+)\b")
_WORD = re.compile(r"\S+")
_CLAUSE_START = re.compile(r"(?:^|[,;:(]|\b(?:and|but|so|because|cos|coz|bc|while|though|although|plus))\s*$", re.I)
Found = tuple[re.Match[str], str]
"""A reading's match and the product it names, trimmed (`_product`)."""


def _found(patterns: Sequence[re.Pattern[str]], text: str, known: Collection[str]) -> list[Found]:
    """The matches of ``patterns`` that name a product (`_product`), with that product."""
    shouting = not any(c.islower() for c in text)
    out: list[Found] = []
    for pattern in patterns:
        for m in pattern.finditer(text):
            if m.groupdict().get("product") is None:
                out.append((m, ""))
            elif product := _product(text, m, known, shouting):
                out.append((m, product))
    return out


def _product(text: str, m: re.Match[str], known: Collection[str], shouting: bool) -> str:
    """The product a match names, less what follows its model (`trimmed`); "" when it names none:
    a line that is an everyday word typed in lower case with no model number, not yet named in the
    window nor after the speaker's thing of its kind ("my civic duty", "the outback"); a capitalised
    everyday word in a sentence all in capitals ("A GOLF BALL"); a product a word after makes into
    something else ("an iPhone case", "a Honda lawnmower", "a Golf ball": `NOT_THE_THING`)."""
    said = m.group("product")
    found = line_at(said)
    if found is None:
        return ""
    key, thing = found
    typed = said.split()
    lowered = [w.lower() for w in typed]
    n = len(key.split())
    at = next((i for i in range(len(lowered)) if lowered[i : i + n] == key.split()), 0)
    product = one_line(trimmed(said, at + n), at, at + n)
    kept = len(product.split())
    line_lower = shouting or all(w.islower() for w in typed[at : at + n])
    if key in CAPITALISED_ONLY and shouting:
        return ""
    numbered = any(c.isdigit() for c in product[len(key) :])
    plain_word = m.re not in _OBJECT_OF and key not in known and not numbered and not m.groupdict().get("mine")
    made = any(not w.isdigit() for w in lowered[:at])  # "honda civic": its maker says the line is one
    if key in EVERYDAY and line_lower and plain_word and not made and _owned_from(text, thing) >= m.start():
        return ""
    ends = [w.end() for w in _WORD.finditer(said)]
    after = _NEXT_WORD.match(text, m.start("product") + ends[kept - 1])
    word = after.group("word") if after else ""
    if any(w.lower() in NOT_THE_THING for w in (*product.split()[at + n :], word)):
        return ""
    if word.lower() in POSSESSIONS and _thing(word) != thing:
        return ""
    if key in CAPITALISED_ONLY and word.islower() and word not in _FUNCTION and _thing(word) != thing:
        return ""
    return product


@lru_cache(maxsize=4)
def _first_owned(text: str) -> dict[str, int]:
    """Where the sentence first says "my <thing>" of each thing (read once a sentence, not once a product)."""
    first: dict[str, int] = {}
    for o in _OWNS_SAID.finditer(text):
        first.setdefault(_thing(o.group("thing")), o.start())
    return first


def _owned_from(text: str, thing: str) -> int:
    """Where the sentence first says "my <thing>"; its length when it never does."""
    return _first_owned(text).get(thing, len(text))


def _fact(said: Said, subject: EntityMention, predicate: str, value: str, kind: str | None) -> RelationFact:
    return RelationFact(subject, predicate, value, kind, said.since(), said.seq, said.confidence)


def _name(product: str) -> str:
    """The product as an entity: its words as said, less a year ("2012 civic" → Civic), its line `spelled`."""
    said = product.split()
    return spelled(" ".join(said[1:] if len(said) > 1 and said[0].isdigit() else said))


def product_facts(said: Said, recent: Recent, here: Sequence[RelationFact]) -> list[RelationFact]:
    """What one sentence of the user's (as said: models not yet read as their things) tells of
    their products: acquired, gone, or named (the module doc), under the guards of
    `ingest.product_guards`. ``here``: the facts the sentence already gave, so a thing gets one
    ``is`` from it. Notes in ``recent`` the thing the sentence bought ("bought a car!!"), which
    the next sentence may name ("a used 2021 RAV4"), and a past life it speaks of ("my first car?")."""
    if said.speaker != USER_ENTITY:
        return []  # another speaker's "my car" is theirs, never the user's
    text, speaker = said.text, said.speaker.name.lower()
    mood = sentence_mood(text)
    past_said = recent.acquired.get(speaker + "\0past") == str(said.seq)  # "my first car? i bought …"
    recent.acquired[speaker + "\0past"] = str(said.seq) if past_life(text, len(text), reach=len(text)) else ""
    noted = recent.acquired.get(speaker, "")
    acquired = _ACQUIRED_THING.search(text)
    recent.acquired[speaker] = (
        f"{_thing(acquired.group('thing'))}@{said.seq}" if acquired and mood.states(acquired.start()) else ""
    )
    if owning.rental_said(text, said.seq, recent.acquired, speaker):
        return []
    has_is = {f.subject.name for f in here if f.predicate == "is"}
    out: list[RelationFact] = []
    known = set(recent.models)

    gone, spans = _gone(said, recent, mood.states)
    ended = {f.value for f in owning.owning_ended(gone)}

    def model(thing: str, product: str, at: int = 0, end: int = -1) -> None:
        if thing not in has_is and not owning.held_back(text, at, end, past_said or _name(product) in ended):
            has_is.add(thing)
            out.append(_fact(said, EntityMention("i", thing), "is", spelled(" ".join(product.split())), "i"))

    def bought(product: str) -> None:
        out.append(_fact(said, EntityMention("i", _name(product)), "status", "bought", None))

    covered: list[tuple[int, int]] = []
    rented = owning.rented_before(said.seq, recent.acquired, speaker)  # a hire said earlier in the turn
    for m, product in _found(_ACQUIRED, text, known):
        covered.append((m.start(), m.start("product")))
        thing = _acquired(text, m, product, mood.states)
        if thing is not None and not owning.doubted(text, m, product, rented):
            model(thing, product, m.start(), m.end())
            held = owning.held_back(text, m.start(), m.end(), past_said or _name(product) in ended)
            out.extend(() if held else (_fact(said, said.speaker, "owns", _name(product), "i"),))
            if m.groupdict().get("verb") is not None:
                bought(product)
    out.extend((*gone, *owning.owning_ended(gone)))
    covered.extend(spans)
    if product := _fragment(said, noted, known):
        model(noted.partition("@")[0], product)
        bought(product)
    for thing, product, at in (*owning.still_had(gone), *_named(said, recent, covered)):
        if thing not in recent.current or _fuller(product, recent.current[thing]):
            model(thing, product, at)
    return out


def _fragment(said: Said, noted: str, known: Collection[str]) -> str:
    """The product a sentence that is only a product names, when it is of the thing the speaker just
    said they bought (``noted``: "car@3", this turn or the next of theirs: "bought a car!! a used 2021
    RAV4"), and goes on to say nothing of it ("a Tesla was way too expensive" is no answer)."""
    thing, _, seq = noted.partition("@")
    fragment = _FRAGMENT.match(said.text)
    if not fragment or not seq or said.seq - int(seq) > 2 or states_more(said.text[fragment.end() :]):
        return ""
    found = _found((_FRAGMENT,), said.text, known)
    if not found or line_of(found[0][1]) != thing or for_someone_else(said.text, fragment.end()):
        return ""
    return found[0][1]


def _acquired(text: str, m: re.Match[str], product: str, states: Callable[[int], bool]) -> str | None:
    """The thing an acquisition reading (`_ACQUIRED`) says the speaker acquired; None when it is
    no product, not stated, a gift, someone else's, or a thing had already."""
    thing = line_of(product)
    if thing is None or not states(m.start()) or for_someone_else(text, m.end(), m.start()):
        return None
    if m.re not in _ACQUIRED[-2:] and not by_speaker(text, m.start()):
        return None  # "my sister upgraded to …", "i heard Dan got …": someone else's
    verb = m.groupdict().get("verb")
    if verb and verb.lower() not in {"bought", "buying", "getting"} and (m["det"] or "").lower() in {"my", "our"}:
        return None  # "got my iPhone back", "picked up my Civic from the garage": had already
    return thing


def _gone(
    said: Said, recent: Recent, states: Callable[[int], bool]
) -> tuple[list[RelationFact], list[tuple[int, int]]]:
    """The products the sentence says the speaker sold, lost or broke (`_GONE`, `_STOLEN`, `_BROKE`),
    and where each one gone from the speaker is said, never then opened as the thing's ``is`` (`STILL_HAD`)."""
    out: list[RelationFact] = []
    spans: list[tuple[int, int]] = []
    for m, product in _found(_OBJECT_OF, said.text, set(recent.models)):
        value = _GONE_VALUES.get(" ".join(m.group("verb").lower().split()))
        if value not in owning.STILL_HAD:
            spans.append((m.start(), m.end()))
        if value is None or not states(m.start()) or owning.kept(said.text, m):
            continue
        if m.re is _GONE and not by_speaker(said.text, m.start()):
            continue
        if not product:  # "someone stole my bike": the thing itself
            out.append(_fact(said, EntityMention("i", _thing(m.group("thing"))), "status", value, None))
            continue
        out.append(_fact(said, EntityMention("i", _name(_known(product, recent))), "status", value, None))
    return out, spans


def _known(product: str, recent: Recent) -> str:
    """The product as fully as the window knows it: "pixel" when the window's one Pixel is a Pixel 6."""
    if len(product.split()) != 1:
        return product
    thing = line_of(product)
    fuller = {w for w, of in recent.models.items() if of == thing and w.split()[0] == product.lower() and " " in w}
    return fuller.pop() if len(fuller) == 1 else product


def _named(said: Said, recent: Recent, covered: Sequence[tuple[int, int]]) -> list[tuple[str, str, int]]:
    """(thing, product, where) for each product the sentence names where the speaker owns that thing:
    "my <product>"; "it's a <product>" where its kind is the speaker's (said before it in the
    sentence, or the last thing the speaker named); "the <product>" only opening a clause after
    "my <thing>" of its kind in the sentence ("my car won't start, the civic just clicks"), not
    as the object of a verb ("borrowed the civic", "in the outback"). Never a product the
    sentence says is gone or replaced (``covered``), nor a line that is an everyday word ("the golf")."""
    text = said.text
    last = recent.owned.get(said.speaker.name.lower())
    mood = sentence_mood(text)
    out: list[tuple[str, str, int]] = []
    for m, product in _found(_NAMED, text, set(recent.models)):
        thing = line_of(product)
        if thing is None or not _PLAIN_PRODUCT.match(product) or not mood.states(m.start()):
            continue
        if any(lo <= m.start("product") < hi for lo, hi in covered):
            continue
        owned = _owned_from(text, thing) < m.start()
        det = (m.groupdict().get("det") or "").lower()
        the = det == "the" and owned and _CLAUSE_START.search(text, max(0, m.start() - 20), m.start())
        if det in {"my", "our"} or the or (det not in {"my", "our", "the"} and (owned or thing == last)):
            out.append((thing, product, m.start()))
    return out


def _fuller(product: str, current: str) -> bool:
    """Whether ``product`` is the current model said more fully ("2012 Civic" after "civic")."""
    said, now = " ".join(product.lower().split()), " ".join(current.lower().split())
    return said != now and said.endswith(" " + now)


def _thing(said: str) -> str:
    thing = " ".join(said.lower().replace("-", " ").split())
    return thing.replace(" ", "-") if thing.replace(" ", "-") in POSSESSIONS else thing


def fuller_models(relations: Sequence[RelationFact]) -> list[RelationFact]:
    """A window's ``is`` facts with a known line spelled as its maker does (`spelled`), and a model
    said short ("civic") read as the one fuller spelling
    the window gives that thing and that ends with it ("2012 Civic", "Honda Civic"): words before
    a model add a year or a make, never a different model ("Pixel 6" is no "Pixel 6 Pro")."""
    said: dict[str, set[str]] = {}
    for f in relations:
        if f.predicate == "is" and f.subject.kind == "i":
            said.setdefault(f.subject.name, set()).add(" ".join(f.value.split()))
    out: list[RelationFact] = []
    for f in relations:
        if f.predicate == "is" and f.subject.kind == "i":
            f = replace(f, value=spelled(f.value)) if line_of(f.value) else f  # "my phone is a pixel 6"
            short = " ".join(f.value.split()).lower()
            fuller = sorted((v for v in said[f.subject.name] if v.lower().endswith(" " + short)), key=len)
            if fuller and all(fuller[-1].lower().endswith(v.lower()) for v in fuller):
                f = replace(f, value=fuller[-1])
        out.append(f)
    return out
