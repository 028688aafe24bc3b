"""LLM extraction over any OpenAI-compatible endpoint, with the offline extractor as net.

The model gets one window of turns (numbered by seq, with timestamps) and must answer
JSON matching `WindowSchema`; `LLMClient.chat_json` validates it and re-asks once on
malformed output. If the second answer is bad too, or the endpoint times out or fails,
this window falls back to the offline extractor and the outcome says why, so one bad
answer costs one window's quality, never the job. Time expressions always come from
`loci.timexpr` (deterministic, resolved against each turn's own time) and are merged in.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

from ingest.entity_scan import not_a_name
from ingest.extract_offline import USER_ENTITY, extract_window
from ingest.extraction import (
    NO_KNOWN_KINDS,
    EntityMention,
    Extraction,
    ExtractionOutcome,
    RelationFact,
    Subject,
    TurnView,
)
from ingest.predicates import ENDS_CURRENT, canonical_predicate
from loci.errors import InvalidInput, UpstreamBadOutput, UpstreamUnavailable
from loci.inputs import check_name
from loci.llm import ChatResult, JSONOutputError, LLMClient
from loci.speakers import person_named, speaker_label
from loci.timexpr import parse_timestamp

__all__ = ["EntityKind", "LLMExtractor", "WindowSchema", "WingKind"]

log = logging.getLogger("loci.ingest.llm")

MAX_ITEMS = 100
"""Most entities, and most relations, one window's answer may add: a window holds at most 32
turns (`LOCI_MINING_WINDOW_TURNS`), so more is a model looping, not a reading of the turns."""
MAX_NAME_CHARS = 300
"""An entity's name or a relation's value, at most: the width of ``entities.name``."""
MAX_PREDICATE_CHARS = 200
"""The width of ``relations.predicate``."""
MAX_SUBJECT_CHARS = 200
"""The width of ``wings.name``, which the window's subject names."""
MAX_TOPIC_CHARS = 100
"""A topic is "1-3 short lower-case topics" (the prompt); a longer one is a sentence, dropped."""
_WORD = re.compile(r"\w+")

EntityKind = Literal["p", "l", "o", "e", "i", "t"]
"""`loci.models.ENTITY_KINDS` spelled as a type for the JSON schema (a unit test keeps them equal)."""
WingKind = Literal["person", "place", "project", "topic", "agent"]
"""`loci.models.WING_KINDS` likewise."""


class EntitySchema(BaseModel):
    name: str = Field(min_length=1, max_length=300)
    kind: EntityKind
    turns: list[int] = Field(default_factory=list, description="seq numbers of the turns that mention it")


class RelationSchema(BaseModel):
    subject: str = Field(min_length=1, description='"user" for the person chatting, else an entity name')
    predicate: str = Field(min_length=1, max_length=200)
    object: str = Field(min_length=1, max_length=300)
    object_kind: EntityKind | None = None
    turn: int
    valid_from: str | None = Field(default=None, description="ISO date the fact became true, if stated")


class SubjectSchema(BaseModel):
    kind: WingKind
    name: str = Field(min_length=1, max_length=200)


class WindowSchema(BaseModel):
    subject: SubjectSchema | None = None
    topics: list[str] = Field(default_factory=list, max_length=5)
    entities: list[EntitySchema] = Field(default_factory=list)
    relations: list[RelationSchema] = Field(default_factory=list)


SYSTEM_PROMPT = """You extract long-term memory from a chat. Reply with JSON only, matching:
{"subject": {"kind": "person|place|project|topic|agent", "name": str} | null,
 "topics": [str] (1-3 short lower-case topics),
 "entities": [{"name": str, "kind": "p|l|o|e|i|t", "turns": [seq]}],
 "relations": [{"subject": "user" or entity name, "predicate": str, "object": str,
                "object_kind": "p|l|o|e|i|t" | null, "turn": seq, "valid_from": "YYYY-MM-DD" | null}]}
Kinds: p person (with a title if used: "Dr. Sousa"), l place, o organisation (employer, brand,
club), e event, i item (an owned thing or product: "battery", "Pixel 8"), t time. Never an
entity: "user", "assistant", pronouns, bare titles. Relations are durable facts about the user,
people they know or things they own, with the date they became true when the text says so.
Use these predicates where they fit: lives in, works at, works as, worked at (a job ended at a
named employer), left job (a job ended with no employer named: "I quit my job", "I got laid
off", "I retired"; object "job"), visited (a trip made or under way), plans to visit (a trip
booked, planned or wished for), likes, dislikes, prefers, diet, diagnosed with, allergic to,
takes, injury, a family or work role ("brother", "partner", "manager", "friend", "doctor"),
"pet" (an animal kept, by its name, kind p) and the pet's "species" ("turtle"), and for an item
"is" (what it is now: the battery is a 44V 30Ah pack) and "status" (bought, sold, broken, lost,
repaired, no longer used).
Use the turn seq numbers shown in brackets.
"subject" names the lasting subject of the user's life the chat is about, as the user would
file it in a notebook: a person ("Dad", "Kasia"), a place or trip ("Japan trip"), a thing or
project they own, build or keep ("Vespa", "Aquarium"), or a recurring topic ("Vertigo",
"Pottery", "Tax return"); short, in the user's words or the plain name of what they describe
(a condition rather than its symptom, the thing rather than one of its parts, the trip rather
than a companion). "agent" only when the chat is about the assistant itself."""


