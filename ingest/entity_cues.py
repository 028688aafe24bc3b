"""The words around a capitalised name that decide its kind: one ordered table, read by
`ingest.entity_scan.classify`.

Why a table of patterns rather than a library: no English NER model installs from PyPI as
an official package (spaCy's wheel is on the registry but its models are not, and
GLiNER / Flair fetch weights at run time, which nothing here may do), and a statistical
model would still call an unknown "Peninha" anything. Chat names a name by what it does
in the sentence, so the rule reads that:

* **person**: it speaks or acts ("Peninha said", "Kowalski recommended"), is met or
  addressed ("with Peninha", "met Tavares", "Thanks, Kowalski"), is someone's relation
  ("my physio, Kowalski", "Kowalski, my physio,", "my manager is Raj Patel now"), owns
  something ("Peninha's boat"), or is someone's pet ("my turtle is called Sushi", "our cat,
  Miso,", "a parrot named Kiwi": a named animal is person-like, `ingest.entity_vocab.PETS`);
* **organisation**: one flies or books with ("flying with Ryanair"), works for, is employed
  by, starts at, has an offer from, hands in one's notice at, is laid off from, retires from,
  leaves or moves over to (unless a known person or place: "I left Lisbon"), quits or leaves
  after years there or to join another,
  holds a title at ("moved to Acme as a designer"), buys or orders from, shops at or is a
  customer of it ("bought shoes at Decathlon", "employed by Feedzai", "I start at Brightwave
  in June");
* **place**: one goes to, lives in, eats, drinks or stays at it ("dinner at Cervejaria
  Ramiro", "stayed at Vila Joya", "the Toshogu shrine"), or goes back to, unless the graph
  knows it as an organisation ("I returned to Globex": an employer or a shop, no visit); it
  lies next to, close to or near somewhere, or one takes someone to it ("took her to Ecclesfield
  Vets");
* **event**: one trains for, enters, signs up for or runs it ("training for the Leeds 10K").

A business is typed by the verb, not by what it is: somewhere one *goes* (a restaurant,
a hotel) is a place, someone one *deals with* (a shop one buys from, an employer) is an
organisation. Only a name no cue, own word or gazetteer entry types is an item.

Each cue names the gazetteer kinds that beat it (`Cue.yields_to`): "dinner at Rui's" is
Rui, a known first name, and "bought it from Porto" is the city.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ingest.entity_vocab import JOB_HEADS, LIFE_WORDS, PEOPLE_ROLES, PET_ENDS, PETS, VENUE_NOUNS
from ingest.letters import UPPER

__all__ = ["AFTER_CUES", "AROUND_CUES", "BEFORE_CUES", "FIRST_AFTER_CUES", "Cue", "first_cue"]


@dataclass(frozen=True, slots=True)
class Cue:
    pattern: re.Pattern[str]
    """Searched in the text before the name (anchored at its end) or matched at the text after it."""
    kind: str
    yields_to: frozenset[str] = frozenset()
    """Kinds the gazetteer knows the name as that win over this cue."""


def _alternatives(vocab: frozenset[str] | set[str]) -> str:
    return "|".join(sorted((re.escape(w) for w in vocab), key=len, reverse=True))


_ROLES = _alternatives(set(PEOPLE_ROLES))
_PETS = _alternatives(set(PETS))
_VENUES = _alternatives(VENUE_NOUNS)
_JOBS = _alternatives(JOB_HEADS)
_HELD_ROLES = "co-?founder|founder|ceo|cto|cfo|coo|owner|director|manager|boss|chair(?:man|woman)?|president|principal"
"""Roles a person holds in a firm that no firm is called by ("the founder", "our manager")."""
_PLACE_NOUNS = _alternatives(
    VENUE_NOUNS | {"beach", "market", "harbour", "harbor", "station", "gallery", "bay", "lake", "pier", "square"}
)
_OWNED = _alternatives(LIFE_WORDS | set(PEOPLE_ROLES))
_PERSON = frozenset({"p"})
_PLACE = frozenset({"l"})
_PERSON_OR_PLACE = frozenset({"p", "l"})
_PERSON_OR_EMPLOYER = frozenset({"p", "o"})
"""Going back to a name ("I returned to X", "went back to X") is a place, unless the user's
graph knows it as a person or an organisation ("I returned to Globex" after "I left Globex"),
never a visit to an employer or a shop; nor a job: only "rejoined" or "back working at" says so."""


def _re(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.I)


_SWITCHED = r"\b(?:switch(?:ed|ing)?|port(?:ed|ing)|(?:chang|mov)(?:ed|ing)\s+(?:my|our)\s+\w+)\s+from\s+(?:the\s+)?"
"""A provider left for another ("switched from Vodafone to O2", "ported from X to Y"): both
are organisations, where "from X to Y" alone runs between places."""


_JOB_AFTER = (
    r"^\s+(?:after\s+(?:\w+\s+){1,2}(?:years?|months?)\b|"
    r"to\s+(?:join|work\s+(?:at|for)|start\s+(?:at|with)|take\s+(?:a|the|their)\s+(?:job|role|position))\b|"
    r"as\s+(?:an?|the|their)\s+(?:(?:new|senior|junior|lead|head|chief|staff|principal)\s+)?"
    r"[a-z]+(?:er|or|ist|ant|ent|ian|ect|ive|ger)\b)"
)
"""Words after a name that make it an employer: a time served ("I quit Acme *after five
years*"), a next job ("I left Acme *to join* Globex"), a title held ("moved to Acme *as a
designer*"). A known person or place keeps its kind: "I left Lisbon after five years"."""


_PROVIDER_SAYS = (
    r"^\s+(?:says|said|told\s+me|is\s+saying|emailed|texted|wrote)\s+(?:that\s+)?(?:my|our)\s+(?:[a-z]+\s+)?"
    r"(?:plan|account|bill|contract|policy|premium|package|subscription|tariff|broadband|connection)\s+"
    r"(?:is|are|was|were|will\s+be|would\s+be|has|had)\s+(?:going\s+up|going\s+down|rising|increasing|changing|"
    r"ending|expiring|overdue|due|cancelled|canceled|suspended|in\s+arrears|been\s+(?:cancelled|suspended|changed))\b"
)
"""A provider speaks of a change to one's account with it ("Vodafone says my plan is going up"): an
organisation, unless a known first name; a person's opinion of a plan ("Siosaia says my plan is too
risky") or an order is no provider's."""


FIRST_AFTER_CUES: tuple[Cue, ...] = (
    Cue(_re(r"^\s+(?:group|club|team|community|company|charity|band|league)\b"), "o"),
    Cue(_re(r"^(?:['’]s)?\s+(?:stores|branches|outlets|network|customer\s+(?:service|support)|head\s+office)\b"), "o"),
    Cue(
        _re(r"^['’]s\s+(?:(?:big|half-price|annual|clearance|winter|summer)\s+)?(?:sale|specials|catalogue)\b"),
        "o",
        _PERSON,
    ),
    Cue(_re(_PROVIDER_SAYS), "o", _PERSON),
    Cue(_re(r"^\s+(?:app|website|site|account|card|pass|subscription|plan|device|model|inhaler|tablets?)\b"), "i"),
    Cue(re.compile(rf"^\s+(?:{_VENUES})\b"), "l"),
    Cue(_re(rf"^['’]s\s+(?:[a-z]+\s+)?(?:{_OWNED})\b"), "p", _PLACE),
    Cue(_re(rf"^,\s+(?:my|our|his|her|their)\s+(?:(?:best|old|new|former)\s+)?(?:{_ROLES})\s*(?:[,.;!?)]|$)"), "p"),
    # a role only a person holds, in apposition ("Nandi Khumalo, the founder, …", "(Gord Lindqvist, the terminal
    # manager)"); a firm may be named by a job ("Deloitte, the auditor,", "Buildwell, our contractor,"), so no
    # job word is read so
    Cue(_re(rf"^,\s+(?:the|our|my|his|her|their)\s+(?:[a-z]+\s+)?(?:{_HELD_ROLES})\s*[,)]"), "p"),
    Cue(
        _re(rf"^(?:,|\s+(?:is|was)|['’]s)\s+(?:my|our|his|her|their)\s+(?:[a-z]+\s+)?(?:{_PETS})\b{PET_ENDS}"),
        "p",
    ),
    Cue(_re(rf"^\s*\(\s*(?:my|our|his|her|their)\s+(?:[a-z]+\s+)?(?:{_PETS})\s*\)"), "p"),  # "Diesel (my dog)"
    Cue(_re(_JOB_AFTER), "o", _PERSON_OR_PLACE),
)
"""Words after a name that outrank the words before it: "the Toshogu shrine" is a place
whatever "the" says, "in Peninha's car" is Peninha's. A possessive is matched on the text
from its "'s" on; the venue nouns are lower case only ("the Kindle Store" is a name)."""

BEFORE_CUES: tuple[Cue, ...] = (
    Cue(
        _re(
            rf"\b(?:my|our|his|her|their|a|an)\s+(?:[a-z]+\s+)?(?:{_PETS})"
            r"(?:['’]s name\s+is|,|\s+(?:is|was)\s+(?:called|named)|\s+(?:called|named|is))?\s+$"
        ),
        "p",
    ),
    Cue(
        _re(
            rf"(?:\b(?:a|an|the|my|our|this|his|her|their)\s+(?:[a-z]+\s+)?|^|[.!?]\s+)"
            rf"(?:{_ROLES}|{_JOBS}|guide|guy|bloke|man|woman|lady|girl|boy|kid)"
            r"(?:\s+(?:is\s+)?(?:called|named)|\s+was\s+called|['’]s\s+name\s+(?:is|was))\s+$"  # not "was named CEO"
        ),
        "p",
    ),
    Cue(_re(rf"\b(?:{_VENUES}|bar|shop|store)\b[^.,;]{{0,30}}?\b(?:called|named)\s+$"), "l"),
    Cue(
        _re(
            rf"(?:\bmy|\bour|\bhis|\bher|\btheir)\s+(?:(?:best|older|younger|little|big|new|old|former)\s+)?"
            rf"(?:{_ROLES}),?\s+$"
        ),
        "p",
    ),
    Cue(
        _re(rf"\b(?:my|our|his|her|their)\s+(?:new\s+|old\s+)?(?:{_ROLES})(?:'s name)?\s+(?:is|was)\s+(?:now\s+)?$"),
        "p",
        _PLACE,
    ),
    Cue(_re(r"\b(?:his|her|their|its)\s+name(?:['’]s|\s+(?:is|was))\s+$"), "p"),
    Cue(_re(r"\b(?:hi|hey|hello|dear|thanks|thank you|cheers|bye|congrats|congratulations),?\s+$"), "p", _PLACE),
    Cue(
        _re(r"\b(?:fly|flying|flew|flown|booked|book|booking)\b[^.,;!?]{0,30}?\bwith\s+$|\b(?:fly|flying|flew)\s+$"),
        "o",
        _PERSON,
    ),
    Cue(_re(rf"{_SWITCHED}[^.,;!?]{{1,30}}?\s+to\s+(?:the\s+)?$"), "o", _PERSON_OR_PLACE),
    Cue(
        _re(
            r"(?:\b(?:insurance|insurer|bank|mortgage|provider|carrier|contract|policy|broadband|internet|mobile|phone|"
            r"savings|accounts?|pension|loan|benefits|coverage)"
            r"\b[^.,;!?]{0,20}?\b(?:is|are|was|were)(?:\s+(?:now|still|also))?|\b(?:insured|bank|banks|banking))"
            r"\s+with\s+$"
        ),
        "o",
        _PLACE,
    ),
    Cue(_re(r"\binterview(?:s|ed|ing)?\s+with\s+$"), "o", _PERSON),
    Cue(
        _re(
            r"\b(?:number|plan|broadband|internet|fibre|mobile|sim|power|energy|electricity|gas|insurance|bank|account|"
            r"provider)\b[^.,;!?]{0,40}?\b(?:sign(?:s|ed|ing)?\s+up|register(?:s|ed|ing)?)\s+with\s+$"
        ),
        "o",
        _PERSON_OR_PLACE,
    ),
    Cue(
        _re(
            r"\b(?:free|funded|available|subsidi[sz]ed|covered|paid|appl(?:y|ied|ying)|provided|offered|referred)"
            r"\s+(?:\w+\s+)?(?:through|via)\s+$"
        ),
        "o",
        _PERSON_OR_PLACE,
    ),
    Cue(
        _re(
            r"(?:\bwith|\bmet|\bmeet|\bmeeting|\btold|\btell|\basked|\bask|\bremind|\b(?:I|we|he|she) called|"
            r"\btexted|\bthank|"
            r"\bran into|\bbumped into|\bmarried|\bdating|\bphoned|\bemailed|\bmessaged|\binvited|\bhugged|"
            r"\btalk(?:ed|ing)? to|\bsp(?:oke|eak|eaking) (?:to|with)|\bintroduced (?:me|us) to)\s+$"
        ),
        "p",
    ),
    Cue(
        _re(
            r"\b(?:ate|eat|eating|dinner|lunch|breakfast|brunch|drinks|coffee|dined|dining|stayed|stay|staying|"
            r"nights?|reservation|table)\b[^.,;!?]{0,20}?\bat\s+(?:the\s+)?$"
        ),
        "l",
        _PERSON,
    ),
    Cue(_re(r"(?:\breturn(?:ed|ing)?|\bback) to\s+(?:the\s+)?$"), "l", _PERSON_OR_EMPLOYER),
    Cue(
        _re(
            r"(?:\bin|\bvisit|\bvisited|\bvisiting|\bmoved to|\blive in|\blives in|\btrip to|\bwent to|\bflew to|"
            r"\bflying to|\bdrove to|\btravell?(?:ed|ing)? to|\bheading to|\bholiday in|\bvacation in|"
            r"\bbased in|\bborn in|\bgrew up in|\bnear|\baround|\bthrough|\bacross|\boutside|"
            r"\b(?:goes|going|gone|been) to|\barrived (?:at|in)|\bnext to|\bclose to|\bopposite|\bbeside|"
            r"\bin nearby|\b(?:took|take|taking|brought|bring|bringing) (?:her|him|them|it|me|us) to)\s+(?:the\s+)?$"
        ),
        "l",
        _PERSON,
    ),
    Cue(
        _re(
            r"\b(?:areas?|neighbou?rhoods?|districts?|suburbs?|bases|parts of (?:town|the city)|towns|villages|"
            r"boroughs|spots)\b[^.;!?]{0,30}?(?:\bare|\binclude|\bincluding|\blike|\bsuch as|:)\s+$"
        ),
        "l",
        _PERSON,
    ),
    Cue(_re(rf"\b(?:{_PLACE_NOUNS})\s+(?:at|of)\s+(?:the\s+)?$"), "l", _PERSON),
    Cue(_re(r"\b(?:train(?:s|ed|ing)? for|entered|signed up for|running|ran)\s+the\s+$"), "e", _PERSON_OR_PLACE),
    Cue(
        _re(
            r"(?:\bwork(?:s|ed|ing)? at|\b(?:job|role|position) at|"
            r"\b(?:hired|employed) (?:by|at)|"
            r"\binterview(?:ed|ing)? (?:at|with)|\bintern(?:ed|ing)? at|\bnotice at|\bresign(?:ed|ing)? from|"
            r"\boffer (?:at|from|with)|\b(?:I|we)(?:'ll| will)? start(?:ing)? at|"
            r"\b(?:laid off|let go|fired|sacked|made redundant) (?:from|by|at)|\bretired from)\s+$"
        ),
        "o",
    ),
    Cue(
        _re(
            r"\b(?:I|we)(?:'ve| have|'m| am|'re| are)?\s+(?:just\s+|finally\s+)?"
            r"(?:left|no longer (?:at|with)|moved over to)\s+$"
        ),
        "o",
        _PERSON_OR_PLACE,
    ),
    Cue(_re(r"\bto (?:join|start at)\s+$"), "o", _PERSON_OR_PLACE),
    Cue(_re(r"\bnotice to\s+$"), "o", _PERSON),
    Cue(
        _re(
            rf"\b(?:I['’]?m|I am|(?:work|working|worked) as)\s+(?:\w+\s+){{0,2}}?an?\s+"
            rf"(?:[\w\-]+\s+){{0,3}}?(?:{_JOBS})\s+(?:at|for)\s+$"
        ),
        "o",
        _PERSON_OR_PLACE,
    ),
    Cue(_re(r"(?:\bwork(?:s|ed|ing)? for|\b(?:re-?)?joined)\s+$"), "o", _PERSON),
    Cue(_re(r"\bstart(?:s|ed)\s+(?:a new job\s+|working\s+|work\s+)?at\s+$"), "o", _PERSON_OR_PLACE),
    Cue(
        _re(
            r"\b(?:registry|registries|wedding list|gift list|vouchers?|gift cards?|gift vouchers?|store cards?|"
            r"sale|branch|concession|counter|click and collect)\s+(?:at|from)\s+$"
        ),
        "o",
        _PLACE,
    ),
    Cue(
        _re(
            r"(?:\b(?:shop|shops|shopped|shopping) (?:at|with)|\b(?:customer|client|account|subscriber) (?:at|of|with)|"
            r"\b(?:bought|buy|buying|buys|purchased|ordered|order|ordering)\b[^.,;!?]{0,30}?\b(?:at|from))\s+$"
        ),
        "o",
        _PERSON_OR_PLACE,
    ),
    Cue(
        _re(
            r"\b(?:list|listed|listing|sell|selling|sold|post|posted|posting|advertis\w+|put (?:it|them) up)\b"
            r"[^.,;!?]{0,30}?\bon\s+$"
        ),
        "o",
        _PLACE,
    ),
    Cue(
        _re(
            r"(?:\b(?:a|an|my|our|your|the|this|that)(?:\s+(?:old|new|used|second-hand|broken|spare|first))?|"
            r"\buse|\busing|\binstall(?:ed)?|\bdownload(?:ed)?|\bon my)\s+$"
        ),
        "i",
    ),
)
"""Words before a name, first match wins. The item cue's own exceptions (a big city after
"the", a clause after "that") live in `ingest.entity_scan`, beside the gazetteer they read."""

AFTER_CUES: tuple[Cue, ...] = (
    Cue(
        _re(
            r"^\s+(?:said|says|told|asked|thinks|wants|loves|likes|and I\b|is my|was my|is bringing|is flying|"
            r"is coming|is visiting|called|texted|recommended|suggested|invited|mentioned|replied|wrote|explained|"
            r"promised|agreed|warned|reminded|insisted|admitted|laughed|complained|offered)\b"
        ),
        "p",
        _PLACE,
    ),
    Cue(re.compile(r"^,\s+who\b"), "p", _PLACE),
    # "Grand Baie (north)", "Le Morne (southwest coast)": where on a map
    Cue(_re(r"^\s*\((?:north|south|east|west|central)(?:[- ]?(?:east|west))?(?:\s+(?:coast|side|end|shore))?\)"), "l"),
    Cue(
        _re(
            rf"^\s+in\s+[{UPPER}][\w\-]*(?:\s+[{UPPER}][\w\-]*)?\s+(?:sells|stocks|"
            r"(?:has|had)\s+(?:\w+\s+){0,4}?(?:on\s+sale|in\s+stock|for\s+half|half[- ]price|on\s+special))\b"
        ),
        "o",
        _PERSON_OR_PLACE,
    ),
    Cue(re.compile(rf"^\s+(?:near|just outside|outside|on the edge of)\s+(?:the\s+)?[{UPPER}]"), "l", _PERSON),
)
"""Words after a name that type it when nothing before did: it speaks or acts ("Peninha
said", "Kowalski recommended"), or "who" follows it (person); it lies near another place
("Thornbury Mill near Hebden Bridge": place)."""


AROUND_CUES: tuple[tuple[Cue, re.Pattern[str]], ...] = (
    (  # a relation named in brackets, alone: "my dad (Colin) fixed it", "😭 mum (Deb) says"; not "(Leeds)"
        Cue(
            _re(
                rf"(?:(?:\bmy|\bour|\bhis|\bher|\btheir)\s+(?:(?:best|older|younger|little|big|new|old|former)\s+)?"
                rf"|(?:^|[^\w\s,;:'’])\s*)(?:{_ROLES})\s*\(\s*$"
            ),
            "p",
            frozenset({"l", "o"}),
        ),
        re.compile(r"^\s*\)"),
    ),
    (Cue(_re(rf"{_SWITCHED}$"), "o", _PERSON_OR_PLACE), re.compile(r"^\s+to\b")),
    (Cue(_re(r"\bthe\s+$"), "l", _PERSON), re.compile(rf"^\s+(?:in|near|outside)\s+(?:the\s+)?[{UPPER}]")),
    (Cue(_re(r"\bfrom\s+(?:the\s+)?$"), "l", _PERSON), re.compile(rf"^\s+to\s+(?:the\s+)?[{UPPER}]")),
)
"""Words on both sides of a name, read before the other tables: "mum (Deb)" names a person, "the White Lion
in Hebden" is somewhere in a place, not "the" item; "trains from Copenhagen Central to Malmö" run between places."""


def first_cue(cues: tuple[Cue, ...], text: str, *, before: bool) -> Cue | None:
    """The first cue in ``cues`` that the text before (``before``) or after a name shows."""
    for cue in cues:
        if (cue.pattern.search(text) if before else cue.pattern.match(text)) is not None:
            return cue
    return None
