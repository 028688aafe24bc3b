"""Annotated field types carrying OpenAPI examples, shared by the domain DTOs (docs only).

They change no validation: `msgspec.Meta(examples=…)` only feeds the OpenAPI schema,
so the published docs show realistic values instead of "string".
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

import msgspec

__all__ = ["AAAK", "Content", "Count", "Id", "Label", "Level", "Speaker", "Tags", "When"]

Id = Annotated[int, msgspec.Meta(examples=[42], description="row id")]
Count = Annotated[int, msgspec.Meta(examples=[12])]
AAAK = Annotated[str, msgspec.Meta(examples=["§ W-003/R-12/D-007"], description="the drawer's palace address")]
Label = Annotated[str, msgspec.Meta(examples=["Garden project"])]
Level = Annotated[str, msgspec.Meta(examples=["wing"], description="wing, room, closet or drawer")]
Content = Annotated[str, msgspec.Meta(examples=["We planted the tomatoes on May 3rd, next to the basil."])]
Tags = Annotated[dict[str, Any], msgspec.Meta(examples=[{"t": ["2026-05-03"], "p": ["alice"], "topic": "garden"}])]
When = Annotated[datetime, msgspec.Meta(examples=["2026-05-03T10:15:00Z"])]
Speaker = Annotated[
    str,
    msgspec.Meta(examples=["Priya"], description="who said it (its turn's name); absent when the turn named nobody"),
]
