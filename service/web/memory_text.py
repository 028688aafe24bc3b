"""Plain words for explicit memories on the /memory page: who saved one, how sure, why it
ended, and one sentence per history event.

The page is for the person the memories are about, so it never shows a stored code
("extracted", "agent:support-bot", "decay"): each has a row in a table here, and
`event_sentence` turns a history event into "Updated from “A” to “B” on 12 March 2026".
A new event type gets one row in `EVENT_SENTENCES` (and a case in the unit test).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime, tzinfo
from urllib.parse import urlencode

from domain.memory_dto import HistoryOut, MemoryOut
from service.web.humanize import human_date, plural

__all__ = [
    "CONFIDENCE_WORDS",
    "END_REASONS",
    "EVENT_SENTENCES",
    "FLASH",
    "IMPORTANCE_WORDS",
    "KIND_WORDS",
    "LAYER_LABELS",
    "LAYER_NOTES",
    "SOURCE_LABELS",
    "TIME_RAN_OUT",
    "actor_words",
    "by_category",
    "category_title",
    "confidence_words",
    "ended_words",
    "event_sentence",
    "expiry_words",
    "flash_url",
    "importance_words",
    "layer_note",
    "origin",
    "profile_chars",
]

CONFIDENCE_WORDS = ((0.9, "almost certain"), (0.7, "likely"), (0.5, "possibly"), (0.0, "unsure"))
"""How sure an extracted memory is, in words: the first floor its confidence reaches. 0.7 is
also the default floor of the session-start block, so "likely" and up is what an assistant
is shown at start."""
IMPORTANCE_WORDS = {1: "trivia", 2: "minor", 4: "important", 5: "essential"}
"""Importance 1-5 in words; 3, the default, says nothing worth showing."""
LAYER_LABELS = {"core": "Profile (always shown)", "knowledge": "Knowledge", "archive": "Archived summaries"}
"""The kind filter's options (`loci.models.MEMORY_LAYERS`)."""
LAYER_NOTES = {"core": "in your profile", "archive": "archived summary"}
SOURCE_LABELS = {"user": "You", "agent": "Agents", "extracted": "Learned from conversations"}
"""The source filter's options (`loci.models.MEMORY_SOURCES`)."""
END_REASONS = {
    "update": "Updated",
    "forget": "Forgotten",
    "undo": "Undone",
    "merge": "Merged into another memory",
    "decay": "Faded (not used for a long time)",
    "expire": "Moved to the trash: not recalled for a long time",
    "trash": "In the trash with the conversation it was learned from",
}
KIND_WORDS = {
    "durable": "lasting",
    "contextual": "for now (about a week)",
    "temporary": "for the moment (a day)",
    "deadline": "until its date",
}
"""How long a memory holds (`loci.models.MEMORY_KINDS`), as a person says it."""
TIME_RAN_OUT = "Moved to the trash: its time ran out"
"""Why a version ended by its kind's time (`domain.memory_ttl`) did."""
"""Why a version ended (`loci.models.MEMORY_END_REASONS`)."""
FLASH = {
    "add": "Memory saved",
    "update": "Memory updated",
    "forget": "Memory forgotten",
    "confirm": "Marked as still true",
    "restore": "Memory restored",
    "undo": "Undone",
    "unchanged": "Nothing changed",
    "purge": "Memory deleted for good",
}
"""The line shown after a write from the page (the event name travels in ``?done=``)."""
CHANGED_WORDS = {
    "content": "wording", "summary": "summary", "body": "details", "pinned": "pin", "layer": "place",
    "category": "category", "importance": "importance", "tags": "tags", "kind": "how long it holds",
}  # fmt: skip
"""What a person edits, in their words (the edit form's "How long it holds" for ``kind``). An
update's ``changed`` lists every field that differs (`loci.memory_writes.changed_fields`), the
API's record of it; the page leaves out what follows from a write rather than being done by its
author (``source`` becoming the writer's, ``confidence`` dropped with it, ``agent_id``), so a pin
reads "Changed the pin", not a list of stored columns."""
UNDONE_WORDS = {
    "add": "saving it",
    "update": "the update",
    "forget": "forgetting it",
    "confirm": "the confirmation",
    "restore": "the restore",
    "link": "a link",
    "unlink": "removing a link",
}


def _quote(text: str) -> str:
    return f"“{text}”"


def category_title(category: str) -> str:
    """ "response_style" -> "Response style" (as the profile's headings)."""
    return category.replace("_", " ").capitalize()


def origin(m: MemoryOut) -> str:
    """Where it came from: "Saved by you", "Saved by agent “support-bot”", or "Learned from
    a conversation (likely, 80%)" with how sure the extraction was."""
    if m.source == "extracted":
        sure = confidence_words(m.confidence)
        return "Learned from a conversation" + (f" ({sure})" if sure else "")
    if m.source == "agent":
        return f"Saved by agent {_quote(m.agent_id)}" if m.agent_id else "Saved by an agent"
    return "Saved by you"


