"""What a chat is about when its mentions name only the parts of it (`ingest.subjects`).

**Products of one kind** are joined under the kind.

People replace and compare the things they own: "dropped my pixel 6 … got an iPhone 15", "trading
in my 2016 honda civic … subaru outback", "my Bernina is 28 years old … the Janome Skyline S5".
Each model is a candidate of its own, so the chat's mentions split between them and the wing went
to whichever model the user named most ("Pixel 6", "Civic", "Topstone"), or the models lost to a
person named as often (the grandson who set the new phone up). The chat is about the user's phone,
car or bike, the subject that outlives each model, and a later chat about the next model finds it.

So when the user names two or more different products of one kind as their own or as bought
(`_owned`: "my Golf", "got the iPhone 14"; `ingest.product_lines.line_of`: a Pixel and an iPhone
are phones), they and the kind's own word ("the phone") are one candidate, named by the kind, with
every model's spellings as aliases. Never folded: a place ("Grand Canyon" is no Canyon bike), a
product only named ("jazz and soul", "the Andromeda Galaxy") or someone else's ("his Corolla"), and
one product under several names (`_different`: "Civic" / "Honda Civic" / "2012 civic", or a maker
and its line, "my Tesla … a Model 3"): a chat about one car is filed under it, as before.

**A person's thing or event** ("Derek's wedding", "mia's birthday", "divya's engagement") heads a
noun phrase as one after a determiner does: the name's possessive is its determiner. Read as a
verb or adjective before, "wedding" was no candidate, and the chat went to the person or to a
place named near it ("Hebden Bridge"), though the wedding is what the user asks about. Named by its
one owner ("Derek's wedding"), so no two people's weddings share a wing. A contraction is no
possessive: "Josh's leaving for uni", "Ella's turning 5", "Leo's started school" (`_NOT_POSSESSED`).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence

from ingest.entity_vocab import words
from ingest.extraction import TurnView
from ingest.product_lines import CAPITALISED_ONLY, EVERYDAY, PRODUCT_LINES, line_of
from ingest.subject_candidates import Candidate, absorb, subject_key
from ingest.subject_rules import SUBJECT_RULES

__all__ = ["link_possessed", "link_product_kinds"]

_POSSESSED = re.compile(r"(?<![\w\-'’])([^\W\d_][\w\-]*)['’]s ([a-z][a-z\-]+)", re.I)
"""A name's possessive and the word after it; the look-behind keeps it linear on a long hyphenated
token ("well-well-…": ``\b`` retried the token from every hyphen)."""
_ING_NOUNS = words("wedding christening housewarming meeting painting")
_NOT_POSSESSED = words(
    """been gone done got gotten had made said seen come become left told found put set run let
    new old first last own best big little really very also just still so not never always back
    about going gonna off over out up down away here there home"""
)
"""After "X's", words that read it as "X is / X has" ("Josh's gone", "Ella's really"), with any -ing
or -ed form but an event's name (`_ING_NOUNS`)."""
_LINE_WORDS = frozenset(w for key in PRODUCT_LINES for w in key.split())
"""Every word of a known line or maker: a candidate's name holds one of these, or it is no product
(a set test first, as `line_of` on each of a chat's hundred-odd candidates cost 1.7 ms of ~20)."""
_MAKERS = words(
    """toyota honda ford chevrolet chevy nissan hyundai kia mazda subaru volkswagen vw audi bmw mercedes
    mercedes-benz benz volvo tesla lexus acura infiniti jeep dodge gmc buick cadillac chrysler mitsubishi
    suzuki skoda škoda cupra peugeot renault citroen citroën vauxhall opel fiat porsche polestar rivian byd
    dacia saab lada ferrari lamborghini maserati bentley isuzu daihatsu samsung apple google oneplus motorola
    nokia huawei xiaomi oppo realme dell lenovo hp asus acer microsoft razer garmin fitbit trek giant
    specialized cannondale"""
)
"""Makers, not lines: one named with a line ("my Tesla … a Model 3") may be that line's maker."""
_FILLERS = words("a an the new old used current trusty little first second at")
_BUYING = words(
    "bought buy buying got get getting ordered order picked replaced upgraded upgrading went looking considering "
    "trading traded selling sold swapping"
)
_SOMEONE_ELSE = words(
    """he she they his her their him them mate mates friend friends brother sister dad mum mom wife husband
    partner son daughter someone neighbour neighbor colleague boss"""
)
_WORD = re.compile(r"[\w\-'’]+")


