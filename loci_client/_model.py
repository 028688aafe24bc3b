"""The base of every response model."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

__all__ = ["Model"]


class Model(BaseModel):
    """Frozen (an answer is a value); fields the server adds later are ignored, so an older
    client keeps working against a newer server. tests/integration/test_client_schema.py
    checks every field name and its required-ness against the server's OpenAPI schema."""

    model_config = ConfigDict(frozen=True, extra="ignore")
