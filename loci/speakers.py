"""How a turn's author is written wherever Loci shows who said what.

A turn has a ``role`` (`loci.models.ROLES`: the account owner ``user``, another person
``other``, the AI ``assistant``, ``system``, ``tool``) and an optional ``name`` telling
people of one role apart. The memory block, the extraction prompts and the palace all
label a turn the same way, so a model or a person reads "Priya (other): …" everywhere.
"""

from __future__ import annotations

__all__ = ["speaker_label"]


def speaker_label(role: str, name: str | None) -> str:
    """``role`` alone for an unnamed turn (every LongMemEval turn: the block is unchanged),
    else ``"name (role)"``: the name says who, the role whose memory it is."""
    return f"{name} ({role})" if name else role
