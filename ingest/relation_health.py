"""Health, tastes and trips as chat says them beside `ingest.relation_rules`: rows of the same `Rule`
table, applied with it (`ingest.relation_extract`), kept apart so each table stays short.

* **a condition named by its result**: "results are in, so it's coeliac disease", "turns out I've
  got asthma": a short phrase ending on a condition's head word (`_CONDITION_HEADS`) that ends its
  clause ("flu *jab*", "covid *tests*" are something else), with no hedge or denial in it ("not",
  "probably", "either"); a result of someone else's, named in the sentence or the one before ("my
  son's bloods came back, it's asthma"), is not the speaker's (`ingest.diagnosis_guards.own_visit`);
* **a lasting condition the speaker has** ("I have asthma", "I've got type 2 diabetes", "my gout meds"), or
  a doctor names ("Dr Benali says its gout"): the same head words, less the passing ones ("I have flu"), not
  wondered about ("I think I have ADHD"), not a history, a test or an appointment, nobody else's;
* **an injury** said after another verb the speaker's "I" leads ("tripped and sprained my ankle"),
  not one nearly had ("I nearly slipped and …") nor a figure of speech ("pulled my leg");
* **a taste said with "do"** ("I do like darts though"; not "not that I do like …", "I actually like
  the idea of …"), a pastime one does ("I do a bit of pottery": only filler words and one kind of it
  between, the pastime ending its clause, never a job or a chore), or a dislike that points back at
  the thing a request left out ("no olives on mine, I hate the stuff"; "no sleep again" is a lack);
* **a trip** said by the coming back ("back from Fiji!", "just got back from Oslo"; not ahead, wished
  or with another person in the sentence) or a flight booked by the speaker ("Perth: flights booked",
  "booked our flights to Perth": a plan; not for others, cancelled, asked or of a past trip).

What the speaker was put on ("she's started me on X", "my dad's GP put me on Y") is the speaker's
medicine, whoever opens the clause: `ingest.relation_sayings` reads it from the sentence's start.
"""

from __future__ import annotations

import re

from ingest.diagnosis_guards import EPONYM_CONDITION, own_visit
from ingest.entity_vocab import BODY_PARTS, PEOPLE_ROLES, words
from ingest.product_guards import by_speaker, for_someone_else, past_life
from ingest.relation_guards import Guarded
from ingest.relation_lower_health import LOWER_CASE_HEALTH
from ingest.relation_rules import NAME, PHRASE, Rule
from ingest.relation_sayings import quoted

__all__ = ["HEALTH_PHRASINGS", "names_a_condition"]


def _r(text: str) -> re.Pattern[str]:
    return re.compile(text, re.I)


def _cs(text: str) -> re.Pattern[str]:
    """Case-sensitive where a name must be capitalised; ``(?i:…)`` marks the words around it."""
    return re.compile(text)


_CONDITION_HEADS = words(
    """diabetes asthma arthritis osteoarthritis hypertension cancer eczema psoriasis epilepsy migraines
    anaemia anemia hypothyroidism hyperthyroidism endometriosis fibromyalgia gout sciatica tendonitis
    tendinitis bronchitis pneumonia shingles covid flu glaucoma cataracts osteoporosis pcos ibs copd
    depression anxiety adhd dementia lupus colitis apnoea apnea disease syndrome"""
)
"""Head words that end a condition's name ("type 2 *diabetes*", "coeliac *disease*"): a result said
as "it's X" names a condition only when X ends on one, so "so it's fine" says nothing."""
_CONDITION = "|".join((EPONYM_CONDITION, *sorted((re.escape(w) for w in _CONDITION_HEADS), key=len, reverse=True)))
_OPENS_ON_CONDITION = re.compile(rf"(?:type\s+\d\s+|[a-z\-]+\s+)?(?:{_CONDITION}|ptsd|ocd|autism)\b", re.I)


def names_a_condition(text: str) -> bool:
    """Whether ``text`` opens on a condition, a word before it at most ("COVID", "Type 1 diabetes", "PTSD")."""
    return _OPENS_ON_CONDITION.match(text) is not None


