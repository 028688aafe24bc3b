"""Whether a sentence states something, or only asks or supposes it.

Both offline extractors read a user's sentence as a fact only when it is said as one: the
memory rules (`ingest.memory_rules`) and the relation rules (`ingest.relation_extract`). "Should
I quit Globex?" and "If I quit Globex, would I lose my stock options?" state no ending, though
their words hold "I quit Globex"; recording one would close the job in the graph and retract
"Works at Globex" from the profile (`ingest.memory_endings`). The same words and markers for
both; the relation rules read them clause by clause (a fact beside a question, or after a
condition in another clause, still counts there), the memory rules by the whole sentence, as
they always have.

* `asks`: a question, by its opening word ("should I …", "what …") or its closing "?", after
  the discourse markers a sentence may open with (`MARKERS`: "so, should I …").
* `supposes`: a condition, a wish or a what-if before a statement in its sentence ("if I
  quit …", "I wish I had …", "hypothetically …", "I'm wondering whether I …").
* `sentence_mood(...).states(at)`: the relation rules' finer reading, clause by clause (below).
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from functools import lru_cache

__all__ = ["MARKERS", "SentenceMood", "asks", "asks_in", "sentence_mood", "supposes"]

MARKERS = re.compile(
    r"(?i)^(?:(?:actually|correction|update|oops|sorry|wait|oh|ok|okay|so|well|also|and|but|btw|by the way|fyi"
    r"|just so you know|to clarify|for the record|i meant(?: to say)?(?: that)?|i mean|hmm+|um+|uh+|yeah|anyway"
    r"|honestly|ps|p\.s\.|edit|note|quick background|background|context|for context)\b[\s,:;!.—–-]*)+"
)
"""Words a sentence may open with that change nothing it says: discourse markers and the
correction cues the memory rules strip before reading a statement ("actually, I moved to …")."""

_QUESTION = re.compile(
    r"(?i)^(?:what|why|how|where|when|who|whom|whose|which|do(?! not\b)|does|did|should|shall|would|could|can"
    r"|is|are|am|was|were|will|have|has|may|might|any)\b|\?\s*$"
)
_SUPPOSING = re.compile(
    r"(?i)\b(?:if|unless|suppose|supposing|imagine|pretend|hypothetically|wish|as if|as though|in case|assuming"
    r"|whether)\b"
)
"""Words that, anywhere before a statement in its sentence, make it a condition, a wish or a
what-if rather than something that happened or holds."""


_TOLD_AS_NEWS = re.compile(r"(?i)^(?:(?:it\s+)?turn(?:s|ed)\s+out|apparently|guess\s+what)\b[\s,:]*")
"""Openers that tell news: after one, surprise's doubled marks end a statement ("turns out i have
hypothyroidism??", "…?!"); one "?" still asks ("apparently I quit my job?"), and so does the rest read
as any sentence is ("apparently, do I live in Leeds now?")."""
_SURPRISE = ("??", "?!", "!?")
_WH_ASKING = re.compile(r"(?i)^(?:what|why|how|where|who|whom|whose|which)\b")


def _news(said: str) -> bool:
    """Whether ``said`` (markers stripped) is news told with surprise (`_TOLD_AS_NEWS`)."""
    opener = _TOLD_AS_NEWS.match(said)
    return opener is not None and said.rstrip()[-2:] in _SURPRISE and not _asks_plainly(said[opener.end() :])


def _asks_plainly(said: str) -> bool:
    """A question by its opening word or inversion, whatever its end ("do I live in Leeds now??"); "when" opens
    a clause as often ("apparently when I moved to Leeds I lost my job??")."""
    return bool(_WH_ASKING.match(said) or _INVERTED.match(said))


def asks(text: str) -> bool:
    """Whether ``text`` (a sentence, or a clause of one) is a question."""
    said = MARKERS.sub("", text.strip())
    return not _news(said) and bool(_QUESTION.search(said))


def supposes(sentence: str, before: int) -> bool:
    """Whether ``sentence`` supposes rather than states what it says at ``before`` onwards."""
    return bool(_SUPPOSING.search(sentence, 0, before))


_INVERTED = re.compile(
    r"(?i)^(?:do|does|did|should|shall|would|could|can|is|are|am|was|were|will|have|has|may|might)\s+"
    r"(?:i|we|you|my|our)\b"
)
_WH = re.compile(r"(?i)^(?:what|why|how|where|when|who|whom|whose|which)\b")


def asks_in(clause: str, sentence: str) -> bool:
    """Whether ``clause`` of ``sentence`` asks: it ends with "?", opens with a verb before its
    subject ("should I quit Globex"), or opens with a question word in a sentence that ends with
    "?". A question word alone does not ask: "When I moved to Lisbon, I got a dog." and "…,
    which is why I quit Globex." state the move and the ending (`asks` judges a whole sentence,
    where an opening "when" is taken as a question, as the memory rules always have)."""
    said = MARKERS.sub("", clause.strip())
    if _news(said):
        return False
    if said.endswith("?") or _INVERTED.match(said):
        return True
    return bool(_WH.match(said)) and sentence.rstrip().endswith("?")


_CLAUSE_MARK = re.compile(r"[,;:—–]|\s-\s")
"""Where a sentence's clauses part: "I quit Globex, so what now?" states the ending in its first
clause and asks only in its second."""
_WHAT_IF = re.compile(r"(?i)\b(?:hypothetically|suppose|supposing|imagine|pretend|what if)\b")
"""Openers that make the rest of the sentence a what-if, whatever its clauses."""
_FACTIVE_BEFORE = re.compile(
    r"(?i)\b(?:now that|since|because|given(?: that)?|considering|remember that|note that|know that)\s+$"
)
"""Words after which a clause is told as true even inside a question: "How do I register now
that I moved to Berlin?", "Can you remember that I moved to Berlin?"."""
_FACTIVE_REACH = 40
"""How far before a statement `_FACTIVE_BEFORE` is looked for: the words right before it."""


