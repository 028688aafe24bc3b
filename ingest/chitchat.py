"""What a turn says that no summary needs: the chit-chat table, in one place.

LLM assistants wrap every answer in the same formulas ("Great question!", "I'd be happy to
help", "Here are some tips:", "I hope this helps! Let me know if you need anything else"),
and people thank and greet. An extractive summary (`ingest.archive_summary`) that quotes
them reads as the assistant's manners, not as what was said. Each row of `CHITCHAT` is one
such formula as a regular expression (matched case-insensitively); `substance` takes every
match out of a sentence and what is left is what the sentence says. A formula that closes
a sentence ("let me know ...", "I hope this helps ...") runs to the end of its clause, so
"I hope this helps you plan your meals!" is all formula, while "That sounds like a good
idea, but the port is 8080" keeps its fact. Openers ("Great, ", "Sure! ") are also cut from
the sentence as quoted.

To teach it another formula, add a row; nothing else branches on the wording.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["CHITCHAT", "OPENER", "Chitchat", "Substance", "substance"]

_CLAUSE = r"[^.!?]*"
"""The rest of a clause: a closing formula takes whatever follows it up to the sentence's end.
Only ever at a formula's end: a scan that may fail and retry from every word (a lazy
``[^.!?]*?`` before more words) is quadratic, and a turn may be one 100,000-character
sentence (the "praise of a plan" row looked ahead that way, and took 105 s over one)."""
_WARM = (
    r"(?:very |really |so |truly )?(?:great|good|wonderful|fantastic|lovely|excellent|perfect|amazing|nice|smart|"
    r"solid|exciting|practical|affordable|convenient|popular|reasonable|fine)"
)
"""The praise words of the formulas below."""


@dataclass(frozen=True, slots=True)
class Chitchat:
    """One formula: ``kind`` says which (for whoever extends the table), ``pattern`` what it matches."""

    kind: str
    pattern: str


OPENER = Chitchat(
    "opener",
    r"^(?:(?:hi|hello|hey|great|good|excellent|fantastic|wonderful|perfect|awesome|nice|cool|ok(?:ay)?|sure|yes|yeah|"
    r"absolutely|certainly|definitely|of course|alright|all right|got it|understood|no problem|sounds good)"
    r"\s*[,.!;:—–]+\s*)+",
)
"""Interjections opening a sentence, each followed by punctuation ("Great, we'll..." but not
"Great Wall tickets..."): cut from the sentence as quoted."""

CHITCHAT: tuple[Chitchat, ...] = (
    OPENER,
    Chitchat("praise of the question", rf"\b(?:that's|that is|what|such) an? (?:{_WARM} )+(?:question|idea|point)\b"),
    Chitchat("praise of the question", rf"^{_WARM} (?:question|idea|point|choice|call|pick)\b"),
    Chitchat(
        "praise of a plan",
        rf"\b(?:that|this|it) (?:sounds|looks|seems) (?:like )?(?:[\w']+ ){{0,5}}?{_WARM}\b[^.!?,]*",
    ),
    Chitchat(
        "praise of a choice",
        rf"\b(?:is|are|was|makes?) (?:also )?(?:an? )?(?:{_WARM}(?:,? and)? )+(?:choice|option|pick|call|decision)\b",
    ),
    Chitchat(
        "acknowledgement", rf"\b(?:that's|that is) (?:{_WARM} |very |really |helpful |useful )*to (?:know|hear)\b"
    ),
    Chitchat("acknowledgement", r"^you(?:'re| are) all set\b"),
    Chitchat("acknowledgement", rf"^(?:i'm |i am |so )?glad (?:it|that|this) (?:works?|worked|helped|helps){_CLAUSE}"),
    Chitchat("thanks", r"^(?:many )?(?:thanks?|thank you)(?: (?:so|very) much)?(?: for [^.!?,]*)?"),
    Chitchat("thanks", r"\byou(?:'re| are) (?:very |so |most )?welcome\b"),
    Chitchat(
        "offer of help",
        rf"\bi(?:'d| would|'m| am|'ll| will) (?:be )?(?:so |very |more than )?(?:happy|glad|delighted|here) "
        rf"to (?:help|assist){_CLAUSE}",
    ),
    Chitchat(
        "offer of help", rf"\bi(?:'m| am) (?:so |really |very )?glad (?:i|we) (?:could|can|was able to) help{_CLAUSE}"
    ),
    Chitchat("offer of help", rf"\b(?:happy|glad) to help{_CLAUSE}"),
    Chitchat("closing offer", rf"\blet me know{_CLAUSE}"),
    Chitchat("closing offer", rf"\bfeel free to{_CLAUSE}"),
    Chitchat("closing offer", rf"\bdon't hesitate to{_CLAUSE}"),
    Chitchat("closing offer", rf"\b(?:is there )?anything else (?:i can|you'd like|you need|you want){_CLAUSE}"),
    Chitchat("closing offer", rf"\bif you (?:have|need) (?:any )?(?:more|other|further) (?:questions|help){_CLAUSE}"),
    Chitchat(
        "hope",
        rf"\bi hope (?:(?:this|that|it|these) (?:helps?|was helpful|is helpful|answers|clarifies|makes sense)|"
        rf"you (?:have|enjoy|find|like|get)){_CLAUSE}",
    ),
    Chitchat(
        "wishes",
        rf"\b(?:enjoy|have) (?:a |an |your )?(?:{_WARM} )+"
        rf"(?:day|time|trip|weekend|evening|stay|journey|holiday|vacation){_CLAUSE}",
    ),
    Chitchat("wishes", rf"^enjoy\b{_CLAUSE}"),
    Chitchat(  # a whole sentence only: "Great news: I got the job" keeps its news
        "reaction", rf"^(?:that's |that is |what |such )?(?:an? )?(?:{_WARM} |big )+(?:news|change)(?: for [\w']+)?\W*$"
    ),
    Chitchat("reaction", r"^congratulations(?: (?:on|to) [^.!?,]*)?\W*$"),
    Chitchat("list preamble", r"^here(?:'s| is| are)\b[^.!?:]*:"),
    Chitchat("list preamble", r"^[^.!?:]*:\s*$"),
)
"""The formulas, each taken out of a sentence before its words are counted and compared."""

_TABLE = tuple(re.compile(row.pattern, re.IGNORECASE) for row in CHITCHAT)
_OPENER = re.compile(OPENER.pattern, re.IGNORECASE)
_WORD = re.compile(r"\w[\w'’\-]*")


@dataclass(frozen=True, slots=True)
class Substance:
    """A sentence as quoted (its openers cut) and what it says once every formula is out."""

    quoted: str
    said: str

    @property
    def words(self) -> int:
        return len(_WORD.findall(self.said))


def _upper_first(text: str) -> str:
    return text[:1].upper() + text[1:]


def substance(sentence: str) -> Substance:
    """``sentence`` less its openers (as quoted) and less every `CHITCHAT` formula (as said).

    The table is matched with apostrophes read as straight ones ("I’d be happy to help" is
    the formula too); the quoted text keeps the sentence's own characters.
    """
    text = sentence.replace("’", "'")  # one character for one: offsets stay the sentence's
    opener = _OPENER.match(text)
    quoted = sentence[opener.end() :] if opener and opener.end() < len(text) else sentence
    said = text
    for rule in _TABLE:
        said = rule.sub(" ", said)
    return Substance(_upper_first(quoted.strip()), " ".join(said.split()))
