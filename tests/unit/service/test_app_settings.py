"""Settings the app checks when it is built, so a bad value stops start-up in one line."""

from __future__ import annotations

import pytest

from loci.errors import ConfigurationError
from loci.settings import load_settings
from service.app import build_state


def test_an_unknown_default_preset_stops_start_up_naming_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    """Else the server starts and every recall that names no preset is a 400 on a `preset` nobody sent."""
    monkeypatch.setenv("LOCI_RETRIEVAL_PRESET", "bogus")
    monkeypatch.setenv("DATABASE_URL", "postgresql://loci@127.0.0.1:1/loci")
    with pytest.raises(ConfigurationError, match=r"^invalid setting LOCI_RETRIEVAL_PRESET: unknown preset 'bogus'"):
        build_state(load_settings())


def test_a_known_default_preset_builds(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LOCI_RETRIEVAL_PRESET", "keyword-only")
    monkeypatch.setenv("DATABASE_URL", "postgresql://loci@127.0.0.1:1/loci")
    assert build_state(load_settings()).settings.retrieval.preset == "keyword-only"
