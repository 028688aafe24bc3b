"""The pieces the memory rules are built from: subjects, adverbs, value shapes, closed word lists.

Kept apart from the rule table (`ingest.memory_patterns`) so each row there reads as
cue + value + what it yields. Every fragment is a regex string; the value shapes
capture group ``v``. Cue fragments are meant to sit inside ``(?i:...)``; `NAME`, `PLACE`
and `ORG` must not, since their capital letter is what tells a name from a noun.
"""

from __future__ import annotations

from ingest.entity_vocab import INNER_PUNCT
from ingest.letters import UPPER

__all__ = [
    "ADV",
    "AGE_END",
    "CAP",
    "CLAUSE",
    "DIETS",
    "IM",
    "NAME",
    "OCCUPATION",
    "ORG",
    "PLACE",
    "UNTIL_PUNCT",
]

IM = r"\bI(?:'m| am) "
ADV = (
    r"(?:(?:really|absolutely|totally|just|also|still|now|currently|actually|genuinely|honestly|truly|much"
    r"|definitely|kind of|sort of|so|do|personally|generally|usually|always|mostly|seriously|deeply|simply"
    r"|recently|finally|even|originally|mainly|very|pretty|quite|full-time|officially) )*"
)
"""Adverbs allowed between "I" and the verb. Never a modal, a negation or "used to": those
are what keep "I'd love", "I don't live" and "I used to live" out of the positive rules."""

_UPPER = UPPER  # a capital of any script (`ingest.letters`)
CAP = rf"(?!I\b)[{_UPPER}][\w'-]*"
"""A capitalised word that is not the pronoun I ("Lisbon I think")."""
_NOT_NAMES = "Sorry|Back|Here|Just|Not|So|Also|Really|Still|Fine|Good|Great|Okay|Ok|Glad|Happy|Excited|New|The|A|An"
NAME = rf"(?P<v>(?!(?:{_NOT_NAMES})\b){CAP}(?: {CAP}){{0,2}})"
PLACE = rf"(?P<v>(?:the )?{CAP}(?:(?: (?:de|do|da|dos|das|del|la|le|upon|on|of|am|en|sur))? {CAP})*)"
_WORKPLACES = (
    "startup|start-up|company|bank|hospital|school|agency|firm|university|nonprofit|non-profit|charity|restaurant"
    "|café|cafe|bakery|hotel|clinic|lab|studio|consultancy|factory|warehouse|supermarket|store|shop|newspaper"
    "|publisher|college|library|museum|pharmacy|airline|council|ministry"
)
ORG = rf"(?P<v>(?:the )?{CAP}(?: (?:&|of|and|for))?(?: {CAP})*|an? (?:[a-z-]+ ){{0,2}}(?:{_WORKPLACES}))\b"
"""An employer: a capitalised name, or "a <kind of> startup / hospital / ..."."""
CLAUSE = rf"(?P<v>(?:[^.,;:!?()\"\n—–]|{INNER_PUNCT})+)"
"""A free value up to the end of its clause, keeping the points inside numbers ("2.5mg",
`INNER_PUNCT`); `ingest.memory_text` trims it further."""
UNTIL_PUNCT = rf"(?:[^.,;:!?\"\n—–]|{INNER_PUNCT})*"
"""The rest of a clause, as `CLAUSE` reads it."""

_OCCUPATIONS = (
    "engineer|developer|programmer|designer|teacher|nurse|doctor|physician|surgeon|dentist|lawyer|attorney"
    "|accountant|architect|pharmacist|therapist|physiotherapist|psychologist|psychiatrist|scientist|researcher"
    "|professor|lecturer|chef|cook|baker|barista|bartender|waiter|waitress|electrician|plumber|carpenter|mechanic"
    "|pilot|firefighter|police officer|paramedic|veterinarian|vet|journalist|writer|author|editor|photographer"
    "|artist|musician|actor|actress|manager|consultant|analyst|librarian|farmer|salesperson|realtor|economist"
    "|translator|interpreter|marketer|entrepreneur|freelancer|tutor|coach|midwife|social worker|illustrator"
    "|animator|radiologist|paralegal|technician|administrator|secretary|receptionist|cashier|banker|trader"
    "|recruiter|data scientist|product owner|copywriter|dietitian|nutritionist|optometrist|surveyor|welder"
    "|hairdresser|stylist|caregiver|carer|dev|sysadmin|civil servant|soldier"
)
_NOT_A_JOB = (
    "terrible|bad|good|great|decent|awful|horrible|amazing|lousy|better|worse|best|worst|huge|big|little|total"
    "|real|pretty|bit|massive|poor|lazy|proud|failed|wannabe|aspiring|former|ex|retired|future|hobby|amateur"
    "|hobbyist|frustrated|struggling|fan|home|weekend|self-taught"
)
"""Words that make "I'm a ... baker" a judgement or a past, not a job ("a terrible baker")."""
OCCUPATION = (
    rf"(?P<v>an? (?:(?!(?:{_NOT_A_JOB})\b)[a-z-]+ ){{0,2}}(?:{_OCCUPATIONS})"
    r"(?: (?:practitioner|assistant|specialist|lead|director|intern|manager|consultant))?)\b"
)
"""A job as "I'm a <occupation>" states it: only nouns from a closed list, so "I'm a bit
tired" and "I'm a big fan of" are not jobs."""
DIETS = "vegetarian|vegan|pescatarian|pescetarian|flexitarian|plant-based"
AGE_END = r"(?=\s*(?:$|[.,;!]|\b(?:and|but|so|now|actually|btw|though|this|last|yesterday|today|recently|in|on)\b))"
"""What may follow an age: "I'm 34 weeks pregnant" and "I'm 5'10" are not ages."""
