"""The wing rule's parameters: one record, passed by value (`ingest.subjects`).

Every number and word list that decides which subject names a conversation's wing lives
here with its reason, so a test or the benchmark can copy `SUBJECT_RULES` and change one
field (``dataclasses.replace``) instead of patching code.
"""

from __future__ import annotations

from dataclasses import dataclass

from ingest.entity_vocab import PETS

__all__ = ["DOMAINS", "SUBJECT_RULES", "Domain", "SubjectRules", "Weights"]


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


@dataclass(frozen=True, slots=True)
class Weights:
    """How much each sign of centrality adds to a candidate's score (they sum to 1).

    A conversation's subject is what the user keeps coming back to, states first and
    calls their own; a word the assistant repeats while explaining ("mast", "cycling")
    or a name said once in passing ("Tagus") is not.
    """

    user_spread: float = 0.35
    """Share of the user's turns that mention it: the user chose to talk about it."""
    all_spread: float = 0.15
    """Share of all turns: the conversation stays on it (the assistant's turns included)."""
    opening: float = 0.2
    """Named in the user's first turn, where people state what they want to talk about;
    graded by closeness to that turn (`ingest.subject_centrality.add_opening`), so the
    opening's topic gets it in full and its details ("a budget", "some minis") less."""
    possessive: float = 0.1
    """The user says "my X" / "our X" (or "my brother Derek"): a subject of their own life."""
    centrality: float = 0.2
    """Cosine of its name to the conversation's mean vector, relative to the best candidate's
    (KeyBERT's test of what a text is about, as closets use in `ingest.keyphrases`)."""


@dataclass(frozen=True, slots=True)
class Domain:
    """A life domain (work, health, travel…): the wing for a conversation that stays in it
    without one named subject dominating, recognised from the domain's everyday words.

    Its words are details inside the domain, never subjects of their own: a job title
    ("engineer"), the office or the manager are the user's work; an inhaler, a diagnosis
    or a doctor their health. Specific subjects are not listed (a condition such as
    "asthma", a sport such as "marathon", "sleep", a standing money matter such as a
    pension, mortgage, loan, debt or insurance policy): they stay candidates and win when
    the conversation keeps to them. A chat about old pension pots filed under "Money" (or
    under "Work", whose words its employers supply) says less than "Pension".
    """

    name: str
    words: frozenset[str]
    titles: frozenset[str] = frozenset()
    """A person named with one of these ("Dr. Sousa") is this domain's detail (the
    clinician of a health conversation), not a subject."""
    place_frame: str = ""
    """When the domain frames the conversation and its subject is a place, the wing is
    named "<place> <frame>" ("Japan trip"), the place kept as an alias so later chats
    about the place join it."""
    named_by_others: bool = False
    """Its problems are described by the user and named by others (a condition by the
    assistant's reply or the user's doctor), so such a name is a candidate as if the user
    had said it (`ingest.subject_naming`)."""
    dosed: bool = False
    """A word written with a dose ("betahistine 24mg", "amlodipine 5 mg") is this domain's
    detail (a medicine, as an inhaler is): it counts for the condition the chat names
    (`ingest.subject_naming.link_medicines`), and stays a candidate only when none is named."""


