"""A candidate subject and the records placement needs, shared by the wing rule's stages
(`ingest.subjects` gathers and scores, `ingest.subject_links` joins mentions that name
one subject under different words)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from ingest.names import compact_key
from ingest.subject_rules import Domain

__all__ = ["NAMED_KINDS", "Candidate", "WingSubject", "absorb", "subject_key"]

NAMED_KINDS = {"p": "person", "l": "place", "o": "topic", "i": "project", "e": "topic"}
"""Extractor entity kinds that can name a wing, and the wing kind each becomes (time never)."""


def subject_key(name: str, fold_plural: bool = True) -> str:
    """Case, hyphens, spaces and trailing initials ignored ("E-foil" = "efoil"); a plural
    "s" too for common nouns (not names: "Paris" stays "paris")."""
    key = compact_key(name)
    if fold_plural and key.endswith("s") and not key.endswith("ss") and len(key) > 3:
        key = key[:-1]
    return key


@dataclass(frozen=True, slots=True)
class WingSubject:
    """A conversation's subject as placement needs it: the wing's kind, name and aliases."""

    kind: str
    name: str
    aliases: tuple[str, ...] = ()
    """Lower-case spellings seen ("e-foil", "my brother") and the compact key, stored on
    the wing so later conversations match them."""
    score: float = 0.0


@dataclass
class Candidate:
    """One candidate subject gathered over the conversation, then scored."""

    key: str
    forms: Counter[str] = field(default_factory=Counter)
    kinds: Counter[str] = field(default_factory=Counter)
    turns: set[int] = field(default_factory=set)
    user_turns: set[int] = field(default_factory=set)
    kin: set[str] = field(default_factory=set)
    noun: bool = False
    verb: bool = False
    """Once written right after a subject pronoun ("it hurts", "she hates"): a verb, which
    a determiner a few words back ("my middle finger hurts") can make look like a head noun."""
    thing: bool = False
    possessive: bool = False
    opening: bool = False
    domain: Domain | None = None
    pet: bool = False
    """An animal of the user's, named and spoken of by its species word ("Biscuit", "the
    dog"): filed as a topic (wings have no animal kind) under its name."""
    modifiers: Counter[str] = field(default_factory=Counter)
    """The word written right before each mention ("tax" in "my tax code")."""
    label: str = ""
    """The name a link settled on (a pet's own name), over the most frequent form."""
    names_opening: bool = False
    """The name someone gave to what the user's opening described (`ingest.subject_naming`):
    it takes the opening's credit in full, as the opening's own topic would."""
    written: set[int] = field(default_factory=set)
    """The turns that write its name or word (`ingest.subjects`), not those links add for
    speaking of it otherwise ("he", its category)."""
    named_problem: bool = False
    """Named as the user's problem by a naming cue (`ingest.subject_naming`): the medicines
    the chat doses count for it."""
    score: float = 0.0
    withheld: float = 0.0
    """Credit a person's or pet's score lost to how little of the chat speaks of them
    (`ingest.subject_centrality.spoken_fallback`)."""

    @property
    def animate(self) -> bool:
        """Can be "he" or "she": a named person, kin, or a pet."""
        return bool(self.kinds.get("p")) or bool(self.kin) or self.pet

    @property
    def in_passing(self) -> bool:
        """A person the user names in one turn, after the opening, and never calls "my X"
        ("my pal omar is tagging along"): an aside in a chat about something else, though
        "he" may follow. Credited in full for closeness (an embedder cannot place a first
        name), such a person outscored the thing the whole chat keeps to (2026-11-30)."""
        return bool(self.kinds.get("p")) and not self.kin and not self.opening and len(self.written) == 1

    @property
    def name(self) -> str:
        if self.label:
            return self.label
        if self.domain is not None:
            return self.domain.name.capitalize()
        form = self.forms.most_common(1)[0][0]
        if self.kin and not self.kinds:
            return f"My {form}"
        return form[:1].upper() + form[1:] if form.islower() else form

    @property
    def kind(self) -> str:
        if self.domain is not None or self.pet:
            return "topic"
        if self.kinds:
            return NAMED_KINDS[self.kinds.most_common(1)[0][0]]
        return "person" if self.kin else "project" if self.thing else "topic"

    def subject(self) -> WingSubject:
        if self.domain is not None:
            return WingSubject(self.kind, self.name, (self.domain.name,), round(self.score, 3))
        spelled = {f.lower() for f in self.forms} | {f"my {k}" for k in self.kin} | {self.key}
        return WingSubject(self.kind, self.name, tuple(sorted(spelled)), round(self.score, 3))


def absorb(found: dict[str, Candidate], target: Candidate, detail: Candidate) -> None:
    """``detail``'s mentions count for ``target``, and it is no longer a candidate."""
    target.turns |= detail.turns
    target.user_turns |= detail.user_turns
    target.opening = target.opening or detail.opening
    target.possessive = target.possessive or detail.possessive
    del found[detail.key]