_RESULT = (
    r"\b(?:so|turns\s+out|turned\s+out|confirmed|officially|which\s+means)\s+"
    r"(?:it['’]?s|its|it\s+is|I\s+have|I['’]ve\s+got|I\s+(?:have\s+)?got|I['’]ve)\s+(?:got\s+)?(?:an?\s+)?"
)
_HEDGE = (
    r"(?!(?:not|no|never|probably|maybe|possibly|perhaps|likely|unlikely|either|neither|nor|or|just|only|like|"
    r"might|could|may|definitely|hopefully|almost|nearly|suspected|potentially|query|prob|def)\b)"
)
"""A word that leaves a result open or denies it ("not cancer", "probably not diabetes", "either flu or
covid", "just anxiety"): no diagnosis is read through it."""
_RESULT_ENDS = (
    r"(?=\s*(?:$|[.,;:!)\n]|\?[?!])|\s+(?:and|but|so|which|then|now|apparently|lol|haha\w*|too|after\s+all|"
    r"confirmed|officially)\b)"
)
"""A condition ends its clause, as surprise's "??" does ("turns out i have hypothyroidism??"; one "?" asks):
"so it's flu *season*", "I've got the flu *jab*", "covid *tests*",
"cancer *research*" name something else."""
_BODY = "|".join(sorted(BODY_PARTS, key=len, reverse=True))
_HURT = r"broke|fractured|sprained|twisted|hurt|injured|tore|pulled|dislocated"
_IDIOM = r"pulled\s+my\s+leg|twisted\s+my\s+arm|broke\s+my\s+(?:back|neck|heart)\b|hurt\s+my\s+(?:feelings|pride)"
"""A hurt said as a figure of speech ("pulled my leg", "twisted my arm", "broke my back for that company")."""
_NEARLY = re.compile(
    r"\b(?:nearly|almost|practically|could\s+have|could['’]ve|would\s+have|would['’]ve|might\s+have|"
    r"might['’]ve|basically|literally|thought\s+I|as\s+if|like\s+I)\b",
    re.I,
)
_PLACEHOLDER = r"it|them|the\s+stuff|that\s+stuff|this\s+stuff|those|the\s+things?"
_DISLIKED = r"hate|can['’]?t\s+stand|cannot\s+stand|don['’]?t\s+like|do\s+not\s+like|detest|loathe|can['’]?t\s+eat"
_NO_IDIOM = (
    r"(?!(?:problem|problems|worries|worry|idea|way|thanks|doubt|offence|offense|rush|clue|one|matter|time|longer|"
    r"sense|need|point|chance|reason|wonder|kidding|joke|joking|comment|big\s+deal|pressure|judgement|judgment)\b)"
)
"""What follows "no" in chat without refusing a thing ("no problem, I hate it when …", "no idea")."""
_REFUSED = (
    rf"{_NO_IDIOM}(?P<value>(?-i:[a-z][a-z\-]+)(?:\s+(?!(?:in|on|with|for|please|thanks|at|of|and|or)\b)"
    rf"(?-i:[a-z][a-z\-]+))?)(?![\w'’])"
)
_ASKED_OFF = (
    r"(?=\s*,?\s*(?:(?:on|in|with)\s+(?:mine|my|ours|our|your|yours|any|it|them)|please|pls|thanks|ta|for\s+me)\b)"
)
"""A request leaves the thing out ("no olives *on mine*", "no onions *please*"); "no sleep last night",
"no answer from …", "no signal in the flat" lack something, and refuse nothing."""
"""The thing a request refuses ("no *blue cheese* on mine"), a word or two, up to a preposition."""
_HOBBIES = words(
    """quilting knitting crochet crocheting sewing embroidery gardening painting drawing pottery woodwork
    woodworking fishing hiking climbing bouldering running cycling swimming yoga pilates baking photography
    birdwatching dancing singing surfing sailing rowing archery fencing karate judo taekwondo bowls tennis golf"""
)
"""Pastimes "I do" names as the speaker's ("I do a bit of pottery", "I do mostly road cycling"); another
object of "do" ("I do the dishes", "I do nothing") is no taste."""
_FILLER = r"(?:mostly|mainly|some|a|an|of|lots|lot|bit|bits|more|little|plenty|loads)"
"""Words between "do" and the pastime ("a bit of", "loads of"); "the" makes it a chore ("I do the gardening")."""
_STYLE = (
    r"road|trail|track|mountain|indoor|outdoor|wild|open[\s-]water|hot|aerial|sea|fly|coarse|rock|sport|ballroom|"
    r"salsa|latin|swing|tap|watercolou?r|oil|landscape|street|wildlife|competitive|amateur|power|ice|hill|fell|"
    r"cross[\s-]country|long[\s-]distance|free[\s-]motion|free|machine|hand"
)
"""A kind of pastime said before it ("road cycling", "wild swimming"): one such word, never any verb ("I do
*think* tennis …", "I do *miss* running")."""
_AND_ANOTHER = rf"(?:(?!(?:no|some|any|every)thing\b)[a-z]+ing\s+(?:and|&)\s+(?:{_FILLER}\s+){{0,3}})?"
"""Another pastime said first and joined by "and" ("I do mostly piecing and some quilting")."""
_PASTIME_ENDS = (
    r"(?=\s*(?:$|[.,;:!)\n])|\s+(?:these|this|every|on|in|with|most|twice|once|each|now|too|as\s+well|and|but|"
    r"though|tho|lol|haha\w*|regularly|weekly|whenever|when|because|since|nowadays|again|myself|a\s+lot|quite|"
    r"sometimes|occasionally|daily|weekends?|at\s+(?!work\b)\w+|for\s+(?:fun|fitness|exercise|pleasure|relaxation))\b)"
)
"""The pastime ends its clause or says when, where or why: "running *club admin*", "swimming *lessons* for
the kids", "gardening *for my mum*" are no taste of the speaker's."""
_AS_WORK = re.compile(
    r"\b(?:for\s+a\s+living|at\s+work|for\s+work|my\s+job|for\s+money|professionally|as\s+a\s+job|"
    r"for\s+(?:my|our|his|her|their)\s+(?!own\b)\w+|it['’]s\s+my\s+(?:job|work)|jobs|clients|customers|commercial|"
    r"contracts?|pays\s+the\s+bills|and\s+decorating)\b",
    re.I,
)
_NOT_THAT = re.compile(
    r"\b(?:not\s+that|not\s+like|it['’]s\s+not\s+as\s+if|never\s+said|not\s+sure(?:\s+(?:if|whether|that))?|"
    r"(?:don['’]?t|do\s+not)\s+know\s+(?:if|whether)|wonder\s+(?:if|whether)|doubt(?:\s+(?:if|whether|that))?)\s+$",
    re.I,
)
_HOBBY = "|".join(sorted(_HOBBIES, key=len, reverse=True))
_IN_TOUCH = r"talk|chat|message|text|call|ring|video\s+call|keep\s+in\s+touch|stay\s+in\s+touch"
_BACK = r"(?:just\s+|finally\s+)?(?:(?:got|got\s+home|came|arrived)\s+)?back\s+from"
"""A coming back done ("got back from"); "getting back from X is a nightmare" says what it always is."""
_TRIP_OF = r"(?:(?:a|our|my)\s+(?:[a-z\-]+\s+){0,2}?(?:trip|holiday|week|weekend|fortnight)\s+(?:to|in|on)\s+)?"
_OPENER = r"(?:(?:ok(?:ay)?|so|well|yay|phew|and|anyway)\b[\s,!]*)*"


