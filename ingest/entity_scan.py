"""Named and owned things in one turn, typed person / place / organisation / item / event.

A name is a run of capitalised words (a title joins the name after it: "Dr. Sousa"), or
an owned thing from `POSSESSIONS` ("my battery"). Its kind comes from, in order:

1. its own words: an event, organisation or place head ("… Festival", "… Labs", "Brasserie …", "Rua …"), or a title;
2. the words before or after it, one table in `ingest.entity_cues`: "my brother X",
   "with X", "Thanks, X", "X said", "X's boat" (person); "moved to / in X", "dinner at X",
   "the X shrine" (place); "work at / employed by / bought … at X" (organisation); "a /
   my / use X" (item);
3. what is known of the name: the kind the user's graph already gives it (``known``,
   `ingest.known_kinds`: "I quit Acme" weeks after "I work at Acme"), else the gazetteer
   (`ingest.gazetteer`): a known place, then a known first name, then two words whose
   second is a known surname ("Raj Patel");
4. otherwise an item for one word (brands and products: "Kindle", "Ventolin"), a person
   when the first word is a first name, else an item.

Steps 1-3 are "sure" (`Found.sure`): a window settles each name on its sure kinds.

Never a name: a word that is a head alone ("Hospital", "Labs": a common noun), a run that
starts with a digit ("10k") or is a contraction and a number ("She's 74"), and a lone
everyday English word opening a sentence with no cue around it ("Deal. Also…", though Deal
is a town: `ingest.gazetteer.is_common_word`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from ingest import entity_shapes as shape
from ingest.drug_names import drug_names
from ingest.entity_caps import institution_acronym, model_code, shouted
from ingest.entity_cues import AFTER_CUES, AROUND_CUES, BEFORE_CUES, FIRST_AFTER_CUES, Cue, first_cue
from ingest.entity_lists import listed_pairs
from ingest.entity_lower import lower_case_businesses, lower_case_places
from ingest.entity_lower_names import lower_case_organisations, lower_case_products
from ingest.entity_lower_people import lower_case_people
from ingest.entity_openers import lead_trimmed, verb_before_object
from ingest.entity_owned import owned_things
from ingest.entity_vocab import (
    DEMONYMS,
    EVENT_HEADS,
    HOLIDAYS,
    JOB_HEADS,
    NOT_NAMES,
    ORG_HEADS,
    ORG_LEADS,
    PLACE_HEADS,
    PLACE_LEADS,
    TITLES,
    VENUE_HEADS,
    VENUE_NOUNS,
)
from ingest.extraction import NO_KNOWN_KINDS, EntityMention
from ingest.gazetteer import is_common_word, is_first_name, is_surname, place_weight
from ingest.letters import MARKS, NOT_I, PARTICLES, UPPER

__all__ = ["Found", "clean_name", "name_spellings", "not_a_name", "scan_turn", "sentence_starts"]

_CAMEL = r"(?<!`)(?:i|e|easy|mac)[A-Z][\w\-]*(?![\w(`]|\.\w)"
"""A brand in camel case ("iPhone", "eBay", "easyJet"): a head brands use, not code's ("useEffect", "dataView(")."""
_NAME_WORD = rf"{NOT_I}(?:(?:Dr|Mr|Mrs|Ms|Prof|Sr|Sra|Fr|St|Ste|Mt)\.|[{UPPER}][\w{MARKS}'’\-&]*|[A-Z]\.|{_CAMEL})"
_QUANTITY = r"(?i:(?:day|week|month|night|time|mile)s?|y(?:ea)?rs?|h(?:ou)?rs?|min(?:ute)?s?|km|kg|people|pm|am)\b"
_CAP_RUN = re.compile(
    rf"(?<![\w{MARKS}'’]){_NAME_WORD}"
    rf"(?:\s+(?:(?:{PARTICLES}|of\s+the|of|la|le|the|&)\s+)?{_NAME_WORD})*"
    rf"(?:\s+\d{{1,4}}(?:\.\d{{1,3}})?[a-z]?\b(?!\s+{_QUANTITY})(?:\s+{_NAME_WORD})*)?"
)
"""A capitalised run, with a model number and the words after it ("Pixel 8", "Python 3.12", "Pixel 8
Pro"), unless the number counts something ("Acme Logistics 3 days a week")."""
_CLAUSE_THAT = re.compile(r"\bthat\s+$", re.I)
_CLAUSE_VERB = re.compile(
    r"^\s+(?:is|was|has|had|will|would|can|could|did|does|might|should|must|may|isn['’]t|wasn['’]t|"
    r"doesn['’]t|didn['’]t|won['’]t|[a-z]+(?:s|ed))\b"
)
"""Before a first name and its verb, "that" opens a clause ("just mention that Maya is new",
"she said that Tom wants to come"), not a thing ("that Alexa keeps" is the device's case too
rare to weigh; "that Mercedes you sold" stays a thing: no verb follows the name)."""
_TRIP_AFTER = re.compile(
    r"^\s+(?:[a-z]+(?:ing)?\s+)?(?:trip|holiday|vacation|cruise|getaway|weekend|visit|tour|marathon|half-marathon|"
    r"climbing|hiking|surfing|skiing|diving)\b"
)
"""A place heading its outing ("the Sintra climbing trip", "our Lisbon weekend"): the "the"
before it reads like a product's ("the K1000"), but what follows names where one goes."""
_ADJECTIVE_END = re.compile(r"(?:ese|ian|ish|ist|an)$")
_POSSESSIVE_CUT = re.compile(r"(?<=['’]s)\s+")
_TITLE_WORDS = frozenset(t.lower().rstrip(".") for t in TITLES.values())
_HEADING_AFTER = re.compile(r"^\s*(?:\*\*|__)?\s*:")
_SENTENCE_START = re.compile(  # an emoji ends a sentence as a full stop does ("so good 😅 Anyway, …")
    r"(?<!\bDr)(?<!\bMr)(?<!\bMrs)(?<!\bMs)(?<!\bProf)(?<!\bSt)(?<!\bSte)(?<!\bMt)"
    r"(?:[.!?:\n\u2600-\u27bf\U0001f300-\U0001faff]|\([\"“])(?:[\s\"'(*_#>\-+•\ufe0f]|\d+[.)])*"
)
_A_TITLE = re.compile(r"\b(?:an?|as an?)\s+$", re.I)
_COMMANDS = re.compile(r"\s+(?:her|him|them|it|me|us|your|back\s+(?:any|anytime|soon|later|whenever|when|if))\b")
"""After a lone word opening a sentence, an object pronoun makes the word a verb ("Split her daily
amount", "Take it slowly"); no name is followed by one."""
_HEAD_WORDS = ORG_HEADS | PLACE_HEADS | EVENT_HEADS | VENUE_NOUNS
"""Alone, a head is a common noun capitalised ("the Hospital food"), not a name."""
_CONTRACTION = re.compile(r"(?:['’](?:s|re|ve|ll|d|m)|n['’]t)$")
_OF = re.compile(r"\s+of\s+")
_LOWER_CASE: tuple[tuple[str, Callable[[str], list[str]]], ...] = (("o", lower_case_businesses),)
_LOWER_CASE += (("o", lower_case_organisations), ("l", lower_case_places), ("i", drug_names))
_LOWER_CASE += (("i", lower_case_products), ("p", lower_case_people))
"""Names a person types in lower case, by kind: businesses, organisations, places, medicines, products, people."""


