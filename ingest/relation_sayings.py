"""More ways of saying the facts of `ingest.relation_rules`, as chat says them: rows of the same
`Rule` table, applied beside it (`ingest.relation_extract`), kept apart so each table stays short.

* **a job title** typed as chat types it: "currently im a data analyst at …", "so im officially
  a product analyst now" (a title ends with a head noun, `ingest.entity_vocab.JOB_HEADS`, so "I'm a
  big fan" holds none), and the employer after it ("I'm a sous chef at Dishoom");
* **a diagnosis reported**: "GP reckons plantar fasciitis", "the doc says it's tendonitis", "the
  scan showed a stress fracture", "diagnosed me with gout"; not advice ("the physio said to rest")
  and not the vet's (the pet's);
* **a medicine** the speaker takes, or a doctor added or switched them to ("Dr. Sousa added a
  Symbicort inhaler"), never what "I take" says of no medicine ("I take sooo many photos");
* **a move** said another way: "moving from Leeds to Bristol", "relocating to Glasgow", "moved
  into a house in Otley", "got the keys to the flat in Leith";
* **a trip** asked about or booked: "can we do a day trip to Malmö?" (a plan even as a question),
  "we booked a cottage near Keswick".
"""

from __future__ import annotations

import re

from ingest.entity_vocab import CLINICIANS, JOB_HEADS, SETTLED_AFTER
from ingest.gazetteer import place_weight
from ingest.mood import sentence_mood
from ingest.relation_guards import Guarded
from ingest.relation_rules import HOME, HOME_WORDS, NAME, NAMED_THING, NOW, PHRASE, THING, Rule

__all__ = ["SAYINGS", "TITLE_SAID", "quoted"]


def _r(text: str) -> re.Pattern[str]:
    return re.compile(text, re.I)


def _cs(text: str) -> re.Pattern[str]:
    """Case-sensitive where a name must be capitalised; ``(?i:…)`` marks the words around it."""
    return re.compile(text)


