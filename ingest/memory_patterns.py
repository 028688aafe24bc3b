"""The memory rules as data: one row per way of stating a durable fact about oneself.

Each `Rule` is a compiled pattern whose group ``v`` captures the value (``k`` a second
one, e.g. what a favourite is of), the category and content template the value fills (a
slot's template, from `SLOTS`, for a slot rule), how the value is cleaned (`Value`), the
confidence and importance of what it yields, and, for a retraction, the statement it
ends. `ingest.memory_rules` applies them; adding a phrasing is adding a row here.

Order is priority: where two rules capture overlapping values in one sentence, the
earlier row wins, so retractions come before the positive statements they contain ("I
don't eat meat anymore" is not a diet) and response-style rows before preferences ("I
prefer bullet points" is about answers, not taste).

Cues are case-insensitive (``(?i:...)``); names, places and employers are not: they must
be capitalised, which is what keeps "call me back" and "I live in a flat" out. Only a
first-person subject directly before the verb matches, with a few adverbs allowed in
between (`ADV`): modals, negations and third persons ("I'd love", "I might move", "I
don't love", "my friend loves") never reach a positive rule. The partner slot is the one
rule about another person, and only in the "my wife Helen" form that names them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from ingest.entity_vocab import INNER_PUNCT
from ingest.memory_candidates import SLOTS
from ingest.memory_vocab import ADV, AGE_END, CAP, CLAUSE, DIETS, IM, NAME, OCCUPATION, ORG, PLACE, UNTIL_PUNCT

__all__ = ["RULES", "VERB_CATEGORIES", "Rule", "Value"]

Value = Literal["as_typed", "lower", "phrase", "clause", "verb", "gerund"]
"""How a captured value is cleaned (`ingest.memory_text`): kept as typed (names, places),
lower-cased (a word from a closed list), a phrase judged durable, a clause kept whole, a
verb phrase put in the third person, or one opening with a gerund (``smoking``)."""


@dataclass(frozen=True, slots=True)
class Rule:
    """One phrasing of one kind of memory (see the module docstring for the fields' roles)."""

    name: str
    pattern: re.Pattern[str]
    category: str
    template: str  # "{v}" is the cleaned value, "{k}" the second group
    confidence: float
    importance: int
    value: Value = "phrase"
    slot: str | None = None
    retracts: str | None = None  # a template like ``template``: what the statement ends
    style: bool = False  # an instruction to the assistant: imperatives and "can you ...?" allowed


def _rule(
    name: str, cue: str, category: str, template: str, conf: float, imp: int,
    value: Value = "phrase", retracts: str | None = None,
) -> Rule:  # fmt: skip
    return Rule(name, re.compile(cue), category, template, conf, imp, value, retracts=retracts)


def _slot(
    slot: str, name: str, cue: str, conf: float, imp: int = 3, value: Value = "as_typed", filler: str = "{v}"
) -> Rule:
    """A rule whose content is the slot's template, its value written as ``filler`` ("no {v}")."""
    return Rule(name, re.compile(cue), SLOTS[slot].category, _filled(slot, filler), conf, imp, value, slot)


def _style(name: str, cue: str, template: str, conf: float = 0.85, value: Value = "lower") -> Rule:
    return Rule(name, re.compile(cue), "response_style", template, conf, 3, value, style=True)


def _filled(slot: str, filler: str = "{v}") -> str:
    """The slot's content template with the value placeholder the rules use."""
    return SLOTS[slot].template.replace("{}", filler)


VERB_CATEGORIES = {"live": "profile", "work": "profile", "teach": "profile", "study": "profile"}
"""A retraction ("I no longer X") is a preference unless its verb is one of these."""

_TO_ANSWERS = "(?:answers|responses|replies|explanations)"
_NOT_IN_JOB = "(?:in|at|for|with|on|from|and|but|since|because|so|now|who|which)"
"""Words that end a job title: "a pharmacist *in* a small town" is a pharmacist."""

# fmt: off
RULES: tuple[Rule, ...] = (
    # Retractions first: they contain the positive statements below.
    _rule("no_longer_diet", rf"(?i:{IM}(?:no longer (?:an? )?|not (?:an? )?(?=\w+ any ?more)))(?P<v>{DIETS})\b",
          "preference", "No longer {v}", 0.85, 3, "lower", _filled("diet")),
    _rule("no_longer_job", rf"(?i:{IM}no longer ){OCCUPATION}", "profile", "No longer {v}", 0.8, 3,
          "lower", _filled("job")),
    _rule("no_longer_verb", rf"(?i:\bI {ADV}no longer ){CLAUSE}", "preference", "No longer {v}", 0.85, 3,
          "verb", "{v}"),
    _rule("not_anymore_verb", rf"(?i:\bI (?:don't|do not) )(?P<v>[a-z]{UNTIL_PUNCT}?)(?i: any ?more)\b",
          "preference", "No longer {v}", 0.85, 3, "verb", "{v}"),
    _rule("stopped_gerund", rf"(?i:\bI(?: have|'ve)? (?:stopped|quit|gave up|given up) )"
          rf"(?P<v>[a-z]+ing\b{UNTIL_PUNCT})", "preference", "No longer {v}", 0.85, 3, "gerund", "{v}"),
    # Response style: instructions about answers, allowed as imperatives.
    _style("answers_adjective", rf"(?i:\b(?:keep|make) (?:your |the |all |my )?{_TO_ANSWERS}(?: \w+)? )"
           r"(?P<v>short|shorter|brief|briefer|concise|simple|simpler)\b", "Prefers {v} answers"),
    _style("prefer_adjective_answers", rf"(?i:\bI {ADV}(?:prefer|like|want|need) )(?P<v>(?:short|brief|concise"
           rf"|detailed|long|in-depth|simple|direct|step-by-step) {_TO_ANSWERS})\b", "Prefers {v}"),
    _style("answers_with", rf"(?i:\bI {ADV}(?:prefer|like|want|love) {_TO_ANSWERS} )(?P<v>(?:with|that|which|in) "
           rf"(?:[^.;:!?\"\n]|{INNER_PUNCT})+)", "Prefers answers {v}", 0.8, "clause"),
    _style("no_emojis", r"(?i:(?<!\bI )\b(?:don't|do not|never|stop|no more|without|no)(?: use| using| add| adding"
           r"| put| putting| include| including| send| sending)?(?: any)? (?P<v>emojis?|emoticons)\b)", "No emojis"),
    _style("prefer_format", rf"(?i:\bI {ADV}(?:prefer|like|love) )(?P<v>(?:bullet points|bulleted lists|lists"
           r"|numbered lists|tables|code examples|examples)"
           rf"(?: (?:over|to|rather than) (?:[^.,;:!?\"\n]|{INNER_PUNCT})+)?)", "Prefers {v}", 0.8, "clause"),
    _style("answer_in_language", r"(?i:\b(?:answer|respond|reply|talk to me|write to me|speak to me)(?: only)? in )"
           r"(?P<v>[A-Z][a-z]+)(?i:,? (?:from now on|always|by default|going forward|please,? from now on))",
           "Prefers answers in {v}", 0.85, "as_typed"),
    _style("always_answer_in", r"(?i:\b(?:from now on|always|by default),? (?:please )?(?:answer|respond|reply"
           r"|talk to me|write to me)(?: only)? in )(?P<v>[A-Z][a-z]+)", "Prefers answers in {v}", 0.85, "as_typed"),
    _style("skip_padding", r"(?i:\b(?:skip|drop|cut|leave out|no need for|don't include|without|no more) "
           r"(?:the |any |all )?)(?P<v>disclaimers|pleasantries|small talk|preamble|apologies|caveats|fluff"
           r"|filler)\b", "No {v}", 0.75),
    _style("be_direct", r"(?i:\b(?:please )?be (?:more )?)(?P<v>concise|brief|direct|blunt)\b",
           "Prefers {v} answers", 0.7),
    # Identity and the other slots.
    _slot("name", "my_name", rf"(?i:\bmy name(?:'s| is) ){NAME}", 0.9, 4),
    _slot("name", "greeting_intro", rf"(?i:^(?:hi|hello|hey|hiya|howdy)(?: there| all| everyone)?[,!.]*\s+"
          rf"I(?:'m| am) ){NAME}\b", 0.8, 4),
    _slot("name", "im_name_nice", rf"(?i:^I(?:'m| am) ){NAME}(?i:[,!.]? (?:nice|pleased|good|glad) to meet you"
          r"| here\b|,? by the way)", 0.75, 4),
    _slot("preferred_name", "call_me", r"(?i:\b(?:call me|I go by|I prefer to be called|I'd rather be called"
          rf"|I'd prefer to be called|I(?:'m| am) known as) ){NAME}\b", 0.85, 4),
    _slot("pronouns", "my_pronouns", r"(?i:\bmy pronouns are |\bI use )(?P<v>(?:she|he|they|ze|xe)/[a-z]+"
          r"(?:/[a-z]+)?)(?i:(?: pronouns)?)\b", 0.9, 4, value="lower"),
    _rule("speaks", rf"(?i:\bI {ADV}speak )(?P<v>{CAP}(?:(?:,| and|, and) {CAP})*)\b(?! to\b)", "profile",
          "Speaks {v}", 0.8, 3, "as_typed"),
    _slot("age", "im_age", rf"(?i:{IM}{ADV})(?P<v>[1-9]\d)(?i:(?: years old| yrs old| y/?o| years of age)?){AGE_END}",
          0.85),
    _slot("age", "turned_age", rf"(?i:\bI {ADV}turned )(?P<v>[1-9]\d){AGE_END}", 0.8),
    _slot("location", "live_in", rf"(?i:\bI {ADV}(?:live|reside)|\bI(?:'m| am) {ADV}(?:living|based|settled)"
          rf"|\bI(?:'ve| have) {ADV}(?:lived|been living)) (?i:in|near|outside|outside of|out of) {PLACE}", 0.9),
    _slot("location", "moved_to", rf"(?i:\bI(?:'ve| have)? {ADV}(?:moved|relocated)(?: back)? to ){PLACE}", 0.85),
    _slot("location", "we_live_in", rf"(?i:\bwe {ADV}(?:(?:live|'re living|are living|'re based|are based) in"
          rf"|(?:'ve |have )?(?:moved|relocated) to) ){PLACE}", 0.7),
    _slot("hometown", "from", rf"(?i:{IM}{ADV}from ){PLACE}", 0.85),
    _slot("hometown", "grew_up", rf"(?i:\bI {ADV}(?:grew up|was raised|was born and raised) in ){PLACE}", 0.85),
    _slot("hometown", "born_in", rf"(?i:\bI was born in ){PLACE}", 0.7),
    _slot("job", "work_as", rf"(?i:\bI {ADV}(?:work|'m working|am working)(?: (?:at|for) (?-i:{CAP})(?: (?-i:{CAP}))*)?"
          rf" as )(?P<v>(?:an?|the) [\w-]+(?: (?!{_NOT_IN_JOB}\b)[\w-]+){{0,3}})", 0.9, value="phrase"),
    _slot("job", "im_occupation", rf"(?i:{IM}{ADV}){OCCUPATION}", 0.8, value="lower"),
    _slot("employer", "work_at", rf"(?i:\bI {ADV}(?:work|'m working|am working)(?: remotely| full-time| part-time"
          rf"| full time| part time| from home)? (?:at|for) ){ORG}", 0.85),
    _slot("employer", "joined", rf"(?i:\bI {ADV}(?:joined|started at|started working at|got a job at) ){ORG}", 0.7),
    _slot("diet", "im_diet", rf"(?i:{IM}{ADV}(?:an? )?(?:strict |full |fully )?)(?P<v>{DIETS})\b", 0.9, value="lower"),
    _slot("diet", "on_a_diet", rf"(?i:{IM}{ADV}on an? )(?P<v>keto|paleo|low-carb|low carb|gluten-free|mediterranean"
          rf"|{DIETS})(?i: diet)\b", 0.85, value="lower"),
    _slot("diet", "dont_eat", rf"(?i:\bI {ADV}(?:don't|do not|never|can't|cannot) eat )(?P<v>(?:meat|red meat|pork"
          r"|beef|fish|seafood|dairy|gluten|eggs|animal products))\b(?! any ?more)", 0.8, value="lower",
          filler="no {v}"),
    _slot("partner", "my_partner_name", r"(?i:\bmy (?:wife|husband|partner|spouse|girlfriend|boyfriend"
          rf"|fianc[eé]e?)(?:'s name is|,)? ){NAME}\b", 0.85),
    _slot("partner", "married_to", rf"(?i:{IM}(?:married|engaged) to ){NAME}\b", 0.85),
    # Health: what an assistant must never forget.
    _rule("allergic_to", rf"(?i:{IM}{ADV}(?:severely |very |deathly |mildly )?allergic to ){CLAUSE}", "profile",
          "Is allergic to {v}", 0.9, 4),
    _rule("allergy", rf"(?i:\bI {ADV}have an? )(?P<v>[a-z]+(?: [a-z]+)?)(?i: allergy)\b", "profile",
          "Is allergic to {v}", 0.85, 4, "lower"),
    _rule("condition_adjective", rf"(?i:{IM}{ADV})(?P<v>lactose intolerant|gluten intolerant|celiac|coeliac|diabetic"
          r"|asthmatic|colou?r-?blind|deaf|hard of hearing|dyslexic|autistic|epileptic|pregnant)\b", "profile",
          "Is {v}", 0.85, 4, "lower"),
    _rule("condition", rf"(?i:\bI {ADV}(?:have|suffer from|live with|was diagnosed with|got diagnosed with) )"
          r"(?P<v>(?:type [12] )?diabetes|asthma|celiac disease|coeliac disease|ADHD|epilepsy|migraines|arthritis"
          r"|high blood pressure|dyslexia|IBS|Crohn's(?: disease)?|depression|PCOS|a heart condition|sleep apnea"
          r"|tinnitus|long COVID)\b", "profile", "Has {v}", 0.85, 4, "as_typed"),
    _rule("afraid_of", rf"(?i:{IM}{ADV})(?P<v>(?:terrified|scared|afraid|frightened) of [a-z]+(?: [a-z]+)?)"
          r"(?=$|[.,;!]| and\b| but\b| so\b)", "fact", "Is {v}", 0.7, 3, "lower"),
    # Goals.
    _rule("training_for", rf"(?i:{IM}{ADV}training for ){CLAUSE}", "goal", "Training for {v}", 0.85, 3),
    _rule("studying_for", rf"(?i:{IM}{ADV}(?:studying|preparing) for ){CLAUSE}", "goal", "Studying for {v}", 0.8, 3),
    _rule("saving_for", rf"(?i:{IM}{ADV}saving(?: up)? for ){CLAUSE}", "goal", "Saving for {v}", 0.8, 3),
    _rule("my_goal", r"(?i:\bmy (?:main |big |biggest |ultimate |current |long-term )?(?:goal|aim|dream)"
          r"(?: for this year| this year)? is )" + CLAUSE, "goal", "Goal is {v}", 0.85, 3),
    _rule("want_to_learn", rf"(?i:\bI {ADV}(?:want|hope) to )(?P<v>(?:learn|become|get better at|improve|master)\b"
          rf"{UNTIL_PUNCT})", "goal", "Wants to {v}", 0.8, 3),
    _rule("trying_to", rf"(?i:{IM}{ADV}(?:trying|working|hoping) to )(?P<v>(?:learn|get better at|improve|lose|quit"
          rf"|cut down on|become|master|save)\b{UNTIL_PUNCT})", "goal", "Trying to {v}", 0.75, 3),
    _rule("learning", rf"(?i:{IM}{ADV}(?:learning|studying) ){CLAUSE}", "goal", "Learning {v}", 0.7, 3),
    # Preferences and pastimes.
    _rule("favorite", r"(?i:\bmy (?:all-time |absolute )?favou?rite )(?P<k>[a-z]+(?: [a-z]+)?)"
          rf"(?i: (?:is|are|has to be) ){CLAUSE}", "preference", "Favorite {k} is {v}", 0.85, 2),
    _rule("is_my_favorite", r"^(?P<v>[\w' -]{2,30}?) (?i:(?:is|are) (?:definitely |probably |easily )?my "
          r"(?:all-time |absolute )?favou?rite )(?P<k>[a-z]+(?: [a-z]+)?)\b", "preference", "Favorite {k} is {v}",
          0.8, 2),
    _rule("love", rf"(?i:\bI {ADV}(?:love|adore)|{IM}{ADV}(?:obsessed with|in love with|crazy about"
          rf"|passionate about)) {CLAUSE}", "preference", "Loves {v}", 0.85, 2),
    _rule("enjoy", rf"(?i:\bI {ADV}enjoy) {CLAUSE}", "preference", "Enjoys {v}", 0.85, 2),
    _rule("dislike", rf"(?i:\bI {ADV}(?:hate|dislike|detest|loathe|can't stand|cannot stand|can't bear)"
          rf"|\bI (?:really |just )?(?:don't|do not) (?:really )?(?:like|enjoy)|{IM}(?:really )?not "
          rf"(?:a (?:big |huge )?fan of)) {CLAUSE}", "preference", "Dislikes {v}", 0.8, 2),
    _rule("prefer", rf"(?i:\bI {ADV}prefer) {CLAUSE}", "preference", "Prefers {v}", 0.8, 2),
    _rule("like", rf"(?i:\bI {ADV}like|{IM}{ADV}(?:a (?:big |huge |massive )?fan of|into)"
          rf"|\bI(?:'ve| have)? been getting into|{IM}getting into) {CLAUSE}", "preference", "Likes {v}", 0.75, 2),
    _rule("plays", rf"(?i:\bI {ADV}play )(?P<v>(?:the )?(?:guitar|piano|drums|violin|bass|cello|saxophone|sax"
          r"|ukulele|flute|trumpet|tennis|football|soccer|basketball|chess|golf|volleyball|badminton|squash|rugby"
          rf"|cricket|hockey|baseball|padel|table tennis)\b{UNTIL_PUNCT})", "fact", "Plays {v}", 0.8, 2),
)
# fmt: on
"""Every rule, in priority order."""
