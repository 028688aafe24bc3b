"""Settings fail with one line naming the variable; AAAK pointers round-trip."""

from __future__ import annotations

import pytest

from loci.aaak import AaakPointer, format_pointer, parse_pointer
from loci.errors import ConfigurationError, InvalidInput
from loci.settings import load_settings


@pytest.mark.parametrize(
    ("env", "value", "named"),
    [
        ("LOCI_PORT", "eighty", "LOCI_PORT"),
        ("LOCI_LLM_BASE_URL", "ftp://x", "LOCI_LLM_BASE_URL"),
        ("LOCI_EMBEDDING_BATCH_SIZE", "0", "LOCI_EMBEDDING_BATCH_SIZE"),
        ("LOCI_MINING_EXTRACTOR", "magic", "LOCI_MINING_EXTRACTOR"),
        ("LOCI_LLM_PRICES", "not json", "LOCI_LLM_PRICES"),
    ],
)
def test_bad_setting_names_the_variable(monkeypatch: pytest.MonkeyPatch, env: str, value: str, named: str) -> None:
    monkeypatch.setenv(env, value)
    with pytest.raises(ConfigurationError) as err:
        load_settings()
    message = str(err.value)
    assert named in message
    assert "\n" not in message


def test_database_and_redis_urls_from_standard_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DATABASE_URL", "postgresql://u@h/db")
    monkeypatch.setenv("REDIS_URL", "redis://h:1/0")
    monkeypatch.setenv("LOCI_LLM_PRICES", '{"m": [0.15, 0.6]}')
    settings = load_settings()
    assert settings.database.url == "postgresql://u@h/db"
    assert settings.queue.url == "redis://h:1/0"
    assert settings.llm.prices == {"m": (0.15, 0.6)}


def test_dotenv_file_is_read(monkeypatch: pytest.MonkeyPatch, tmp_path: pytest.TempPathFactory) -> None:
    monkeypatch.chdir(tmp_path)  # type: ignore[arg-type]
    (tmp_path / ".env").write_text("LOCI_PORT=9999\n")  # type: ignore[operator]
    assert load_settings().server.port == 9999


def test_aaak_pointer_round_trip() -> None:
    text = format_pointer(42, 11, 7)
    assert text == "§ W-042/R-11/D-007"
    assert parse_pointer(text) == AaakPointer(42, 11, 7)
    assert str(parse_pointer("W-1/R-2/D-3")) == "§ W-001/R-02/D-003"
    with pytest.raises(InvalidInput):
        parse_pointer("W-1/R-2")
