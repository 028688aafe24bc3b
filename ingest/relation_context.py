"""What a person's sentence refers back to: the things, people and jobs the window named before it.

Chat names a thing once and then says "it", its model or nothing at all: "dropped my phone …
its a pixel 6a" … "just upgraded to the Pixel 8 Pro"; "my car … it's a 2014 Honda Jazz" … "sold
the jazz to a guy from Stockport"; "the hinge on my laptop snapped" … "got it back, works fine
again"; "an interview for a product analyst role at Nimbly" … "I got it!". The relation rules
(`ingest.relation_rules`) read one sentence; `Recent` keeps, for one window, what such later
sentences point at, and `ingest.relation_extract.relations_in` asks it:

* **a model's words** (from the window's `is` facts: "car is 2014 Honda Jazz" gives "jazz",
  "honda jazz", "honda") stand for the owned thing after "the" / "my" ("sold the jazz" is the
  car's sale: `Recent.refer`), and its first word names the line a new model of the same thing
  belongs to ("upgraded to the Pixel 8 Pro" after "pixel 6a" is the phone's);
* **the speaker's last owned thing** ("my laptop") is the "it" of a state said without naming
  it ("it's fixed", "works fine again", "sold it", "it died");
* **the job the speaker went for** ("a … role at Nimbly", "an interview with Nimbly") is the one
  "I got it!" or "got the job" takes: `works at`, and `works as` when the title was said;
* **each owned thing's model now** (``current``: "car" → "2012 Civic") and **the thing the last
  sentence bought** (``acquired``: "bought a car!!"), which `ingest.relation_products` reads
  products against;
* **the people named in earlier turns**, last first, are who "his" / "her" means when the
  sentence itself names no one (`last_named`, read by `ingest.relation_extract`).

Each sentence is scanned a fixed number of times, so a turn is read in time linear in its length.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from ingest.entity_vocab import POSSESSIONS, VERB_VALUES, words
from ingest.extraction import EntityMention, RelationFact
from ingest.gazetteer import is_common_word, name_gender
from ingest.mood import sentence_mood
from ingest.relation_rules import NAME
from ingest.relation_sayings import TITLE_SAID

__all__ = ["Recent", "Said"]

_POSS = "|".join(sorted((re.escape(w).replace(r"\-", r"[\- ]") for w in POSSESSIONS), key=len, reverse=True))
_OWNED = re.compile(rf"\b(?:my|our)\s+(?:[a-z]+\s+)?(?P<thing>{_POSS})\b(?!['’]s)", re.I)
_MODEL_WORDS = words("pro max plus mini ultra lite air se new old the a an")
"""Words of a model name too generic to stand for it ("the pro", "the new one")."""
_STATE_IT = (
    re.compile(
        r"\b(?:(?:it['’]?s|it\s+is|it\s+has|got\s+it)\s+(?:been\s+)?(?:now\s+|finally\s+|all\s+)?(?P<verb>fixed|repaired)"
        r"|(?:it\s+)?(?P<again>works|working)\s+(?:fine\s+|perfectly\s+|properly\s+|ok\s+|okay\s+|great\s+)?again)\b",
        re.I,
    ),
    re.compile(
        r"\bit(?:['’]s|\s+is|\s+has)?\s+(?:just\s+|finally\s+|completely\s+)?"
        r"(?P<verb>died|broke|stopped\s+working|broken|got\s+stolen|was\s+stolen)\b",
        re.I,
    ),
    re.compile(r"\b(?P<verb>sold|gave\s+away|got\s+rid\s+of|returned|repaired|fixed)\s+it\b(?!['’])", re.I),
)
"""A thing's state said with "it": repaired ("it's fixed", "works fine again"), broken, sold."""
_STATE_VALUES = {**VERB_VALUES, "broken": "broken", "again": "repaired"}
_UPGRADED = re.compile(
    r"\b(?:upgraded|upgrading|switched|moved)\s+to\s+(?:an?\s+|the\s+)?(?:new\s+)?"
    r"(?P<value>[A-Za-z][\w\-]*(?:[ \t]+(?:[\w\-]*\d[\w\-]*|[A-Z][\w\-]*|pro|max|plus|mini|ultra)){0,4})",
)
"""A new model with no old thing named ("just upgraded to the Pixel 8 Pro"): its first word is the
line of the thing it replaces."""
_SOUGHT = re.compile(
    rf"\b(?i:an?|the|this|that)\s+(?:(?P<title>{TITLE_SAID})\s+)?(?i:role|job|position|post|vacancy)\s+"
    rf"(?i:at|with)\s+(?P<org>{NAME})|\b(?i:interview(?:ing|ed)?\s+(?:at|with))\s+(?P<met>{NAME})"
)
_GOT_IT = re.compile(
    r"\bI\s+got\s+it\s*!|\b(?:got|landed|accepted|took|(?:was|been|were)\s+offered|they\s+offered\s+me)\s+"
    r"(?:the|that|this)\s+(?:job|role|position|offer)\b",
    re.I,
)
"""The job gone for, taken: "I got it!!!", "got the job", "they offered me the role"."""


