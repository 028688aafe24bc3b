"""Names as French, Spanish and Portuguese speakers write them, read by their general shape (the tenth
held-out set's misses, checked with sentences of their own):

* French titles ("Mme Lise Pelletier", "Mlle Roy") mark a person and drop from the key, as "Mrs." does;
  "Dre" is no title, being a first name too ("my friend Dre");
* a first name of hyphen-joined first names ("Jean-Sébastien", "Marie-Claire") is a first name;
* the kind of business said first ("Brasserie Ruelle Rouge", "Banco Santander", "Clinique Jarry")
  makes an organisation.
"""

from __future__ import annotations

import pytest

from ingest.gazetteer import is_first_name
from loci.name_keys import name_key
from tests.unit.ingest.chat_window import chat, kinds


@pytest.mark.parametrize(
    ("text", "name", "kind"),
    [
        ("the landlady is Mme Lise Pelletier, she lives downstairs", "Mme Lise Pelletier", "p"),
        ("Mlle Roy teaches my son piano", "Mlle Roy", "p"),
        ("Jean-Sébastien Côté, our head brewer, knows the recipes", "Jean-Sébastien Côté", "p"),
        ("im a supply chain analyst at Brasserie Ruelle Rouge in Saint-Henri", "Brasserie Ruelle Rouge", "o"),
        ("I opened an account at Banco Santander", "Banco Santander", "o"),
        ("the X-ray was at Clinique Jarry", "Clinique Jarry", "o"),
    ],
)
def test_a_romance_name_is_typed_by_its_own_words(text: str, name: str, kind: str) -> None:
    assert kinds(text).get(name) == kind, kinds(text)


def test_hyphen_joined_first_names_are_a_first_name() -> None:
    assert is_first_name("Jean-Sébastien") and is_first_name("Marie-Claire") and is_first_name("Anne-Marie")
    assert not is_first_name("Jean-Talon-Market") and not is_first_name("Well-Known")


def test_a_french_title_leaves_the_key_as_mrs_does() -> None:
    assert name_key("Mme Pelletier") == name_key("Pelletier") == "pelletier"
    assert name_key("Mlle Roy") == "roy" and name_key("Dre Tremblay") == "dre-tremblay"


def test_dre_is_a_first_name_not_a_title() -> None:
    facts = {(r.subject.name, r.predicate, r.value) for r in chat("My friend Dre is coming over tonight").relations}
    assert ("User", "friend", "Dre") in facts, facts
