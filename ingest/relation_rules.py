"""What users say about their lives, as relation rules: one table row per way of saying it.

Each `Rule` is a pattern over one sentence of a user turn with named groups: ``value`` (what the relation points
at), optionally ``pred`` (a people word: "my *manager* Tiago"), ``thing`` (an owned item that is the subject:
"the *battery* is a 44V pack"), ``who`` (a named person who is the subject) and ``verb`` (mapped through
`VERB_VALUES`). Without ``thing`` or ``who`` the subject is the user, or, for third-person rules (``he`` /
``she`` / ``his`` / ``her``), the last person the sentence named. Predicates are the names of
`ingest.predicates.PREDICATES`; single-valued ones supersede (the timeline). A rule with ``ahead`` records that
predicate instead when its sentence looks ahead at the value (a plan or a wish: "I'm flying to Tokyo", "I want
to visit Nara"), as `loci.timexpr.tense` reads it. A rule records nothing from a clause that asks or a sentence
that supposes ("should I quit Globex?", "if I moved to Porto, …": `ingest.mood`), but for a naming in passing
(``any_mood``: "can you suggest a gift for my sister Ana?" still says who Ana is)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from ingest.entity_vocab import (
    BODY_PARTS,
    DIETS,
    INNER_PUNCT,
    PEOPLE_ROLES,
    PET_ENDS,
    PETS,
    POSSESSIONS,
    PRICE,
    SETTLED_AFTER,
    VERB_VALUES,
    words,
)
from ingest.letters import NOT_I, PARTICLES, UPPER

__all__ = ["HOME", "HOME_WORDS", "JOINED", "MY_ROLE", "NAME", "NOT_ATTRIBUTES", "NOW", "PHRASE", "RULES", "VERB_VALUES"]
__all__ += ["Rule"]

_ROLE = "|".join(sorted((re.escape(w) for w in PEOPLE_ROLES), key=len, reverse=True))
_ADJ = (
    r"(?:(?:best|older|younger|little|big|new|old|former|current|eldest|youngest)\s+)?"
    rf"(?:(?!(?i:{_ROLE})(?:s|es)\s|[a-z]+s\s+[a-z]+\s+(?i:{_ROLE})\b|(?:ex|previous|first|ever|future|last|potential|"
    r"prospective|possible|supposed|would|wannabe|fake|so|late(?!\s+(?:(?:grand|step)?(?:father|mother|son|daughter)|"
    r"dad|mum|mom|husband|wife|brother|sister|gran|granny|grandad|grandpa|grandma|nan|aunt\w*|uncle|cousin)\b))\s)"
    rf"[a-z]+\s+(?=(?:[a-z]+\s+)?(?i:{_ROLE})\b)){{0,2}}"
)
"""Up to two words before a people word ("my thesis supervisor"); no owner ("my kids new teacher"), no ex, none
that leaves the role unreal ("my potential boss", "my so called friend"), no "late" but of family ("my late dad")."""
_NAME_WORD = rf"{NOT_I}[{UPPER}][\w'’\-]*"
"""A capitalised word of any script ("Ольга", "Łódź": `ingest.letters`), read in composed text (`ingest.prose`)."""
_NAME = (
    rf"(?:(?:Dr|Mr|Mrs|Ms|Mme|Mlle|Prof|Sr|Sra)\.?\s+)?{_NAME_WORD}"
    rf"(?:\s+(?:(?:{PARTICLES}|of)\s+)?{_NAME_WORD}){{0,3}}"
)
_SPAN = r"\s+(?:years?|yrs?|months?|weeks?|days?|hours?|hrs?|minutes?|mins?|ago)\b"  # "Civic 2 years ago"
_NAMED_THING = (
    rf"(?-i:{_NAME_WORD}(?:\s+(?:{_NAME_WORD}|(?!\d+(?:\.\d+)?{_SPAN})\d{{1,4}}(?:\.\d{{1,3}})?[a-z]?)){{0,5}})"
)
"""A thing's name: six words or model numbers at most ("Honda Civic Type R 2019"). Unbounded, a capitalised run
("My Old Car Is My Old Car Is …") was tried at every length from every start: 19 s for 4 KB."""
_POSS = "|".join(sorted((re.escape(w).replace(r"\-", r"[\- ]") for w in POSSESSIONS), key=len, reverse=True))
_THING = (
    rf"(?:my|our|the|his|her)\s+(?:(?:old|new|current|used|trusty|first)\s+)?"
    rf"(?:(?:{_NAMED_THING})\s+(?=(?:{_POSS})\b))?(?P<thing>{_POSS}|{_NAMED_THING})"
)
"""An owned thing: "my old battery", "the Golf", or a brand before the thing ("my Canon camera" → camera)."""
_PHRASE = rf"(?P<value>(?:[^.,;:!?\n()]|{INNER_PUNCT}){{1,80}})"
"""A free value up to its clause's punctuation, keeping the points inside numbers (`INNER_PUNCT`)."""
_SWAP_VALUE = rf"\s+(?:for|with)\s+(?:an?\s+|the\s+|my\s+)?(?:new\s+)?(?!{PRICE}){_PHRASE}"
_BODY = "|".join(sorted(BODY_PARTS, key=len, reverse=True))
_DIETS = "|".join(sorted(DIETS, key=len, reverse=True))

