"""Ways chat says where people live and work and who they are to one another, beside
`ingest.relation_rules` (rows of the same `Rule` table, applied by `ingest.relation_extract`):

* **a home rented, and from whom**: "we rent a flat in Leith from Moira Dunn" (the home's place, or
  the city a bracket after it names: "a unit in Leith (north Edinburgh)"; the landlord), never a
  let for a season or to others, premises for work, or words someone else is quoted as saying;
* **someone's people by a possessive**: "Ana's husband Tom" (Ana's partner; not "Ana's ex husband");
* **where someone lives, said in passing**: "Ana's lived in Porto for years", "Sam's whole life is in
  Derry", "I ring my brother Tom in Leeds every week", "the bike's going to my cousin Jo in Cork";
* **someone else's job**: "he works at the City Library as a porter";
* **the speaker's job said by its years or a new post**: "after 20 years at Acme Foods I'm retiring"
  (a job held till now: a retirement said later ends it), "I've taken a job as a welder at Forge Works",
  and the employer a retirement names ("I retired as head porter at Mercy Hospital": `worked at`);
* **the speaker's people word said before its name**: "my office manager, she's called Ana",
  "referred me to a dietitian at the clinic, Jo Park".

Rows said without "my" are `Guarded` where the words around them may make the fact someone else's.
"""

from __future__ import annotations

import re

from ingest.entity_vocab import INNER_PUNCT, PEOPLE_ROLES
from ingest.relation_guards import Guarded, opening_role_vetoed
from ingest.relation_rules import HOME_WORDS, JOINED, MY_ROLE, NAME, NOW, PHRASE, Rule
from ingest.relation_sayings import TITLE_SAID

__all__ = ["PEOPLE_PHRASINGS", "POST_ENDED", "WHO"]


def _r(text: str) -> re.Pattern[str]:
    return re.compile(text, re.I)


def _cs(text: str) -> re.Pattern[str]:
    """Case-sensitive where a name must be capitalised; ``(?i:…)`` marks the words around it."""
    return re.compile(text)


