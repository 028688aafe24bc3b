"""The name of what the user describes, when someone else gives it (`ingest.subjects`).

People describe a health problem by what they feel ("the room spins when I roll over",
"a burning behind my breastbone at 2am") and the name comes from someone else: the
assistant's reply ("the typical pattern of benign positional vertigo", "typical of acid
reflux") or the doctor the user quotes ("she said it's BPPV", "diagnosed with
hypertension"). Counting the user's words files such a chat under a symptom ("Room
spins") or a medicine ("Betahistine"), where a person would file it under the condition.

So in a conversation of a domain whose problems are named this way (`Domain.named_by_others`:
health), the head of the phrase after a naming cue (`SubjectRules.reply_naming_cues` in the
reply to the user's opening, `SubjectRules.diagnosis_cues` in the user's own turns) is
a candidate as if the user's opening had named it: the reply restates what the opening
described, and a quoted diagnosis is the user's own. It still has to win on the usual
signs (closeness to the opening and to the whole chat, how often the chat comes back to it).
Only the reply to the opening counts: later replies list warning signs ("symptoms of a
stroke") and alternatives, which name other things.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from ingest.extract_offline import STOPWORDS
from ingest.extraction import TurnView
from ingest.subject_candidates import Candidate, absorb, subject_key
from ingest.subject_rules import SubjectRules

__all__ = ["link_medicines", "link_named_problem"]

_WORD = re.compile(r"[A-Za-z][A-Za-z'’\-]*")
_END = re.compile(r"[^\sA-Za-z0-9'’\-]")
"""Anything but letters, digits, apostrophes, hyphens and spaces ends the named phrase
("vertigo, a common…", "BPPV (benign…", "hypertension. One reading…"); a number inside
it is a stage or a type ("stage 2 hypertension"), not a word of it."""
MAX_NAME_WORDS = 4
"""Words read after a cue ("benign paroxysmal positional vertigo"); the last one heads it."""


def _head(text: str, rules: SubjectRules) -> str | None:
    """The head noun of the phrase ``text`` starts with: its last word before a break, past
    any leading determiner; None when that is a function, time or generic word ("a lot")."""
    stop = _END.search(text)
    words = [w.lower() for w in _WORD.findall(text[: stop.start()] if stop else text)]
    while words and words[0] in rules.determiners:
        words.pop(0)
    phrase: list[str] = []
    for word in words[:MAX_NAME_WORDS]:
        if word in STOPWORDS or word in rules.phrase_breaks or word in rules.determiners:
            break
        phrase.append(word)
    if not phrase:
        return None
    head = phrase[-1]
    generic = head in rules.generic_words or head in rules.time_words or head in rules.frame_nouns
    return None if len(head) < rules.min_chars or generic else head


def _named(turn: TurnView, cues: re.Pattern[str], rules: SubjectRules) -> Iterator[str]:
    for m in cues.finditer(turn.content):
        head = _head(turn.content[m.end() :], rules)
        if head is not None:
            yield head


def link_named_problem(found: dict[str, Candidate], turns: Sequence[TurnView], rules: SubjectRules) -> None:
    """Add or credit the problem named by the reply to the opening or by a quoted diagnosis
    (see the module doc), in a conversation of a domain whose problems others name."""
    if not any(c.domain is not None and c.domain.named_by_others for c in found.values()):
        return
    users = [t for t in turns if t.role == "user"]
    if not users:
        return
    opening = users[0]
    reply = next((t for t in turns if t.seq > opening.seq and t.role == "assistant"), None)
    named = (
        [(reply, head) for head in _named(reply, re.compile(rules.reply_naming_cues, re.I), rules)][:1] if reply else []
    )
    diagnosis = re.compile(rules.diagnosis_cues, re.I)
    named += [(t, head) for t in users for head in _named(t, diagnosis, rules)]
    for turn, head in named:
        c = found.setdefault(subject_key(head), Candidate(subject_key(head)))
        c.forms[head] += 1
        c.turns |= {turn.seq, opening.seq}
        c.user_turns.add(turn.seq if turn.role == "user" else opening.seq)
        c.noun, c.verb, c.opening = True, False, True
        c.names_opening = c.names_opening or turn is reply
        c.named_problem = True


def link_medicines(found: dict[str, Candidate], turns: Sequence[TurnView], rules: SubjectRules) -> None:
    """A word written with a dose ("betahistine 24mg") counts for the condition the chat
    names (`link_named_problem`), in a domain whose words are dosed (`Domain.dosed`): a
    medicine is a detail of what it treats, and a chat that repeats it more often than the
    condition ("Betahistine" over "BPPV") is still about the condition. When no condition
    is named, a medicine the user keeps coming back to is the best name the chat has for its
    problem and stays; one the user writes in one turn only is a detail of the treatment told
    in passing ("put on X 30 mg and booked in for a scan"), and the chat is
    filed under what else it talks about. The opening's exception for what is said once
    (`ingest.subjects._eligible`) is for what the user asks about, not for a dose: once
    medicines were typed as named things in lower case, a reflux chat whose opening dosed
    one was filed under the medicine (2026-11-30)."""
    if not any(c.domain is not None and c.domain.dosed for c in found.values()):
        return
    condition = max((c for c in found.values() if c.named_problem), key=lambda c: len(c.turns), default=None)
    dosed = re.compile(rf"\b([A-Za-z][A-Za-z\-]+){rules.dose}", re.I)
    for t in turns:
        for m in dosed.finditer(t.content):
            medicine = found.get(subject_key(m.group(1)))
            if medicine is None or medicine is condition or medicine.kinds.get("p"):
                continue
            if condition is not None:
                absorb(found, condition, medicine)
            elif len(medicine.user_turns) < rules.min_user_turns:
                del found[medicine.key]
