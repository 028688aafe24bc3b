"""Dates as people mean them, written down before reading the resolver (issue #20 item 3).

Each row is a sentence a user would type, the time of the turn that said it (with the offset the
client sent), and the days a person means: ``(first, last)`` inclusive. ``exact`` rows must come back
as exactly that span; ``within`` rows (vague words: "mid-march", "three years back") pass when the
resolved span lies inside it; ``NONE`` rows hold no date a memory should carry. A row is a sentence
nobody tuned the resolver on, so the pass rate says how it does on phrasings it has not seen.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from loci.timexpr import Voice

Mode = Literal["exact", "within", "none"]

WED = "2024-03-13T15:00:00+00:00"  # a Wednesday afternoon in UTC
MON_YE = "2024-12-30T10:00:00+00:00"  # a Monday two days before the year ends
NEW_YEAR = "2025-01-01T12:00:00+00:00"  # a Wednesday, the first day of a year
LEAP = "2024-02-28T09:00:00+00:00"  # the day before a leap day
APR = "2024-04-10T09:00:00+00:00"  # a month of 30 days
LATE_NY = "2024-03-13T23:55:00-05:00"  # local evening, already the 14th in UTC
EARLY_CET = "2024-03-14T00:05:00+01:00"  # local just past midnight, still the 13th in UTC
MAY = "2024-05-20T12:00:00+00:00"  # a Monday: the reviewer's anchor for assistant and recipe prose
SAT = "2025-05-10T15:00:00+00:00"  # a Saturday: the second review's anchor for dates the guards dropped


@dataclass(frozen=True, slots=True)
class Case:
    """One sentence, when it was said, and the days a person means by it."""

    at: str
    text: str
    first: str | None
    last: str | None
    mode: Mode = "exact"
    voice: Voice = "person"
    """Who wrote it: a user (or another person), or the assistant, as mining reads the turn's role."""


def day(at: str, text: str, date: str) -> Case:
    """A sentence that means one whole day."""
    return Case(at, text, date, date)


def span(at: str, text: str, first: str, last: str) -> Case:
    """A sentence that means a whole calendar span (a weekend, a month, a year)."""
    return Case(at, text, first, last)


def near(at: str, text: str, first: str, last: str) -> Case:
    """A vague sentence: any span inside ``first..last`` is what a person means."""
    return Case(at, text, first, last, "within")


def none(text: str, at: str = WED, voice: Voice = "person") -> Case:
    """A sentence with no date in it, however date-like its numbers or words look."""
    return Case(at, text, None, None, "none", voice)