_EARLIER = 200
"""How much of the turn before the sentence, and of the sentence around a match, a result's guard reads."""


_NOT_A_PERSON = re.compile(
    r"\b(?:plants?|trees?|roses?|lawn|garden|crops?|seedlings?|leaves|hedges?|shrubs?|bush(?:es)?|orchids?|vines?|"
    r"tomato(?:es)?|potato(?:es)?|courgettes?|veg|vegetables|fruit|hives?|bees|hens|chickens|flock|herd)\b",
    re.I,
)
"""Patients a result may be of that are no person: a plant, a garden, a hive ("my roses have black spot,
so it's a fungal disease")."""
_HEDGED_AFTER = re.compile(
    r"\s*,?\s*(?:I\s+(?:guess|think|suppose|reckon|assume|imagine)|I['’]d\s+(?:guess|say)|maybe|probably|perhaps|"
    r"possibly|or\s+(?:something|whatever|so)|who\s+knows|I['’]m\s+guessing|\?(?![?!]))",
    re.I,
)
"""A result left open after it ("so it's anxiety, I guess", "…, or something", "…?"; not surprise's "??",
which only news opens: `ingest.mood` reads "so it's diabetes??" as a question, "turns out …??" as news)."""


def _someone_elses(sentence: str, m: re.Match[str], earlier: str) -> bool:
    """A result of another patient's: someone else said in the sentence before it or after it ("my son's
    tests …", "…, I mean my wife's"), or in the turn just before it ("My wife has been coughing. Turns
    out it's asthma"), or a plant's; or a result hedged after it (`_HEDGED_AFTER`). The sentence is read
    `_EARLIER` characters either side of the match, so a long run-on is not read whole for each one."""
    if _HEDGED_AFTER.match(sentence, m.end("value")):
        return True
    near = sentence[max(0, m.start() - _EARLIER) : m.end() + _EARLIER]
    window = f"{earlier[-_EARLIER:]} {near}" if m.start() < _EARLIER else near
    return not own_visit(window, 0, len(window)) or _NOT_A_PERSON.search(window) is not None