_WHO_VERB = rf"\b(?i:I|we)(?:'ve| have|'m| am|'re| are)?\s+{NOW}"
_I_AM = r"\b(?:I['’]m|I\s+am|im)\s+(?:(?:currently|now|officially|still|actually|just|finally|basically)\s+)*"
""""I'm" as chat types it ("im", "I’m") with the adverbs a job is said with ("currently im a …")."""
_NOT_JOBS = (
    "regular", "member", "customer", "client", "patient", "guest", "fan", "sucker", "vegetarian", "vegan",
    "pescatarian", "student", "visitor", "tenant", "subscriber", "believer", "stickler",
)  # fmt: skip
_NOT_A_JOB = (
    r"(?!(?:(?:loyal|regular|big|huge|long-?time|proud|paying|happy|total)\s+)?"
    rf"(?:{'|'.join(_NOT_JOBS)})\s+(?:at|for)\b)"
)
"""What "I'm a … at / for X" says of no job: a place one goes to or belongs to ("a regular at Starbucks", "a
member at the gym", "a loyal customer at Tesco"), a habit or a taste ("a vegetarian for ethical reasons", "a
sucker for Italian food"); a title with more words is one ("a staff member at Tesco")."""
_TITLE_WORDS = (
    r"(?:(?!(?:of|the|a|an|to|and|or|with|for|in|at|on|my|your|big|huge|bit|real|total)\b)[a-z][a-z\-]*\s+){0,3}"
)
_JOB_HEAD = "|".join(sorted(JOB_HEADS, key=len, reverse=True))
_LEAD = (
    r"(?!(?:the|a|an|my|our|your)\s)[a-z][a-z\-]*\s+lead"
    r"(?=\s+(?:at|for|with|on|in)\b|\s*(?:$|[.,;:!?)]|\s(?:and|but|now|tho)\b))"
)
"""A lead said as a title: a word before it and nothing after it but where ("test lead at Harbourline", "I'm
a tech lead."), not a lead guitarist, climber or author, nor "the lead" (`JOB_HEADS` leaves "lead" out: a
dog's lead)."""
_WORKER = (
    r"(?:social|care|support|youth|case|aid|charity|healthcare|health\s+care|construction|factory|farm|warehouse|"
    r"council|community|outreach|disability|retail|research)\s+worker"
)
"""A worker said by the trade ("a social worker", "a support worker"): "worker" alone is no title ("a hard
worker")."""
TITLE_SAID = rf"(?i:{_TITLE_WORDS}(?:{_LEAD}|(?:{_WORKER}|{_JOB_HEAD})\b(?!['’]s|\s+(?:of|to)\b)))"
_TITLE = rf"(?P<value>{TITLE_SAID})"
"""A job title ended by its head noun (`JOB_HEADS`: "data analyst", "staff nurse"), not a fan of
one nor someone's ("a fan of designer bags", "a teacher's pet")."""
_CLINICIAN = "|".join(sorted((re.escape(w) for w in CLINICIANS), key=len, reverse=True))
_FINDS = (
    r"(?:has\s+|have\s+)?(?:reckons?|thinks?|thought|says?|said|suspects?|suspected|confirmed|believes?|"
    r"is (?:pretty |fairly )?sure|told me|showed|shows|revealed|came back (?:as|with)|found)"
)
_NOT_A_CONDITION = (
    r"(?!(?:i|we|you|he|she|they|it|my|your|his|her|the|this|that|nothing|no|not|to|there|rest|stop|take|keep|"
    r"avoid|go|should|need|needs|can|could|will|would|might|may|so|ok|okay|fine|all|everything|clear|normal|"
    r"something|anything|yes|hello|hi|thanks|sorry|sure|well|congrat\w*|good|great|same)\b)"
)
_DIAGNOSIS = (
    rf"\b(?:(?:my|the|a|our|their)\s+)?(?:{_CLINICIAN})s?\s+{_FINDS}\s+(?:that\s+)?"
    r"(?:(?:it['’]?s|it\s+is|it\s+was|its|I\s+have|I['’]ve\s+got|I['’]?ve|I\s+had|I\s+probably\s+have)\s+)?"
    rf"(?:(?:probably|likely|just|possibly|definitely|mild|a\s+bit\s+of)\s+)*(?:an?\s+|some\s+)?{_NOT_A_CONDITION}{PHRASE}"
)
"""A diagnosis reported ("GP reckons plantar fasciitis", "the doc says it's tendonitis", "the scan
showed a stress fracture"), not advice ("the physio said to rest", "doctor says I need rest")."""
_MEDICATION = r"prescribed(?!\s+me\b)|I(?:'m| am) (?:now )?taking|I take|I started taking"
_PUT_ME_ON = r"^(?P<head>[^\n]*?)\b(?P<verb>put\s+me\s+on|started\s+me\s+on|prescribed\s+me)"
"""A medicine someone put the speaker on ("she's started me on …", "my dad's GP put me on …"): "me" says
whose it is, so the match opens the sentence and no clause owner is read before it
(`ingest.relation_owner`). Anchored at the sentence's start, it is tried once a sentence, so its head
need not be bounded: a long run-on still reaches its verb ("… and then the GP prescribed me …")."""
_QUOTE_REACH = 300
_QUOTE_OPENS = re.compile(
    r"\b(?:said|says|texted|texts|wrote|writes|messaged|replied|posted|tweeted|told\s+(?:me|us))\s*[:\"“]", re.I
)


def quoted(sentence: str, at: int) -> bool:
    """Whether ``at`` lies in words someone else is quoted as saying (`Mum texted: "the GP put me on …"`):
    a quotation open before it, or a saying verb and a colon or quote mark before it; "me" there is theirs.
    Read within `_QUOTE_REACH` characters, so a long run-on is not read whole for every match."""
    before = sentence[max(0, at - _QUOTE_REACH) : at]
    return (before.count('"') + before.count("“") + before.count("”")) % 2 == 1 or bool(_QUOTE_OPENS.search(before))