DOMAINS: tuple[Domain, ...] = (
    Domain(
        "work",
        _words(
            "job jobs office manager managers colleague colleagues coworker coworkers boss employer employers "
            "promoted promotion salary career hired interview interviews resume workplace intern internship "
            "engineer engineers developer developers designer designers analyst analysts consultant accountant "
            "lawyer teacher architect programmer"
        ),
    ),
    Domain(
        "health",
        _words(
            "health doctor doctors dr gp clinic hospital diagnosed diagnosis symptom symptoms prescription "
            "prescribed medication medicine pharmacy inhaler inhalers allergy allergic treatment therapy nurse "
            "fracture illness"
        ),
        titles=_words("dr doctor"),
        named_by_others=True,
        dosed=True,
    ),
    Domain(
        "travel",
        _words(
            "travel travelling traveling trip trips flight flights fly flying hotel hotels ryokan hostel airbnb "
            "itinerary sightseeing holiday holidays vacation passport airport tourist tourists"
        ),
        place_frame="trip",
    ),
    Domain(
        "home",
        _words(
            "home flat apartment house kitchen bedroom bathroom landlord rent moved moving furniture neighbour neighbor"
        ),
    ),
    Domain(
        "cooking",
        _words("cooking cook cooked recipe recipes food meal meals dish dishes spice spices ingredients baking bake"),
    ),
    Domain(
        "money",
        _words("money budget savings bank tax taxes invest investment investing"),
    ),
    Domain("family", _words("family families parents relatives kids children")),
)
"""Life domains a person files chats under; a single relative is a person wing, not family."""