@dataclass(frozen=True, slots=True)
class Found:
    mention: EntityMention
    sure: bool
    """A cue, its own words or the gazetteer decided the kind (else it is the default guess)."""
    initial: bool
    """A lone capitalised word opening a sentence: a name only if seen elsewhere too."""


def sentence_starts(text: str) -> set[int]:
    return {0, *(m.end() for m in _SENTENCE_START.finditer(text))}


def _fold(word: str) -> str:
    return word.lower().rstrip(".").replace("’", "'")


def _bare(word: str) -> str:
    """The word a contraction is made of ("She's" → "she", "Don’t" → "do")."""
    return _CONTRACTION.sub("", _fold(word))


def _titled(words: list[str]) -> list[str]:
    """``["Dr", "Sousa"]`` → ``["Dr.", "Sousa"]``; a bare title leaves nothing."""
    if words and _fold(words[0]) in TITLES:
        if len(words) == 1:
            return []
        return [TITLES[_fold(words[0])], *words[1:]]
    return words


def clean_name(raw: str) -> str:
    """The name a capitalised run spells, without a possessive ending ("Brahms' symphonies"
    → "Brahms"; "St Vincent's" → "St Vincent", keyed as the name stored without it) and with
    chat words trimmed from either end ("Thanks Derek" → "Derek"),
    unless the words left are a place the gazetteer knows: the trailing "An" of "Hoi An" or
    the leading "The" of "The Hague" is part of the name, and cutting it leaves a fragment
    ("Hoi") that names nothing and no country contains."""
    name = re.sub(r"(?:'s|’s|(?<=s)['’])$", "", raw.strip())  # "Tidio's", "Brahms'": the owner's name
    words = name.split()
    while words and _bare(words[0]) in NOT_NAMES and _fold(words[0]) not in TITLES and not _known_place(words):
        words.pop(0)
    while words and (_fold(words[-1]) in NOT_NAMES or words[-1].lower() in {"of", "de", "the", "and", "&"}):
        if _known_place(words) or shape.kept_end(words):
            break
        words.pop()
    words = _titled(shape.reshaped(words))
    if words and words[-1].endswith(".") and not re.fullmatch(r"(?:[A-Z]\.|\w+\.)", words[-1]):
        words[-1] = words[-1].rstrip(".")
    return " ".join(words).rstrip(".") if len(words) > 1 or not words else words[0].rstrip(".")