_LASTING = "|".join(
    (
        EPONYM_CONDITION,
        *sorted(
            (re.escape(w) for w in _CONDITION_HEADS - words("flu covid pneumonia bronchitis shingles")),
            key=len,
            reverse=True,
        ),
    )
)
"""The heads of a condition one has for good (not the passing ones: "I have flu" is a week, not a diagnosis)."""
_HAVE = (
    r"\bI(?:\s+(?:also|still|now|actually))?(?:\s+have|['’]ve\s+got|\s+have\s+got|\s+suffer\s+from|\s+live\s+with|"
    r"\s+was\s+born\s+with)\s+(?:an?\s+)?"
)
_NOT_HAD = re.compile(
    r"\b(?:think|thought|guess|wonder\w*|worr\w*|afraid|scared|suspect\w*|if|whether|might|may|could|maybe|"
    r"prob|probably|feel\s+like|pretty\s+sure|test\w*\s+for|checked\s+for)\b[^.;!?]*$"
    r"|\b(?:history|risk|fear|test|tests|scan|screening|check|appointment|clinic|nurse|doctor|specialist|type\s+of)\b",
    re.I,
)
"""Words that leave a condition one's own open ("I think I have ADHD", "what if I have diabetes") or make the
words after "I have" something else about it ("a family history of diabetes", "a diabetes appointment")."""


def _not_had(sentence: str, m: re.Match[str], earlier: str) -> bool:
    """A condition the speaker only wonders about, has a history or an appointment of, or someone else's
    (`_someone_elses`)."""
    before = sentence[max(0, m.start() - 80) : m.start()]
    return bool(_NOT_HAD.search(before) or _NOT_HAD.search(m.group("value"))) or _someone_elses(sentence, m, earlier)


def _nearly(sentence: str, m: re.Match[str], earlier: str) -> bool:
    """An injury only nearly had ("I nearly tripped and broke my ankle"): a hedge in the words before it; or
    someone else's, quoted (`Jo texted: "slipped and broke my wrist"`)."""
    return _NEARLY.search(sentence, max(0, m.start() - 80), m.start()) is not None or quoted(sentence, m.start())


_DROPPED = re.compile(
    r"\b(?:quit|quitting|stopped\s+using|deleted|uninstalled|ditched|dropped|left|gave\s+up(?:\s+on)?|came\s+off|"
    r"got\s+off|no\s+longer\s+use|don['’]?t\s+use|moved\s+(?:off|away\s+from)|not\s+on|(?:doesn['’]?t|don['’]?t|"
    r"didn['’]?t|does\s+not|do\s+not|hasn['’]?t|haven['’]?t|never|can['’]?t)\s+(?:have|has|had|use|used|got|get|do))\s+$",
    re.I,
)
_INSTEAD = re.compile(r"\b(?:now|instead|these\s+days|nowadays|but|rather|so\s+(?!that)\w+)\b", re.I)


def _dropped(sentence: str, m: re.Match[str], earlier: str) -> bool:
    """An app the speaker dropped or lacks ("I quit WhatsApp, and now email, that's how …", "Gran doesn't have
    Skype, so letters, that's how …"), or one another said after it stands for ("now", "instead", "so …")."""
    before = _DROPPED.search(sentence, max(0, m.start() - 30), m.start()) is not None
    return before or _INSTEAD.search(sentence, m.end("value"), m.end()) is not None


