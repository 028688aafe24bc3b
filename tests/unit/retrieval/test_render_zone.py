"""The recall block on the user's own time zone: times on its clock, the zone named once."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from loci.settings import BUDGET_TOKENS_MIN
from retrieval.render import (
    CLOSE,
    COMPACT_ZONED_PREAMBLE,
    OPEN,
    PREAMBLE,
    ZONED_PREAMBLE,
    RenderItem,
    estimate_tokens,
    render_context,
)
from retrieval.request import RecalledDrawer, RecalledMemory

LATE = datetime(2026, 3, 1, 3, 30, tzinfo=UTC)
"""22:30 on 28 February in New York (EST, UTC-5)."""


def _item(i: int, at: datetime, content: str = "I repainted the shed teal.") -> RenderItem:
    drawer = RecalledDrawer(
        drawer_id=i, aaak=f"§ W-001/R-01/D-{i:03d}", wing="home", room_id=1, room_label="shed",
        conversation_external_id="c", turn_seq=i, part=0, role="user", content=content, occurred_at=at,
        ranks={"semantic": i}, score=1.0 / i,
    )  # fmt: skip
    return RenderItem(drawer, 1, "paint")


def _memory(said_at: datetime | None) -> RecalledMemory:
    return RecalledMemory(1, "knowledge", "preference", "Likes teal", "user", None, LATE, {}, 1.0, said_at=said_at)


def test_times_and_days_are_the_users_and_the_preamble_names_the_zone() -> None:
    block = render_context([_item(1, LATE)], 1500, memories=[_memory(None)], zone="America/New_York")
    assert block is not None
    lines = block.split("\n")
    assert lines[:2] == [OPEN, ZONED_PREAMBLE.format(zone="America/New_York")] and lines[-1] == CLOSE
    assert "• 2026-02-28 · preference · user: Likes teal" in lines  # the UTC day was 1 March
    assert "§ W-001/R-01/D-001 · 2026-02-28 22:30 · user: I repainted the shed teal." in lines
    summer = render_context([_item(1, datetime(2026, 7, 1, 3, 30, tzinfo=UTC))], 1500, zone="America/New_York")
    assert summer is not None and " · 2026-06-30 23:30 · " in summer  # EDT: the zone's rule, not a fixed offset


def test_without_a_zone_the_block_is_unchanged() -> None:
    items, memories = [_item(1, LATE)], [_memory(LATE - timedelta(days=1))]
    plain = render_context(items, 1500, memories=memories)
    assert plain is not None and plain.split("\n")[1] == PREAMBLE
    assert "• 2026-02-28 · " in plain and " · 2026-03-01 03:30 · " in plain
    assert render_context(items, 1500, memories=memories, zone=None) == plain
    # a zone this machine's database lacks reads as unset, as everywhere else (`loci.zones.zone_of`)
    assert render_context(items, 1500, memories=memories, zone="Mars/Olympus_Mons") == plain


def test_a_zone_keeps_the_order_and_the_budget() -> None:
    """Only how the instants read changes: the same drawers, in time order, within budget."""
    items = [_item(i, LATE + timedelta(hours=i - 3), f"turn {i} " + "word " * 40) for i in range(1, 6)]
    for budget in (150, 300, 1500):
        utc = render_context(items, budget, estimate_tokens)
        tokyo = render_context(items, budget, estimate_tokens, zone="Asia/Tokyo")
        assert utc is not None and tokyo is not None
        assert sum(estimate_tokens(tokyo.split("\n"))) <= budget
        shown = [line.split(" · ")[1] for line in tokyo.split("\n") if line.startswith("§")]
        assert shown == sorted(shown)  # from 2026-03-01 10:30 (Tokyo), chronological
        if budget == 1500:
            assert len(shown) == 5 and "§ W-001/R-01/D-003 · 2026-03-01 12:30 · user: turn 3" in tokyo


def test_the_zone_never_costs_the_only_item() -> None:
    """At every budget the API accepts up to 100 (from `BUDGET_TOKENS_MIN`, 64), a short and a long
    item: a block whenever the UTC block has one (sometimes where it has none: the compact preamble
    can cost less), its times on the clock its preamble names."""
    short, long = _item(1, LATE), _item(1, LATE, "We took the tram up the hill to the castle at dusk. " * 20)
    tiers = {"zoned": 0, "compact": 0, "utc": 0}
    zones = {"America/New_York": "America/New_York", "Asia/Tokyo": "Asia/Tokyo", "Etc/GMT+5": "UTC-05:00"}
    zones["America/Argentina/ComodRivadavia"] = "America/Argentina/ComodRivadavia"  # the longest name
    for item, (zone, name) in itertools.product((short, long), zones.items()):
        for budget in range(BUDGET_TOKENS_MIN, 101):
            utc, zoned = render_context([item], budget), render_context([item], budget, zone=zone)
            assert zoned is not None or utc is None, (zone, budget)
            if zoned is None:
                continue
            assert sum(estimate_tokens(zoned.split("\n"))) <= budget
            preamble, line = zoned.split("\n")[1], zoned.split("\n")[3]
            if preamble == PREAMBLE:  # too small even for the compact one: the block a user without a zone gets
                assert zoned == utc and " · 2026-03-01 03:30 · " in line
                tiers["utc"] += 1
                continue
            tier = "zoned" if preamble == ZONED_PREAMBLE.format(zone=name) else "compact"
            assert preamble == {"zoned": ZONED_PREAMBLE, "compact": COMPACT_ZONED_PREAMBLE}[tier].format(zone=name)
            assert f" · {LATE.astimezone(ZoneInfo(zone)):%Y-%m-%d %H:%M} · " in line  # the zone's clock
            tiers[tier] += 1
    assert all(tiers.values()), tiers  # each try is reached: the UTC one for the longest name


def test_a_posix_named_offset_reads_as_iso() -> None:
    """``Etc/GMT+5`` is UTC-5 (POSIX's sign); the preamble says so the way a model reads it."""
    for zone, name, time in (
        ("Etc/GMT+5", "UTC-05:00", "2026-02-28 22:30"),
        ("Etc/GMT-14", "UTC+14:00", "2026-03-01 17:30"),
        ("Etc/GMT-0", "UTC", "2026-03-01 03:30"),
    ):
        block = render_context([_item(1, LATE)], 1500, zone=zone)
        assert block is not None and zone not in block
        assert block.split("\n")[1] == ZONED_PREAMBLE.format(zone=name) and f" · {time} · " in block
