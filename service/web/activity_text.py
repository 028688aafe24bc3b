"""One readable sentence per activity event, for the /memory Activity page.

`SENTENCES` is the whole mapping: event type -> a function of the payload. A new event
type gets one row here (and one case in the unit test); until it has one, `describe`
falls back to a clean "Type: key value, key value" line, never a Python or JSON repr.
`detail_lines` flattens a payload into "key: value" lines for the page's "Technical
details" toggle (``seconds.embed: 0.55 s``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

from service.web.humanize import plural, split_pointer

__all__ = ["SENTENCES", "describe", "detail_lines", "plain_value"]

Payload = Mapping[str, Any]
Sentence = Callable[[Payload], str]

PALACE_KINDS = ("wing", "room", "closet", "drawer", "conversation")
"""What the trash moves (`domain.trash_rows.TRASHABLE`); each has a deleted and a restored event."""
GRAPH_COUNTS = (("entities", "entity"), ("relations", "fact"))
SHORTEST_SHOWN_S = 0.1
"""Durations are shown to a tenth of a second; a shorter run reads "in under 0.1 s", not "in 0.0 s"."""
PURGED_COUNTS = (("conversations", "conversation"), ("drawers", "drawer"), ("entities", "entity"))


def _quote(value: Any) -> str:
    return f"“{value}”"


def _count(p: Payload, key: str) -> int:
    value = p.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _counts(p: Payload, pairs: tuple[tuple[str, str], ...]) -> list[str]:
    return [plural(_count(p, key), noun) for key, noun in pairs if _count(p, key)]


def _and(parts: list[str]) -> str:
    """ "a", "a and b", "a, b and c"."""
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def _mined(p: Payload) -> str:
    conversation = p.get("external_id") or p.get("conversation_id")
    text = "Mined the conversation " + _quote(conversation) if conversation else "Mined a conversation"
    turns = f" ({plural(_count(p, 'turns'), 'turn')})" if "turns" in p else ""
    found = _counts(p, GRAPH_COUNTS)
    text += f"{turns} into {_and([plural(_count(p, 'drawers'), 'drawer'), *found])}"
    duration = p.get("duration_s")
    if isinstance(duration, int | float) and not isinstance(duration, bool):
        text += f" in {duration:.1f} s" if duration >= SHORTEST_SHOWN_S else f" in under {SHORTEST_SHOWN_S} s"
    if p.get("embedding_error"):
        text += "; embedding failed, so they are found by keyword until re-embedded"
    return text


def _deleted(kind: str) -> Sentence:
    def sentence(p: Payload) -> str:
        pointer, label = split_pointer(str(p.get("label") or ""))
        text = f"Deleted the {kind} {_quote(label)}" if label and pointer is None else f"Deleted a {kind}"
        n = _count(p, "drawers")
        return text + (f" with {plural(n, 'drawer')}" if kind != "drawer" and n else "")

    return sentence


def _restored(kind: str) -> Sentence:
    def sentence(p: Payload) -> str:
        n = _count(p, "drawers")
        return f"Restored a {kind} from the trash" + (f" with {plural(n, 'drawer')}" if kind != "drawer" and n else "")

    return sentence


def _purged(p: Payload) -> str:
    what = str(p.get("what") or "")
    counts = _counts(p, PURGED_COUNTS)
    removed = _and(counts) if counts else "nothing"
    if what == "trash":
        return f"Emptied the trash: {removed} removed for good"
    if what == "expired":
        return f"Cleared old items out of the trash: {removed} removed for good"
    if what == "memory":  # `domain.memory_purge`: counts only, the words are gone
        versions = _count(p, "versions")
        return "Deleted a memory for good" + (f" ({plural(versions, 'version')})" if versions else "")
    return f"Removed a {what or 'item'} for good ({removed})"


def _imported(p: Payload) -> str:
    counts = _counts(p, (("conversations", "conversation"), ("drawers", "drawer"), *GRAPH_COUNTS))
    return f"Imported {_and(counts)}" if counts else "Imported a file with nothing new in it"


def _settings(p: Payload) -> str:
    fields = p.get("fields")
    names = [str(f) for f in fields] if isinstance(fields, list) else []
    return f"Changed settings: {', '.join(names)}" if names else "Saved settings (nothing changed)"


def _agent(p: Payload) -> str:
    state = "on" if p.get("recall_enabled") else "off"
    return f"Turned recall {state} for the agent {_quote(p.get('agent') or '?')}"


def _access(p: Payload) -> str:
    if p.get("agent"):
        return f"Changed what the agent {_quote(p['agent'])} may see"
    agents = p.get("agents")
    names = [_quote(str(a)) for a in agents] if isinstance(agents, list) else []
    return "Replaced the agent access settings" + (f" ({', '.join(names)})" if names else "")


def _mining_failed(p: Payload) -> str:
    attempts = _count(p, "attempts")
    tries = f" after {plural(attempts, 'attempt')}" if attempts else ""
    reason = f" ({p['reason']})" if p.get("reason") else ""
    return f"The conversation {_quote(p.get('conversation') or '?')} was not mined: mining failed{tries}{reason}"


SENTENCES: dict[str, Sentence] = {
    "memory_mined": _mined,
    "memory_imported": _imported,
    "mining_failed": _mining_failed,
    "purged": _purged,
    "settings_changed": _settings,
    "agent_changed": _agent,
    "agent_access_changed": _access,
    **{f"{kind}_deleted": _deleted(kind) for kind in PALACE_KINDS},
    **{f"{kind}_restored": _restored(kind) for kind in PALACE_KINDS},
}


def plain_value(value: Any) -> str:
    """A payload value as a person reads it: lists joined, yes/no, short numbers."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.3g}"
    if isinstance(value, list | tuple):
        return ", ".join(plain_value(v) for v in value) or "none"
    if isinstance(value, Mapping):
        return ", ".join(f"{k} {plain_value(v)}" for k, v in value.items()) or "none"
    return str(value)


def _type_words(kind: str) -> str:
    words = kind.replace("_", " ").strip()
    return words[:1].upper() + words[1:]


def describe(kind: str, payload: Payload | None) -> str:
    """The sentence for one event; an unknown type reads "Type words: key value, key value"."""
    p = payload if isinstance(payload, Mapping) else {}
    sentence = SENTENCES.get(kind)
    if sentence is not None:
        return sentence(p)
    pairs = ", ".join(f"{key.replace('_', ' ')} {plain_value(value)}" for key, value in sorted(p.items()))
    return f"{_type_words(kind)}: {pairs}" if pairs else _type_words(kind)


def _flatten(prefix: str, value: Any) -> Iterator[tuple[str, str]]:
    if isinstance(value, Mapping) and value:
        for key in sorted(value):
            yield from _flatten(f"{prefix}.{key}" if prefix else str(key), value[key])
    else:
        yield prefix, plain_value(value)


def detail_lines(kind: str, payload: Payload | None) -> list[tuple[str, str]]:
    """(key, value) lines for "Technical details": the event type, then every payload field, nested keys dotted."""
    p = payload if isinstance(payload, Mapping) else {}
    return [("type", kind), *_flatten("", p)] if p else [("type", kind)]