KNOWN_SUBJECTS = (
    "\n\nSubjects this user's earlier chats are filed under (when this chat is about one of them, "
    'name "subject" with it, spelled exactly): '
)


def _render(turns: Sequence[TurnView]) -> str:
    """One paragraph per turn, its whitespace collapsed (as `archive_llm` does), so another
    person's turn cannot start a ``[seq] Sam (user) (…):`` line of its own for the model to
    read as the user's (their facts, their relations in the graph)."""
    return "\n\n".join(
        f"[{t.seq}] {speaker_label(t.role, t.name)} ({t.created_at.isoformat()}): {' '.join(t.content.split())}"
        for t in turns
    )


def _valid_from(raw: str | None, turn_at: datetime) -> datetime:
    """The stated date, or the turn's own time when none parses (years outside 1900-2200 do not:
    `parse_timestamp`) or it lies after the turn: a fact cannot have become true after it was
    said, as `ingest.relation_extract` rules for the offline extractor."""
    if not raw:
        return turn_at
    try:
        return min(parse_timestamp(raw), turn_at)
    except InvalidInput:
        return turn_at


def _clean(raw: str, limit: int) -> str | None:
    """``raw`` on one line when it is a visible name of at most ``limit`` characters without
    control characters; else None, and the item holding it is dropped (the model's answer is
    data: a NUL, an ESC sequence or 10,000 characters must not reach a stored name)."""
    text = " ".join(raw.split())
    if len(text) > limit:
        return None
    try:
        return check_name(text, field="name")
    except InvalidInput:
        return None


def _said_in(name: str, said: str) -> bool:
    """Whether every word of ``name`` is in ``said`` (the window's text, case-folded): a fact about
    someone the turns never name is the model's invention (or a steering instruction's), not the
    user's. Words are looked for as substrings, so a name in a script written without spaces is
    found too."""
    return all(w in said for w in _WORD.findall(name.casefold()))


def _entities(parsed: WindowSchema, said: str) -> dict[str, EntityMention]:
    """The answer's entities by lower-cased name, held to what a stored name may be (`_clean`,
    `not_a_name`, `_said_in`), at most `MAX_ITEMS` of them."""
    found: dict[str, EntityMention] = {}
    for ent in parsed.entities:
        name = _clean(ent.name, MAX_NAME_CHARS)
        if name is None or not_a_name(name) or not _said_in(name, said):
            continue  # "User", "Dr", "she": what the offline extractor would not store either
        if len(found) >= MAX_ITEMS and name.lower() not in found:
            break
        found[name.lower()] = EntityMention(ent.kind, name)
    return found


def _speakers(turns: Sequence[TurnView]) -> frozenset[str]:
    """The other people who wrote in the window, case-folded as `loci.speakers.person_named`
    reads a turn's name: a person's "I'm vegetarian" is a fact about them though their own
    text never says their name, and a name that is also a word ("May") is still them."""
    return frozenset(
        named.casefold() for t in turns if t.role == "other" and t.name and (named := person_named(t.name))
    )


def _relation(
    rel: RelationSchema, turn: TurnView, kinds: Mapping[str, str], said: str, speakers: frozenset[str] = frozenset()
) -> RelationFact | None:
    """One relation as a fact, or None when its subject, or an object that would be an entity,
    is no one the window names (its text, or one of its `_speakers`), or it holds a subject,
    predicate or object no stored row may (`_clean`)."""
    subject = _clean(rel.subject, MAX_NAME_CHARS)
    predicate = _clean(rel.predicate, MAX_PREDICATE_CHARS)
    value = _clean(rel.object, MAX_NAME_CHARS)
    if subject is None or predicate is None or value is None:
        return None
    is_user = subject.lower() in {"user", "i", "me", "the user"}
    speaker = person_named(subject).casefold() in speakers
    if not is_user and not speaker and (not_a_name(subject) or not _said_in(subject, said)):
        return None  # "assistant", "AI", "she", a name no turn says: no entity to hang the fact on
    who = USER_ENTITY if is_user else EntityMention(kinds.get(subject.lower(), "p"), subject)
    predicate = canonical_predicate(predicate)
    # an unnamed ending's object is a placeholder the writer replaces with the current job
    # (`ingest.relation_current`): never an entity of its own
    value_kind = None if predicate in ENDS_CURRENT else rel.object_kind or kinds.get(value.lower())
    if value_kind is not None and not _said_in(value, said):
        return None  # an entity no turn names; a plain value may be the model's word ("vegetarian", "sold")
    return RelationFact(who, predicate, value, value_kind, _valid_from(rel.valid_from, turn.created_at), turn.seq, 0.9)