@dataclass(frozen=True, slots=True)
class SubjectRules:
    """What makes a conversation's subject, and when it is an existing wing's subject."""

    weights: Weights = Weights()
    min_turns: int = 2
    """A subject is mentioned in at least this many turns (capped at the conversation's
    length): one-off mentions never name a wing."""
    min_score: float = 0.3
    """Below this the best candidate is not central enough; the conversation is filed
    under the agent's wing, else "general", rather than under an incidental word."""
    min_chars: int = 3
    """Shorter common words ("art" passes, "it" does not) carry no subject."""
    merge_similarity: float = 0.8
    """Cosine (all-MiniLM-L6-v2) between a new subject's name and an existing wing's name of
    the same kind at or above which they are one subject. Measured on short names: the same
    word with a frame noun or an inflection scores 0.83-0.86 ("Kyoto" / "Kyoto trip",
    "marathon" / "marathon training", "garden" / "gardening", "Derek" / "Derek M"), while
    different subjects of one domain score 0.3-0.7 ("Tokyo" / "Kyoto" 0.64, "cooking" /
    "baking" 0.64, "sleep" / "insomnia" 0.69, "guitar" / "piano" 0.57)."""
    join_similarity: float = 0.4
    """Cosine between a chat's mean drawer embedding and an existing wing's (the mean of its
    drawers) at or above which the chat joins that wing when its subject's name files it
    nowhere (`ingest.wing_content`). Measured on the eight labelled sets: two chats of one
    subject score 0.44-0.75 where their names differ ("the leaf" after "a used electric
    car" 0.44, "the bonnie" after "a 1974 triumph" 0.49, a hearing test after a gig's
    ringing ears 0.63), chats of different subjects 0.06-0.35 (birding / an old motorbike
    0.35, a best man speech / a grandmother in hospital 0.34); a pair whose names already
    match scored more (a cat-sitter chat / a Cornwall holiday 0.42), and so did a Japan trip
    after a family visit abroad, which a named place keeps apart (`ingest.wing_content`).
    The margin is thin: the bar separates these sets, not every pair of chats."""
    join_margin: float = 0.15
    """How much closer the joined wing must be than the next closest. On the labelled sets
    the joined wing leads by 0.17-0.41 ("the bonnie": 0.49 vs 0.32; thin at the bottom
    too). On two LongMemEval haystacks (104 chats of mostly unrelated subjects) the bar
    alone joined 30, many wrongly ("Kitchen knives" into "Coupons", "Hotel room" into
    "Pontus"), each among several wings near 0.4; a margin of 0.1 joined 21 and 0.15 joins
    14, mostly within one domain (recipes into "Cooking", a jog into "Fitness"), still
    wrong on some ("Sea Turtle" into "Mussels")."""
    determiners: frozenset[str] = _words(
        "a an the my our your his her their this that these those some any no another every each"
    )
    """A common word is a candidate only if it once follows one of these (with at most one
    word between): determiner + noun, a cheap stand-in for a noun-chunk parser, so verbs
    and adverbs the conversation repeats ("started", "really") never name a wing."""
    possessives: frozenset[str] = _words("my our")
    frame_nouns: frozenset[str] = _words(
        "build project trip plan plans training stay visit vacation holiday journey session sessions stuff "
        "thing things setup schedule routine"
    )
    """Nouns that frame a subject rather than name it: "my e-foil build" is about the
    e-foil, "the Kyoto trip" about Kyoto, "marathon training" about the marathon."""
    kin: frozenset[str] = _words(
        "brother sister mom mother dad father wife husband partner son daughter cousin aunt uncle "
        "grandma grandpa grandmother grandfather niece nephew boyfriend girlfriend fiance fiancee roommate "
        "boss friend mum nana nan gran granny grandad"
    )
    """"my brother" is a person: the one the user names so ("my brother Derek", "Derek is my
    brother", a ``brother`` relation in the graph) when known, else a person wing of its own."""
    named_kin: frozenset[str] = _words("mum mom mam dad nana nan gran granny grandma grandpa grandad")
    """Kin words people use as the person's name, with no "my" ("for mum", "update on
    nana"): written bare, they are the user's own, as "my mum" is."""
    time_words: frozenset[str] = _words(
        "past future present recent recently ago today tonight tomorrow yesterday morning mornings afternoon "
        "evening evenings night nights weekend weekends week weeks month months year years day days hour hours "
        "minute minutes second seconds season seasons spring summer autumn fall winter moment moments time "
        "times while later earlier soon lately date dates daily weekly monthly yearly annual now then "
        "monday tuesday wednesday thursday friday saturday sunday january february march april may june july "
        "august september october november december"
    )
    """Time words are when, never what: "in the past few weeks" must not make a wing "past"."""
    generic_words: frozenset[str] = _words(
        "question questions answer answers problem problems issue issues help advice suggestion suggestions "
        "option options example examples part parts kind sort type types way ways lot lots bit number "
        "place places person people someone something anything everything point points reason reasons "
        "start end side list step steps detail details information info tip tips idea ideas thanks "
        "sense case fact word words name names work experience need needs matter"
    )
    """Words that fit any conversation and so name none."""
    thing_cues: frozenset[str] = _words(
        "build building built make making made fix fixing fixed repair repairing restore restoring "
        "assemble assembling design designing buy buying bought order ordered own owning"
    )
    """A common-noun subject is a project or thing (not a topic) when the user builds, makes,
    fixes, buys or owns it ("building an efoil"), or frames it as a build or project."""
    thing_frames: frozenset[str] = _words("build project setup")
    domains: tuple[Domain, ...] = DOMAINS
    domain_handicap: float = 0.1
    """Taken from a domain's score: a specific subject about as central as the domain it
    falls in names the wing ("Kyoto" over travel, "Derek" over family)."""
    min_user_turns: int = 2
    """A subject is mentioned in at least this many of the user's turns (capped at how
    many they wrote): what the user keeps coming back to, not a name in their opening
    only ("we sold our Golf and bought a Renault", then three turns about the phone)."""
    opening_user_turns: int = 1
    """How many of the user's first turns count as the opening."""
    opening_min_turns: int = 1
    """Turns a thing or topic named in the user's opening must be mentioned in to be a
    candidate without the user repeating it (`ingest.subjects._eligible`)."""
    he: frozenset[str] = _words("he him his himself he's he'd he'll hes")
    she: frozenset[str] = _words("she her hers herself she's she'd she'll shes")
    """People and pets are named once and then called "he" or "she" ("my dad … he lives
    on his own"); a turn that says so without naming anyone who fits mentions the last
    one named who does. A contraction is one token ("he's", "she'd"), and chat often drops
    its apostrophe ("hes"). "it" and "they" are left alone: they stand for anything."""
    male_kin: frozenset[str] = _words(
        "brother dad father husband son uncle grandpa grandfather grandad nephew boyfriend fiance"
    )
    female_kin: frozenset[str] = _words(
        "sister mom mum mother wife daughter aunt grandma grandmother nana nan gran granny niece girlfriend fiancee"
    )
    """Kin words that settle "he" or "she"; the rest (partner, cousin, friend…) and names take either."""
    species: frozenset[str] = frozenset(w for w in PETS if w) | _words("dogs puppies cats kittens rabbits")
    """Animals people keep: "a rescue dog called Biscuit" makes "the dog" and "Biscuit" one
    subject, named by its name, as people file a pet under its name. The graph's pet words
    (`ingest.entity_vocab.PETS`), so a pet it records ("my turtle is called Sushi": Sushi,
    species turtle) is the pet the wing is named by; until 2026-11-29 this was a shorter list of
    its own, and a chat about Sushi was filed under "Turtle". Plus the plurals people write."""
    prepositions: frozenset[str] = _words("with about for of on from into in at by without through around")
    """A word right after a preposition heads a noun phrase as one after a determiner does:
    mass nouns and bare plurals ("getting migraines … with migraine") take no determiner."""
    bare_leads: frozenset[str] = _words(
        "getting start started starting learn learning learnt learned try trying tried love loving enjoy enjoying"
    )
    """Verbs whose object is often a bare noun or a gerund, with no determiner to mark it: a
    condition ("getting migraines"), an activity ("started bouldering", "love climbing"), a
    skill ("learn guitar"). Right after one, a word heads a noun phrase as after a
    preposition, so what the user has or does can name the wing. Not "have" or "got": they
    lead participles as often ("have underpaid", "got married")."""
    subject_pronouns: frozenset[str] = _words("i you he she it we they i'm you're he's she's it's we're they're")
    """A word written right after one of these is a verb ("it hurts"), never a head noun."""
    max_modifiers: int = 2
    """Words allowed between a determiner and its head noun ("a great beginner guitar")."""
    phrase_breaks: frozenset[str] = _words(
        "and or but nor so then since though although unless is are was were be been am has have had do does did "
        "will would can could should"
    )
    """Conjunctions and auxiliaries: a determiner's phrase ends before them, so "a scarf and
    started" never makes "started" a head noun; and a word right before one ends its
    phrase ("getting into birdwatching since xmas": the subordinating conjunctions
    "since", "though", "although", "unless" are no stopwords of the extractor)."""
    reply_naming_cues: str = (
        r"\b(?:typical|characteristic|classic|textbook|suggestive)(?: \w+)? of"
        r"|\bsounds? like|\bknown as|\b(?:doctors|we) call|\b(?:it's|is|are) called|\bconsistent with|\blikely to be"
    )
    """How a reply names what the user described ("the typical pattern of benign positional
    vertigo", "typical of acid reflux", "what doctors call stage 2 hypertension"); only the
    reply to the opening is read, and only its first such name (`ingest.subject_naming`)."""
    diagnosis_cues: str = (
        r"\bdiagnosed (?:me )?(?:with|as)|\b(?:said|says|confirmed|thinks) (?:it'?s|it is|it was|i have|i've got)"
        r"|\bdiagnosis (?:is|was|of)"
    )
    """How a user quotes a diagnosis ("she said it's BPPV", "diagnosed with asthma")."""
    dose: str = r"\s*\d+(?:[.,]\d+)?\s?(?:mg|mcg|µg|ml|iu|units?)\b"
    """A dose written after a word: the word is a medicine (`Domain.dosed`)."""
    trip_frames: frozenset[str] = _words(
        "trip trips holiday holidays vacation week weekend fortnight break tour getaway journey"
    )
    travel_verbs: frozenset[str] = _words("going travelling traveling heading flying off")
    trip_preps: frozenset[str] = _words("to in around through across round")
    """"a road trip around Scotland", "a week in Cornwall", "going to Kyoto": the place the
    user frames the trip by is its destination; the towns and sights named after it are
    stops inside it, so the trip is not filed under the stop mentioned most ("Skye")."""


SUBJECT_RULES = SubjectRules()
"""The rule mining uses; copy it with ``dataclasses.replace`` to try another."""