def _kind(c: Candidate) -> str | None:
    """The owned thing a candidate's name is a product of; a lower-case common word only when it
    is no everyday word too ("civic", "jazz"), unless the extractor typed it a thing. Never a person,
    a place or a domain's word."""
    if c.kinds.get("p") or c.kinds.get("l") or c.domain is not None:
        return None
    for form in c.forms:
        if _LINE_WORDS.isdisjoint(form.lower().split()[:4]):  # `line_at` reads no further
            continue
        trusted = bool(c.kinds.get("i")) or form[:1].isupper() or form.lower() not in EVERYDAY | CAPITALISED_ONLY
        kind = line_of(form) if trusted else None
        if kind is not None:
            return kind
    return None


def _claims(before: str) -> bool:
    """Whether the words right before a product's name make it the speaker's: "my (old 2016) X", or
    "got / bought (a new) X" with no one else named before the verb ("my mate bought a Corolla")."""
    said = _WORD.findall(re.split(r"[.!?;,\n]", before)[-1].lower())
    i = len(said) - 1
    while i >= 0 and len(said) - 1 - i < 3 and (said[i] in _FILLERS or said[i] in _LINE_WORDS or said[i].isdigit()):
        i -= 1
    if i < 0:
        return False
    if said[i] in {"my", "our"}:
        return True
    return said[i] in _BUYING and _SOMEONE_ELSE.isdisjoint(said[:i])


def _owned(c: Candidate, user_texts: Sequence[str]) -> bool:
    """Whether the user calls the product theirs or bought it (`_claims`), in any turn."""
    for form in {f.lower() for f in c.forms}:
        pattern = re.compile(rf"(?<![\w\-]){re.escape(form)}(?![\w\-])")
        for text in user_texts:
            if form in text and any(_claims(text[max(0, m.start() - 60) : m.start()]) for m in pattern.finditer(text)):
                return True
    return False


def _different(keys: list[str]) -> bool:
    """Two products at least: lines no one of which is a spelling of another ("civic" / "hondacivic"
    / "2012civic" are one, as are "toyota" / "corolla" when the chat also says "toyotacorolla"), or
    with no line, two makers. A maker beside a line may be its maker ("tesla" / "model3"): one."""
    lines = [k for k in keys if k not in _MAKERS]
    if not lines:
        return len(set(keys)) > 1
    group = {k: k for k in lines}
    for a in lines:
        for b in lines:
            if a in b or any(a in k and b in k for k in lines):
                old, new = group[b], group[a]
                group = {k: new if g == old else g for k, g in group.items()}
    return len(set(group.values())) > 1


def link_product_kinds(found: dict[str, Candidate], turns: Sequence[TurnView]) -> None:
    """Fold the user's different products of one kind into the kind's candidate (see the module doc)."""
    of_kind: dict[str, list[Candidate]] = defaultdict(list)
    user_texts: list[str] | None = None
    for c in list(found.values()):
        kind = _kind(c)
        if kind is not None:
            user_texts = user_texts or [t.content.lower() for t in turns if t.role == "user"]
            if _owned(c, user_texts):
                of_kind[kind].append(c)
    for kind, products in of_kind.items():
        if not _different([c.key for c in products]):
            continue
        key = subject_key(kind)
        target = found.get(key) or found.setdefault(key, Candidate(key))
        target.forms[kind.replace("-", " ")] += 1
        target.label, target.noun, target.thing = kind[:1].upper() + kind[1:], True, True
        for c in products:
            if c is not target:
                target.written |= c.written
                target.kinds.update(c.kinds)
                target.forms.update({f: n for f, n in c.forms.items() if f.lower() != kind})
                absorb(found, target, c)


def link_possessed(found: dict[str, Candidate], turns: Sequence[TurnView]) -> None:
    """A word right after a named person's or place's possessive is a noun (see the module doc)."""
    owners: dict[str, set[str]] = defaultdict(set)
    for t in turns:
        if "'s " not in t.content and "’s " not in t.content:
            continue
        for m in _POSSESSED.finditer(t.content):
            word = m.group(2).lower()
            if (
                word in _NOT_POSSESSED
                or word in SUBJECT_RULES.kin
                or (word.endswith(("ing", "ed")) and word not in _ING_NOUNS)
            ):
                continue
            owner = found.get(subject_key(m.group(1), fold_plural=False))
            thing = found.get(subject_key(word))
            if owner is not None and owner.kinds and thing is not None and not thing.kinds and not thing.verb:
                thing.noun = True
                owners[thing.key].add(owner.name)
    for key, names in owners.items():
        thing = found.get(key)
        if thing is not None and len(names) == 1 and not thing.label:
            thing.label = f"{next(iter(names))}'s {thing.forms.most_common(1)[0][0]}"
