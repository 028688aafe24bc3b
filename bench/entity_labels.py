"""Mined (or any extractor's) entities and relations scored against labelled chats, as
``tests/fixtures/mining_quality*/conversations.json`` hold them (see a fixture's ``about``).

* **entity type precision**: of the entities stored (times and the user aside), the share that
  a label names with a kind it accepts; an unlabelled entity or a wrong kind counts against it.
* **entity recall**: of the required entities, the share stored under any kind.
* **relation recall**: of the labelled relations, the share stored (current or closed) with the
  same subject, the same predicate and an object holding the label's words. A label's predicate
  is read as mining writes it (`ingest.canonical_predicate`: "allergy" is "allergic to", as both
  extractors fold it), so a labeller's synonym is no miss.

Names match by `loci.name_keys.name_key` against an entity's name and aliases, so "Inês", "Ines"
and "inês" are one name, and "Dr. Sousa" is "Sousa". One scorer serves the mining tests and
`bench.ner_baseline`, so a library's figures and the offline rules' are read the same way.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ingest import canonical_predicate
from loci.name_keys import name_key

__all__ = ["Fact", "Score", "Stored", "labelled_chats", "object_matches", "score"]

USER = "user"


def labelled_chats(path: Path) -> dict[str, Any]:
    """A fixture's chats with their labels, as JSON holds them."""
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


@dataclass(frozen=True)
class Stored:
    kind: str
    name: str
    aliases: tuple[str, ...]

    def name_keys(self) -> set[str]:
        return {name_key(n) for n in (self.name, *self.aliases)}


@dataclass(frozen=True)
class Fact:
    subject: str
    predicate: str
    object: str


@dataclass
class Score:
    type_precision: float
    entity_recall: float
    relation_recall: float
    wrong: list[str] = field(default_factory=list)
    missed_entities: list[str] = field(default_factory=list)
    missed_relations: list[str] = field(default_factory=list)

    def report(self) -> str:
        return (
            f"entity type precision {self.type_precision:.3f}, entity recall {self.entity_recall:.3f}, "
            f"relation recall {self.relation_recall:.3f}\n  wrong or unlabelled: {self.wrong}\n"
            f"  missed entities: {self.missed_entities}\n  missed relations: {self.missed_relations}"
        )


def _labels(conversations: Iterable[dict[str, Any]], field_name: str) -> dict[str, set[str]]:
    """name key → accepted kinds, over every conversation."""
    out: dict[str, set[str]] = {}
    for conv in conversations:
        for label in conv[field_name]:
            out.setdefault(name_key(label["name"]), set()).update(label["kind"].split("|"))
    return out


_ARTICLES = frozenset({"a", "an", "the", "my", "our"})


def _words(text: str) -> list[str]:
    return [w for w in re.findall(r"[\w\-]+", text.lower()) if w not in _ARTICLES]


def object_matches(expected: str, got: str) -> bool:
    """The label's words all present, with at most two more ("Ventolin" ~ "Ventolin inhaler")."""
    want, have = _words(expected), _words(got)
    return bool(want) and set(want) <= set(have) and len(have) <= len(want) + 2


def _subject_key(subject: str) -> str:
    return USER if subject.lower() == USER else name_key(subject)


def score(conversations: list[dict[str, Any]], entities: list[Stored], facts: list[Fact]) -> Score:
    required = _labels(conversations, "entities")
    accepted = {**_labels(conversations, "also_ok")}
    for key, kinds in required.items():
        accepted.setdefault(key, set()).update(kinds)
    right, wrong = 0, []
    for e in entities:
        if any(e.kind in accepted.get(k, set()) for k in e.name_keys()):
            right += 1
        else:
            wrong.append(f"{e.kind}:{e.name}")
    stored_keys = {k for e in entities for k in e.name_keys()}
    missed_entities = sorted(k for k in required if k not in stored_keys)
    labelled = [r for conv in conversations for r in conv["relations"]]
    missed_relations = [
        f"{r['subject']} —{r['predicate']}→ {r['object']}"
        for r in labelled
        if not any(
            _subject_key(f.subject) == _subject_key(r["subject"])
            and f.predicate == canonical_predicate(r["predicate"])
            and object_matches(r["object"], f.object)
            for f in facts
        )
    ]
    return Score(
        type_precision=right / max(1, len(entities)),
        entity_recall=1 - len(missed_entities) / max(1, len(required)),
        relation_recall=1 - len(missed_relations) / max(1, len(labelled)),
        wrong=wrong,
        missed_entities=missed_entities,
        missed_relations=missed_relations,
    )