_ROLE = "|".join(sorted((re.escape(w) for w in PEOPLE_ROLES), key=len, reverse=True))
_ADJ = r"(?:(?i:new|current|best|older|younger|oldest|eldest|youngest|little|big|twin|lovely)\s+){0,2}"
"""Words that keep a people word current ("Ana's new husband"); "ex", "former", "first" do not."""
_WHO = (
    r"(?!(?:Is|Are|Was|Were|Did|Does|Do|Has|Have|Had|Will|Would|Can|Could|Should|Maybe|Poor|So|And|But|Oh|If|"
    rf"When|Why|How|What|Where|Everyone|Everybody|Someone|Somebody|Nobody|Anyone|Anybody)\b)(?P<who>{NAME})"
)
"""A person's name, not a question's verb or a pronoun that starts a sentence ("Is Ana", "Everyone")."""
_RENT = r"(?:rent|['’]m\s+renting|\s*am\s+renting|['’]re\s+renting|\s*are\s+renting)"
_I_RENT = rf"\b(?i:I|we)(?:\s+{NOW}|(?=['’]))(?i:{_RENT})\s+"
_DWELLING = r"house|home|flat|apartment|unit|place|room|studio|townhouse|cottage|bungalow|condo"
_A_HOME = rf"(?i:a|an|the|our|my)\s+{HOME_WORDS}(?i:{_DWELLING})\s+(?i:in)\s+"
_AREA = r"(?:(?i:north|south|east|west|central|inner|outer|greater|downtown|suburban)\s+)?"
_YEARS = r"(?:\d{1,2}|a\s+few|many|several|(?:twenty|thirty|forty)(?:[\s\-]\w+)?)\s*(?i:years?|yrs?)"
_NO_CLUB = r"(?<!Club)(?<!Society)(?<!Association)(?<!Choir)(?<!League)(?<!Gym)(?<!Guild)"
"""A club, choir or league joined is no employer ("I joined the Ash Road Running Club")."""
_FOR_YEARS = (
    r"(?i:for\s+(?:the\s+)?(?:last|past)\s+(?:\d{1,2}|few|many|several|two|three|four|five|ten)\s+(?:years?|yrs?))"
)
_PASSING = (
    r"rings?|calls?|phones?|texts?|"
    r"(?:going|goes|sent|send(?:ing)?|post(?:ed|ing)?)\s+to"
)
"""Ways of reaching one of the speaker's people where they are from afar, said as a habit ("I ring my
brother Tom in Leeds", "it's going to my cousin Jo in Cork"): the place is where that person lives; not
one call ("I rang Ana in Tesco": where she was), a meeting, a visit or a talk ("met Tom in Paris")."""
_NAME_ENDS = r"(?=\s*(?:$|[.,;:!?)\n]|(?i:and|but|so|lol|haha\w*|btw|too|though|tho)\b))"
"""A name that ends its clause: "she's called Ana." names her; "she's called Tom three times" is a call."""
_PLACE_ENDS = r"(?=\s*(?:$|[.,;:!?)\n]|(?i:and|but|now|still|too|though|tho|with|since|where|which|really|lol)\b))"
"""A place ends its clause: "her whole life is in Derry", "… in Derry now"."""
_NO_APP = r"(?!(?i:google|icloud|dropbox|notion|evernote|onedrive|slack|trello|excel|outlook|gmail)\b)"
_NO_APP_END = r"(?<![Dd]rive)(?<![Dd]ocs)(?<![Cc]loud)(?<![Pp]hotos)(?<![Nn]otes)(?<![Cc]alendar)(?<![Ss]heets)"
"""A life kept in an app or a store of files is no home ("her whole life is in Google Drive", "… in iCloud")."""
_NOT_WHEN = r"(?!\s*(?i:on(?!\s+(?:\w+days|weekends)\b)|at|next|last|this|for|in)\b)"
_AS_WITHIN = 120
"""How far after a job word its title ("worked nights at the depot *as a* driver") is looked for: a bound, so a
long run-on of job words is read once each, not to its end for every one."""
_LOOK_BACK = 300
"""How far around a match its sentence is read (`_near`), so a long paste is read once, not once a match."""
_QUOTED = re.compile(r"[\"“”:]|\b(?:said|says|told|tells|thinks|think|asked|asks|wrote|writes|reckons)\b", re.I)
"""Words that make what follows someone else's saying ("my friend said "I rent …"", "Jess told me: …")."""
_NO_HOME = re.compile(
    r"\b(?:for|to|every|each|during|over|until|till|while|when|whenever|out|business|office|holidays?)\b|"
    r"\b(?:summers?|winters?|weekends?|season)\b|\bfrom\s+(?:next|(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)\w*|"
    r"Christmas|Easter|the\s+\d|(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day)",
    re.I,
)
_LET_OUT = re.compile(
    r"\b(?:let(?:ting)?\s+(?:it|them)|sublet\w*|air\s*bnb|vrbo|tenants?|lodgers?|(?:covers|pays)\s+(?:the|my|our)\s+"
    r"mortgage|rental\s+income|buy[\s\-]to[\s\-]let|holiday\s+lets?)\b",
    re.I,
)
"""Words in the sentence after a rent that make it a let to others ("… on Airbnb", "… and let it to students")."""
"""A let that is no home of the speaker's: for a season or a use ("for the holidays", "for my business"),
to others ("to students"), only at times ("every August"), or from a date to come ("from September")."""
_AWAY = re.compile(
    r"\b(?:there|holiday|trip|conference|work|business|staying|stay|visiting|visit|lives?|living|moved|moving|"
    r"mistake|accident|hospital|hotel|ward|during|tonight|today|tomorrow|when|lands?|landing|(?<!every\s)(?<!each\s)week)\b",
    re.I,
)
"""Words that make a person's place a stay or a slip ("she's there for work", "by mistake, he lives in York")."""
_MOVED_ON = re.compile(
    r"\b(?i:but|moved|now|back|until|till|before|then|ago|later|left|used\s+to|once|twice|briefly|for\s+a\s+(?:semester|"
    r"term|year|summer|winter|while|bit|month|spell|few)|as\s+a\s+(?:student|kid|child|teen\w*))\b"
    r"|^\s*(?:,|(?i:and|or|&))\s*[A-Z]"
)
"""Words after "has lived in X" that make it a past home or one of several ("…, Krakow", "… and Oslo")."""
_STILL_THERE = re.compile(
    r"\b(?:retir(?:ing|e|ement)|still\s+(?:here|there|at\s+it|working|work|going|love|loving|enjoy\w*|on\s+the)|"
    r"shifts?|colleagues?|career|promot\w*|last\s+day)\b",
    re.I,
)
"""Words that say a job is held till now: a retirement to come ("I'm retiring", "I retire in May"), not one
had ("I retired last spring" ended it); "still" at work ("still loving it"), not any "still" ("still two
stone over" after years at a slimming club)."""
_LEFT = re.compile(
    r"\b(?:left|leav\w*|quit\w*|resign\w*|notice|redundan\w*|laid\s+off|fired|sacked|let\s+go|graduat\w*|"
    r"moved|moving|(?:new|a|another)\s+job|job\s+(?:at|with)|until|till|ago|used\s+to|back\s+then|(?:19|20)\d\d|"
    r"now\s+I|out\s+of\s+(?:school|uni|college)|when\s+(?:I|we)\s+was|when\s+(?:I|we)\s+were|turned\s+(?:it\s+|them\s+)?down|"
    r"declin\w*|(?:as|like)\s+a\s+(?:kid|teen\w*|student|boy|girl|lad))\b",
    re.I,
)
"""Words that say a job ended or was another ("I left for Aldi", "got made redundant", "in 2010 … but left"),
was had long ago ("when I was sixteen") or never taken ("… but turned it down")."""


