"""Odd values an operator may set are refused at start-up with one line naming the variable.

Each of these was accepted and then failed later, or was refused for the wrong reason:
``nan`` was told "should be less than or equal to 600" and ``inf`` passed where a field had no
upper bound; ``LOCI_EMBEDDING_DEVICE=gpu`` failed inside torch at start-up, blamed on
LOCI_EMBEDDING_MODEL; a statement timeout over PostgreSQL's largest made every connection
fail (every request a 503); ``LOCI_DB_APP_ROLE`` went into ``SET ROLE "..."`` as written (a
quote in it was a 500 on every request); ``LOCI_LLM_BASE_URL=http://`` passed with no host.
"""

from __future__ import annotations

import pytest

from loci.errors import ConfigurationError
from loci.settings import load_settings


@pytest.mark.parametrize(
    ("env", "value", "says"),
    [
        ("LOCI_LLM_TIMEOUT_S", "nan", "finite number"),
        ("LOCI_MEMORY_DECAY_HALF_LIFE_DAYS", "inf", "finite number"),
        ("LOCI_RETRIEVAL_CACHE_TTL_S", "nan", "finite number"),
        ("LOCI_EMBEDDING_DEVICE", "gpu", "pattern"),
        ("LOCI_DB_STATEMENT_TIMEOUT_MS", "3000000000", "2147483647"),
        ("LOCI_DB_APP_ROLE", 'x"; drop table users; --', "pattern"),
        ("LOCI_DB_APP_ROLE", "loci_app ", "pattern"),  # no such role: it failed only at the first connect
        ("LOCI_LLM_BASE_URL", "http://", "a host"),
        ("LOCI_LLM_BASE_URL", "https:///v1", "a host"),
    ],
)
def test_an_odd_value_is_refused_naming_the_variable(
    monkeypatch: pytest.MonkeyPatch, env: str, value: str, says: str
) -> None:
    monkeypatch.setenv(env, value)
    with pytest.raises(ConfigurationError) as refused:
        load_settings()
    message = str(refused.value)
    assert message.startswith(f"invalid setting {env}: "), message
    assert says in message and "\n" not in message, message


@pytest.mark.parametrize(
    ("env", "value"),
    [
        ("LOCI_EMBEDDING_DEVICE", "cuda:1"),
        ("LOCI_EMBEDDING_DEVICE", "mps"),
        ("LOCI_DB_STATEMENT_TIMEOUT_MS", "0"),
        ("LOCI_DB_APP_ROLE", "loci_app2"),
        ("LOCI_DB_APP_ROLE", "Loci-App"),  # quoted in SET ROLE, so case and hyphens are fine
        ("LOCI_EMBEDDING_DEVICE", "hpu"),
        ("LOCI_LLM_BASE_URL", "http://localhost:11434/v1/"),
    ],
)
def test_the_values_people_use_still_pass(monkeypatch: pytest.MonkeyPatch, env: str, value: str) -> None:
    monkeypatch.setenv(env, value)
    load_settings()
