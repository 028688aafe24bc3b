"""Medicines, diets and pastimes as chat types them, in lower case and in passing: rows of the same
`Rule` table as `ingest.relation_health`, applied with it (`ingest.relation_extract`).

* **a medicine the speaker is kept on**: "she wants me on lisinopril", "doc's keeping me on metformin",
  "switched me onto sertraline", "i'm still on atorvastatin": the word must be a medicine's
  (`ingest.drug_names.is_drug`: "i'm on holiday", "wants me on the rota" say none), said of "me" or
  "I" (never "wants my dad on …"), stated (not "should i go on …?", "if i'm on …"), not quoted, and
  not a wish of a relative's or a friend's ("my wife wants me on statins");
* **a diet**: a nutrient cut by the speaker or on a clinician's word ("cut salt way down", "i've been
  cutting carbs", "dr okafor said cut sugar right back": low salt, low carb, low sugar), a diet named
  ("on a low-sodium diet"), or meat given up on most days ("i've been doing meatless weekdays":
  vegetarian); never someone else's ("my dad cut salt down"), a question or a wish;
* **a pastime**: the speaker being one who does it ("we're both climbers", "im a keen cyclist"; not
  "a terrible swimmer", "a runner at the restaurant"), doing it some times a week ("i was at the
  bouldering gym 3x a week"), or joining a club or gym for it ("finally joined a climbing gym").

Each row opens at the sentence's start and reads its own "I" / "me", so no clause owner is read
before it (`ingest.relation_owner`: "she's keeping me on …" is the speaker's medicine, not the
doctor's); each is tried once a sentence, so its head need not be bounded.
"""

from __future__ import annotations

import re

from ingest.drug_names import is_drug
from ingest.entity_vocab import CLINICIANS, PEOPLE_ROLES
from ingest.mood import sentence_mood
from ingest.relation_guards import Guarded
from ingest.relation_rules import NAME, NOW, Rule
from ingest.relation_sayings import quoted

__all__ = ["LOWER_CASE_HEALTH"]


def _r(text: str) -> re.Pattern[str]:
    return re.compile(text, re.I)


_CLINICAL = frozenset({"doctor", "dentist", "therapist", "physiotherapist", "nurse", "consultant", "specialist"})
_LAY = "|".join(
    sorted((re.escape(w) for w, p in PEOPLE_ROLES.items() if p not in _CLINICAL and w not in CLINICIANS), key=len)[::-1]
)
_LAY_WANTS = re.compile(
    rf"\b(?:my|our|his|her|their)\s+(?:[a-z]+\s+)?(?:{_LAY})\s+(?:(?:really|still|also|now|just)\s+)*(?:['’]s\s+)?$",
    re.I,
)
"""A relative or friend who wants or keeps the speaker on something ("my wife wants me on …"): a wish of
theirs, no prescription."""
_KEPT_BY = re.compile(
    r"\b(?:wants?|keep(?:s|ing)?|kept|ha[sd]|got|gotten|start(?:s|ed|ing)?|switch(?:es|ed|ing)?|"
    r"mov(?:es|ed|ing)|bump(?:s|ed)|upp(?:ed|ing))\s+$",
    re.I,
)
"""The verb before "me on …" that keeps the speaker on a medicine ("wants me on", "switched me onto")."""
_KEPT_ON = (
    r"(?P<verb>\bme)\s+(?:back\s+)?(?:on|onto)|"
    r"(?P<am>\b(?:I['’]m|I\s+am|I['’]ve\s+been|I\s+have\s+been))\s+(?:(?:still|now|currently|already|back|also|just|only)\s+)*on"
)
_DRUG = (
    r"\s+(?:(?:my|the|some)\s+)?(?P<value>[a-z][a-z\-]{3,})\b(?=\s*(?:[.!?,;:)]|$|\d|\b(?:for|from|since|now|again|"
    r"and|but|so|lol|tho|though|daily|every|twice|once|after|because|bc|cos|too|at|til|till|until|which|atm|rn|still)\b))"
)
"""The medicine's word, and only a clause's end or a word of time or cause after it: "on insulin duty", "on
metformin forums", "on lithium batteries" name no medicine taken."""
_LAY_WORD = re.compile(rf"\b(?:{_LAY})\b", re.I)
_NOT_NOW = re.compile(
    r"\b(?:before|in\s+the\s+past|ago|stopped|came\s+off|quit|used\s+to|refused|said\s+no|declined|instead|"
    r"so\s+says|says\s+my|according\s+to)\b|\bvets?\b|\bfor\s+(?:the|my|our|his|her|their)\s+(?:dogs?|cats?|pup|"
    r"puppy|kitten|horse|pets?|kids?)\b",
    re.I,
)
"""Words in the sentence that say the medicine is not the speaker's now: taken before, refused, hearsay, a pet's."""
_FOR_OTHERS = re.compile(rf"\bfor\s+(?:him|her|them|everyone)\b|\b(?:his|her|their)\s+diet\b|{_LAY_WORD.pattern}", re.I)
"""Someone else the sentence names: a diet or pastime for them, or their word ("for my dad", "his diet")."""


