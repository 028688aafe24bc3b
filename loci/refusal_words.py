"""msgspec's refusals said in words: a pattern as the rule it enforces, a bound as a sentence.

Used wherever a refusal reaches a person or a model: the JSON bodies' strict decoding and
the query parameters (`service.strict_body`, `service.errors`), the /memory pages, and the
access document's YAML import (`domain.agent_access_edit`), so each says a field's rule in
the same words whichever way it came in.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from typing import Any

from loci.choices import INVALID_CHOICE, choices_at, one_of
from loci.idempotency import KEY_PATTERN, MAX_KEY_CHARS
from loci.inputs import PATTERN_RULES
from loci.settings import CATEGORY_PATTERN

__all__ = ["in_words", "refused_at"]

_REGEX = re.compile(r"^Expected `str` matching regex (?P<quoted>'.*'|\".*\")$")
"""msgspec's refusal of a pattern, which quotes the whole regular expression (``repr``)."""


_WORD = r"(?:[A-Za-z0-9_-]|\\[^A-Za-z0-9])+"
"""One word of a choice pattern: letters, digits, ``_`` and ``-``, or punctuation escaped (``hybrid\\+rerank``)."""
_CHOICES = re.compile(rf"^\^\((?P<words>{_WORD}(?:\|{_WORD})*)\)\$$")
"""A pattern that allows a fixed list of words (``^(user|assistant|other)$``: roles, layers,
relations, presets): said as that list, so a caller reads what to send instead of a pointer to the schema."""
_ESCAPED = re.compile(r"\\(.)")

_RULES = {
    **PATTERN_RULES,
    CATEGORY_PATTERN: "must be a lowercase name: a letter, then letters, digits or _ (up to 32 characters)",
    KEY_PATTERN: f"must be 1-{MAX_KEY_CHARS} visible ASCII characters, no spaces (a UUID, say)",
}
"""`PATTERN_RULES`, the category names' rule (defined with the settings, which list the categories) and the
``Idempotency-Key`` header's (`loci.idempotency`)."""

_BOUNDS = (
    (re.compile(r"^Expected `(?:int|float|number)` >= (?P<n>\S+)$"), "must be at least {n}"),
    (re.compile(r"^Expected `(?:int|float|number)` <= (?P<n>\S+)$"), "must be at most {n}"),
    (re.compile(r"^Expected `(?:str)` of length >= (?P<n>\d+)$"), "must be at least {n} {character}"),
    (re.compile(r"^Expected `(?:str)` of length <= (?P<n>\d+)$"), "must be at most {n} {character}"),
    (re.compile(r"^Expected `array` of length >= (?P<n>\d+)$"), "must hold at least {n} {item}"),
    (re.compile(r"^Expected `array` of length <= (?P<n>\d+)$"), "must hold at most {n} {item}"),
)
"""msgspec's bound refusals ("Expected `int` >= 1") as sentences; a count of one is singular
("at least 1 character", not "1 characters")."""


def in_words(message: str) -> str:
    """A pattern refusal said as the rule it enforces (`loci.inputs.PATTERN_RULES`, or the words
    a choice pattern allows), a bound as a sentence; any other message as msgspec wrote it.
    The /memory pages say Litestar's refusals of their query parameters with it too."""
    for bound, words in _BOUNDS:
        if found := bound.match(message):
            n = found.group("n")
            return words.format(n=n, character="character" if n == "1" else "characters",
                                item="item" if n == "1" else "items")  # fmt: skip
    match = _REGEX.match(message)
    if match is None:
        return message
    try:
        pattern = ast.literal_eval(match.group("quoted"))
    except (ValueError, SyntaxError):
        pattern = None
    if isinstance(pattern, str) and (choices := _CHOICES.match(pattern)):
        return one_of([_ESCAPED.sub(r"\1", word) for word in choices.group("words").split("|")])
    return _RULES.get(pattern, "does not have the form the API schema states (/schema/openapi.json)")


_AT = re.compile(r"\s*-\s*at (?:`key` in )?`\$(?P<path>[^`]*)`$")
"""Where msgspec says it refused: ``- at `$.turns[0].name``` (a key of a map: ``- at `key` in `$.tags```)."""
_UNKNOWN = re.compile(r"unknown field `(?P<name>[^`]+)`")
_MISSING = re.compile(r"missing required field `(?P<name>[^`]+)`")


def refused_at(text: str, type_: Any = None, named: Callable[[str], str] | None = None) -> tuple[str, str]:
    """msgspec's refusal ``text`` as (the path it names, below what was converted to
    ``type_``, without ``$`` or a leading dot; the rule in words, `in_words`). A refused
    ``Literal`` lists the values it takes; a missing or unknown field is named itself
    (``turns[0].content: is required``: a misspelt "createdAt" would otherwise be dropped in
    silence). ``named`` rewrites msgspec's own path first (a map's ``[...]`` as its key:
    `service.body_keys`). One reading for the JSON bodies (`service.strict_body`) and the
    access document's YAML (`domain.agent_access_edit`), so both name a field alike."""
    match = _AT.search(text)
    path = match.group("path").lstrip(".") if match else ""
    message = in_words(_AT.sub("", text))
    if INVALID_CHOICE.match(message) and (choices := choices_at(type_, path)):
        message = one_of(choices)
    if named is not None:
        path = named(path)
    if missing := _MISSING.search(text):  # "Object missing required field `content` - at `$.turns[0]`"
        path, message = f"{path}.{missing.group('name')}".lstrip("."), "is required"
    elif unknown := _UNKNOWN.search(text):
        path, message = f"{path}.{unknown.group('name')}".lstrip("."), "is not a field here (unknown ones are refused)"
    return path, message.replace("`", "")