PLANNING = [
    day(WED, "we're flying out on the 3rd", "2024-04-03"),
    day(WED, "the wedding is the second saturday in june", "2024-06-08"),
    day(WED, "my exam is in two weeks", "2024-03-27"),
    day(WED, "let's meet next tuesday", "2024-03-19"),
    span(WED, "we're going hiking this weekend", "2024-03-16", "2024-03-17"),
    near(WED, "the report is due at the end of the month", "2024-03-24", "2024-03-31"),
    near(WED, "I'll finish the deck after easter", "2024-04-01", "2024-04-30"),
    near(WED, "I need to buy the gifts by christmas", "2024-03-13", "2024-12-25"),
    near(WED, "we're repainting the house in the spring", "2024-03-01", "2024-06-21"),
    near(WED, "the conference is mid-march", "2024-03-10", "2024-03-20"),
    near(WED, "we plan to renovate early next year", "2025-01-01", "2025-04-30"),
    near(WED, "the new office is not open until may", "2024-05-01", "2024-05-31"),
    day(WED, "the package arrives on the 10th", "2024-04-10"),
    day(WED, "the plumber is coming on the 20th", "2024-03-20"),
    day(WED, "I'm seeing the doctor tomorrow morning", "2024-03-14"),
    day(WED, "we're leaving the day after tomorrow", "2024-03-15"),
    day(WED, "the results come out in three days", "2024-03-16"),
    near(WED, "I'll hear back in a month", "2024-04-10", "2024-04-16"),
    span(WED, "I'm starting a new job next month", "2024-04-01", "2024-04-30"),
    span(WED, "we're moving to denver next year", "2025-01-01", "2025-12-31"),
    span(WED, "I'm on call all next week", "2024-03-18", "2024-03-24"),
    span(WED, "my sister visits next weekend", "2024-03-23", "2024-03-24"),
    day(WED, "the team dinner is this friday", "2024-03-15"),
    day(WED, "we host my parents on christmas eve", "2024-12-24"),
    day(WED, "we'll drive to ohio for thanksgiving", "2024-11-28"),
    near(WED, "I have to submit it by the end of the week", "2024-03-15", "2024-03-17"),
    near(WED, "the lease ends at the end of april", "2024-04-20", "2024-04-30"),
    near(WED, "we're getting a puppy in the fall", "2024-09-01", "2024-11-30"),
    near(WED, "I want to visit greece in the summer", "2024-06-01", "2024-09-22"),
    near(WED, "my visa expires in two months", "2024-05-10", "2024-05-16"),
    near(WED, "the kitchen will be done in a couple of weeks", "2024-03-24", "2024-03-31"),
    day(WED, "our book club meets the first monday of next month", "2024-04-01"),
    day(WED, "the release is the last friday in march", "2024-03-29"),
    day(WED, "we're throwing a party on halloween", "2024-10-31"),
    day(WED, "the fireworks are on the fourth of july", "2024-07-04"),
    day(WED, "my flight home is in 10 days", "2024-03-23"),
    day(WED, "I'm going to the gym on friday", "2024-03-15"),
    span(WED, "in june I'll start the new job", "2024-06-01", "2024-06-30"),
    day(APR, "rent is due on the 31st", "2024-05-31"),
    day(WED, "I'm having dinner with sam tonight", "2024-03-13"),
]

PAST = [
    day(WED, "last night we watched a movie", "2024-03-12"),
    day(WED, "the day before yesterday I got a flat tire", "2024-03-11"),
    day(WED, "I returned the jacket a fortnight ago", "2024-02-28"),
    near(WED, "we moved here three years back", "2021-01-01", "2021-12-31"),
    span(WED, "we went to lisbon in '19", "2019-01-01", "2019-12-31"),
    span(WED, "I grew up on music from the 90s", "1990-01-01", "1999-12-31"),
    day(WED, "I started the new job on monday", "2024-03-11"),
    day(WED, "we got married on june 3rd", "2023-06-03"),
    span(WED, "I adopted the cat in november", "2023-11-01", "2023-11-30"),
    day(WED, "my birthday was on the 3rd", "2024-03-03"),
    span(WED, "I visited my parents last weekend", "2024-03-09", "2024-03-10"),
    day(WED, "yesterday I went to the dentist", "2024-03-12"),
    day(WED, "I called the bank two days ago", "2024-03-11"),
    span(WED, "last month I started yoga", "2024-02-01", "2024-02-29"),
    span(WED, "last year we went to japan", "2023-01-01", "2023-12-31"),
    near(WED, "last summer I worked at a camp", "2023-06-01", "2023-09-22"),
    day(WED, "this morning I ran 5k", "2024-03-13"),
    near(WED, "I sold my bike a couple of weeks ago", "2024-02-21", "2024-03-03"),
    near(WED, "I got the keys a few days ago", "2024-03-06", "2024-03-12"),
    span(WED, "back in 2015 I lived in austin", "2015-01-01", "2015-12-31"),
    span(WED, "in 2019 I moved to berlin", "2019-01-01", "2019-12-31"),
    day(WED, "I signed the contract on March 3rd, 2021", "2021-03-03"),
    day(WED, "the invoice is dated 2023-07-14", "2023-07-14"),
    day(WED, "last christmas I gave you my heart", "2023-12-25"),
    day(WED, "over thanksgiving we drove to ohio", "2023-11-23"),
    day(WED, "we partied on new year's eve", "2023-12-31"),
    day(WED, "last friday I had a job interview", "2024-03-08"),
    day(WED, "on friday I went to the gym", "2024-03-08"),
    span(WED, "in june I started the new job", "2023-06-01", "2023-06-30"),
    day(WED, "I paid rent on the 10th", "2024-03-10"),
    day(WED, "I got my valentine flowers on valentine's day", "2024-02-14"),
    near(WED, "I quit smoking ten years ago", "2014-01-01", "2014-12-31"),
    span(WED, "my grandfather was born in 1931", "1931-01-01", "1931-12-31"),
    day(WED, "I didn't go to work yesterday", "2024-03-12"),
]

