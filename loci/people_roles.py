"""Words for the people in someone's life and the relation predicate each records.

Shared by mining (`ingest.entity_vocab` re-exports it for the offline rules, and
`ingest.predicates` folds the LLM's words onto it) and recall ("my wife" in a question is
the user's `partner` relation: `retrieval.speaker`), so both read the graph's predicates
the same way; it lives in `loci` because recall may not import mining.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

__all__ = ["PEOPLE_ROLES"]

_SAID = """brother sister son daughter partner friend cousin aunt uncle niece nephew grandson granddaughter roommate
    flatmate boss manager colleague coworker mentor teacher tutor student doctor dentist supervisor advisor
    therapist physio physiotherapist coach trainer landlord landlady neighbour stepson stepdaughter stepbrother
    stepsister godson goddaughter"""
_SAID_AS_RECORDED = frozenset(_SAID.split())
PEOPLE_ROLES: Mapping[str, str] = MappingProxyType(
    {
        **{w: w for w in _SAID_AS_RECORDED},
        "mom": "mother",
        "mum": "mother",
        "mother": "mother",
        "dad": "father",
        "father": "father",
        "grandma": "grandmother",
        "grandmother": "grandmother",
        "grandpa": "grandfather",
        "grandfather": "grandfather",
        "neighbor": "neighbour",
        "co-worker": "coworker",
        "wife": "partner",
        "husband": "partner",
        "girlfriend": "partner",
        "boyfriend": "partner",
        "fiance": "partner",
        "fiancee": "partner",
        "fiancé": "partner",
        "fiancée": "partner",
        "spouse": "partner",
        "gp": "doctor",
        "physician": "doctor",
        "best friend": "friend",
        "boss": "manager",
        "landlady": "landlord",
        **{w: "friend" for w in ("mate", "pal", "buddy", "bestie", "bff", "bezzie")},
        **{w: "partner" for w in ("bf", "gf", "hubby", "missus", "missis", "wifey", "other half")},
        **{w: "mother" for w in ("mam", "mammy", "mummy", "mommy")},
        **{w: "father" for w in ("daddy", "papa", "appa", "abbu")},
        **{w: "mother" for w in ("amma", "ammi")},
        **{w: "grandmother" for w in ("nan", "nana", "nanna", "gran", "granny")},
        **{w: "grandfather" for w in ("grandad", "granddad", "gramps")},
        "sis": "sister",
        "bro": "brother",
        "housemate": "roommate",
        "roomie": "roommate",
        "doc": "doctor",
        "line manager": "manager",
        **{f"{kin}-in-law": f"{kin}-in-law" for kin in ("sister", "brother", "mother", "father", "son", "daughter")},
        **{f"{kin} in law": f"{kin}-in-law" for kin in ("sister", "brother", "mother", "father", "son", "daughter")},
    }
)
"""Words for the people in someone's life (as said → the predicate it records). Two words for
one single-valued role record one predicate, so the new one closes the old: "Ana is my new
boss" ends "my manager Tiago", a new landlady the landlord, and "my wife Sam" after "my
girlfriend Sam" is the same `partner` (no new row), while a new partner closes the old one.
Chat's own words count as the words they stand for: "my mate Derek" and "my bestie Jo" are
friends, "my bf", "the missus" and "my other half" a partner, "my nan" a grandmother, and the
family words of Indian English ("amma", "appa", "ammi", "abbu") a mother or father; in-laws
are theirs, said with hyphens or without ("my sister in law Ana" is a ``sister-in-law``).
The word said is not kept on the row (`loci.models.Relation` has no column for it); the
drawer it came from still says it. Migration 0029 rewrote the rows stored before these."""