_NOT_BACK_YET = re.compile(
    r"\b(?:next|tomorrow|tonight|soon|until|till|dreams?|wish|imagine|hopefully|can['’]?t\s+wait|in\s+(?:a|an|two|three|"
    r"a\s+few|\d+)\s+(?:days?|weeks?|months?))\b",
    re.I,
)


def _not_back_yet(sentence: str, m: re.Match[str], earlier: str) -> bool:
    """A coming back ahead or wished for ("back from Fiji next month", "in my dreams"), or said with another
    person in the sentence, whose trip it may be ("so back from Paris and my sister is exhausted")."""
    return _NOT_BACK_YET.search(sentence, m.end()) is not None or not own_visit(sentence, 0, len(sentence))


def _not_that(sentence: str, m: re.Match[str], earlier: str) -> bool:
    """A taste denied or doubted by the words before it ("not that I do like football", "not sure I actually
    like …")."""
    return _NOT_THAT.search(sentence, max(0, m.start() - 30), m.start()) is not None


_NOT_PLANNED = re.compile(
    r"[^.!]{0,80}?(?:\?|\b(?:cancel\w*|refund\w*|not\s+yet|fell\s+through|didn['’]?t\s+go|no\s+longer|"
    r"(?:in|back\s+in)\s+(?:19|20)\d\d|ago|last\s+(?:year|summer|spring|autumn|winter|month|time))\b)",
    re.I,
)


def _booking_vetoed(sentence: str, m: re.Match[str], earlier: str) -> bool:
    """Flights booked that are no plan of the speaker's: someone else's booking ("my sister booked …",
    "I never booked …": the verb must be the speaker's own, `by_speaker`), booked for others ("for my
    parents"), undone ("but had to cancel"), asked ("flights booked?") or of a past trip ("in 2019")."""
    verb = m.start("verb") if m.groupdict().get("verb") else -1
    if verb >= 0 and not by_speaker(sentence, verb):
        return True
    if for_someone_else(sentence, m.end(), verb):
        return True
    return _NOT_PLANNED.match(sentence, m.end(), m.end() + 80) is not None or past_life(sentence, m.start())


def _pastime_vetoed(sentence: str, m: re.Match[str], earlier: str) -> bool:
    """A pastime done as a job or for someone ("I do photography for a living", "… at work, it's my job", a
    trade with its clients or jobs: "I do painting and decorating, mostly for landlords")."""
    return _AS_WORK.search(sentence, m.start(), m.end() + 80) is not None


_DOCTOR_SAYS = (
    r"\b(?:dr\.?|doctor|doc|gp|specialist|consultant)\b(?!\s+google)[^.;!?]{0,40}?\b(?:says|said|confirmed)\s+"
    r"(?:that\s+)?(?:it['’]?s|its|it\s+is|I\s+have|I['’]ve\s+got)\s+(?:an?\s+)?"
)
"""A doctor naming the condition ("Dr Benali says its gout", "the GP said it is asthma")."""
_NOT_WHO = (
    rf"(?!(?:{'|'.join(sorted(map(re.escape, PEOPLE_ROLES), key=len, reverse=True))}|has|had|is|was|got|and|or|"
    r"been|but|with|about|on|of|for|in|who|that|which|nothing|no|some|someone|somebody|anyone|people|a|an|the|"
    r"book|thesis|talk|paper|essay|class|course|dog|cat|pet)\b)(?![a-z]+s\s)"
)
"""A word between "my" or "I have" and a condition: no one else, no verb, no preposition, no work about it and
no possessive typed without its apostrophe ("my mom has diabetes", "I have a friend with ADHD", "my thesis on
diabetes", "my dads cancer" are not the speaker's); "type 2", "mild", "celiac" are."""
_NOT_ABOUT = (
    r"(?!\s+(?:patients?|research|care|ward|charity|awareness|foundation|society|unit|clinic|nurse|team|job|walk|run|"
    r"fundraiser|lecture|talk|class|course|event|appeal)\b)"
)
"""After "my <condition>", words that make it one's work or cause ("my dementia patients", "my cancer research",
"my Alzheimer's walk")."""


