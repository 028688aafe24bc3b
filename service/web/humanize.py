"""Plain-language text for the /memory page: counts, dates, names a person reads.

The page is for people, so nothing here returns a database value as it is stored: a
count comes with its noun in the right number, a date reads "12 March 2026", a time
outside the years the service accepts (a sentinel such as 0001-01-01 written before
the input checks existed) reads as unknown instead of "1-01-01", and an AAAK pointer
is split off a label so the templates can put it behind "Technical details".

Dates and times are read on the page's clock, passed in by value as ``zone``: the user's own
zone (``memory_settings.time_zone``) when one is set, None otherwise, which reads UTC (and
a room on its sender's day, as its label names it). The page's filters pass it from the
handler's context (`service.web.on_page_clock`); nothing here reads a setting.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, tzinfo
from zoneinfo import ZoneInfo

from markupsafe import Markup

import retrieval
from loci.timexpr import MAX_YEAR, MIN_YEAR
from loci.zones import readable_name

__all__ = [
    "DATE_UNKNOWN",
    "ENTITY_KINDS",
    "ROLES",
    "bdi",
    "date_span",
    "entity_kind",
    "human_date",
    "human_datetime",
    "isolated",
    "known",
    "on_clock",
    "plural",
    "plural_word",
    "role_label",
    "room_date",
    "room_day",
    "room_name",
    "room_span",
    "speaker_label",
    "split_pointer",
    "visible",
    "zone_name",
]

DATE_UNKNOWN = "date unknown"
IRREGULAR = {"person": "people", "child": "children"}
"""Nouns whose plural no spelling rule gives."""
ROLES = {"user": "You", "assistant": "Assistant", "system": "System", "tool": "Tool", "other": "Someone else"}
"""Who spoke a drawer's words, as the page names them."""
ENTITY_KINDS = {"p": "person", "l": "place", "o": "organisation", "e": "event", "i": "thing", "t": "time"}
"""The knowledge graph's one-letter entity kinds (`loci.models.ENTITY_KINDS` order), in words."""

_POINTER = re.compile(r"^(§\s*W-\d+/R-\d+/D-\d+)(?::\s*|\s+|$)")
_ROOM_DAY = re.compile(r"^(\d{4}-\d{2}-\d{2}) · ")
"""Mining names a room "2026-03-12 · topic" (the day on the sender's clock, `ingest.plan.day_key`);
the page shows the day as a date already."""


def visible(value: object) -> str:
    """``value`` as text without the characters `retrieval.visible` drops (bidi overrides and
    isolates, zero-width and tag characters): the filter for stored text the page only shows.

    The block a model reads drops them (`retrieval.plain`), so shown as stored, "pay \\u202eevil"
    read "pay live" to a reviewer while the model read "pay evil": the page must show what the
    model reads. Not for an edit form's value, which must give back exactly what is stored, and
    not a global ``finalize`` (the titles' own isolate marks, `isolated`, would go too). Text
    already marked safe stays so: dropping characters from escaped HTML makes no tag."""
    if isinstance(value, Markup):
        return Markup(retrieval.visible(str(value)))
    return retrieval.visible(value if isinstance(value, str) else str(value))


def plural_word(n: int, singular: str) -> str:
    """``singular`` or its plural, as ``n`` needs ("entity" -> "entities", "box" -> "boxes")."""
    if n == 1:
        return singular
    if singular in IRREGULAR:
        return IRREGULAR[singular]
    if singular.endswith("y") and singular[-2:-1] not in ("a", "e", "i", "o", "u"):
        return singular[:-1] + "ies"
    if singular.endswith(("s", "x", "z", "ch", "sh")):
        return singular + "es"
    return singular + "s"


def plural(n: int | None, singular: str) -> str:
    """The one way the page counts things: "1 room", "2 rooms", "0 drawers"."""
    count = int(n or 0)
    return f"{count:,} {plural_word(count, singular)}"


def known(when: datetime | None) -> bool:
    """Whether ``when`` is a real date: present and within the years the service accepts."""
    return when is not None and MIN_YEAR <= when.astimezone(UTC).year <= MAX_YEAR


def on_clock(when: datetime, zone: tzinfo | None) -> datetime:
    """``when`` on the page's clock: in ``zone``, UTC for None."""
    return when.astimezone(zone or UTC)


def zone_name(zone: tzinfo | None) -> str:
    """The clock's name as the page says it: "America/New_York", "UTC" for None, "UTC-05:00"
    for ``Etc/GMT+5`` (`loci.zones.readable_name`)."""
    if zone is None:
        return "UTC"
    return readable_name(zone) if isinstance(zone, ZoneInfo) else str(zone)


def human_date(when: datetime | None, unknown: str = "", zone: tzinfo | None = None) -> str:
    """ "12 March 2026" on ``zone``'s clock (UTC for None), or ``unknown`` for a missing or
    sentinel date."""
    if when is None or not known(when):
        return unknown
    return _day_words(on_clock(when, zone).date())


def _day_words(day: date) -> str:
    return f"{day.day} {day:%B %Y}"


def human_datetime(when: datetime | None, unknown: str = DATE_UNKNOWN, zone: tzinfo | None = None) -> str:
    """ "12 March 2026, 09:03 UTC", or on a zone's clock "28 February 2026, 22:30 EST" (its
    abbreviation at that instant, so daylight saving shows), or ``unknown``."""
    if when is None or not known(when):
        return unknown
    local = on_clock(when, zone)
    return f"{_day_words(local.date())}, {local:%H:%M} {local.tzname() or 'UTC'}"