NOT_ATTRIBUTES = words(
    """question point guess bad pleasure apologies thoughts goal plan problem issue concern understanding hope idea life
    day time head mind way own one fault turn bet advice answer"""
)
"""Words after "my" that do not name a lasting attribute ("my guess is …", "my plan is …")."""


@dataclass(frozen=True, slots=True)
class Rule:
    pattern: re.Pattern[str]
    predicate: str | None  # None: the ``pred`` group, through `PEOPLE_ROLES`
    value_kind: str | None = None  # the value's entity kind when the rule knows it
    value: str | None = None  # a fixed value ("sold"), or ``{verb}`` / ``{verb} {value}`` templates
    third_person: bool = False  # the subject is the last person the sentence named
    needs_kind: str | None = None  # the value must be an entity of this kind (else no fact)
    refuses_kind: str | None = None  # no fact when the value (or a ``kinded`` group) is of these kinds ("pl")
    named_thing_predicate: str | None = None  # the predicate when ``thing`` is a name, not an owned noun
    attribute: bool = False  # ``pred`` is the user's own attribute ("my favorite color is …")
    ahead: str | None = None  # the predicate when the sentence looks ahead at the value (a plan, a wish)
    recorded: Mapping[str, str] | None = None  # the value as said → as recorded ("puppy" → "dog")
    any_mood: bool = False  # a naming that holds in a question or a condition too ("my sister Ana")


def _r(text: str) -> re.Pattern[str]:
    return re.compile(text, re.I)


def _cs(text: str) -> re.Pattern[str]:
    """Case-sensitive where a name must be capitalised; ``(?i:…)`` marks the words around it."""
    return re.compile(text)