@dataclass(frozen=True, slots=True)
class Said:
    """One sentence of a person's turn, as `Recent` reads it."""

    text: str
    speaker: EntityMention
    since: Callable[[], datetime]
    seq: int
    confidence: float


@dataclass
class Recent:
    """What one window has named so far (see the module doc); one per window, fed turn by turn."""

    models: dict[str, str] = field(default_factory=dict)
    lines: dict[str, str] = field(default_factory=dict)
    owned: dict[str, str] = field(default_factory=dict)
    jobs: dict[str, tuple[str, str]] = field(default_factory=dict)
    people: list[str] = field(default_factory=list)
    _refer: re.Pattern[str] | None = None
    current: dict[str, str] = field(default_factory=dict)
    acquired: dict[str, str] = field(default_factory=dict)
    makers: dict[str, str] = field(default_factory=dict)  # a line → its maker and line (`product_switches`)

    @classmethod
    def after(cls, earlier: object | None) -> Recent:
        """A copy of what an earlier window named, to read the next one with; else nothing named yet."""
        if not isinstance(earlier, Recent):
            return cls()
        return cls(
            dict(earlier.models),
            dict(earlier.lines),
            dict(earlier.owned),
            dict(earlier.jobs),
            list(earlier.people),
            earlier._refer,
            dict(earlier.current),
            dict(earlier.acquired),
            dict(earlier.makers),
        )

    def learn(self, speaker: EntityMention, facts: Iterable[RelationFact]) -> None:
        """Take in a sentence's facts: what the speaker's owned things are, and which was spoken of last."""
        for f in facts:
            if f.subject.kind == "i" and not f.subject.name[:1].isupper():
                self.owned[speaker.name.lower()] = f.subject.name
                if f.predicate == "is":
                    self._models(f.value, f.subject.name)
                    self.current[f.subject.name] = f.value

    def _models(self, value: str, thing: str) -> None:
        words = value.lower().split()
        if len(words) > 1 and words[0].isdigit():
            words = words[1:]  # "2014 honda jazz": the year is no part of the name
        if not words:
            return
        said = {" ".join(value.lower().split()), " ".join(words)}
        said |= {w for w in (words[0], words[-1]) if _names_a_model(w)}
        if words[0].isalpha():
            self.lines[words[0]] = thing
        fresh = {w: thing for w in said if self.models.get(w) != thing}
        if fresh:
            self.models.update(fresh)
            alternatives = "|".join(sorted((re.escape(w) for w in self.models), key=len, reverse=True))
            self._refer = re.compile(rf"\b(the|my|our)\s+({alternatives})\b(?![ \t]+(?-i:[A-Z0-9]))", re.I)

    def refer(self, sentence: str) -> str:
        """The sentence with a model said for its thing read as the thing ("sold the jazz" → "sold the car")."""
        if self._refer is None:
            return sentence
        return self._refer.sub(lambda m: f"{m.group(1)} {self.models[m.group(2).lower()]}", sentence)

    def seen(self, speaker: EntityMention, sentence: str) -> None:
        """The owned things a sentence names ("my laptop"): the last is what a later "it" is."""
        last = None
        for m in _OWNED.finditer(sentence):
            last = m
        if last is not None:
            self.owned[speaker.name.lower()] = _thing(last.group("thing"))
        for m in _SOUGHT.finditer(sentence):
            org = m.group("org") or m.group("met")
            title = m.group("title") or ""
            if m.group("met") and self.jobs.get(speaker.name.lower(), ("", ""))[0] == org:
                continue  # "an interview with Nimbly" after "a product analyst role at Nimbly"
            self.jobs[speaker.name.lower()] = (org, " ".join(title.split()))

    def facts(self, said: Said, kinds: Mapping[str, str]) -> list[RelationFact]:
        """What the sentence says of the things and jobs it only points at."""
        return [*self._states(said), *self._upgrade(said), *self._job(said, kinds)]

    def _fact(self, said: Said, subject: EntityMention, predicate: str, value: str, kind: str | None) -> RelationFact:
        return RelationFact(subject, predicate, value, kind, said.since(), said.seq, said.confidence)

    def _states(self, said: Said) -> list[RelationFact]:
        out: list[RelationFact] = []
        mood = sentence_mood(said.text)
        owned = [(m.end(), _thing(m.group("thing"))) for m in _OWNED.finditer(said.text)]
        ends = [end for end, _ in owned]
        for pattern in _STATE_IT:
            for m in pattern.finditer(said.text):
                i = bisect_right(ends, m.start())
                thing = owned[i - 1][1] if i else self.owned.get(said.speaker.name.lower())
                if thing is None or not mood.states(m.start()):
                    continue
                verb = " ".join((m.group("verb") or "again").lower().split())
                value = _STATE_VALUES.get(verb if m.group("verb") else "again", verb)
                out.append(self._fact(said, EntityMention("i", thing), "status", value, None))
        return out

    def _upgrade(self, said: Said) -> list[RelationFact]:
        out: list[RelationFact] = []
        for m in _UPGRADED.finditer(said.text):
            value = m.group("value").strip()
            thing = self.lines.get(value.split()[0].lower())
            if thing is not None and re.search(r"\d|[A-Z]", value) and sentence_mood(said.text).states(m.start()):
                out.append(self._fact(said, EntityMention("i", thing), "is", value, "i"))
        return out

    def _job(self, said: Said, kinds: Mapping[str, str]) -> list[RelationFact]:
        job = self.jobs.get(said.speaker.name.lower())
        m = _GOT_IT.search(said.text)
        if job is None or m is None or not sentence_mood(said.text).states(m.start()):
            return []
        org, title = job
        del self.jobs[said.speaker.name.lower()]  # taken: a later "I got it!" is about something else
        if kinds.get(org.lower(), "o") in {"p", "l"}:
            return []
        out = [self._fact(said, said.speaker, "works at", org, "o")]
        if title:
            out.append(self._fact(said, said.speaker, "works as", title, None))
        return out

    def named(self, mentions: Sequence[EntityMention]) -> None:
        """The people a finished turn named, for a later "his" / "her"."""
        self.people.extend(m.name for m in mentions if m.kind == "p")
        del self.people[:-20]

    def last_named(self, pronoun: str) -> str | None:
        """The person an earlier turn named last whom ``pronoun`` ("his", "she") may mean."""
        sex = "m" if pronoun.lower() in {"he", "his", "him"} else "f"
        for name in reversed(self.people):
            if name_gender(name) in {sex, ""}:
                return name
        return None


def _thing(said: str) -> str:
    thing = " ".join(said.lower().replace("-", " ").split())
    return thing.replace(" ", "-") if thing.replace(" ", "-") in POSSESSIONS else thing


def _names_a_model(word: str) -> bool:
    return word.isalpha() and len(word) >= 3 and word not in _MODEL_WORDS and not is_common_word(word)
