"""Whether a sentence states something, or only asks or supposes it.

Both offline extractors read a user's sentence as a fact only when it is said as one: the
memory rules (`ingest.memory_rules`) and the relation rules (`ingest.relation_extract`). "Should
I quit Globex?" and "If I quit Globex, would I lose my stock options?" state no ending, though
their words hold "I quit Globex"; recording one would close the job in the graph and retract
"Works at Globex" from the profile (`ingest.memory_endings`). One judgement for both, so a
sentence the memory rules refuse records no fact in the graph either.

* `asks`: a question, by its opening word ("should I …", "what …") or its closing "?", after
  the discourse markers a sentence may open with (`MARKERS`: "so, should I …").
* `supposes`: a condition, a wish or a what-if before a statement in its sentence ("if I
  quit …", "I wish I had …", "hypothetically …", "I'm wondering whether I …").
"""

from __future__ import annotations

import re

__all__ = ["MARKERS", "asks", "asks_in", "supposes"]

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


def asks(text: str) -> bool:
    """Whether ``text`` (a sentence, or a clause of one) is a question."""
    return bool(_QUESTION.search(MARKERS.sub("", text.strip())))


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
    if said.endswith("?") or _INVERTED.match(said):
        return True
    return bool(_WH.match(said)) and sentence.rstrip().endswith("?")