def _known_place(words: list[str]) -> bool:
    """Several words the gazetteer names as one place ("Hoi An"); one word is judged as
    before (a lone "An" or "The" is never a place)."""
    return len(words) > 1 and place_weight(" ".join(words)) > 0


def not_a_name(name: str) -> bool:
    """A speaker label, pronoun, chat word or bare title: never an entity, whoever found it."""
    folded = " ".join(name.lower().split()).rstrip(".")
    return not folded or folded in NOT_NAMES or folded in TITLES


def _own_kind(name: str) -> str | None:
    words = name.split()
    if not words:  # what cleaning leaves of "… of Mine" or "As of December": nothing
        return None
    first, last = _fold(words[0]), _fold(words[-1])
    if last in EVENT_HEADS or (len(words) == 1 and first in HOLIDAYS):
        return "e"
    if first in _TITLE_WORDS and len(words) > 1:
        return "p"
    if len(words) > 1 and (last in ORG_HEADS or first in ORG_LEADS or "&" in words[1:-1]):
        return "o"
    if len(words) > 1 and (last in PLACE_HEADS or first in PLACE_LEADS):
        return "l"
    return shape.shape_kind(words)


def _gazetteer_kind(name: str) -> str | None:
    weight, words = place_weight(name), name.split()
    if weight >= 2 or (len(words) > 1 and _fold(words[-1]) in VENUE_HEADS and not weight):
        return "l" if weight else "o"  # a venue ("Chester Zoo") where no cue says it is a place
    if is_first_name(words[0]) or (len(words) == 2 and is_surname(words[1]) and not is_common_word(words[0])):
        return "p"
    return "l" if weight else None


def _first_name_only(name: str) -> bool:
    """Several words a first name opens and no surname or name ends ("Lilla Torg"), or one that is a
    first name and a lesser place ("Victoria", "Florence"): a person where no cue says otherwise ("in Victoria")."""
    if len(words := name.split()) == 1:
        return place_weight(name) == 1 and is_first_name(name)
    return is_first_name(words[0]) and not (is_surname(words[-1]) or is_first_name(words[-1]))


def _overruled(cue: Cue, known: str | None, name: str, before: str, after: str) -> bool:
    """The gazetteer beats a cue it names (`Cue.yields_to`), and the item cue where its
    article reads wrong: before a country or big city ("the Lisbon of the 1990s"), a known
    place heading its outing (`_TRIP_AFTER`) or a first name opening a clause (`_CLAUSE_THAT`)."""
    if known in cue.yields_to:
        return True
    if cue.kind != "i":
        return False
    return (
        place_weight(name) >= 2
        or (known == "l" and _TRIP_AFTER.match(after) is not None)
        or (known == "p" and _CLAUSE_THAT.search(before) is not None and _CLAUSE_VERB.match(after) is not None)
    )


def classify(text: str, start: int, end: int, name: str, stored: str | None = None) -> tuple[str, bool]:
    """The kind, and whether something decided it (else it is the default guess): the
    name's own words, then the cue tables of `ingest.entity_cues`, then what is known of
    the name: the kind the user's graph already gives it (``stored``), else the gazetteer.
    A stored kind stands where the gazetteer's would, ahead of it: a cue that yields to
    the gazetteer yields to it too ("I left Biscuit at the vet" keeps the dog a person-like
    pet, as "I left Lisbon" keeps the city), a clear one still wins ("I work at Biscuit")."""
    own = _own_kind(name) or shape.people_group(text, start, end, name)
    if own:
        return own, True
    known = stored or _gazetteer_kind(name)
    cued = _cue_kind(text, start, end, name, None if stored is None and _first_name_only(name) else known)
    if cued:
        return cued, True
    if known:
        return known, True
    return "i", False