def _not_kept_on(sentence: str, m: re.Match[str], earlier: str) -> bool:
    """No medicine of the speaker's: the word is none (`is_drug`), the clause asks or supposes it, it is
    quoted, or a relative or friend is the one who wants it."""
    at = m.start("verb") if m.group("verb") else m.start("am")
    if not is_drug(m.group("value")) or not sentence_mood(sentence).states(at) or quoted(sentence, at):
        return True
    if _NOT_NOW.search(sentence) or _FOR_OTHERS.search(sentence, m.end()):
        return True
    if m.group("verb"):
        kept = _KEPT_BY.search(sentence, max(0, at - 24), at)
        lay = _LAY_WORD.search(f"{earlier[-150:]} {sentence[:at]}")
        return kept is None or lay is not None or _LAY_WANTS.search(sentence, max(0, at - 60), kept.start()) is not None
    return False


_NUTRIENTS = {"sodium": "low sodium", "salt": "low salt", "sugar": "low sugar", "carbs": "low carb"}
_NUTRIENTS |= {"carb": "low carb", "fat": "low fat", "cholesterol": "low cholesterol"}
_DIET_SAID = {
    **_NUTRIENTS,
    **{v: v for v in _NUTRIENTS.values()},
    **{"meatless": "vegetarian", "meat-free": "vegetarian"},
}
_DIET_SAID |= {v.replace(" ", "-"): v for v in _NUTRIENTS.values()} | {"meat free": "vegetarian"}
_NUTRIENT = "|".join(sorted(_NUTRIENTS, key=len, reverse=True))
_CUT = r"(?:cut|cutting|reduce|reducing|lower|lowering)\s+(?:(?:down|back)\s+on\s+|out\s+)?(?:the\s+|my\s+|all\s+)?"
_I_DO = r"I(?:['’]ve|\s+have|['’]m|\s+am)?\s+(?:been\s+)?"
_DIET_END = (
    r"(?=\s*(?:[.!?,;:)]|$|(?:(?:way|right|all\s+the\s+way)\s+)?(?:down|back|out)\b|from\s+my\s+diet\b|"
    r"\b(?:since|lately|recently|now|these\s+days)\b))"
)
"""What may follow a nutrient cut or a diet: a clause's end, "way down", "from my diet", "since …"; not "cut salt
into the dough", "cutting sugar snap peas", "the sugar in the recipe", "salt from the menu"."""
_TOLD = re.compile(
    r"\b(?:said|says|told\s+me|tells\s+me|wants\s+me|asked\s+me)\s+(?:(?:to|that)\s+)?"
    r"(?:(?:I|we)\s+(?:should|need\s+to|have\s+to|gotta|must)\s+)?$",
    re.I,
)
"""Advice before a nutrient cut ("said cut salt down", "told me to cut down on sugar")."""
_CLINICIAN = "|".join(sorted((re.escape(w) for w in CLINICIANS), key=len, reverse=True))
_CLINICIAN_SAID = re.compile(rf"\b(?:dr|doc|{_CLINICIAN})\b", re.I)


def _no_diet(sentence: str, m: re.Match[str], earlier: str) -> bool:
    """No diet of the speaker's: the clause asks or supposes it, it is quoted, or it is advice ("said cut
    salt down") that no clinician in the sentence or the turn before it gave."""
    at = m.start("verb")
    if not sentence_mood(sentence).states(at) or quoted(sentence, at) or _FOR_OTHERS.search(sentence):
        return True
    if m.groupdict().get("told") is not None:
        told = _TOLD.search(sentence, max(0, at - 60), at)
        return told is None or _CLINICIAN_SAID.search(f"{earlier[-200:]} {sentence[max(0, at - 200) : at]}") is None
    return False


