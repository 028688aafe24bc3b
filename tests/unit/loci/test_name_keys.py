"""Name keys in every script (`loci.name_keys`): distinct names are distinct keys, one name
typed composed or decomposed, in any case, is one key, and the keys stored before migration
0042 for Latin names are unchanged (the old fold, written out in that migration, is compared)."""

from __future__ import annotations

import importlib
import re
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from loci.inputs import SLUG_PATTERN
from loci.name_keys import compact_key, name_key, slugify

OLD = importlib.import_module("migrations.versions.0042_unicode_name_keys")
SLUG = re.compile(SLUG_PATTERN)

NAMES = (
    "Ольга", "Дмитрий", "Светлана", "Андрей", "Андреи", "王伟", "李娜", "王芳", "أحمد", "محمد",
    "Αλέξανδρος", "Αθήνα", "שרה", "דוד", "さくら", "サクラ", "김민준", "이서연", "प्रिया", "राहुल",
    "สมชาย", "สมหญิง", "Łukasz", "Lukas", "Łódź", "Straße", "Strae", "Ærø", "Ørsted", "Þór", "Đorđe",
    "İlker", "Işık", "Ines", "Inês Conceição", "São Paulo", "Jürgen", "København",
)  # fmt: skip


def test_distinct_names_of_every_script_are_distinct_keys() -> None:
    keys = [name_key(n) for n in NAMES]
    assert "x" not in keys
    assert len(set(keys)) == len(NAMES)
    assert name_key("Inês") == name_key("Ines") == "ines"  # accents fold, as they did
    assert name_key("Ольга") == "ольга" and name_key("王伟") == "王伟" and name_key("أحمد") == "احمد"


def test_composed_decomposed_and_case_variants_are_one_key() -> None:
    for name in (*NAMES, "Ἀλέξανδρος", "Nguyễn Thị Ánh", "Алёна Йовович", "が", "한국"):
        nfd = unicodedata.normalize("NFD", name)
        assert name_key(nfd) == name_key(name) == name_key(name.upper()) == name_key(name.lower()), name
        assert slugify(nfd) == slugify(name) == slugify(unicodedata.normalize("NFKC", name.upper())), name


@pytest.mark.parametrize(
    ("name", "key"),
    [
        ("Inês", "ines"),
        ("São Paulo", "sao-paulo"),
        ("Zoë", "zoe"),
        ("Derek M.", "derek"),
        ("Dr. Sousa", "sousa"),
        ("e-foil", "e-foil"),
        ("O’Brien", "obrien"),
        ("O'Brien", "o-brien"),
        ("İstanbul", "istanbul"),
        ("Ñandú", "nandu"),
        ("Ｔｏｋｙｏ", "tokyo"),
        ("Hawaiʻi", "hawaii"),
        ("🎸", "x"),
    ],
)
def test_latin_keys_stored_before_are_unchanged(name: str, key: str) -> None:
    assert name_key(name) == OLD.old_name_key(name) == key


@pytest.mark.parametrize(
    ("name", "old", "new"),
    [
        ("Ольга", "x", "ольга"),
        ("Αλέξανδρος", "x", "αλεξανδροσ"),
        ("Straße", "strae", "strasse"),
        ("Ærø", "r", "aero"),
        ("Łukasz", "ukasz", "lukasz"),
        ("Jürgen Æbelø", "jurgen-bel", "jurgen-aebelo"),
        ("Ольга К.", "x", "ольга"),
    ],
)
def test_what_the_old_fold_dropped_is_kept(name: str, old: str, new: str) -> None:
    assert OLD.old_name_key(name) == old
    assert name_key(name) == new


def test_a_letter_of_a_script_without_case_is_not_an_initial() -> None:
    assert name_key("李 娜") == "李-娜"  # "娜" is no initial to drop, as "M." in "Derek M." is
    assert compact_key("李 娜") == "李娜"


def test_marks_stay_where_they_are_letters() -> None:
    assert slugify("किताब") != slugify("कताब")  # a Devanagari vowel sign is part of the word
    assert slugify("Андрей") != slugify("Андреи")  # "й" is a letter of its own
    assert slugify("שָׁלוֹם") == slugify("שלום")  # vowel points are optional


_LATIN = st.text(
    st.characters(min_codepoint=0x20, max_codepoint=0x24F) | st.sampled_from("’–—…\u0301\u0308  "),
    max_size=24,
)


def _old_dropped_a_letter(text: str) -> bool:
    return any(not c.isascii() and c.isalnum() for c in unicodedata.normalize("NFKD", text))


@given(_LATIN)
def test_a_key_the_old_fold_dropped_no_letter_of_is_unchanged(text: str) -> None:
    if not _old_dropped_a_letter(text):
        assert slugify(text) == OLD.old_slugify(text)


@pytest.mark.parametrize(
    ("name", "key"),
    [
        ("\u623a\ufe06", "\u623a"),  # a variation selector after a CJK letter
        ("\u1820\u180b", "\u1820"),  # a Mongolian free variation selector
        ("ольга\u034f", "ольга"),  # the combining grapheme joiner
        ("\u1780\u17b4", "\u1780"),  # a Khmer inherent vowel, shown as nothing
        ("\u3164", "x"),  # a Hangul filler (NFKC makes it U+1160, another one)
        ("\uffa0ольга", "ольга"),  # the half-width filler
        ("ol\u00adga", "olga"),  # a soft hyphen
        ("\U000e0041ольга", "ольга"),  # a tag character
    ],
)
def test_characters_nothing_shows_are_no_part_of_a_key(name: str, key: str) -> None:
    assert slugify(name) == name_key(name) == key


def test_a_key_cut_at_its_length_ends_in_no_hyphen() -> None:
    for name in ("Jean-" * 60, "Жан-" * 60, "a b " * 120):
        key = slugify(name)
        assert len(key) <= 200 and not key.endswith("-") and slugify(key) == key, name


_CHAR = st.characters(codec=None, exclude_categories=("Cs",)) | st.sampled_from("-. ʻ\u0301\u034f\ufe06\u3164")


@given(st.text(_CHAR, max_size=30) | st.text(_CHAR, min_size=190, max_size=260))
def test_a_key_is_its_own_key_and_a_slug_the_access_list_takes(text: str) -> None:
    """An agent's access list names a wing by its key (`domain.agent_access_edit` asks for
    ``slugify(w) == w``, the schema for `SLUG_PATTERN`): every key mining makes must pass both."""
    for key in (slugify(text), name_key(text), compact_key(text)):
        assert slugify(key) == key and SLUG.match(key), (text, key)