@dataclass(frozen=True, slots=True)
class SentenceMood:
    """One sentence's clauses, which of them ask, and where it supposes, read once: a rule may
    match many times in a long sentence, and judging each match by rescanning the sentence
    made a 100k-character turn take half a minute."""

    sentence: str
    starts: tuple[int, ...]
    """Where each clause after the first starts (the first starts at 0)."""
    asking: tuple[bool, ...]
    """Whether each clause asks (`asks_in`), the first one first."""
    supposing: tuple[int, ...]
    """Where each condition word (`supposes`' words) starts."""
    what_if: int
    """Where a what-if opener starts, or past the sentence's end."""

    def states(self, at: int) -> bool:
        """Whether the sentence states what it says at ``at``: no what-if before it, no condition
        in its own clause before it ("If it helps, I'm allergic to penicillin." states the
        allergy; "If I quit Globex, would I…" no ending), and its clause asks nothing, unless it
        follows words that tell it as true ("…now that I moved to Berlin?")."""
        clause = bisect.bisect_right(self.starts, at)
        start = self.starts[clause - 1] if clause else 0
        first_condition = bisect.bisect_left(self.supposing, start)
        if self.what_if < at or (first_condition < len(self.supposing) and self.supposing[first_condition] < at):
            return False
        if _FACTIVE_BEFORE.search(self.sentence, max(start, at - _FACTIVE_REACH), at):
            return True
        return not self.asking[clause]


@lru_cache(maxsize=64)
def sentence_mood(sentence: str) -> SentenceMood:
    """`SentenceMood` of ``sentence``; the rules of one window read the same sentences many times."""
    marks = list(_CLAUSE_MARK.finditer(sentence))
    bounds = [0, *(m.end() for m in marks)]
    ends = [*(m.start() for m in marks), len(sentence)]
    asking = tuple(asks_in(sentence[a:b], sentence) for a, b in zip(bounds, ends, strict=True))
    what_if = _WHAT_IF.search(sentence)
    return SentenceMood(
        sentence,
        tuple(bounds[1:]),
        asking,
        tuple(m.start() for m in _SUPPOSING.finditer(sentence)),
        what_if.start() if what_if else len(sentence) + 1,
    )
