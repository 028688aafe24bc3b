"""The word tables the offline entity, relation and memory rules read: data, not code.

Each table says why it exists; the rules in `ingest.entity_scan` and
`ingest.relation_rules` only look words up here, so widening what is recognised means
adding words, not patterns.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from loci.people_roles import PEOPLE_ROLES

__all__ = [
    "BODY_PARTS",
    "CLINICIANS",
    "DEMONYMS",
    "DIETS",
    "EVENT_HEADS",
    "FAITHS",
    "HOLIDAYS",
    "INNER_PUNCT",
    "JOB_HEADS",
    "KIN_TITLES",
    "LIFE_WORDS",
    "NOT_NAMES",
    "ORG_HEADS",
    "ORG_LEADS",
    "PEOPLE_ROLES",
    "PETS",
    "PLACE_HEADS",
    "POSSESSIONS",
    "PRICE",
    "TITLES",
    "VENUE_HEADS",
    "VENUE_NOUNS",
    "VERB_VALUES",
    "words",
]


def words(text: str) -> frozenset[str]:
    return frozenset(text.split())


INNER_PUNCT = r"(?<=\w)\.(?=(?-i:[a-z\d]))|(?<=\d)[,:](?=\d)"
"""Punctuation inside a free-text value rather than after it (a regex alternative for the
value shapes of `ingest.relation_rules` and `ingest.memory_vocab`, which otherwise stop at
punctuation): a point between a word and a digit or a small letter ("48V 17.5Ah", "$12.50",
"v2.1", "Node.js"), a comma or colon between digits ("$1,299", "16:9"). A point before a
space or the end still ends the value, as it ends the sentence (`loci.sentences`), and so
does one before a capital (a missing space: "pack.Then")."""


TITLES: Mapping[str, str] = MappingProxyType(
    {
        "dr": "Dr.",
        "doctor": "Dr.",
        "mr": "Mr.",
        "mrs": "Mrs.",
        "ms": "Ms.",
        "miss": "Miss",
        "prof": "Prof.",
        "professor": "Prof.",
        "sr": "Sr.",
        "sra": "Sra.",
        "mme": "Mme",
        "mlle": "Mlle",
        "senhor": "Sr.",
        "senhora": "Sra.",
        "dona": "Dona",
        "don": "Don",
        "fr": "Fr.",
        "father": "Fr.",
        "sir": "Sir",
        "dame": "Dame",
        "aunt": "Aunt",
        "auntie": "Auntie",
        "aunty": "Aunty",
        "uncle": "Uncle",
        "cousin": "Cousin",
        "grandma": "Grandma",
        "grandpa": "Grandpa",
        "granny": "Granny",
        "grandad": "Grandad",
        "granddad": "Granddad",
        "coach": "Coach",
    }
)
"""Titles a name may carry (folded word → how it is written). A title joins the name that
follows it ("Dr. Sousa", French "Mme Pelletier"; not "Dre", a first name too) and marks it a
person; alone ("Dr", "Senhora") it is no entity."""
KIN_TITLES = words("aunt auntie aunty uncle cousin grandma grandpa granny grandad granddad")
"""The `TITLES` that name a relative: a name keeps one in its key (`loci.name_keys`), so
"Uncle Doyle" is a relative, never the full name a "Mrs. Doyle" shortens (`ingest.entity_merge`)."""

NOT_NAMES = words(
    """user assistant ai bot chatgpt gpt claude system human me myself you i i'm i've i'll i'd he she they we it
    his her hers him them their our ours my mine your yours its this that these those there here what which who
    whom whose why how when where yes no ok okay sure thanks thank please hi hello hey dear great good nice well
    so and but or if also however additionally overall finally first second third next last step note tip tips
    warning example summary conclusion option options pros cons update edit ps btw lol omg wow congrats
    congratulations sorry cheers perfect awesome cool noted exactly absolutely definitely follow follow-up check
    x-ray x-rays gp gps
    remember consider use try make keep avoid take add ask book go get let start stop look see read watch call
    today tonight tomorrow yesterday monday tuesday wednesday thursday friday saturday sunday mondays tuesdays
    wednesdays thursdays fridays saturdays sundays weekends mornings evenings nights january february
    march april may june july august september october november december spring summer autumn fall winter
    morning afternoon evening night week weekend month year mom mum dad mother father brother sister the a an
    ride spend visit bring pack walk eat drink buy order book plan drive fly stay skip swap replace charge
    store clean wash tell explain compare choose pick install enable disable open close turn set"""
)
"""Capitalised words that are never an entity on their own: pronouns and chat words,
speaker labels ("User", "Assistant"), "GP" (a role, no name), imperatives that open advice ("Follow", "Check"),
and calendar words, plural ones too ("on Sundays": times come from `loci.timexpr`, not from capitals)."""

DIETS: Mapping[str, str] = MappingProxyType(
    {
        **{d: d for d in ("vegetarian", "vegan", "pescatarian", "gluten-free", "lactose intolerant", "keto")},
        **{d: d for d in ("coeliac", "celiac", "halal", "kosher")},
        "veggie": "vegetarian",
        "plant-based": "vegan",
        **{d: "low carb" for d in ("low carb", "low-carb", "lo carb")},
        **{d: d for d in ("paleo", "dairy-free")},
        "gluten free": "gluten-free",
        "dairy free": "dairy-free",
        "plant based": "vegan",
    }
)
"""Diets as said → as recorded (`ingest.relation_rules`): "we're both veggie" is vegetarian."""

DOG_BREEDS = words(
    """greyhound whippet lurcher labrador spaniel terrier collie beagle poodle dachshund husky retriever pug
    bulldog schnauzer chihuahua cockapoo labradoodle cavapoo dalmatian rottweiler doberman staffy staffie
    cavoodle spoodle groodle maltipoo schnoodle bernedoodle goldendoodle corgi pomeranian kelpie samoyed"""
)
"""Dogs are often named by their breed ("our rescue greyhound", "my beagle"): each breed's
species is dog."""

PETS: Mapping[str, str] = MappingProxyType(
    {
        **{w: w for w in words("dog cat rabbit hamster horse pony parrot budgie tortoise turtle ferret gecko lizard")},
        **{w: w for w in words("snake goldfish fish chinchilla cockatiel canary hedgehog")},
        **{w: "dog" for w in DOG_BREEDS},
        "puppy": "dog",
        "jack russell": "dog",  # never "russell" alone: "the Russell Group", "my Russell Hobbs kettle"
        "pup": "dog",
        "kitten": "cat",
        "kitty": "cat",
        "bunny": "rabbit",
        "guinea pig": "guinea pig",
        "pet": "",
    }
)
"""Words for the animals people keep (as said → the species recorded): "my turtle is called
Sushi", "our cat, Miso," make Sushi and Miso the user's `pet` and record their `species`
(`ingest.relation_rules`); "pet" alone names one with no species ("my pet is called Kiwi").
A pet is a person-kind entity (`ingest.entity_cues`): there is no animal kind, and a pet is
named, called "he" or "she" and is one of the people in the user's life, as a `p` is; an item
(`i`) is a thing with a state (bought, sold, broken). Common pet names are people's names
anyway ("Max", "Bella"), which the gazetteer types `p`."""

PET_ENDS = (
    r"(?=['’]s\s+name\b|\s*(?:$|[.,;:!?)(\-–—])|\s+(?:and|but|btw|lol|haha|who|whose|who['’]s|she|he|is|was|for|since|"
    r"of|from|in|at|now|too|tho|though|named|called|aged|\d+)\b)"
)
"""Where a pet word ends what "X's my cat" / "X is my dog" says: the clause or a following function word
("Pickle's my cat btw", "Rex is my dog's name", "Rex was my dog for 12 years"), not another noun ("Tesco's my
cat food supplier", "Kim is our dog walker", "Sarah's my dog walking buddy", "Rex's my dog's toy")."""

_SETTLED_HOW_LONG = (
    r"(?i:lived\s+here|been\s+here)\s+(?i:for\s+)?(?i:about\s+|nearly\s+|almost\s+|over\s+|like\s+)?"
    r"(?i:(?:\d+|two|three|four|five|six|seven|eight|nine|ten|a\s+few|a\s+couple\s+of|many|several)\s*"
    r"(?:yrs?|years?|months?)|an?\s+(?:yr|year)|all\s+my\s+life|since\s+(?:birth|\d{4}|I\s+was))\b"
)
_NOT_SETTLED_WHY = (
    r"(?![^.!?\n]{0,60}?\b(?i:backpacking|holiday|vacation|trip|travell?ing|visiting|winter\s+sun|for\s+(?:work|the\s+"
    r"(?:winter|summer))|at\s+uni|as\s+(?:a\s+)?kids?|when\s+I\s+was|before\s+(?:moving|we\s+moved|I\s+moved)|"
    r"flying\s+home|going\s+home|back\s+home)\b)"
)
SETTLED_AFTER = (
    r"(?:\s*,\s*[A-Z][\w'’\-]*(?:\s+[A-Z][\w'’\-]*){0,2})?\s*(?:[,;]|\s-|(?i:,?\s*and))\s*"
    rf"(?i:(?:we|I)(?:['’]ve|\s+have)\s+)?{_SETTLED_HOW_LONG}{_NOT_SETTLED_WHY}"
)
"""What after "we're in <place>" makes the place a home, not a stay: how long one has lived or been there, in
months or more ("we're in Mt Albert, Auckland, been here 2 yrs", "I'm in Leeds - lived here all my life"), said
next, of the speaker, and not for a trip, a season or long ago ("been here 2 months backpacking", "lived here
for 3 years at uni", "been here three days"). `ingest.relation_sayings` stores the home and
`ingest.relation_rules` no visit."""

ORG_HEADS = words(
    """inc inc. ltd ltd. llc plc gmbh corp corp. corporation company co co. labs lab group bank university
    universidade college school academy institute hospital clinic foundation agency studio studios partners
    ministry council association society club federation airlines airways systems technologies solutions
    consulting capital ventures games media software analytics sons brothers harriers runners athletics athletic
    rovers united fc afc wanderers library libraries centre center police physio physiotherapy health pharmacy
    services relocations removals infirmary service authority commission department logistics transport
    freight"""
) | words(
    """surgery practice medical dental dentistry dentists orthodontics optometrists opticians chiropractic vet
    vets veterinary chemist chemists hospice nursery daycare preschool kindergarten brewery brewing roasters
    salon barbers fitness motors garage tyres tires cycles rentals movers builders construction plumbing
    electrical realty realtors lettings insurance insure assurance payments projects holdings enterprises
    industries associates architects engineering accountants solicitors energy telecom railways supermarkets team"""
)
VENUE_HEADS = words("kitchen bistro brasserie diner deli eatery trattoria pizzeria taqueria bakery zoo aquarium")
"""A venue's last word ("Chester Zoo"): an organisation, unless a cue makes it a place (`ingest.entity_scan`)."""
"""A capitalised run ending with one of these names an organisation ("Northwind Labs", "Doyle & Sons",
a club: "Kirkstall Harriers", "Leeds United", "Hyde FC"); an "&" between two names does too
(`ingest.entity_scan`: "Marks & Spencer"). Alone ("Hospital", "Labs") such a word is a common
noun, never a name. The second list: the trade closing a business's name ("Quayside Dental", "Dunmore Motors")."""

ORG_LEADS = words(
    """brasserie boulangerie pâtisserie patisserie pharmacie clinique hôpital hopital université universite école
    ecole collège banque caisse librairie épicerie epicerie fromagerie clínica clinica farmacia universidad
    universidade banco escola escuela colegio"""
)
"""First words making a run an organisation in French, Spanish and Portuguese ("Brasserie Ruelle Rouge", "Banco
Santander"); English ones stay out: "College Park" and "Hospital Road" are places."""

PLACE_HEADS = words(
    """street st st. road rd avenue ave boulevard lane square plaza park garden gardens beach bay island islands
    lake river mountain mount mt valley forest hill hills heights coast bridge station airport harbour harbor port
    market palace castle cathedral church temple shrine museum tower district quarter village town city
    county province region peninsula canyon falls trail path end"""
)
"""Last words that make a capitalised run a place ("Pena Palace", "Central Park")."""
PLACE_LEADS = words("""rua avenida praça largo travessa calle plaza via rue place piazza mount mt lake st ste saint""")
"""First words that make a capitalised run a place ("Rua das Flores", "Lake Como"); "St" / "Saint"
leads a saint's name, which in chat is a hospital, a church or a street ("St James", "St. Mary's")."""

EVENT_HEADS = words(
    """conference festival wedding party concert meeting marathon summit birthday ceremony tournament expo
    championship fair gala premiere reunion workshop hackathon retreat graduation olympics cup"""
)
"""Last words that make a run an event ("Berlin Jazz Festival")."""

FAITHS = words(
    "catholic protestant anglican methodist presbyterian baptist lutheran christian jewish muslim hindu sikh"
)
"""Faiths' adjectives; a few are also first names ("Christian"), which a person cue keeps (`ingest.entity_shapes`)."""

DEMONYMS = (
    words(
        """english british scottish welsh irish american canadian mexican brazilian argentinian argentine chilean
    peruvian colombian cuban jamaican french spanish portuguese italian german dutch belgian swiss austrian
    danish swedish norwegian finnish icelandic polish czech slovak hungarian romanian bulgarian greek turkish
    russian ukrainian croatian serbian slovenian albanian estonian latvian lithuanian chinese japanese korean
    thai vietnamese filipino indonesian malaysian singaporean indian pakistani bangladeshi nepalese sri lankan
    persian iranian iraqi syrian lebanese israeli arabic arab egyptian moroccan tunisian algerian ethiopian
    kenyan nigerian ghanaian african asian european nordic scandinavian mediterranean caribbean latin
    australian catalan basque cantonese mandarin hindi urdu punjabi bengali tamil hebrew swahili"""
    )
    | FAITHS
)
"""Nationalities, regions', languages' and faiths' (`FAITHS`) adjectives ("Danish cooking", "in Portuguese",
"her family are Methodist"): a capitalised word that names no entity of its own, though some are
also given names (Danish)."""

HOLIDAYS = words(
    """christmas xmas easter halloween thanksgiving diwali eid hanukkah chanukah ramadan passover hogmanay
    whitsun pentecost lent advent carnival carnaval mardi-gras holi vesak kwanzaa"""
)
"""Feasts and holidays named alone ("closes before Halloween", "home for Christmas"): events."""

VENUE_NOUNS = words(
    """hotel ryokan hostel guesthouse inn restaurant cafe café pub bakery gym park beach museum temple shrine
    village town city neighbourhood neighborhood street trail island"""
)
"""Common nouns for somewhere one goes: "a ryokan called Kikokuso" and "the Toshogu shrine"
both make the name a place (`ingest.entity_cues`). "bar", "shop" and "store" follow brands
and products too ("a Mars bar", "the Play store"), so only "called" / "named" reads them."""

IMPERATIVES = words(
    """leave ask call tell text email message ring run try use install download update open check take bring
    give send book keep let get put see contact register reset restart reboot enable disable turn ping"""
)
"""Verbs an advice opens a sentence with, capitalised before a name ("Leave Gloria a key", "Run
Lenovo Vantage"): never part of the name, even where the window never says them in lower case."""

ACRONYM_WORDS = words(
    """lol lmao omg idk tbh btw fyi asap imo imho irl aka diy eta faq pdf usb gps hdmi api cpu gpu ram ssd
    hdd mri ecg ekg bmi tv dvd cd pc ok ac dc led lcd oled sms mms nfc url pin atm vpn wifi"""
) | words(
    """gerd gord ibs ibd copd adhd ptsd ocd uti utis pcos cfs hiv aids std sti stis dvt tia ckd gad asd
    acl uri urti cbc fbc tsh psa inr ssri ssris snri nsaid nsaids ppi ppis hrt ivf cbt cpr otc icu"""
)
"""All-capital words that are chat shorthand, files, parts or tests, never an organisation; with
common medical ones, conditions, tests and treatments ("GERD", "IBS", "TSH", "NSAIDs", "CBT"),
which chat names after "for" or "with" as often as an institution ("a plan for GERD")."""

LIFE_WORDS = words(
    """house place flat apartment home birthday wedding party kids children family parents partner wife husband
    son daughter mom mum dad dog cat garden boat car idea advice number"""
)
"""What a person has: "Peninha's boat", "Rui's new flat", with `PEOPLE_ROLES` ("Ana's
brother"), make the owner a person. Parts of things ("battery", "screen") are left out:
"the Kindle's battery" is a device's."""

POSSESSIONS = words(
    """battery bike e-bike bicycle scooter motorbike motorcycle car van truck suv camper caravan boat kayak
    phone smartphone laptop computer pc desktop tablet e-reader monitor keyboard mouse
    printer router modem headphones earbuds speaker tv television console camera lens drone watch smartwatch
    fridge freezer oven stove cooktop microwave dishwasher washer dryer kettle toaster blender mixer
    rice-cooker cooker airfryer air-fryer espresso-machine coffee-machine grinder vacuum hoover heater
    boiler thermostat sofa couch mattress bed desk chair guitar piano keyboard violin drums amp
    tent backpack suitcase stroller pram helmet tyres tires charger powerbank power-bank inverter
    solar-panel house flat apartment mower lawnmower drill ring necklace glasses hearing-aid inhaler wheelchair
    shoes boots jacket coat sewing-machine"""
)
"""Things people own and talk about changing: "my <thing>" makes it an item entity, the
subject of its state ("the battery is a 12V pack") and status ("sold", "broken").
Two-word things are written with a hyphen ("rice-cooker") and matched either way."""

JOB_HEADS = words(
    """analyst engineer developer programmer designer architect scientist researcher manager director consultant
    accountant auditor lawyer solicitor barrister paralegal nurse midwife doctor surgeon dentist pharmacist
    physiotherapist physio therapist paramedic vet veterinarian teacher lecturer professor tutor librarian
    journalist editor writer copywriter translator photographer illustrator animator chef cook baker barista
    bartender waiter waitress electrician plumber carpenter mechanic technician builder joiner welder
    driver pilot officer firefighter administrator coordinator assistant receptionist clerk cashier
    specialist strategist marketer recruiter associate executive founder freelancer contractor intern
    apprentice carer caregiver cleaner landscaper gardener surveyor economist statistician officer
    salesperson rep representative adviser advisor counsellor counselor psychologist psychiatrist
    optometrist radiographer sonographer postman courier trainer instructor supervisor foreman dev dispatcher
    estimator inspector attendant steward hygienist educator nanny chemist biologist physicist geologist
    ecologist technologist"""
)
"""Last words of a job title ("data analyst", "staff nurse", "sous chef"): "I'm a product analyst
now" says a job with no employer after it, where "I'm a big fan" says none."""

CLINICIANS = words(
    """gp doctor doc doctors physio physiotherapist consultant specialist surgeon nurse dermatologist
    rheumatologist neurologist cardiologist podiatrist osteopath chiropractor optician dentist hospital
    a&e clinic scan x-ray xray mri ultrasound tests test bloods results"""
)
"""Who or what tells a person their diagnosis ("GP reckons plantar fasciitis", "the scan showed a
hairline fracture"). Not the vet: what a vet finds is the pet's."""

BODY_PARTS = words(
    """arm arms wrist wrists hand hands finger fingers thumb elbow shoulder shoulders back neck knee knees
    ankle ankles foot feet toe toes leg legs hip hips rib ribs nose jaw tooth teeth collarbone hamstring
    achilles spine"""
)
""""I broke my wrist" is an injury, "I broke my phone" is the phone's status."""

VERB_VALUES: Mapping[str, str] = MappingProxyType(
    {
        "sold": "sold",
        "gave away": "given away",
        "got rid of": "gone",
        "donated": "donated",
        "returned": "returned",
        "lost": "lost",
        "broke": "broken",
        "crashed": "crashed",
        "wrecked": "wrecked",
        "totaled": "wrecked",
        "totalled": "wrecked",
        "repaired": "repaired",
        "fixed": "repaired",
        "died": "dead",
        "stopped working": "broken",
        "is broken": "broken",
        "was stolen": "stolen",
        "got stolen": "stolen",
        "bought": "bought",
        "purchased": "bought",
        "ordered": "bought",
        "got": "bought",
        "picked up": "bought",
        "use": "no longer used",
        "have": "no longer owned",
        "own": "no longer owned",
        "drive": "no longer driven",
        "ride": "no longer ridden",
        "play": "no longer played",
        "fractured": "fractured",
        "sprained": "sprained",
        "twisted": "twisted",
        "hurt": "hurt",
        "injured": "injured",
        "tore": "torn",
        "pulled": "pulled",
        "dislocated": "dislocated",
    }
)
"""A verb as said → the value it records (an item's status, or an injury's adjective)."""


PRICE = (
    r"[$£€¥]|(?:usd|gbp|eur|cad|aud)\b|(?:an?\s+|(?<=\ba\s)|(?<=\ban\s))(?:tenner|fiver|grand|score)"
    r"(?=\s*(?:$|[.,;:!?)]|(?:and|but|or|so|which|plus)\b))|"
    r"\d[\d,.]*\s*(?:k|grand|quid|bucks|dollars|pounds|euros|eur|usd|gbp|cad|aud)\b"
)
"""A price (a regex, read case-insensitively): what a thing was traded or swapped "for" when it is
no thing ("for $60", "for 60 quid", "for 5k", "for a tenner", "for USD 60"). A word of money
("tenner", "grand", "score") is one only after "a" (said before this or in it) and ending its
clause: "for a grand piano" is a piano."""