YEAR_ENDS = [
    day(MON_YE, "the movers come on the 2nd", "2025-01-02"),
    day(MON_YE, "we're back at work on january 6", "2025-01-06"),
    day(MON_YE, "we're celebrating on new year's eve", "2024-12-31"),
    day(MON_YE, "the gym reopens on monday", "2025-01-06"),
    span(MON_YE, "my lease renews next month", "2025-01-01", "2025-01-31"),
    span(MON_YE, "I start the course in january", "2025-01-01", "2025-01-31"),
    day(NEW_YEAR, "I was at a party on the 30th", "2024-12-30"),
    span(NEW_YEAR, "last month was exhausting", "2024-12-01", "2024-12-31"),
    span(NEW_YEAR, "in december we went skiing", "2024-12-01", "2024-12-31"),
    span(NEW_YEAR, "last year I ran a marathon", "2024-01-01", "2024-12-31"),
    day(NEW_YEAR, "on christmas day I cooked a goose", "2024-12-25"),
    day(NEW_YEAR, "yesterday I stayed up till 2am", "2024-12-31"),
    day(LEAP, "the lab opens in two days", "2024-03-01"),
    day(LEAP, "I'm off tomorrow", "2024-02-29"),
    day(LATE_NY, "tomorrow I have a dentist appointment", "2024-03-14"),
    day(EARLY_CET, "yesterday was rough", "2024-03-13"),
]

SPEECH_AND_CONDITIONS = [
    day(WED, "my boss said 'we'll ship it on friday'", "2024-03-15"),
    span(WED, "she told me she'd been to rome last april", "2023-04-01", "2023-04-30"),
    day(WED, '"see you on the 20th" he wrote', "2024-03-20"),
    day(WED, "if it rains on saturday we'll stay home", "2024-03-16"),
    day(WED, "I won't be free until the 25th", "2024-03-25"),
    # 5/6 is ambiguous: an English-speaking default reads month/day, and the turn plans ahead
    day(WED, "the appointment is on 5/6", "2024-05-06"),
    # only day/month makes 25/12 a date
    day(WED, "the party is on 25/12", "2024-12-25"),
    day(WED, "on 3/4 I flew home", "2024-03-04"),
    span(WED, "we moved in march", "2024-03-01", "2024-03-31"),
]

NOT_DATES = [
    none("I learned to swim when I was 12"),
    none("I just bought a 2024 macbook"),
    none("I'm staying in room 1912"),
    none("I gave the restaurant 4/5 stars"),
    none("I'm 30 and still learning to cook"),
    none("that's the 3rd time this happened"),
    none("we upgraded to version 2.10"),
    none("may I ask you something?"),
    none("I ran 5k in 25:30"),
    none("the final score was 3-1"),
    none("call me at 555-1212"),
    none("I finally read 1984 by orwell"),
    none("my zip code is 90210"),
    none("the laptop costs $2000"),
    none("I take 2 pills a day"),
    none("she works 9 to 5"),
    none("we'll march in the parade together"),
    none("I want a second opinion"),
    none("when I was in college I played rugby"),
]