def date_span(first: datetime | None, last: datetime | None, zone: tzinfo | None = None) -> str:
    """The dates a container's drawers span on ``zone``'s clock (UTC for None), as short as
    reads clearly; "" when unknown.

    "12 March 2026", "12–13 March 2026", "28 February – 2 March 2026",
    "30 December 2025 – 2 January 2026". A sentinel end is left out, not printed.
    """
    a = on_clock(first, zone) if first is not None and known(first) else None
    b = on_clock(last, zone) if last is not None and known(last) else None
    if a is None or b is None:
        return human_date(a or b, zone=zone)
    first_day, last_day = _day_words(a.date()), _day_words(b.date())
    if a.date() == b.date():
        return first_day
    if (a.year, a.month) == (b.year, b.month):
        return f"{a.day}–{last_day}"
    if a.year == b.year:
        return f"{a.day} {a:%B} – {last_day}"
    return f"{first_day} – {last_day}"


def split_pointer(label: str) -> tuple[str | None, str]:
    """(AAAK pointer or None, the rest) of a label such as "§ W-001/R-02/D-003: the words"."""
    match = _POINTER.match(label)
    if match is None:
        return None, label
    return match.group(1), label[match.end() :]


def room_name(label: str) -> str:
    """A room's label without the ISO day mining prefixes (the page shows dates itself)."""
    return _ROOM_DAY.sub("", label, count=1) or label


def room_day(label: str) -> date | None:
    """The day a room's label names ("2024-04-07 · ferry"), None when it names none (or no real one).

    Mining makes one room per day on the sender's clock and writes that day into the label; the
    row's times are instants (``timestamptz`` keeps no offset), so the label is the one place the
    sender's day is kept. Two Auckland rooms, 6 and 7 April (+13:00, then +12:00), both begin
    on 6 April in UTC."""
    match = _ROOM_DAY.match(label)
    if match is None:
        return None
    try:
        day = date.fromisoformat(match.group(1))
    except ValueError:
        return None
    return day if MIN_YEAR <= day.year <= MAX_YEAR else None


def room_date(label: str, started: datetime | None, zone: tzinfo | None = None) -> str:
    """ "7 April 2024": a room's start on the user's clock when they set a ``zone``; without one,
    its day on its sender's clock (`room_day`), else its start's UTC day."""
    day = room_day(label) if zone is None or not known(started) else None
    return _day_words(day) if day is not None else human_date(started, zone=zone)


def room_span(label: str, first: datetime | None, last: datetime | None, zone: tzinfo | None = None) -> str:
    """A room's line in the tree: the `date_span` of its drawers on the user's clock when they set
    a ``zone``; without one, its sender's day (`room_day`; a room holds one day), else the UTC
    `date_span` of its drawers (a label with no day: an old import, say). The label itself is
    mining's and stays as stored (`room_name` only drops its day)."""
    day = room_day(label) if zone is None or not (known(first) or known(last)) else None
    return _day_words(day) if day is not None else date_span(first, last, zone)


OWN = " (you)"
"""After the user's own name on a turn they wrote: a group chat may hold another person of that
name ("Sam" the user, "Sam" from design), and the page said "Sam said" for both."""


def role_label(role: str | None, speaker: str | None = None) -> str:
    """ "You", "Assistant", …: who said a drawer's words; their name when the turn gave one,
    marked as the user's own (`OWN`) on the user's turns."""
    if speaker:
        return speaker + OWN if role == "user" else speaker
    if not role:
        return ""
    return ROLES.get(role, role.replace("_", " ").capitalize())


def entity_kind(kind: str | None) -> str:
    """ "person", "place", …: an entity's one-letter kind in words."""
    if not kind:
        return ""
    return ENTITY_KINDS.get(kind, kind)


def bdi(label: object) -> Markup:
    """``label`` (escaped, `visible`) in ``<bdi>``, the HTML element that isolates its direction.

    A name is the user's: a speaker, wing or entity named with U+202E (RIGHT-TO-LEFT OVERRIDE)
    reversed what followed it on the line ("· 12 March" read backwards), since an override runs
    to the end of its paragraph whatever element holds it. Inside ``<bdi>`` it ends with the name;
    the override itself goes (`visible`), as in the block a model reads, so the name does not
    read backwards either."""
    return Markup("<bdi>{}</bdi>").format(visible(label))


def isolated(label: str) -> str:
    """``label`` between U+2068 and U+2069 (first-strong isolate, pop directional isolate): the
    plain-text `bdi`, for a ``<title>`` or attribute, where no element can go. The label's own
    bidi controls go first (`visible`): a U+2069 in it would close the isolate early and let an
    override after it run to the end of the title."""
    return f"\u2068{visible(label)}\u2069"


def speaker_label(role: str | None, speaker: str | None = None) -> Markup:
    """`role_label` for a line of the page: a speaker's name is the user's, so it is isolated
    (`bdi`); the service's own words ("You", "Assistant", `OWN`) need not be."""
    if not speaker:
        return Markup("{}").format(role_label(role))
    return bdi(speaker) + (OWN if role == "user" else "")