def to_extraction(parsed: WindowSchema, turns: Sequence[TurnView]) -> Extraction:
    """Map the validated answer onto records; seqs outside the window are ignored, and so is
    each item a stored row could not hold or the turns do not support (the helpers above)."""
    by_seq = {t.seq: t for t in turns}
    said, speakers = " ".join(t.content for t in turns).casefold(), _speakers(turns)
    offline_times = extract_window(turns).mentions
    mentions: dict[int, list[EntityMention]] = {seq: [] for seq in by_seq}
    found = _entities(parsed, said)
    for ent in parsed.entities:
        mention = found.get(" ".join(ent.name.split()).lower())
        if mention is None:
            continue
        for seq in sorted(set(ent.turns) & mentions.keys()):  # a seq named 1,000 times is one mention
            if mention not in mentions[seq]:
                mentions[seq].append(mention)
    for seq, times in offline_times.items():
        mentions[seq].extend(m for m in times if m.kind == "t" and m not in mentions[seq])
    kinds = {key: m.kind for key, m in found.items()}
    relations: list[RelationFact] = []
    for rel in parsed.relations:
        turn = by_seq.get(rel.turn)
        fact = _relation(rel, turn, kinds, said, speakers) if turn is not None else None
        if fact is not None and fact not in relations and len(relations) < MAX_ITEMS:
            relations.append(fact)
    subject_name = _clean(parsed.subject.name, MAX_SUBJECT_CHARS) if parsed.subject else None
    subject = Subject(parsed.subject.kind, subject_name) if parsed.subject and subject_name else None
    topics = tuple(t.lower() for t in (_clean(raw, MAX_TOPIC_CHARS) for raw in parsed.topics) if t)[:3]
    return Extraction(topics, subject, {k: tuple(v) for k, v in mentions.items()}, tuple(relations))


class LLMExtractor:
    """`Extractor` that asks the model, falling back to offline extraction per window."""

    name = "llm"
    reads_subjects = True

    def __init__(self, client: LLMClient, model: str) -> None:
        self.client = client
        self.model = model

    async def extract(
        self, turns: Sequence[TurnView], subjects: Sequence[str] = (), known: Mapping[str, str] = NO_KNOWN_KINDS
    ) -> ExtractionOutcome:
        """The window read by the model; ``subjects``, the user's existing wings, are listed after
        the turns so a later chat about one ("the carb is acting up again") is named as the first
        was ("Vespa") and joins its wing, which a chat naming only details cannot do by itself.
        ``known`` (the kinds the user's graph gives names) is not in the prompt: the model types
        names by their sense, and storage keeps a stored name's kind anyway; only the offline
        fallback reads it."""
        content = _render(turns)
        if subjects:
            content += KNOWN_SUBJECTS + json.dumps(list(subjects), ensure_ascii=False)
        messages = [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": content}]
        calls: list[ChatResult] = []
        try:
            parsed, calls = await self.client.chat_json(self.model, messages, WindowSchema, retries=1)
        except JSONOutputError as e:
            return await self._fallback(turns, known, f"malformed output after retry: {e}", e.results)
        except UpstreamUnavailable as e:
            return await self._fallback(turns, known, f"endpoint unavailable: {e}", calls)
        except UpstreamBadOutput as e:
            return await self._fallback(turns, known, f"bad output: {e}", calls)
        # in a thread, as the offline extractor runs (`OfflineExtractor`): it reads the turns' times by the rules
        extraction = await asyncio.to_thread(to_extraction, parsed, turns)
        return ExtractionOutcome(extraction, "llm", None, tuple(calls))

    async def _fallback(
        self, turns: Sequence[TurnView], known: Mapping[str, str], reason: str, calls: Sequence[ChatResult]
    ) -> ExtractionOutcome:
        log.warning("LLM extraction fell back to offline: %s", reason)
        extraction = await asyncio.to_thread(extract_window, turns, known)
        return ExtractionOutcome(extraction, "offline", reason[:500], tuple(calls))