def _cue_kind(text: str, start: int, end: int, name: str, known: str | None) -> str | None:
    """The kind the words around the name give (`ingest.entity_cues`), None when none does."""
    before, after = text[max(0, start - 48) : start], text[end : end + 40]
    owned = text[end - 2 : end + 40] if re.search(r"['’]s$", text[start:end]) else after
    for around, follows in AROUND_CUES:
        if follows.match(after) and around.pattern.search(before):
            return (known or around.kind) if _overruled(around, known, name, before, after) else around.kind
    for cues, context, is_before in (
        (FIRST_AFTER_CUES, owned, False),
        (BEFORE_CUES, before, True),
        (AFTER_CUES, after, False),
    ):
        cue = first_cue(cues, context, before=is_before)
        if cue is not None:
            return (known or cue.kind) if _overruled(cue, known, name, before, after) else cue.kind
    return None


def _adjective(text: str, end: int, name: str) -> bool:
    """ "Indian food", "Buddhist cuisine": a demonym or creed before a noun, not a name; a
    nationality or language (`DEMONYMS`) never is, whatever follows it ("Danish cooking", "in Danish")."""
    if name.lower() in DEMONYMS:
        return not shape.faith_named(text, text.rfind(name, 0, end), end, name)
    if " " in name or not _ADJECTIVE_END.search(name) or not re.match(r"\s+[a-z]", text[end : end + 3]):
        return False
    return not is_first_name(name) and not place_weight(name)


def _runs(text: str) -> list[tuple[int, int]]:
    """Capitalised runs as (start, end), cut after a possessive whose owner is a place or a
    person, however many words it has ("Sintra's | Pena Palace", "George Orwell's | Animal
    Farm", not "Philosopher's Path"). The owner is the longest known end of the words before
    the cut: a sentence's opener is still in the run ("In Sintra's Pena Palace")."""
    spans: list[tuple[int, int]] = []
    for m in _CAP_RUN.finditer(text):
        start = m.start()
        for cut in _POSSESSIVE_CUT.finditer(m.group()):
            words = text[start : m.start() + cut.start()][:-2].split()
            kinds = {_gazetteer_kind(" ".join(words[i:])) for i in range(len(words))}
            if "l" in kinds or ("p" in kinds and not shape.plain_word(words[-1])):  # not "Royal Women's …"
                spans.append((start, m.start() + cut.start()))
                start = m.start() + cut.end()
        spans.extend(_of_cut(text, start, m.end()))
    return shape.joined_ands(text, spans)