def layer_note(layer: str) -> str:
    """What a memory's layer means for it, in the list's meta line ("" for plain knowledge)."""
    return LAYER_NOTES.get(layer, "")


def confidence_words(confidence: float | None) -> str:
    """ "likely, 80%": how sure an extracted memory is; "" for an explicit one."""
    if confidence is None:
        return ""
    word = next(w for floor, w in CONFIDENCE_WORDS if confidence >= floor)
    return f"{word}, {round(confidence * 100)}%"


def importance_words(importance: int) -> str:
    return IMPORTANCE_WORDS.get(importance, "")


def ended_words(m: MemoryOut, zone: tzinfo | None = None) -> str:
    """ "Forgotten on 12 March 2026" (the day on ``zone``'s clock, `human_date`); "" for an active version."""
    if m.valid_until is None:
        return ""
    reason = END_REASONS.get(m.end_reason or "", "Ended")
    if m.end_reason == "expire" and m.expires_at is not None and m.expires_at <= m.valid_until:
        reason = TIME_RAN_OUT
    return f"{reason} on {human_date(m.valid_until, unknown='an unknown date', zone=zone)}"


def _span_words(seconds: float) -> str:
    """ "6 days", "5 hours", "20 minutes": the largest unit that reads naturally, rounded."""
    hours = seconds / 3600
    if hours >= 36:
        return plural(round(hours / 24), "day")
    if seconds >= 3600:
        return plural(round(hours), "hour")
    return plural(max(1, round(seconds / 60)), "minute")


def expiry_words(m: MemoryOut, now: datetime | None = None) -> str:
    """ "lasting · never expires", "for now (about a week) · expires in 6 days", or for one
    past its time "… · expired 2 hours ago" (it has left recall; the daily sweep moves it to the trash).
    A length of time from now, not a date, so it reads the same on every clock."""
    kind = KIND_WORDS.get(m.kind, m.kind)
    if m.expires_at is None:
        return f"{kind} · never expires"
    left = (m.expires_at - (now or datetime.now(UTC))).total_seconds()
    if left > 0:
        return f"{kind} · expires in {_span_words(left)}"
    return f"{kind} · expired {_span_words(-left)} ago"


def actor_words(actor: str) -> str:
    """A history actor: "you", "agent “support-bot”", "Loci"."""
    if actor == "user":
        return "you"
    if actor.startswith("agent:"):
        return f"agent {_quote(actor.removeprefix('agent:'))}"
    return "Loci"


def by_category(items: Iterable[MemoryOut], categories: Iterable[str]) -> list[tuple[str, list[MemoryOut]]]:
    """Memories grouped by category, in the configured order (others after, by name)."""
    configured = tuple(categories)
    groups: dict[str, list[MemoryOut]] = {}
    for m in items:
        groups.setdefault(m.category, []).append(m)
    order = [c for c in configured if c in groups] + sorted(c for c in groups if c not in configured)
    return [(c, groups[c]) for c in order]


def profile_chars(markdown: str) -> int:
    """Characters of content in a profile document: each ``- ``/``* `` bullet's text, trimmed,
    as `domain.memory_profile` measures it against the limit. The page's live counter
    (profile.html) counts the same way, so the number shown after a submit without
    JavaScript and the one shown while typing agree."""
    total = 0
    for raw in markdown.splitlines():
        line = raw.strip()
        if line[:2] in ("- ", "* "):
            total += len(line[2:].strip())
    return total


def flash_url(back: str, event: str, event_id: int | None) -> str:
    """``back`` with the flash of a write (``done``, and ``event`` when it can be undone)."""
    params: dict[str, str | int] = {"done": event}
    if event_id is not None:
        params["event"] = event_id
    return back + ("&" if "?" in back else "?") + urlencode(params)


Versions = Mapping[int, MemoryOut]
EventSentence = Callable[[HistoryOut, Versions, str], str]


def _content(versions: Versions, memory_id: int | None) -> str | None:
    found = versions.get(memory_id) if memory_id is not None else None
    return found.content if found is not None else None


def _add(h: HistoryOut, _: Versions, on: str) -> str:
    if h.actor == "user":
        return f"You saved this on {on}"
    if h.actor.startswith("agent:"):
        return f"{actor_words(h.actor).capitalize()} saved this on {on}"
    return f"Learned from a conversation on {on}"


def _update(h: HistoryOut, versions: Versions, on: str) -> str:
    old, new = _content(versions, h.old_id), _content(versions, h.new_id)
    changed = h.meta.get("changed")
    fields = [str(f) for f in changed] if isinstance(changed, list) else []
    if old is not None and new is not None and old != new:
        return f"Updated from {_quote(old)} to {_quote(new)} on {on}"
    if words := _changed_words(fields):
        return f"Changed {words} on {on}"
    return f"Updated on {on}"