_NOW = r"(?i:(?:just|recently|finally|also|now|currently|still|officially)\s+)*"
"""Adverbs that may stand before the verb of a fact ("I just moved to …")."""
_WHO_VERB = rf"\b(?i:I|we)(?:'ve| have|'m| am|'re| are)?\s+{_NOW}"
_OWNED_VERBS = r"sold|gave away|got rid of|donated|returned|lost|broke|crashed|wrecked|totall?ed|repaired|fixed"
_BROKE_VERBS = r"broke|died|stopped working|is broken|was stolen|got stolen"
_BODY_VERBS = r"broke|fractured|sprained|twisted|hurt|injured|tore|pulled|dislocated"
_TRAVEL = (
    r"visit(?:ed|ing)?|(?:go|going|went|gone|been)(?: back)? to|travel(?:l?ed|l?ing)? (?:to|in|around|through)|"
    r"(?:touring|toured|backpacking|backpacked)(?: (?:in|around|through))?|(?:fly|flying|flew) to|"
    r"(?:drive|driving|drove) to|head(?:ed|ing)? to|trip to|holiday in|vacation in|off to|arrived in|"
    r"(?:(?:got|came|getting|coming)\s+)?back from|returned from|we're in|I'm in"
)
"""Ways of saying a trip, in any tense: the sentence's tense decides `visited` or `plans to visit`."""
_AFFIRMED = rf"(?:(?!\b(?:never|not)\b|\w*n['’]t\b)(?:[^.?!]|{INNER_PUNCT}))"
"""A character of the words between "I" and the verb that are not a negation ("I've never been to")."""
_JOINED = r"(?:re-?)?joined|got a job at|started a new job at|started at|got hired at|got hired by|took a job at"
_STARTS = (
    r"accepted (?:an|the|their) offer (?:at|from)|accepted (?:a|the) (?:job|position|role) (?:at|with)|"
    r"start(?:ing)? (?:work )?at"
)
"""A job taken, not yet begun ("I accepted an offer at …", "I start at … in June"): the employer from then on."""
_LEAVES = (
    r"(?:handed in|hand in|handing in|gave|given|giving|put in|putting in)\s+(?:my\s+)?notice\s+(?:at|to|with)|"
    r"resigned from|(?:quit|left)\s+my\s+(?:old\s+)?(?:job|role|position)\s+(?:at|with)"
)
"""Notice handed in, a job quit or left ("I quit my job at Acme"): a `worked at` row ends `works at` (`ENDED_BY`)."""
_LEAVES_IF_EMPLOYER = r"left|quit|walked out of|moved on from|no longer (?:at|with)"
"""Verbs that end a job only when their object is an employer ("I left Acme", not "I left
Lisbon" nor "I quit Duolingo"): their rule needs an organisation (`Rule.needs_kind`), which the
window knows it as, or the sentence makes it (`ingest.entity_cues`: "I quit Acme after five
years", "I left Acme to join Globex")."""
_BACK_TO_WORK = r"(?:back|(?:went|gone|going|came|come)\s+back\s+to)\s+"
"""Back to work, said with the work ("I went back to work at Globex"): any name but a person's. Only
the work says so: "I'm back at X" / "I returned to X" is as often a shop, a café or an app gone back to
("I'm back at Decathlon to return them", "back at Google Docs"), and is no job."""
_MOVED = r"(?:moved|moving|relocated|relocating)\s+(?:over\s+)?to"
_MOVED_TO_JOB = rf"{_MOVED}\s+(?:a|an|the)\s+(?:new\s+)?(?:job|role|position)\s+(?:at|with)"
"""Moving to an organisation is a job change ("I moved to Northwind Labs", "moved over to Acme",
"moved to Acme as a designer", "moved to a job at Acme"): `works at`, which closes the old
job; to anywhere else it is a new home ("I moved to Lisbon")."""
_LAID_OFF = (
    r"(?:was|got|been|were)\s+(?:laid off|let go|fired|sacked|made redundant)\s+(?:from|by|at)|retired from|"
    r"stopped working (?:at|for)|no longer work(?:ing)? (?:at|for)"
)
"""Ways a job ends that say so whatever the name: `worked at` (`ENDED_BY` closes `works at`)."""
_BECAME = r"is\s+now|became|has become|took over as|has taken over as|stepped in as"
"""Ways of saying someone is now in a role ("Ana took over as my manager"); "is" alone: the rule beside it."""
_REPORT = r"report(?:ing)?\s+(?:directly\s+)?to|work(?:ing)?\s+(?:directly\s+)?under"
"""Whom one reports to is one's manager ("I report to Ana now"); a person only (`needs_kind`),
so "I report to Finance" records nothing."""
_PARTNERED = r"(?:been\s+|started\s+)?dating|engaged to|married to|in a relationship with|married"
"""A partner named by the relationship ("I'm dating Sam", "I married Sam"): a person only. Not
"seeing" ("I'm seeing Dr. Sousa on Monday") nor "going out with" (a night out)."""
_NO_MORE = r"anymore|any more|any longer"
_HAVE = r"(?:have|'ve got|have got|got|get|now have)"
_MY_ROLE = rf"(?i:my|our)\s+{_ADJ}(?P<pred>(?i:{_ROLE}))"
"""A people word after "my" / "our", as the ``pred`` group ("my new *boss*")."""
NAME, NOW, MY_ROLE, PHRASE, JOINED = _NAME, _NOW, _MY_ROLE, _PHRASE, rf"{_JOINED}|{_MOVED_TO_JOB}"
"""The pieces `ingest.change_rules`, `ingest.relation_sayings` and `ingest.relation_people` build on: a name, the
adverbs before a verb, "my <people word>", a free value, a job joined (a home's words: `HOME`, `HOME_WORDS`)."""
_HOME = r"house|home|flat|apartment|condo|townhouse|bungalow|duplex"
_HOME_WORDS = (
    rf"(?:(?!(?i:{_ROLE}|and|or|with|to|from|of|a|an|the|his|her|their|bought|sold|rented|holiday|vacation|summer|"
    rf"rental|airbnb|second|beach|ski|dream|old|former|previous|childhood|parents['’]?)\b)[\w\-]+\s+){{0,3}}?"
)
"""Words that describe a home before its noun ("our 2 bed flat in Leeds", "we're in a second floor
flat in Leeds", "I live in a tiny house in Otley"); not a person or a sale ("my sister bought a
house in Leeds" is no home of the user's)."""
HOME, HOME_WORDS = _HOME, _HOME_WORDS
THING, NAMED_THING = _THING, _NAMED_THING  # an owned thing, a thing's name: `ingest.relation_sayings`
_FEELING = r"(?:(?:really|absolutely|just|also|genuinely|honestly|truly|seriously|totally|still)\s+){0,2}"
_DISLIKE = r"hate|dislike|can't stand|cannot stand|don't like|do not like|can't eat"
_TASTE = rf"(?!(?:going\s+(?:to|out|back|into|on)|being|having\s+to)\b){_PHRASE}"  # "hate going to the gym" ≠ "going"
_CONDITION = r"(?:new|used|second-hand|brand new|refurbished)\s+"
_PET = rf"(?:[a-z]+\s+)?(?P<species>{'|'.join(sorted(PETS, key=len, reverse=True))})"
"""An animal word after any one word ("my rescue *dog*", "our old *cat*"), as the ``species`` group."""
_PET_SAYINGS = (
    (
        rf"\b(?i:my|our)\s+{_PET}(?:['’]s\s+name)?\s+(?i:(?:is|was)\s+(?:called|named)|is|was)\s+(?P<name>{_NAME})",
        False,
    ),
    (rf"\b(?i:my|our)\s+{_PET},?\s+(?P<name>{_NAME})", True),
    (
        rf"\b(?i:I|we)(?:\s+|(?=['’]))(?i:{_NOW}(?:{_HAVE}|adopted|rescued))\s+(?i:a|an)\s+{_PET}(?:,\s+|\s+(?i:called|named)\s+)(?P<name>{_NAME})",
        False,
    ),
    (rf"(?P<name>{_NAME})(?:,?\s+(?i:is|was)|['’]s)\s+(?i:my|our)\s+{_PET}\b{PET_ENDS}", False),
    (rf"(?P<name>{_NAME}),\s+(?i:my|our)\s+{_PET}\s*(?=[,.;!?)]|$)", True),
    (rf"(?P<name>{_NAME})\s*\(\s*(?i:my|our)\s+(?i:(?![a-z]+s\s)){_PET}\s*\)", True),  # not "(my friends dog)"
)
"""Ways of naming a pet (`ingest.entity_vocab.PETS`), each with its ``name`` and ``species``:
"my turtle is called Sushi", "my dog's name is Rex", "our cat, Miso,", "I have a parrot named
Kiwi", "Kiwi is our parrot", "Miso (our cat)". Each records two facts (`_pet_rules`): the name is the speaker's
`pet`, a person-kind entity (`ingest.entity_cues` types it), and the word said its `species`.
The flag marks a naming in passing ("our cat, Miso,", "Miso, our cat"): true in any mood, as
"Is our cat, Miso, too old to travel?" still says whose Miso is (`Rule.any_mood`)."""