_NOT_A_DRUG = (
    r"(?!(?:s+o+|many|much|lots|loads|tons|plenty|more|less|ages|forever|care|time|turns|part|photos?|pictures?|"
    r"pics|notes|walks?|breaks?|naps?|showers?|baths?|looks?|the\s+(?:bus|train|tube|kids|dog|lead|piss|mick)|(?:the\s+|a\s+)?(?:waiting\s+lists?|lists?|rota|hold|speaker|phone|spot|scales|books))\b)"
    r"(?!(?:the\s+|a\s+)?(?:(?:night|day|early|late|morning|evening|graveyard|weekend)\s+)?(?:nights|days|earlies|lates|"
    r"weekends|shifts?|rotas?|speakerphone|loudspeaker|mute|payment\s+plans?|plans?|diets?|probation|furlough|courses?|"
    r"team|tills?|reception|nights?\s+shifts?)\b)"
    r"(?!(?:the\s+|a\s+|this\s+|that\s+|our\s+|their\s+)?(?:(?!(?:for|before|after|in|at|on|to|with|during|of)\b)"
    r"[\w\-]+\s+){0,2}?(?:tenders?|projects?|cases?|accounts?|contracts?|bids?|pitch|shortlist|panel|committee|board|"
    r"jobs?|calls?|emails?|threads?|cc|diets?)\b)"
)
"""What "I take", "put me on" or "switched me to" is said of that is no medicine: a habit ("I take sooo
many photos", "I take the bus"), a shift or a bill ("put me on nights", "… on a payment plan"), or work
whose noun heads its object ("put me on the tender for the mall", "… the Henderson project"), or a diet
("put me on a low sugar diet": `ingest.relation_lower_health` reads it); not "I take Xanax before calls",
where a preposition comes first)."""

_RANKED = r"(?:(?:only|sole|new|youngest|oldest|newest|best|worst|first|last)\s+)?"
"""A rank said before a title with "the", not part of it ("I'm the only nurse at…", "the youngest manager at…")."""

_NOT_A_DEGREE = r"(?!(?:bit|little|tad|wee|lot|lil|kinda)\b(?!-|\s+league\b))"
"""What "I'm a" says of a degree, not a job ("I'm a bit stuck at Mabena", "a little burnt out at work", "a
lot happier at Globex"); "a little league coach" and "a bit-part actor" are jobs."""

_NO_I = (
    r"^(?!\W*[\"“])\W*(?:(?:honestly|tbh|really|also|still|and|but|so|ngl)\s+)*(?P<verb>hate|can['’]?t\s+stand|cannot\s+stand)\s+"
    r"(?!(?:it|that|this|them|him|her|you|u|ur|me|myself|yourself|when|how|what|to|2|on|up|for|still|straight|in|by|"
    r"is|was|speech|crimes?|mail|the\s+(?:fact|way|idea|thought|game))\b)"
    r"(?!(?:going|getting|having|being|doing|seeing|watching|hearing|saying|telling)\b)(?!(?:the|that|this)\s+stuff\b)"
)
"""A dislike said the way chat drops its "I", opening the sentence ("hate the 400 traffic every friday
tho", "can't stand coriander"): a thing, not a person or a pronoun ("hate myself", "hate u lol"), a clause
or an idea ("hate that for you", "hate when it rains", "hate the game, not the player"), the noun ("Hate
speech is everywhere"), a posture ("can't stand up straight"), a feeling for someone ("hate seeing you
stressed") or a quote ('"hate the rain" is what he says')."""

_DWELLING = r"house|home|flat|apartment|unit|condo|semi|townhouse|bungalow|cottage|duplex|rental"
_PLACE_SAID = (
    rf"\s+(?i:in)\s+{NAME}(?:\s*,\s*(?i:an?)\s+(?:[a-z\-]+\s+)?(?i:{_DWELLING})\b|\s+(?i:to\s+(?:live|rent))\b)"
)
"""A home found: "we found a flat in Leith", or "a place" a dwelling word or "to live" says is one ("we found
a place in Barrie, a semi near the bay", "got a place in Leeds to rent"), not a place found to eat or visit
("found a place in Rome that does great pizza"), for someone or for a while ("found a house in Leeds for my
mum", "… for the summer")."""

_HEDGED = re.compile(
    r"\b(?:hope|hopefully|think|thinks|thought|wish|if|whether|maybe|fingers\s+crossed)\b[^.!?]*$", re.I
)
_DENIED = re.compile(r"^[^.!?]{0,40}?\b(?:but\s+(?:I|we|he|she|they)\s+(?:didn['’]t|did\s+not)|not\s+really)\b", re.I)
_DEPARTMENTS = frozenset(
    {"sales", "marketing", "ux", "ui", "it", "hr", "phd", "design", "engineering", "finance", "ops"}
)