def _near(sentence: str, m: re.Match[str]) -> str:
    return sentence[max(0, m.start() - _LOOK_BACK) : m.end() + _LOOK_BACK]


def _before(sentence: str, m: re.Match[str]) -> str:
    return sentence[max(0, m.start() - _LOOK_BACK) : m.start()]


def _after(sentence: str, m: re.Match[str]) -> str:
    return sentence[m.end() : m.end() + _LOOK_BACK]


def _clause_on(sentence: str, m: re.Match[str]) -> str:
    """The match and its clause after it, to the next comma, stop or "and" / "but"."""
    return sentence[m.start() : m.end()] + re.split(r"[,.;!?\n]|\b(?:and|but)\b", _after(sentence, m), maxsplit=1)[0]


def _not_a_home(sentence: str, m: re.Match[str], earlier: str) -> bool:
    """A let quoted from someone else, or one for a season, a use or others (`_QUOTED`, `_NO_HOME`, `_LET_OUT`)."""
    if _QUOTED.search(_before(sentence, m)) is not None or _LET_OUT.search(_after(sentence, m)) is not None:
        return True
    return _NO_HOME.search(_clause_on(sentence, m)) is not None


_ONE_ACT = re.compile(r"\b(?:I|we)(?:['’]ll|['’]m|['’]re|\s+will|\s+am|\s+are|\s+shall)\s+(?:\w+\s+)?$", re.I)
"""The speaker's own reaching out said as one act ahead ("I'll call my sister Jo in …", "I'm going to my
sister Jo in …"): where she is then, maybe a visit, no habit that says where she lives."""


def _away(sentence: str, m: re.Match[str], earlier: str) -> bool:
    """A stay, a slip or one act, not a habit (`_AWAY`, `_ONE_ACT`); "every week" is a habit."""
    return _AWAY.search(_after(sentence, m)) is not None or _ONE_ACT.search(_before(sentence, m)) is not None


def _moved_on(sentence: str, m: re.Match[str], earlier: str) -> bool:
    """ "has lived in Gdansk but moved", "lived in Gdansk and Krakow": a past home or one of several."""
    return _MOVED_ON.search(_after(sentence, m)[:60]) is not None


def _not_still_there(sentence: str, m: re.Match[str], earlier: str) -> bool:
    """ "after 20 years at Acme I'm retiring" is a job held till now only where the speaker says so
    (a retirement, a shift, "still") and says no leaving or other job; never in quotes."""
    after = _after(sentence, m)
    return (
        _QUOTED.search(_before(sentence, m)) is not None
        or _STILL_THERE.search(after) is None
        or _LEFT.search(after) is not None
    )


def _post_ended(sentence: str, m: re.Match[str], earlier: str) -> bool:
    """A post taken that the sentence ends or dates back ("… in 2010 but left after a year")."""
    return _LEFT.search(_after(sentence, m)) is not None or _QUOTED.search(_before(sentence, m)) is not None


_SOMEONE_ELSE = re.compile(r"\b(?:he|she|they|his|her|their|my\s+\w+\s+(?:is|was|has))\b", re.I)


_NAMED_AFTER = re.compile(
    r"\b(?i:that['’]?s|thats)\s+(?:(?i:my|our)\s+\w+|(?!I\b)[A-Z][a-z]+|(?i:him|her|them))\b"
    r"|\b(?:(?i:my|our)\s+(?:[a-z]+\s+){0,2})?(?!I\b)[A-Z][a-z]+\s+(?i:is|was|has|does|did|for\s+you)\b"
)
"""Another person said after the post as whose it is ("…, that's Ana for you", "…, my sister Ana is a saint")."""