_PASTIMES = {
    "climber": "climbing",
    "boulderer": "bouldering",
    "runner": "running",
    "cyclist": "cycling",
    "swimmer": "swimming",
    "hiker": "hiking",
    "surfer": "surfing",
    "skier": "skiing",
    "snowboarder": "snowboarding",
    "golfer": "golf",
    "knitter": "knitting",
}
_DOER = "|".join(sorted(_PASTIMES, key=len, reverse=True))
_HOBBIES = "climbing bouldering running cycling swimming hiking surfing skiing yoga pilates pottery rowing tennis golf"
_HOBBY = "|".join(sorted(_HOBBIES.split(), key=len, reverse=True))
_PASTIME_SAID = {**_PASTIMES, **{h: h for h in _HOBBIES.split()}, "swim": "swimming", "run": "running"}
_WE_ARE = (
    r"(?:I['’]m|I\s+am|we['’]re|we\s+are|(?:me|I)\s+and\s+[\w'’\-]+\s+are|and\s+(?:I|me)\s+are)"
    r"(?:\s+(?:both|all|also|still|actually|pretty\s+much))*"
)
_KEEN = r"(?:(?:an?\s+)?(?:(?:big|keen|avid|huge|real|proper|serious|lifelong|massive|mad)\s+)?)"
_A_WEEK = (
    r"(?:like\s+|about\s+|around\s+|at\s+least\s+)?(?:\d+|two|three|four|five|six|once|twice)\s*(?:x|times)?\s*"
    r"(?:a|per|every)\s+week\b"
)


_GIVEN_UP = re.compile(r"\b(?:quit|quitting|stopped|gave\s+(?:it\s+)?up|cancell?ed|left)\b|\bas\s+an?\s+\w+", re.I)
_FOR_KIDS = re.compile(rf"\bfor\s+(?:my|his|her|our|their|the)\s+(?:kids?|children|{_LAY})\b", re.I)


_PASTIME_END = r"(?=\s*(?:[.!?,;:)]|$|\b(?:and|but|so|too|myself|tbh|lol|mostly|since|now|though|tho)\b))"
"""What may follow "a climber": a clause's end or a joining word; not "a runner up", "a golfer fan", "a
climber's wife", "a knitter of excuses"."""
_VENUE = r"(?:gym|club|studio|class(?:es)?|lessons|wall|centre|center|pool|sessions?)"
_JOINED_END = (
    r"(?=\s*(?:[.!?,;:)]|$|\b(?:near|last|this|in|at|on|today|yesterday|recently|lol|and|with\s+my|"
    r"down\s+the\s+road|finally)\b))"
)


def _not_stated(sentence: str, m: re.Match[str], earlier: str) -> bool:
    """The clause asks or supposes it ("are we both climbers?"), someone else's words are quoted, it was
    given up ("… and quit after a week"), or it is for someone else ("for the kids", "as a coach")."""
    at = m.start("verb")
    if not sentence_mood(sentence).states(at) or quoted(sentence, at):
        return True
    return _GIVEN_UP.search(sentence, m.end()) is not None or _FOR_KIDS.search(sentence) is not None


_HERE_NOW = re.compile(
    r"\b(?:writing|texting|typing\s+this|messaging)\s+(?:you\s+)?from\s+(?!(?:my\s+|the\s+|our\s+)?(?:home|desk|work|"
    r"office|bed|couch|sofa|flat|house|room|kitchen)\b)|\b(?:here\s+in|just\s+landed|landed\s+in|arrived\s+in)\b",
    re.I,
)
"""Words that put the speaker on the trip as they type ("writing from a cafe in …", "so far", "just landed")."""


_AHEAD = re.compile(
    r"[^.!?]{0,40}?\b(?:next|tomorrow|tmrw|soon|later\s+this|in\s+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)\w*|"
    r"this\s+(?:spring|summer|autumn|fall|winter|christmas|easter|year|month)|(?:at|over|for|after)\s+(?:christmas|"
    r"easter|new\s+year|the\s+holidays|exams)|after\s+this|(?:from|on)\s+the\s+\d+|in\s+\d+\s+(?:days|weeks|months)|"
    r"later)\b",
    re.I,
)


def _not_under_way(sentence: str, m: re.Match[str], earlier: str) -> bool:
    """A stay the speaker is not said to be on now (no `_HERE_NOW` before the stay in its own sentence:
    "here in london. we're doing …" is no cue): "we're doing 10 days in Japan" alone may be ahead
    (`ingest.relation_phrasings` reads it so)."""
    at = m.start("verb")
    if not sentence_mood(sentence).states(at) or quoted(sentence, at):
        return True
    if _AHEAD.match(sentence, m.end()):
        return True
    return _HERE_NOW.search(sentence, max(0, at - 300), m.end()) is None


