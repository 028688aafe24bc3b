"""`loci.zones`: which names are a user's time zone, and the clock they give."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest

from loci.errors import InvalidInput
from loci.zones import check_zone, on_clock, zone_of


@pytest.mark.parametrize("name", ["Asia/Tokyo", "UTC", "America/Argentina/ComodRivadavia", "Etc/GMT-9"])
def test_iana_names_pass_as_written(name: str) -> None:
    assert check_zone(name) == name


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("asia/tokyo", "did you mean Asia/Tokyo?"),  # refused, not silently recased
        ("Tokyo", "such as Asia/Tokyo"),
        ("localtime", "such as Asia/Tokyo"),  # a file of the zone directory: the machine's zone
        ("Factory", "such as Asia/Tokyo"),
        ("../../etc/passwd", "such as Asia/Tokyo"),
        ("", "such as Asia/Tokyo"),
        ("Europe/" + "x" * 100, "such as Asia/Tokyo"),
    ],
)
def test_other_names_are_refused_naming_the_field(name: str, words: str) -> None:
    with pytest.raises(InvalidInput) as e:
        check_zone(name, field="settings.time_zone")
    assert e.value.field == "settings.time_zone" and words in str(e.value)
    assert str(e.value).startswith("settings.time_zone must be an IANA time zone name")


def test_the_clock_is_the_same_instant_on_the_zones_days() -> None:
    instant = datetime(2024, 3, 11, 23, 0, tzinfo=UTC)  # 08:00 on 12 March in Tokyo
    tokyo = on_clock(instant, "Asia/Tokyo")
    assert tokyo == instant and tokyo.date().isoformat() == "2024-03-12"
    assert on_clock(instant, None) is instant  # no zone: UTC, as before the setting
    summer = on_clock(datetime(2024, 7, 1, 12, tzinfo=UTC), "Europe/Lisbon")
    assert summer.isoformat() == "2024-07-01T13:00:00+01:00"  # daylight saving, where an offset would be an hour off


def test_a_zone_this_machine_lacks_reads_as_utc() -> None:
    assert zone_of("Mars/Olympus_Mons") is UTC and zone_of(None) is UTC
    assert zone_of("Asia/Tokyo") == ZoneInfo("Asia/Tokyo")