HEALTH_PHRASINGS: tuple[Rule, ...] = (
    Guarded(
        _r(rf"{_DOCTOR_SAYS}(?P<value>(?:{_HEDGE}[a-z0-9'’\-]+\s+){{0,3}}?(?:{_CONDITION}))\b{_RESULT_ENDS}"),
        "diagnosed with",
        veto=_someone_elses,
    ),
    Guarded(
        _r(
            rf"\bmy\s+(?P<value>(?!(?:disease|syndrome)\b)(?:{_HEDGE}{_NOT_WHO}[a-z0-9\-]+\s+){{0,2}}?(?:{_LASTING}))\b"
            rf"(?!['’]){_NOT_ABOUT}"
        ),
        "diagnosed with",
        veto=lambda sentence, m, earlier: quoted(sentence, m.start()),
    ),
    Guarded(
        _r(rf"{_HAVE}(?P<value>(?:{_HEDGE}{_NOT_WHO}[a-z0-9\-]+\s+){{0,2}}?(?:{_LASTING}))\b{_RESULT_ENDS}"),
        "diagnosed with",
        veto=_not_had,
    ),
    Guarded(
        _r(rf"{_RESULT}(?P<value>(?:{_HEDGE}[a-z0-9'’\-]+\s+){{0,3}}?(?:{_CONDITION}))\b{_RESULT_ENDS}"),
        "diagnosed with",
        veto=_someone_elses,
    ),
    Guarded(
        _r(
            rf"\b(?:and|then)\s+(?:then\s+)?(?!{_IDIOM})(?P<verb>{_HURT})\s+my\s+(?:left\s+|right\s+)?"
            rf"(?P<value>{_BODY})\b"
        ),
        "injury",
        value="{verb} {value}",
        veto=_nearly,
    ),
    Guarded(
        _r(
            rf"\bI\s+(?:really\s+)?(?:do|actually|genuinely|secretly)\s+(?:really\s+)?(?:love|like|enjoy)\s+"
            rf"(?!(?:the\s+|this\s+|that\s+)?(?:idea|thought|fact|sound|look|way|concept|prospect|notion)\b){PHRASE}"
        ),
        "likes",
        veto=_not_that,
    ),
    Guarded(
        _r(
            rf"\bI\s+(?:mostly\s+|mainly\s+|also\s+)?do\s+(?:{_FILLER}\s+){{0,4}}{_AND_ANOTHER}"
            rf"(?P<value>(?:(?:{_STYLE})\s+)?(?:{_HOBBY}))\b{_PASTIME_ENDS}"
        ),
        "likes",
        veto=_pastime_vetoed,
    ),
    Guarded(
        _cs(
            rf"(?P<value>{NAME})[^.!?A-Z]{{0,40}}?\b(?i:that['’]?s|thats|it['’]?s|its)\s+how\s+(?i:I|we)\s+"
            rf"(?i:{_IN_TOUCH})\b"
        ),
        "uses",
        needs_kind="i",
        any_mood=True,
        veto=_dropped,
    ),
    Rule(
        _r(
            rf"\bno\s+(?:more\s+)?{_REFUSED}\b{_ASKED_OFF}[^.!?]{{0,60}}?\bI\s+(?:really\s+|just\s+)?(?:{_DISLIKED})\s+"
            rf"(?:{_PLACEHOLDER})\b(?!\s+(?:when|that|how|if|because|whenever)\b)"
        ),
        "dislikes",
    ),
    Guarded(
        _cs(rf"^\s*(?i:{_OPENER}{_BACK})\s+(?i:{_TRIP_OF})(?P<value>{NAME})"),
        "visited",
        "l",
        needs_kind="l",
        veto=_not_back_yet,
    ),
    Guarded(
        _cs(
            rf"(?:^|[,;]\s*|\b(?i:and|so|also|oh|re)\s+)(?P<value>{NAME})\s*[:\-–—]\s*"
            rf"(?i:(?:the\s+)?(?:flights?|tickets?)\s+(?:are\s+|all\s+)?booked)"
        ),
        "plans to visit",
        "l",
        needs_kind="l",
        veto=_booking_vetoed,
    ),
    Guarded(
        _cs(
            rf"\b(?P<verb>(?i:booked|booking|book))\s+(?i:(?:my|our|the|return)\s+)?(?i:flights?|tickets?)\s+(?i:to|for)\s+"
            rf"(?P<value>{NAME})"
        ),
        "plans to visit",
        "l",
        needs_kind="l",
        veto=_booking_vetoed,
    ),
    *LOWER_CASE_HEALTH,
)
"""The rows; order does not matter (`ingest.relation_extract` keeps one fact per value)."""