LOWER_CASE_HEALTH: tuple[Rule, ...] = (
    Guarded(
        re.compile(
            r"(?=[iwmIWM])\b(?P<verb>(?i:I['’]m|I\s+am|we['’]re|we\s+are|(?:me|I)\s+and\s+[\w'’\-]+\s+are))\s+"
            r"(?i:doing|spending|on)\s+(?i:(?:\d+|a|two|three|four|five|six|seven|eight|nine|ten|a\s+few)\s+"
            rf"(?:days?|nights?|weeks?)|a\s+week|a\s+fortnight)\s+(?i:in|around|across)\s+(?P<value>{NAME})"
        ),
        "visited",
        "l",
        needs_kind="l",
        any_mood=True,
        veto=_not_under_way,
    ),
    Guarded(_r(rf"(?=[mi])(?:{_KEPT_ON}){_DRUG}"), "takes", any_mood=True, veto=_not_kept_on),
    Guarded(
        _r(
            rf"(?=[iw])\b{_I_DO}{NOW}(?P<verb>{_CUT})(?P<value>{_NUTRIENT})\b"
            rf"(?!\s+(?:hydroxide|chloride|bicarbonate|carbonate|solution|levels?\s+in)){_DIET_END}"
        ),
        "diet",
        recorded=_DIET_SAID,
        any_mood=True,
        veto=_no_diet,
    ),
    Guarded(
        _r(rf"(?=[clr])(?<=\s)(?P<verb>(?P<told>{_CUT}))(?P<value>{_NUTRIENT})\b{_DIET_END}"),
        "diet",
        recorded=_DIET_SAID,
        any_mood=True,
        veto=_no_diet,
    ),
    Guarded(
        _r(
            rf"(?=[iphgws])\b(?P<verb>I['’]m|I\s+am|I['’]ve\s+been|I\s+have\s+been|(?:put|started|got|has|have|wants)\s+me)\s+"
            rf"{NOW}on\s+an?\s+"
            rf"(?P<value>low[\s-](?:{_NUTRIENT}))\s+diet\b"
        ),
        "diet",
        recorded=_DIET_SAID,
        any_mood=True,
        veto=_no_diet,
    ),
    Guarded(
        _r(
            rf"(?=[i])\b(?P<verb>{_I_DO}){NOW}(?:doing|done|going|gone|eating|do|eat)\s+(?:mostly\s+)?"
            rf"(?P<value>meatless|meat[\s-]free)(?:\s+(?:mondays|weekdays|weekends|most\s+days|days))?\b{_DIET_END}"
        ),
        "diet",
        recorded=_DIET_SAID,
        any_mood=True,
        veto=_no_diet,
    ),
    Guarded(
        _r(rf"(?=[iwma])\b(?P<verb>{_WE_ARE})\s+{_KEEN}(?P<value>{_DOER})s?\b{_PASTIME_END}"),
        "likes",
        recorded=_PASTIME_SAID,
        any_mood=True,
        veto=_not_stated,
    ),
    Guarded(
        _r(
            rf"(?=[iw])\b(?P<verb>(?:I|we)(?:\s+(?:was|were|am|go|went)|['’]m|['’]re))\s+"
            rf"(?:(?:to|at)\s+(?:the\s+|my\s+|a\s+)?)?(?P<value>{_HOBBY})(?:\s+{_VENUE})?\s+{_A_WEEK}"
        ),
        "likes",
        recorded=_PASTIME_SAID,
        any_mood=True,
        veto=_not_stated,
    ),
    Guarded(
        _r(
            rf"(?=[iw])\b(?P<verb>(?:I|we)(?:['’]ve|\s+have)?)\s+{NOW}(?:joined|signed\s+up\s+(?:at|for|with|to))\s+"
            rf"(?:a|an|the|my|our)\s+(?:(?:new|local)\s+)?(?P<value>{_HOBBY}|swim|run)\s+"
            rf"(?:gym|club|team|wall|group|class|centre|center|studio)\b{_JOINED_END}"
        ),
        "likes",
        recorded=_PASTIME_SAID,
        any_mood=True,
        veto=_not_stated,
    ),
)
"""The rows; order does not matter (`ingest.relation_extract` keeps one fact per value)."""