def _not_a_job_got(sentence: str, m: re.Match[str], earlier: str) -> bool:
    """ "got the X job" says no employer when X is a place ("the Lisbon job"), a title or a field ("the Senior
    Engineer job", "the UX job", "the Head of Sales job"), or the getting is hoped, thought or denied ("I hope I
    got the Deloitte job", "… but I didn't")."""
    value = m.group("value")
    if place_weight(value) > 0 or re.fullmatch(TITLE_SAID, value) or value.split()[-1].lower() in _DEPARTMENTS:
        return True
    return bool(_HEDGED.search(sentence[: m.start()]) or _DENIED.search(sentence[m.end() :]))


_NOT_FOUND_HOME = re.compile(
    r"\b(?:but|fell\s+through|for\s+(?:my|our|his|her|their|the|a)|holiday|vacation|to\s+stay|semester|when\s+I\s+was|"
    r"on\s+airbnb|it\s+was)\b",
    re.I,
)
_PAST = re.compile(r"\b(?:years?\s+ago|back\s+when|used\s+to|once)\b", re.I)
"""A home found that never was or is no longer the speaker's: an offer that fell through, one for someone or
for a while ("… for my brother", "… for the week", "as a holiday home"), or one long ago ("years ago we
found a house in Leeds, now we're in York")."""