# Found after the table above was written, in an assistant's advice and a recipe (review of the new
# families): fractions, floors, a list item to click, a score band, and how long things take.
PROSE = [
    none("Reduce the sauce by 1/3.", MAY, "assistant"),
    none("Cut the sugar by 1/2 and taste before adding more.", MAY, "assistant"),
    none("Divide by 3/4 to get it.", MAY, "assistant"),
    none("The rooms are on the 1st and 2nd floors.", MAY, "assistant"),
    none("Then click on the 3rd.", MAY, "assistant"),
    none("Scores were mostly in the 90s on that exam.", MAY),
    none("Most people see results in two weeks.", MAY),
    none("Most people see results in two weeks.", MAY, "assistant"),
    none("the medication starts working in a few days", MAY, "assistant"),
    none("You can learn the basics in a month, and get fluent in a year.", MAY, "assistant"),
    # a user's planning question names days: "the 1st" is June 1st ("or the 15th" has no word placing it)
    day(MAY, "Is it better to go after the 1st or the 15th?", "2024-06-01"),
    day(MAY, "the rent is due by 6/1", "2024-06-01"),
    # tenths, twelfths and scores after a bare "by"/"for" (third review)
    none("Reduce the dose by 1/10.", MAY, "assistant"),
    none("Cut the price by 1/10."),
    none("I'd rate the movie for 9/10."),
    none("Sold for 1/12."),
    day(MAY, "the essay is due by 1/10", "2025-01-10"),
]

# Real dates the guards above dropped (second review): "by" and "for" before a day, a pointing verb's
# stem inside another word or words away, a measure word elsewhere in the sentence, "some people from".
GUARDED = [
    day(SAT, "I have to move out by 6/30.", "2025-06-30"),
    day(SAT, "I need to file my taxes by 4/15.", "2026-04-15"),
    day(SAT, "dinner is booked for 5/24", "2025-05-24"),
    day(SAT, "The meeting is rescheduled for 6/14.", "2025-06-14"),
    day(SAT, "The launch is scheduled for 5/31.", "2025-05-31"),
    day(SAT, "The press conference is on the 5th.", "2025-06-05"),
    day(SAT, "My daughter's tap recital is on the 14th.", "2025-05-14"),
    day(SAT, "We're expanding the team on the 1st.", "2025-06-01"),
    day(SAT, "it depends on the weather on the 21st", "2025-05-21"),
    day(SAT, "Our religious holiday falls on the 12th.", "2025-05-12"),
    day(SAT, "I selected my classes on the 15th.", "2025-04-15"),
    day(SAT, "I'm focused on packing on the 28th.", "2025-05-28"),
    day(SAT, "I'll be focused on packing on the 28th.", "2025-05-28"),
    day(SAT, "The focus group meets on the 19th.", "2025-05-19"),
    span(SAT, "I started reading Stephen King in the 90s.", "1990-01-01", "1999-12-31"),
    span(SAT, "My dad was a teacher in the 80s, grading exams", "1980-01-01", "1989-12-31"),
    span(SAT, "I weighed way more back in the 2010s.", "2010-01-01", "2019-12-31"),
    span(SAT, "The average house cost way less in the 80s.", "1980-01-01", "1989-12-31"),
    span(SAT, "She retired in the 90s, aged about 60.", "1990-01-01", "1999-12-31"),
    span(SAT, "He was aged about 60 when he moved here in the 70s.", "1970-01-01", "1979-12-31"),
    near(SAT, "Some people from work are coming over in two weeks.", "2025-05-19", "2025-05-31"),
    near(SAT, "I usually hate flying, but my trip to Rome is in three weeks.", "2025-05-26", "2025-06-08"),
    near(SAT, "The house is a mess and some people from church are visiting in a month.", "2025-05-24", "2025-06-30"),
]

MINED = PLANNING + PAST + YEAR_ENDS + SPEECH_AND_CONDITIONS + NOT_DATES + PROSE + GUARDED

QUESTIONS = [
    span(WED, "what did I do last weekend?", "2024-03-09", "2024-03-10"),
    day(WED, "where did I go yesterday?", "2024-03-12"),
    day(WED, "what did I eat last night?", "2024-03-12"),
    span(WED, "what happened in march?", "2024-03-01", "2024-03-31"),
    day(WED, "what did I buy two weeks ago?", "2024-02-28"),
    span(WED, "what are my plans for next week?", "2024-03-18", "2024-03-24"),
    span(WED, "what's happening this weekend?", "2024-03-16", "2024-03-17"),
    day(WED, "what did I do on christmas?", "2023-12-25"),
    span(WED, "what did I do in 2022?", "2022-01-01", "2022-12-31"),
    span(WED, "how often did I go to the gym last month?", "2024-02-01", "2024-02-29"),
    none("when is my exam?"),
    none("may I ask what I said about the 2024 macbook?"),
]