def _of_cut(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """ "Mike Doyle of Doyle & Sons", "Grace of the Valley Church": two names; "Maria of the HR team": Maria."""
    m = _OF.search(text, start, end)
    if m is None or not is_first_name(text[start:end].split()[0]):
        return [(start, end)]
    kind, the = _own_kind(clean_name(text[m.end() : end])), text.startswith("the ", m.end())
    if kind == "o" or (the and kind == "l"):
        return [(start, m.start()), (m.end(), end)]
    return [(start, m.start())] if the else [(start, end)]


def scan_turn(
    text: str,
    common: frozenset[str],
    known: Mapping[str, str] = NO_KNOWN_KINDS,
    *,
    known_openers: bool = True,
    speaker_owns: bool = True,
) -> list[Found]:
    """Entity mentions in one turn, in order (duplicates kept: they count mentions).

    ``common`` holds the words the window uses in lower case (and stop words): such a word
    opening a sentence is not a name. ``known`` maps names the user's graph already holds
    (lower case) to their kinds (`ingest.known_kinds`): such a name is sure of its kind
    without a cue. Alone at a sentence's start it is read so only with ``known_openers`` (a
    person's turn: "Biscuit is sick"), else as if unknown: the assistant opens sentences with
    capitalised common nouns ("Mirrors are designed for two") that an earlier chat may have
    stored as names. Owned things ("my battery", "the car", "bought a kettle") are the
    speaker's with ``speaker_owns`` (a person's turn); in the assistant's only "your X" is
    (`ingest.entity_owned`).
    """
    found: list[Found] = []
    spans: list[tuple[int, int]] = []
    starts = sentence_starts(text)
    for run_start, end in _runs(text):
        start = lead_trimmed(text, run_start, end, common, starts, known)
        raw = text[start:end]
        initial = start in starts and " " not in raw
        if initial and _fold(raw) in common:
            continue
        if _HEADING_AFTER.match(text[end : end + 4]) and (start in starts or text[:start].endswith("**")):
            continue  # a list label ("**Check the rating**:"), not a name
        name = shape.final_name(text, text[run_start:start] + raw, clean_name(raw), run_start not in starts, known)
        acronym = institution_acronym(text, start, name)
        if (
            not (acronym or _plausible(name) or shape.named_short(text, start, name))
            or _adjective(text, end, name)
            or shape.screen_label(text, start, end)
        ):
            continue
        if _A_TITLE.search(text, max(0, start - 8), start) and name.split()[-1].lower() in JOB_HEADS:
            continue  # "I'm a Senior Product Manager at …": a job's title in capitals, not a name
        at = _name_start(raw, name, start)
        stored = None if initial and not known_openers else known.get(name.lower())
        if initial and stored is None and is_common_word(name) and _cue_kind(text, at, end, name, None) is None:
            continue  # "Deal. Also…": an everyday word opening a sentence, whatever the gazetteer says
        verb = _COMMANDS.match(text[end : end + 24]) or verb_before_object(name, text[end : end + 8])
        if initial and stored is None and verb:
            continue  # "Split her food into two meals", "Love the name": a verb, not the town or the name
        kind, sure = classify(text, at, end, name, stored)
        kind = "o" if acronym and kind in ("i", "p") else kind
        found.append(Found(EntityMention(kind, name), sure, initial))
        spans.append((at, end))
    owned = [Found(EntityMention("i", thing), True, False) for thing in owned_things(text, speaker_owns=speaker_owns)]
    if speaker_owns:  # a person's turn: the assistant capitalises the names it writes
        owned += [Found(EntityMention(kind, n), True, False) for kind, find in _LOWER_CASE for n in find(text)]
    return _coordinated(text, found, spans) + owned


def _coordinated(text: str, found: list[Found], spans: list[tuple[int, int]]) -> list[Found]:
    """Names listed together are of one kind (`ingest.entity_lists`): a name nothing typed takes the
    kind of a typed name beside it in the list, along the list both ways."""
    out = list(found)
    pairs = listed_pairs(text, spans)
    for i, j in [*((i, j) for j, i in pairs), *((j, i) for j, i in reversed(pairs))]:
        if not out[i].sure and out[j].sure:
            out[i] = Found(EntityMention(out[j].mention.kind, out[i].mention.name), True, out[i].initial)
    return out


def name_spellings(texts: Iterable[str], longest: int = 6) -> frozenset[str]:
    """Every name `scan_turn` could find in ``texts``, lower case, and more: each run of up
    to ``longest`` capitalised words inside a capitalised run, cleaned as a name is. Cheap
    (one regex pass), so mining asks the graph only about names the chat may mention."""
    spellings: set[str] = set()
    for text in texts:
        for m in _CAP_RUN.finditer(text):
            words = m.group().split()
            for i in range(len(words)):
                for j in range(i + 1, min(len(words), i + longest) + 1):
                    name = clean_name(" ".join(words[i:j]))
                    if name:
                        spellings.add(name.lower())
    return frozenset(spellings)


def _name_start(raw: str, name: str, start: int) -> int:
    """Where the name begins once chat words are trimmed from the run: "Thanks Kowalski"
    is addressed, so "Thanks" is the cue before "Kowalski". A trimmed article is not moved
    past: "The Louvre" opening a sentence is not "the <thing>" of the item cue."""
    lead = raw.find(name)
    if lead <= 0 or re.search(r"\b(?:the|a|an)\s+$", raw[:lead], re.I):
        return start
    return start + lead


def _plausible(name: str) -> bool:
    if _fold(name) in NOT_NAMES or (shouted(name) and not model_code(name)) or not name[:1].isalpha():
        return False
    if any(shape.amount(word) for word in name.split()):  # "R780k": money
        return False
    if " " not in name and _fold(name) in _HEAD_WORDS:
        return False
    return len(name) >= 3 or is_first_name(name)
