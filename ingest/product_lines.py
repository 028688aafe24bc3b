"""What kind of owned thing a product name is: brands and model lines → a `POSSESSIONS` word.

Chat names the thing by its product as often as by its kind: "bought a 2021 RAV4", "traded in my
Pixel 6", "someone stole my Trek", "the civic just clicks". The relation readers
(`ingest.relation_products`) need to know that a RAV4 is a car, a Pixel a phone and a Trek a bike
to record the car's, the phone's or the bike's timeline from such words. This table is that
knowledge, as data: each key is a brand or a model line as typed, lower case, one or two words
(``land rover``, ``apple watch``), and its value the thing it is. A name's kind is read off its
first two words, then its first word, past a year ("2012 Civic", "Honda Civic", "Google Pixel 6"):
`line_of`. A brand that makes several kinds of things (Apple, Samsung, Google, Sony, Lenovo) is
no key; its lines are ("iphone", "galaxy tab", "thinkpad").

Lines that are also everyday words or names ("Golf", "Jazz", "Focus", "Giant", "Surface",
"Switch") count only capitalised (`CAPITALISED_ONLY`): "sold the Golf" is a car, "played golf" is
not. Lines typed in lower case as often as they are words ("civic", "outback", "pixel": `EVERYDAY`)
need a model number or context; a word after a product that makes it another thing ("an iPhone
case", "tesla stock") unsays it (`NOT_THE_THING`); a maker of several lines or kinds is read by its
model word first ("Ford Transit" is a van), and one of several kinds alike ("Garmin") only by it.

The cars are written by hand from general knowledge. The maintained-looking offline lists were
looked at (2026-11-30): ``faker-vehicle`` 0.2.0 (Apache-2.0) holds US makes and models of 1992-2020
only, last released in 2020, with no European or Chinese makes (Skoda, Peugeot, Renault, Vauxhall,
Dacia, BYD), no model newer than 2020 (Ioniq 5, ID.4, EV6) and body styles as models ("Regular
Cab"); ``vehicle-makes`` fetches its data from a web service at run time, which mining never
calls. Makes are few and stable, so a short hand table serves better than either.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from types import MappingProxyType

from ingest.entity_vocab import words

__all__ = [
    "CAPITALISED_ONLY",
    "EVERYDAY",
    "NOT_THE_THING",
    "PRODUCT_LINES",
    "SPELLINGS",
    "line_at",
    "line_of",
    "spelled",
]

_LINES: dict[str, tuple[str, str]] = {
    # thing: (lines read in any case, lines read only capitalised), each as the maker spells it; "_" joins two words
    "car": (
        """Toyota Honda Ford Chevrolet Chevy Nissan Hyundai Kia Mazda Subaru Volkswagen VW Audi BMW Mercedes
        Mercedes-Benz Benz Volvo Tesla Lexus Acura Infiniti Jeep Dodge GMC Buick Cadillac Chrysler Mitsubishi
        Suzuki Skoda Škoda Cupra Peugeot Renault Citroen Citroën Vauxhall Opel Fiat Alfa_Romeo Porsche
        Land_Rover Range_Rover Polestar Rivian BYD Dacia Saab Lada Ferrari Lamborghini Maserati Bentley
        Rolls-Royce Aston_Martin Isuzu Daihatsu
        Civic Accord CR-V CRV HR-V HRV Corolla Camry RAV4 RAV-4 Prius Yaris Highlander Tacoma Tundra 4Runner
        Sienna Land_Cruiser Aygo Auris C-HR CHR F-150 F150 Mach-E Kuga Mondeo Passat Jetta Tiguan Touareg
        ID.3 ID.4 ID3 ID4 Outback Forester Impreza Crosstrek WRX CX-5 CX5 CX-30 CX30 CX-3 MX-5 Miata Mazda3
        Mazda6 Qashqai Juke Micra Altima Sentra X-Trail Navara Ioniq Elantra i10 i20 i30 Sportage Sorento
        Niro Ceed Picanto Telluride EV6 Octavia Fabia Kodiaq Karoq Enyaq Clio Megane Captur Kadjar Corsa Astra
        Mokka Wrangler Silverado Camaro Corvette XC40 XC60 XC90 V60 V90 Evoque Outlander Lancer Pajero Vitara
        Jimny Duster Sandero""",
        """Jazz Fit Golf Polo Focus Fiesta Escape Explorer Bronco Ranger Mustang Puma Leaf Rogue Soul
        Spark Bolt Volt Equinox Tahoe Malibu Panda Defender Discovery Insignia Superb Legacy Pilot Odyssey
        Swift Zoe Mini Smart Seat Lucid Lotus Jaguar MG Model_3 Model_Y Model_S Model_X
        Cherokee Grand_Cherokee Renegade Compass Frontier Passport""",
    ),
    "van": ("""Sprinter Vivaro Trafic""", """Transit Caddy Crafter"""),
    "phone": (
        """iPhone Pixel Galaxy OnePlus Fairphone Xperia Motorola Nokia Huawei Xiaomi Redmi Oppo Realme""",
        """Honor Nothing_Phone BlackBerry Poco""",
    ),
    "laptop": (
        """MacBook ThinkPad XPS Zenbook Vivobook Chromebook IdeaPad EliteBook ProBook Inspiron Alienware
        Zephyrus MateBook Pixelbook Surface_Laptop Galaxy_Book LG_Gram Razer_Blade""",
        """Surface Framework Yoga Spectre Envy Pavilion Latitude Legion Aspire Predator""",
    ),
    "tablet": ("""iPad Galaxy_Tab Pixel_Tablet Kindle_Fire Fire_HD Surface_Go""", ""),
    "e-reader": ("""Kindle Kobo Boox""", """reMarkable"""),
    "watch": (
        """Apple_Watch Galaxy_Watch Pixel_Watch Garmin Fitbit Forerunner Fenix Casio G-Shock Seiko Rolex Tissot
        Swatch""",
        """Omega""",
    ),
    "earbuds": ("""AirPods Galaxy_Buds Pixel_Buds""", ""),
    "headphones": ("""AirPods_Max Bose Sennheiser""", ""),
    "console": ("""PlayStation PS4 PS5 Xbox Nintendo_Switch Steam_Deck""", """Switch"""),
    "camera": ("""GoPro Fujifilm Lumix Nikon Leica Olympus Hasselblad Canon_EOS""", """Canon"""),
    "drone": ("""DJI Mavic""", ""),
    "bike": (
        """Trek Cannondale Brompton Bianchi Cervelo Cervélo Pinarello Orbea Colnago Merida Ribble Boardman
        Topstone Synapse SuperSix Domane Emonda Madone Stumpjumper Allez""",
        """Specialized Giant Canyon Scott Surly Felt Cube Tern Tarmac Diverge Checkpoint""",
    ),
    "e-bike": ("""VanMoof Rad_Power RadPower""", ""),
    "motorbike": ("""Ducati Harley Harley-Davidson Kawasaki""", """Triumph"""),
    "scooter": ("""Vespa Segway Ninebot""", ""),
    "sewing-machine": ("""Bernina Bernette Janome Pfaff Juki""", ""),
}


def _keys(said: str) -> list[str]:
    return [w.replace("_", " ").lower() for w in said.split()]


SPELLINGS: Mapping[str, str] = MappingProxyType(
    {
        w.replace("_", " ").lower(): w.replace("_", " ")
        for plain, capital in _LINES.values()
        for w in (plain + " " + capital).split()
    }
)
"""Each line as its maker spells it ("rav4" → RAV4, "iphone" → iPhone): a product typed in lower case
is stored so (`spelled`), one entity and one value whichever way the chat typed it."""


PRODUCT_LINES: Mapping[str, str] = MappingProxyType(
    {key: thing for thing, (plain, capital) in _LINES.items() for key in (*_keys(plain), *_keys(capital))}
)
"""Brand or model line (lower case, one or two words) → the owned thing it is (`POSSESSIONS`)."""

CAPITALISED_ONLY = frozenset(key for _, capital in _LINES.values() for key in _keys(capital))
"""Lines that are everyday words or names too: a line only when written with a capital."""


EVERYDAY = words(
    """civic accord outback galaxy pixel trek swatch duster sprinter forerunner dodge tundra highlander sienna
    forester juke lancer wrangler corvette tacoma"""
)
"""Lines that are everyday English words too, typed in lower case as often as not ("my civic duty",
"the outback", "the galaxy", "a trek to base camp"): read in lower case only with a model number
after them ("pixel 6", "galaxy s22"), or where the window already names that line or the
sentence names the speaker's thing of that kind first ("my car … the civic just clicks"). Chosen by
hand: the embedder's vocabulary, the project's English word list (`ingest.gazetteer`), holds
nearly every brand too ("honda", "tesla", "iphone"), so it cannot tell a word from a brand."""

_MAKERS = words(
    """toyota honda ford chevrolet chevy nissan hyundai kia mazda subaru volkswagen vw audi bmw mercedes
    mercedes-benz benz volvo lexus jeep dodge gmc cadillac mitsubishi suzuki skoda škoda peugeot renault citroen
    citroën vauxhall opel fiat porsche polestar isuzu daihatsu garmin bose casio dji xiaomi huawei
    segway nokia motorola kawasaki triumph"""
)
"""Makers of more than one line, or more than one kind of thing: their model word says the kind
first ("Ford Transit" is a van, "Mercedes Sprinter" a van, "Garmin Forerunner" a watch)."""
_NEEDS_MODEL = words("garmin bose casio dji xiaomi huawei segway")
"""Makers of several kinds of thing alike (watches and bike computers, headphones and speakers,
watches and keyboards, drones and gimbals, phones and scooters): a kind only from a known model."""

NOT_THE_THING = words(
    """app apps book books ebook ebooks art stock stocks shares share duty permit permits case cases cover covers
    charger chargers cable cables controller controllers keyboard keyboards lens lenses password passwords account
    accounts login game games quote quotes test tests fridge ball balls tv tvs screen protector protectors strap
    straps band bands dock mount stand sleeve skin skins adapter adaptor battery batteries brain brains coil
    unlimited subscription membership store shop dealership dealer showroom ad ads advert review reviews video
    videos manual update updates card cards gift voucher lawnmower mower trimmer generator speaker speakers gimbal
    keys key seat seats tyre tyres tire tires wheel wheels parts part insurance loan payment payments lease deal
    driver drivers owner owners club forum fan fans sticker stickers toy toys lego poster shirt
    print prints font fonts count size density sale price prices uber lyft taxi cab"""
)
"""Words after a product that make it something else's maker or a thing of its ("an iPhone case",
"a PS5 controller", "tesla stock", "my kindle app", "a trek permit", "a Golf ball", "a Smart TV", a ride:
"a Tesla Uber home"):
no product is said."""


def line_at(name: str) -> tuple[str, str] | None:
    """(the line's key as typed in ``name``, the owned thing) for a product name: its model word
    before its maker's ("Ford Transit" → van), its first two words, then its first, then its
    second ("Google Pixel 6"); None when no line is known, or only a maker of several kinds of thing is."""
    words = name.lower().split()
    if words and len(words[0]) == 4 and words[0].isdigit():
        words = words[1:]  # "2012 Civic": the year is no part of the line
    first, model, tail = " ".join(words[:1]), " ".join(words[1:2]), " ".join(words[1:3])
    if first in _MAKERS:
        keys = [" ".join(words[:2]), tail, model] + ([] if first in _NEEDS_MODEL else [first])
    else:
        keys = [" ".join(words[:2]), first, tail, model]
    for key in keys:
        if key and key in PRODUCT_LINES:
            return key, PRODUCT_LINES[key]
    return None


def line_of(name: str) -> str | None:
    """The owned thing a product name is ("2021 RAV4" → car, "Google Pixel 6" → phone): `line_at`."""
    found = line_at(name)
    return found[1] if found else None


def spelled(name: str) -> str:
    """``name`` with its line, typed all in lower case, as its maker spells it ("pixel 6" → Pixel 6,
    "2012 civic" → 2012 Civic), a maker before it capitalised ("samsung galaxy" → Samsung Galaxy),
    and the model words after it as makers write them ("galaxy s21" →
    Galaxy S21, "macbook air m2" → MacBook Air M2, "pixel 8 pro" → Pixel 8 Pro; "6a" stays: a
    suffix after the number is lower case); a line typed with any capital is kept as typed."""
    words = name.split()
    for i in range(len(words)):
        for n in (2, 1):
            said = " ".join(words[i : i + n])
            if len(said.split()) == n and said.islower() and said in SPELLINGS:
                maker = (w.capitalize() if w.islower() and w.isalpha() else w for w in words[:i])
                return " ".join([*maker, SPELLINGS[said], *(_model_word(w) for w in words[i + n :])])
    return name


_LETTER_THEN_NUMBER = re.compile(r"[a-z]{1,3}\d+[a-z]?")
"""A model code that starts with its series letters ("s21", "m2", "a55", "gt3"): the letters in capitals."""


def _model_word(word: str) -> str:
    """A word after a product's line as its maker writes it, when typed all in lower case: a model
    code's series letters in capitals ("s21" → S21), a word capitalised ("pro" → Pro), a number
    and its suffix as typed ("6a", "15")."""
    if not word.islower() or not word.isascii():
        return word
    if _LETTER_THEN_NUMBER.fullmatch(word):
        letters = len(word) - len(word.lstrip("abcdefghijklmnopqrstuvwxyz"))
        return word[:letters].upper() + word[letters:]
    return word.capitalize() if word.isalpha() else word