def _not_first_person(sentence: str, m: re.Match[str], earlier: str) -> bool:
    """Someone else's years or post ("senior welder for the last 9 years, my dad is", "…, that's Ana for you")."""
    return _SOMEONE_ELSE.search(_near(sentence, m)) is not None or _NAMED_AFTER.search(_after(sentence, m)) is not None


_CALLED = r"(?i:an?\s+(?:lady|guy|man|woman|bloke|fella)\s+(?:called|named)\s+)?"
"""How chat introduces a stranger by name ("the landlord is a lady called Fiona McAllister")."""

PEOPLE_PHRASINGS: tuple[Rule, ...] = (
    # a relation named: "my sister Kirsty", "our manager, Sione", "my mum (Deb)" (a person alone in the brackets,
    # not "(Leeds)"); "my boss is a guy called Kev" (not "… Kev's brother", nor a place or a firm); "the landlord
    # is Fiona", a person (only a landlord: "the manager is Kev" may be a shop's; not "the landlord is Foxtons")
    Rule(_cs(rf"\b{MY_ROLE},?\s+(?P<value>{NAME})"), None, "p", any_mood=True),
    Rule(_cs(rf"\b{MY_ROLE}\s*\(\s*(?![A-Z]{{2,}}\b)(?P<value>(?>{NAME}))(?<!['’]s)\s*\)"), None, "p", needs_kind="p"),
    Rule(
        _cs(rf"\b{MY_ROLE}(?:'s name)?\s+(?i:is called|is named|is)\s+{_CALLED}(?P<value>(?>{NAME}))(?<!['’]s)"),
        None,
        "p",
        refuses_kind="lo",
    ),
    Guarded(
        _cs(rf"\b(?i:the)\s+(?P<pred>(?i:landlord|landlady))\s+(?i:is)\s+{_CALLED}(?P<value>(?>{NAME}))(?<!['’]s)"),
        None,
        "p",
        needs_kind="p",
        veto=opening_role_vetoed,
    ),
    # a home rented, and from whom
    Guarded(
        _cs(rf"{_I_RENT}{_A_HOME}(?P<value>{NAME})(?!\s*\()"),
        "lives in",
        "l",
        needs_kind="l",
        veto=_not_a_home,
    ),
    Guarded(
        _cs(rf"{_I_RENT}{_A_HOME}{NAME}\s*\(\s*{_AREA}(?P<value>{NAME})\s*\)"),
        "lives in",
        "l",
        needs_kind="l",
        veto=_not_a_home,
    ),
    Guarded(
        _cs(
            rf"{_I_RENT}{_A_HOME}{NAME}(?:\s*\([^()\n]{{1,40}}\))?\s+(?i:from)\s+"
            rf"(?:(?i:my|our)\s+{_ADJ}(?i:{_ROLE})\s+)?(?P<value>{NAME})"
        ),
        "landlord",
        "p",
        refuses_kind="lioet",
        veto=_not_a_home,
    ),
    # someone's people by a possessive, where they live
    Rule(
        _cs(rf"\b{_WHO}['’]s\s+{_ADJ}(?P<pred>(?i:{_ROLE})),?\s+(?P<value>{NAME})"),
        None,
        "p",
        any_mood=True,
    ),
    Guarded(
        _cs(rf"\b{_WHO}(?:['’]s|\s+has)\s+{NOW}(?i:always\s+)?(?i:lived)\s+(?i:in)\s+(?P<value>(?>{NAME}))"),
        "lives in",
        "l",
        refuses_kind="pioet",
        veto=_moved_on,
    ),
    Guarded(
        _cs(rf"\b(?i:he|she)(?:['’]s|\s+has)\s+{NOW}(?i:always\s+)?(?i:lived)\s+(?i:in)\s+(?P<value>(?>{NAME}))"),
        "lives in",
        "l",
        needs_kind="l",
        third_person=True,
        veto=_moved_on,
    ),
    Guarded(
        _cs(
            rf"\b(?i:{_PASSING})\s+(?i:my|our)\s+{_ADJ}(?i:{_ROLE})\s+(?P<who>{NAME})\s+(?i:in)\s+"
            rf"(?P<value>(?>{NAME})){_NOT_WHEN}"
        ),
        "lives in",
        "l",
        needs_kind="l",
        any_mood=True,
        veto=_away,
    ),
    # the speaker's people word said before its name
    Rule(
        _cs(
            rf"\b{MY_ROLE},\s+(?i:(?:she|he)(?:['’]s|\s+is))\s+"
            rf"(?i:called|named)\s+(?P<value>(?>{NAME})){_NAME_ENDS}"
        ),
        None,
        "p",
        needs_kind="p",
    ),
    Rule(
        _cs(
            rf"\b(?i:referred\s+me|sent\s+me)\s+(?i:to|on\s+to)\s+(?i:a|an)\s+(?P<pred>(?i:{_ROLE}))\b"
            rf"(?:[^.;!?\n]){{0,60}}?,\s+(?P<value>{NAME})"
        ),
        None,
        "p",
        needs_kind="p",
    ),
    Rule(
        _cs(
            rf"\b{_WHO}['’]s\s+(?i:(?:whole|entire)\s+)?(?i:life)\s+(?i:is|has\s+always\s+been)\s+"
            rf"(?i:(?:here|there|still)\s+)?(?i:in)\s+{_NO_APP}(?P<value>(?>{NAME})){_NO_APP_END}{_PLACE_ENDS}"
        ),
        "lives in",
        "l",
        needs_kind="l",
    ),
    # someone else's job
    Rule(
        _cs(
            rf"\b(?i:he|she)\s+{NOW}(?i:works|is\s+working)(?:\s+(?i:at|for|in)\s+(?:[^.?!;,]){{1,60}}?)?"
            rf"\s+(?i:as\s+an?)\s+{PHRASE}"
        ),
        "works as",
        third_person=True,
    ),
    # the speaker's job
    Rule(
        _r(
            rf"\b(?:work(?:ing)?|job|started|joined|hired|employed)\b(?:[^.?!]|{INNER_PUNCT}){{0,{_AS_WITHIN}}}?"
            rf"\bas an?\s+{PHRASE}"
        ),
        "works as",
    ),
    Rule(
        _cs(rf"\b(?i:I|we)(?:'ve| have|'m| am|'re| are)?\s+{NOW}(?i:{JOINED})\s+(?P<value>(?>{NAME})){_NO_CLUB}"),
        "works at",
        "o",
        refuses_kind="p",
    ),
    Guarded(
        _cs(
            rf"\b(?i:I|we)(?:['’]ve|\s+have)?\s+{NOW}(?i:retired)\s+(?i:as)\s+(?:[^.,;!?\n]){{1,40}}?\s"
            rf"(?i:at|from|with)\s+(?:(?i:the)\s+)?(?P<value>{NAME})"
        ),
        "worked at",
        "o",
        refuses_kind="pl",
        veto=lambda s, m, e: _QUOTED.search(_before(s, m)) is not None,
    ),
    Guarded(
        _r(rf"^\W*(?:an?\s+)?(?P<value>{TITLE_SAID})\s+(?:on|at|in|with)\b(?:[^.!?;]){{0,60}}?\s{_FOR_YEARS}"),
        "works as",
        veto=_not_first_person,
    ),
    Guarded(
        _cs(
            rf"\b(?i:after)\s+{_YEARS}\s+(?i:at|with)\s+(?:(?i:the)\s+)?(?P<value>{NAME}),?\s+"
            r"(?=(?i:I|im|I['’]m|I\s+am|I['’]ll|I\s+will|I['’]ve|I\s+have)\b)"
        ),
        "works at",
        "o",
        refuses_kind="l",
        veto=_not_still_there,
    ),
    Guarded(
        _cs(
            rf"\b(?i:I|I['’]ve|I\s+have)\s+{NOW}(?i:taken|took|got|started|landed|accepted)\s+(?i:a|an|the)\s+"
            rf"(?:[\w\-]+\s+){{0,3}}?(?i:job|role|position|post)\b(?!\s+(?i:offers?|interviews?|applications?|ads?|adverts?))"
            rf"(?:[^.?!;]){{0,60}}?\s(?i:as\s+an?)\s+"
            rf"(?:[^.,;!?\n]){{1,40}}?\s(?i:at|with)\s+(?P<value>{NAME})"
        ),
        "works at",
        "o",
        refuses_kind="pl",
        veto=lambda s, m, e: _not_first_person(s, m, e) or _post_ended(s, m, e),
    ),
)
"""The rows; order does not matter (`ingest.relation_extract` keeps one fact per value)."""

WHO, POST_ENDED, BEFORE, AFTER = _WHO, _post_ended, _before, _after
"""For `ingest.relation_jobs`: a person's name opening a clause, a post the sentence ends or dates back, and
the bounded stretches of a sentence before and after a match (`_LOOK_BACK`)."""