SAYINGS: tuple[Rule, ...] = (
    # tastes
    Rule(_r(rf"{_NO_I}{PHRASE}"), "dislikes"),
    Rule(  # "i don't love crowds", not a person, a comparison or "not that I don't love …"
        _cs(
            r"(?<!that )\b(?i:I)\s+(?i:(?:really|just|honestly)\s+)?(?i:don['’]t|do\s+not)\s+(?i:love)\s+"
            r"(?!(?:you|u|ya|him|her|them|it|that|this|my|anything|anyone|everything|how|when|what|the\s+way)\b)"
            r"(?P<value>[a-z][a-z\-]*(?:\s+[a-z][a-z\-]*)?)(?=\s*(?:$|[.,;!?]|(?:tbh|tho|lol|either|anymore)\b))"
        ),
        "dislikes",
    ),
    # work
    Rule(
        _r(rf"{_I_AM}an?\s+{_NOT_A_DEGREE}{_NOT_A_JOB}(?P<value>[a-z][a-z\- ]{{2,40}}?)\s+(?:at|for)\s+[A-Z]"),
        "works as",
    ),
    Rule(_r(rf"{_I_AM}an?\s+{_TITLE}"), "works as"),
    Rule(
        _cs(rf"(?i:{_I_AM}the\s+{_RANKED}){_TITLE}(?=\s+(?i:at)\s+(?P<kinded>(?>{NAME}))(?<!['’]s)(?![\w'’]))"),
        "works as",
        refuses_kind="pte",
    ),
    Rule(
        _cs(rf"(?i:{_I_AM}(?:an?|the\s+{_RANKED}))\s*{TITLE_SAID}\s+(?i:at|for)\s+(?P<value>(?>{NAME}))(?<!['’]s)"),
        "works at",
        "o",
        refuses_kind="pl",
    ),
    Guarded(
        _cs(
            rf"\b(?:(?P<who>{NAME})|(?i:I|we))\s+{NOW}(?i:got|landed)\s+(?i:the)\s+(?P<value>(?>{NAME}))"
            r"\s+(?i:job|role|position|gig)(?=\s*(?:$|[.,;:!?)]|(?i:at|in|with|for|starting|and|but|so|lol|yay|omg)\b))"
        ),
        "works at",
        "o",
        refuses_kind="pl",
        veto=_not_a_job_got,
    ),
    # things: a model named beside one, of two words or a number ("my bike (Giant Escape)", "my phone, an
    # iPhone 12,", "my old bike - the Giant Escape -"); not a place, a day, a test or a list ("my house
    # (London)", "my car (MOT)", "my car, the AA, and …")
    Rule(
        _r(
            rf"\b{THING}(?:\s*\(\s*|,\s+(?:an?|the)\s+|\s+[-–—]\s+(?:the\s+)?)(?-i:(?=[^\s(),]+\s+[A-Z0-9]|[^\s(),]*\d)"
            rf"(?![A-Z]{{2,}}\b))(?P<value>(?>{NAMED_THING}))(?<!['’]s)\s*(?:\)|[,\-–—](?!\s*(?:and|or)\b))"
        ),
        "is",
        refuses_kind="lpto",
    ),
    # health
    Rule(_r(rf"\bdiagnosed\s+me\s+with\s+{PHRASE}"), "diagnosed with"),
    Rule(_r(_DIAGNOSIS), "diagnosed with"),
    Rule(_r(rf"\b(?:{_MEDICATION})\s+(?:an?\s+|some\s+)?+{_NOT_A_DRUG}{PHRASE}"), "takes"),
    Guarded(
        _r(rf"{_PUT_ME_ON}\s+(?:an?\s+|some\s+)?+{_NOT_A_DRUG}{PHRASE}"),
        "takes",
        veto=lambda s, m, e: not sentence_mood(s).states(m.start("verb")) or quoted(s, m.start("verb")),
    ),
    Rule(
        _cs(
            rf"\b(?:(?:Dr|Doctor)\.?\s+{NAME}|(?i:my|the)\s+(?i:{_CLINICIAN}))\s+(?i:has\s+)?"
            rf"(?i:added|switched\s+me\s+(?:to|onto)|moved\s+me\s+(?:to|onto)|changed\s+me\s+to)\s+"
            rf"(?i:an?\s+|some\s+)?+(?i:{_NOT_A_DRUG}){PHRASE}"
        ),
        "takes",
    ),
    # places
    Rule(
        _cs(rf"{_WHO_VERB}(?i:moved|moving|relocated|relocating)\s+(?i:from)\s+{NAME}\s+(?i:to)\s+(?P<value>{NAME})"),
        "lives in",
        "l",
        refuses_kind="o",
    ),
    Guarded(
        _cs(
            rf"\b(?i:I|we)(?:['’]ve|\s+have)?\s+{NOW}(?i:found|got|signed\s+for)\s+(?i:a|an|our)\s+(?:(?i:new)\s+)?"
            rf"(?:(?i:{_DWELLING})|(?i:place)(?={_PLACE_SAID}))\s+(?i:in)\s+(?P<value>(?>{NAME}))"
            r"(?=\s*(?:$|[.,;:!?)\n]|(?i:and|so|now|finally|lol|yay|btw|too|to\s+(?:live|rent))\b))"
        ),
        "lives in",
        "l",
        needs_kind="l",
        veto=lambda s, m, e: bool(_NOT_FOUND_HOME.search(s[m.end() : m.end() + 80]) or _PAST.search(s[: m.start()])),
    ),
    Rule(
        _cs(rf"\b(?i:we['’]re|we\s+are|I['’]m|I\s+am|im)\s+{NOW}(?i:in)\s+(?P<value>(?>{NAME}))(?={SETTLED_AFTER})"),
        "lives in",
        "l",
        needs_kind="l",
    ),
    Rule(
        _cs(
            rf"\b(?i:(?:moved|moving)\s+into|got\s+the\s+keys?\s+(?:to|for))\s+(?i:a|an|the|our|my)\s+"
            rf"{HOME_WORDS}(?i:{HOME}|place)\s+(?i:in)\s+(?P<value>{NAME})"
        ),
        "lives in",
        "l",
        needs_kind="l",
    ),
    Rule(
        _cs(
            rf"\b(?i:can|could|should|shall)\s+(?i:we|I)\s+(?i:do|take|make|squeeze\s+in|fit\s+in|go\s+on|manage)\s+"
            rf"(?i:an?)\s+(?i:[a-z\-]+\s+){{0,2}}?(?i:trip|visit|excursion|detour)\s+(?i:over\s+|out\s+)?(?i:to)\s+"
            rf"(?P<value>{NAME})"
        ),
        "plans to visit",
        "l",
        needs_kind="l",
        any_mood=True,
    ),
    Rule(
        _cs(
            rf"\b(?i:I|we)(?:['’]ve|\s+have)?\s+{NOW}(?i:booked|reserved)\s+(?i:a|an|the|our|us\s+a|two|2)\s+"
            rf"[^.,;!?]{{1,40}}?\s+(?i:in|at|near)\s+(?P<value>{NAME})"
        ),
        "plans to visit",
        "l",
        needs_kind="l",
    ),
)
"""The rows; order does not matter (`ingest.relation_extract` keeps one fact per value)."""