def _changed_words(fields: list[str]) -> str:
    """ "the pin, tags and how long it holds": the fields a person edits (`CHANGED_WORDS`), one
    "the" for the nouns, the kind's phrase last; "" when none of them changed."""
    nouns = [CHANGED_WORDS[f] for f in fields if f in CHANGED_WORDS and f != "kind"]
    words = [f"the {nouns[0]}", *nouns[1:]] if nouns else []
    if "kind" in fields:
        words.append(CHANGED_WORDS["kind"])
    if len(words) < 2:
        return "".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]


def _forget(h: HistoryOut, _: Versions, on: str) -> str:
    reason = h.meta.get("reason")
    return f"Forgotten on {on}" + (f" ({_quote(str(reason))})" if reason else "")


def _undo(h: HistoryOut, versions: Versions, on: str) -> str:
    undone = str(h.meta.get("undone") or "")
    text = f"Undid {UNDONE_WORDS.get(undone, 'a change')} on {on}"
    again = _content(versions, h.new_id)
    if undone == "update" and again is not None:
        text += f": it says {_quote(again)} again"
    return text


def _relation(h: HistoryOut) -> str:
    relation = h.meta.get("relation")
    return f" ({str(relation).replace('_', ' ')})" if relation else ""


def _decay(h: HistoryOut, _v: Versions, on: str) -> str:
    before, after = h.meta.get("from"), h.meta.get("to")
    if isinstance(before, int | float) and isinstance(after, int | float):
        return f"Confidence faded from {before:.0%} to {after:.0%} on {on}: not confirmed since"
    return f"Faded on {on}: not recalled or confirmed for a long time"


def _confirm(h: HistoryOut, _v: Versions, on: str) -> str:
    """A confirmed extracted memory also got its confidence back: say from what to what."""
    text = f"Confirmed as still true on {on}"
    was, now = h.meta.get("previous_confidence"), h.meta.get("confidence")
    if isinstance(was, int | float) and isinstance(now, int | float) and now > was:
        text += f" (sure again: {was:.0%} → {now:.0%})"
    return text


def _skip(h: HistoryOut, _v: Versions, on: str) -> str:
    wanted = h.meta.get("candidate")
    said = f" {_quote(str(wanted))}" if wanted else " something else"
    return f"Left as you saved it on {on}: a conversation seemed to say{said}"


def _expire(h: HistoryOut, _v: Versions, on: str) -> str:
    if h.meta.get("reason") == "ttl":  # `domain.memory_ttl`
        kind = KIND_WORDS.get(str(h.meta.get("kind")), "its time")
        return f"{TIME_RAN_OUT} on {on} (it was kept {kind})"
    return f"Moved to the trash on {on}: not recalled for a long time"


EVENT_SENTENCES: dict[str, EventSentence] = {
    "add": _add,
    "update": _update,
    "forget": _forget,
    "confirm": _confirm,
    "restore": lambda _h, _v, on: f"Restored on {on}",
    "undo": _undo,
    "link": lambda h, _v, on: f"Linked to another memory{_relation(h)} on {on}",
    "unlink": lambda h, _v, on: f"Unlinked from another memory{_relation(h)} on {on}",
    "decay": _decay,
    "skip": _skip,
    "expire": _expire,
    "merge": lambda _h, _v, on: f"Merged with another memory on {on}",
    "purge": lambda _h, _v, on: f"Removed for good on {on}",
    "propose": lambda h, _v, on: (
        f"A conversation on {on} suggested {_quote(str(h.meta.get('candidate', '')))}: waiting for your approval"
    ),
    "approve": lambda h, _v, on: f"You approved {_quote(str(h.meta.get('candidate', '')))} on {on}",
    "reject": lambda h, _v, on: f"You rejected {_quote(str(h.meta.get('candidate', '')))} on {on}",
    "lapse": lambda h, _v, on: f"The suggestion {_quote(str(h.meta.get('candidate', '')))} lapsed on {on}, unanswered",
}
"""One sentence per history event (`loci.models.MEMORY_EVENTS`)."""


def event_sentence(h: HistoryOut, versions: Versions, zone: tzinfo | None = None) -> str:
    """The event as a sentence, dated on ``zone``'s clock (`human_date`); an agent's write
    (other than a save) says which agent."""
    on = human_date(h.created_at, unknown="an unknown date", zone=zone)
    sentence = EVENT_SENTENCES.get(h.event)
    text = sentence(h, versions, on) if sentence else f"{h.event.capitalize()} on {on}"
    if h.event != "add" and h.actor.startswith("agent:"):
        text += f", by {actor_words(h.actor)}"
    return text