def _pet_rules(saying: str, naming: bool) -> tuple[Rule, Rule]:
    """The two rules one pet saying makes: speaker `pet` name, and name `species` animal."""
    pet = saying.replace("(?P<name>", "(?P<value>")
    species = saying.replace("(?P<name>", "(?P<who>").replace("(?P<species>", "(?P<value>")
    return (
        Rule(_cs(pet), "pet", "p", needs_kind="p", any_mood=naming),
        Rule(_cs(species), "species", recorded=PETS, any_mood=naming),
    )


RULES: tuple[Rule, ...] = (
    # people
    Rule(_cs(rf"(?P<value>{_NAME})\s+(?i:is|was)\s+(?i:my|our)\s+{_ADJ}(?P<pred>(?i:{_ROLE}))\b(?!['’]s)"), None, "p"),
    Rule(
        _cs(rf"(?P<value>{_NAME})(?:['’]s(?:\s+(?i:now))?|\s+(?i:{_BECAME}))\s+{_MY_ROLE}\b"),
        None,
        "p",
    ),
    Rule(_cs(rf"(?P<value>{_NAME})\s+(?i:replaced|succeeded)\s+{_NAME}\s+(?i:as)\s+{_MY_ROLE}\b"), None, "p"),
    Rule(
        _cs(rf"(?P<value>{_NAME})(?:,|\s*[(\[—–-])\s*{_MY_ROLE}\s*(?=[,.;!?)\]—–-]|$)"),
        None,
        "p",
        any_mood=True,
    ),
    Rule(
        _cs(
            rf"\b(?i:I|we)\s+{_NOW}(?i:{_HAVE})\s+(?i:a|an|one)\s+{_ADJ}(?P<pred>(?i:{_ROLE}))"
            rf"(?:,\s+|\s+(?i:called|named)\s+)(?P<value>{_NAME})"
        ),
        None,
        "p",
    ),
    Rule(_cs(rf"{_WHO_VERB}(?i:{_REPORT})\s+(?P<value>{_NAME})"), "manager", "p", needs_kind="p"),
    Rule(_cs(rf"{_WHO_VERB}(?i:{_PARTNERED})\s+(?P<value>{_NAME})"), "partner", "p", needs_kind="p"),
    Rule(
        _cs(rf"(?P<value>{_NAME})\s+(?i:and I)\s+(?i:got married|got engaged|are dating|started dating)"),
        "partner",
        "p",
    ),
    Rule(
        _cs(
            rf"\b(?i:his|her)\s+{_ADJ}(?P<pred>(?i:{_ROLE}))(?:,?\s+|(?:'s name)?\s+(?i:is called|is named|is)\s+)"
            rf"(?P<value>{_NAME})"
        ),
        None,
        "p",
        third_person=True,
        any_mood=True,
    ),
    *(rule for saying, naming in _PET_SAYINGS for rule in _pet_rules(saying, naming)),
    # places
    Rule(_cs(rf"{_WHO_VERB}(?i:{_MOVED})\s+(?P<value>{_NAME})"), "lives in", "l", refuses_kind="o"),
    Rule(
        _cs(
            rf"{_WHO_VERB}(?:(?i:been)\s+)?(?i:live|living|based|(?<=ve )(?:always\s+)?lived)\s+"
            rf"(?i:in)\s+(?P<value>{_NAME})"
        ),
        "lives in",
        "l",
    ),
    Rule(
        _cs(rf"(?<!(?i:sold) )\b(?i:our|my)\s+{_HOME_WORDS}(?i:{_HOME})\s+(?:(?i:is)\s+)?(?i:in)\s+(?P<value>{_NAME})"),
        "lives in",
        "l",
        needs_kind="l",
    ),
    Rule(
        _cs(
            rf"\b(?i:I|we)(?:['’]m|['’]re|\s+am|\s+are)?\s+(?i:live\s+in|living\s+in|moved\s+into|in)\s+(?i:a|an|our|my)\s+"
            rf"{_HOME_WORDS}(?i:{_HOME})\s+(?i:in)\s+(?P<value>{_NAME})"
        ),
        "lives in",
        "l",
        needs_kind="l",
    ),
    Rule(
        _cs(rf"\b(?P<who>{_NAME})\s+{_NOW}(?i:lives\s+in|has\s+moved\s+to|moved\s+to)\s+(?P<value>{_NAME})"),
        "lives in",
        "l",
    ),
    Rule(
        _cs(rf"\b(?i:he|she)\s+{_NOW}(?i:lives\s+in|has\s+moved\s+to|moved\s+to)\s+(?P<value>{_NAME})"),
        "lives in",
        "l",
        third_person=True,
    ),
    Rule(
        _cs(rf"\b(?i:I|we|I'm|we're|and I)\b{_AFFIRMED}{{0,40}}?\b(?i:{_TRAVEL})\s+(?P<value>{_NAME})"),
        "visited",
        "l",
        needs_kind="l",
        ahead="plans to visit",
    ),
    Rule(
        _cs(rf"\b(?i:we're|we are|I'm|I am|I was|we were)\s+{_NOW}(?i:in)\s+(?P<value>(?>{_NAME}))(?!{SETTLED_AFTER})"),
        "visited",
        "l",
        needs_kind="l",
        ahead="plans to visit",
    ),
    # work
    Rule(
        _cs(rf"{_WHO_VERB}(?i:started\s+|{_BACK_TO_WORK})?(?i:working|work)\s+(?i:at|for)\s+(?P<value>{_NAME})"),
        "works at",
        "o",
        refuses_kind="p",
    ),
    Rule(_cs(rf"{_WHO_VERB}(?i:{_MOVED})\s+(?P<value>{_NAME})"), "works at", "o", needs_kind="o"),
    Rule(
        _cs(rf"{_WHO_VERB}(?i:left|quit)\s+{_NAME}\s+(?i:to\s+(?:join|start\s+at))\s+(?P<value>{_NAME})"),
        "works at",
        "o",
        refuses_kind="p",
    ),
    Rule(
        _cs(rf"\b(?i:I|we)(?:'ve| have|'m| am|'ll| will)?\s+{_NOW}(?i:{_STARTS})\s+(?P<value>{_NAME})"),
        "works at",
        "o",
        needs_kind="o",
    ),
    Rule(_cs(rf"{_WHO_VERB}(?i:{_LEAVES}|{_LAID_OFF})\s+(?P<value>{_NAME})"), "worked at", "o"),
    Rule(_cs(rf"{_WHO_VERB}(?i:{_LEAVES_IF_EMPLOYER})\s+(?P<value>{_NAME})"), "worked at", "o", needs_kind="o"),
    Rule(
        _cs(rf"{_WHO_VERB}(?i:don't|don’t|do not)\s+(?i:work)\s+(?i:at|for)\s+(?P<value>{_NAME})\s+(?i:{_NO_MORE})\b"),
        "worked at",
        "o",
    ),
    Rule(_r(rf"\b(?:promoted to|my new (?:role|title|job) is)\s+(?:an?\s+)?{_PHRASE}"), "works as"),
    # health
    Rule(_r(rf"\bdiagnosed with\s+{_PHRASE}"), "diagnosed with"),
    Rule(_r(rf"\ballergic to\s+{_PHRASE}"), "allergic to"),
    Rule(
        _r(rf"\bI\s+(?:just\s+)?(?P<verb>{_BODY_VERBS})\s+(?:my\s+)?(?:left\s+|right\s+)?(?P<value>{_BODY})\b"),
        "injury",
        value="{verb} {value}",
    ),
    Rule(
        _r(rf"\b(?:I(?:'m| am)|we(?:'re| are)(?:\s+both|\s+all)?)\s+{_NOW}(?:strictly\s+)?(?P<value>{_DIETS})\b"),
        "diet",
        recorded=DIETS,
    ),
    Rule(
        _cs(rf"\b(?P<who>{_NAME})\s+(?i:is)\s+{_NOW}(?i:strictly\s+)?(?P<value>(?i:{_DIETS}))\b"),
        "diet",
        recorded=DIETS,
    ),
    Rule(_r(rf"\b(?:he|she)(?:'s| is)\s+{_NOW}(?P<value>{_DIETS})\b"), "diet", third_person=True, recorded=DIETS),
    # preferences
    Rule(_r(rf"\bI\s+{_FEELING}(?:love|like|enjoy|adore)\s+{_TASTE}"), "likes"),
    Rule(_r(rf"\bI\s+{_FEELING}(?:{_DISLIKE})\s+(?!(?:the|that|this)\s+stuff\b){_TASTE}"), "dislikes"),
    Rule(_r(rf"\bI\s+(?:really\s+|much\s+)?prefer\s+{_PHRASE}"), "prefers"),
    Rule(
        _r(
            rf"\bmy\s+(?P<pred>(?-i:(?:[a-z]+\s+){{0,2}}[a-z]+))\s+(?:is|was)\s+(?!like\s+(?!\S*\d))(?:now\s+|called\s+|named\s+|like\s+)?{_PHRASE}"
        ),
        None,
        attribute=True,
    ),
    Rule(_r(rf"{_WHO_VERB}switched\s+(?:over\s+)?(?:from (?:[^.,;!?]|{INNER_PUNCT})+?\s+)?to\s+{_PHRASE}"), "uses"),
    # things: state, swaps, status
    Rule(_r(rf"\b{_THING}\s+(?:is|was)\s+(?:now\s+)?(?:an?|the)\s+{_PHRASE}"), "is"),
    Rule(
        _r(rf"\b(?:swapped|replaced|traded|exchanged|switched)\s+(?:out\s+|in\s+)?{_THING}{_SWAP_VALUE}"),
        "is",
        named_thing_predicate="replaced by",
    ),
    Rule(
        _r(rf"\bupgraded\s+{_THING}\s+to\s+(?:an?\s+|the\s+)?(?:new\s+)?{_PHRASE}"),
        "is",
        named_thing_predicate="replaced by",
    ),
    Rule(_r(rf"\b(?P<verb>{_OWNED_VERBS})\s+{_THING}"), "status", value="{verb}"),
    Rule(_r(rf"\b{_THING}\s+(?:just\s+|finally\s+)?(?P<verb>{_BROKE_VERBS})"), "status", value="{verb}"),
    Rule(
        _r(
            rf"(?<!almost )(?<!nearly )\b(?P<verb>bought|purchased|ordered|got|picked up)\s+"
            rf"(?:an?\s+|the\s+|my\s+|our\s+)?(?:{_CONDITION})*(?!(?i:(?:the|an?|my)\s+)?(?i:job|role|position|gig|offer)\b)(?P<thing>(?>{_POSS})|"
            rf"(?>{_NAMED_THING})(?!\s+(?i:job|role|position|gig|interview)\b))"  # "got the Acme job", "GOT THE JOB"
        ),
        "status",
        value="{verb}",
    ),
    Rule(
        _r(
            rf"\bI\s+(?:no longer|don't|do not)\s+(?P<verb>use|have|own|drive|ride|play)\s+(?:my\s+|the\s+|an?\s+)?"
            rf"(?P<thing>{_POSS}|{_NAMED_THING})"
        ),
        "status",
        value="{verb}",
    ),
)
"""Every way of saying a fact the offline extractor knows; order does not matter."""
