"""A window's product facts read whole: a line said short is the maker's product the window named, and a
product acquired after the user said they would switch to its line is one the user switched to.

* **a line said short** ("the outback is mine!", "sold the corolla") after the user's turns named it with its
  maker ("subaru outback, 2024, used", "my toyota corolla") is that product: the thing's ``is``, the user's
  ``owns`` / ``owned`` and the product's own ``status`` name "Subaru Outback", not "Outback", when the
  window's user turns give that line one maker only;
* **a switch**: a product the user acquired (`owns`) where the user's own turns said before it that they
  would switch to its line ("i might switch to pixel" … "got a pixel 9"; not "should i switch to pixel?",
  "i wouldn't switch", "my brother switched to iphone") is one the user switched to: `uses`
  (`ingest.predicates`). Another product acquired while one is held is no switch: it may be a second one
  ("bought a macbook air too"). Another person's purchase, a gift or a question records no `owns`
  (`ingest.relation_products`), so no switch either.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace

from ingest.extraction import USER_ENTITY, EntityMention, RelationFact, TurnView
from ingest.product_lines import PRODUCT_LINES, line_of, spelled
from ingest.product_ownership import MAKERS
from ingest.relation_context import Recent

__all__ = ["switches"]

_VALUED = frozenset({"is", "owns", "owned", "uses"})
_SWITCH_TO = re.compile(r"\bswitch(?:ing)?\s+(?:over\s+)?to\s+(?:an?\s+|the\s+)?(?P<line>[a-z][\w\-]*)", re.I)
_OWN_INTENT = re.compile(
    r"(?:(?:^|[.!;]\s*|\b(?:i|i['’]m|im|i\s+am|i\s+was)\s+)(?:(?:honestly|probably|prob|def|definitely|just|really|"
    r"finally|so|ok|totally)\s+)*(?:might|will|gonna|going\s+to|want\s+to|wanna|plan(?:ning)?\s+to|decided\s+to)"
    r"|\bi['’]ll)\s+$",
    re.I,
)
"""The user's own intent before "switch to …": "i might", "gonna", "i'm going to", "i'll"."""
_ASKED = re.compile(r"[^.!?]*\?")


_WORD_PAIR = re.compile(r"(?<![\w\-])(?P<maker>[A-Za-z][\w\-]*)(?=[ \t]+(?P<line>[A-Za-z][\w\-]*)(?![\w\-]))")
"""Each word and the word after it: a maker and its line ("subaru outback") where the tables hold both."""
_SINGLE = frozenset({k for k in PRODUCT_LINES if " " not in k} | set(MAKERS))


def _makers(turns: Sequence[TurnView], earlier: Mapping[str, str]) -> dict[str, str]:
    """Line (lower case) → its maker and line as spelled, where the user's turns (and the windows before:
    ``earlier``) give it one maker only."""
    found: dict[str, set[str]] = {line: {name} for line, name in earlier.items()}
    for turn in turns:
        if turn.role != "user":
            continue
        for m in _WORD_PAIR.finditer(turn.content):
            maker, line = m.group("maker").lower(), m.group("line").lower()
            if maker not in _SINGLE or line not in _SINGLE:
                continue
            thing = line_of(line)
            if maker != line and thing is not None and (maker in MAKERS or PRODUCT_LINES.get(maker) == thing):
                found.setdefault(line, set()).add(spelled(f"{maker} {line}"))
    return {line: names.pop() for line, names in found.items() if len(names) == 1}


def _full(value: str, makers: dict[str, str]) -> str:
    return makers.get(value.lower(), value) if " " not in value.strip() else value


def _fuller(f: RelationFact, makers: dict[str, str]) -> RelationFact:
    if f.predicate in _VALUED and f.value_kind == "i" and (full := _full(f.value, makers)) != f.value:
        return replace(f, value=full)
    if f.predicate == "status" and f.subject.kind == "i" and (full := _full(f.subject.name, makers)) != f.subject.name:
        return replace(f, subject=EntityMention("i", full))
    return f


def _switches_said(turns: Sequence[TurnView]) -> dict[str, int]:
    """Each line the user's own turns said they would switch to ("i might switch to pixel", "gonna switch
    to iphone"), with the first turn that said so; never a question, a negation or someone else's switch."""
    said: dict[str, int] = {}
    for t in turns:
        if t.role != "user":
            continue
        for m in _SWITCH_TO.finditer(t.content):
            own = _OWN_INTENT.search(t.content, max(0, m.start() - 40), m.start())
            if own and not _ASKED.match(t.content, m.end()):
                said.setdefault(m.group("line").lower(), t.seq)
    return said


def switches(relations: Sequence[RelationFact], turns: Sequence[TurnView], recent: Recent) -> list[RelationFact]:
    """``relations`` with short lines named fully and the user's switches added (module doc); ``recent``
    carries the makers said to the next window. Linear in the facts and the turns."""
    makers = recent.makers = _makers(turns, recent.makers)
    out = [_fuller(f, makers) for f in relations]
    said: set[str] = {f.value.lower() for f in out if f.predicate == "uses"}
    intents = _switches_said(turns)
    for f in list(out):
        if f.subject != USER_ENTITY or f.predicate != "owns" or f.value.lower() in said:
            continue
        words = [w for w in f.value.lower().split() if not w.isdigit()]
        if words and line_of(f.value) is not None and intents.get(words[0], f.turn_seq + 1) <= f.turn_seq:
            said.add(f.value.lower())
            out.append(replace(f, predicate="uses"))
    return out
