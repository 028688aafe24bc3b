"""A realistic 32-turn conversation with a verbose assistant, for the archive summary's tests.

The user plans four nights in Kyoto and says their facts, preferences and bookings in
short turns; the assistant answers as LLM assistants do: "Great question!", "I'd be happy
to help", "Here are some tips:", lists, "I hope this helps! Let me know if you need
anything else", and the same sentence (or nearly) twice. A summary of it must say what
the user planned and decided, in no boilerplate and no sentence twice.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher
from itertools import combinations

from loci.sentences import split_sentences

__all__ = ["BOILERPLATE", "KEY_FACTS", "KYOTO", "summary_faults"]

KYOTO: tuple[tuple[str, str], ...] = (
    ("user", "Hi! My partner Maya and I are planning a trip to Japan and I could use some help with the Kyoto part."),
    (
        "assistant",
        "Great question! I'd be happy to help you plan the Kyoto part of your trip to Japan. Kyoto is a wonderful "
        "city with a rich history, beautiful temples and amazing food. To give you the best recommendations, could "
        "you tell me a bit more about your dates, your budget and what you enjoy? Let me know and we can get started!",
    ),
    (
        "user",
        "We fly into Osaka on 3 April and have four nights in Kyoto before going on to Tokyo. Our budget for the "
        "whole Kyoto stay is about 120,000 yen.",
    ),
    (
        "assistant",
        "Thanks for sharing those details! Early April is a fantastic time to visit Kyoto, because it is usually "
        "cherry blossom season. Here are a few things to keep in mind:\n\n"
        "1. Book your accommodation as early as possible, since cherry blossom season is very busy.\n"
        "2. Popular spots like Kiyomizu-dera and the Philosopher's Path get very crowded.\n"
        "3. A budget of 120,000 yen for four nights is reasonable for a mid-range stay.\n\n"
        "I hope this helps! Let me know if you have any other questions.",
    ),
    ("user", "We really don't like crowds, so we'd rather see the quieter temples early in the morning."),
    (
        "assistant",
        "That's a great idea! Visiting early in the morning is one of the best ways to avoid the crowds. "
        "Here are some tips:\n"
        "- Fushimi Inari is open 24 hours, so you can walk the torii gates at 6 am before the tour groups arrive.\n"
        "- Ohara and its Sanzen-in temple are quiet and about an hour north of central Kyoto by bus.\n"
        "- Honen-in is a small moss temple near the Philosopher's Path that few visitors know.\n"
        "Feel free to ask if you'd like more suggestions!",
    ),
    ("user", "Ohara sounds lovely. Also, I'm vegetarian and Maya eats fish but no meat."),
    (
        "assistant",
        "Absolutely, that's very helpful to know! Kyoto is actually one of the best cities in Japan for "
        "vegetarians, thanks to its Buddhist temple cuisine, shojin ryori. Here are some options you might enjoy:\n"
        "1. Shigetsu at Tenryu-ji in Arashiyama serves a full shojin ryori lunch.\n"
        "2. Mumokuteki Cafe near Teramachi is fully vegetarian and casual.\n"
        "3. Many tofu restaurants around Nanzen-ji have vegetarian set menus.\n"
        "I hope this helps you plan your meals!",
    ),
    ("user", "Where should we stay? We'd like a ryokan for at least one night."),
    (
        "assistant",
        "Great question! Staying in a ryokan is a wonderful way to experience traditional Japanese hospitality. "
        "Here are some things to consider:\n"
        "- A ryokan night usually includes a kaiseki dinner and breakfast, so ask for a vegetarian kaiseki when "
        "you book.\n"
        "- Prices in central Kyoto range from about 30,000 to 80,000 yen per night for two people.\n"
        "- Booking early is highly recommended during cherry blossom season.\n"
        "Let me know if you'd like specific recommendations!",
    ),
    ("user", "Yes, please suggest a couple of ryokans in our budget."),
    (
        "assistant",
        "Of course! Here are a couple of ryokans that fit your budget:\n"
        "1. Yadoya Nishijinso is a small family-run ryokan in Nishijin, about 32,000 yen a night with breakfast.\n"
        "2. Ryokan Motonago near Yasaka Shrine is about 45,000 yen a night and can prepare a vegetarian kaiseki.\n"
        "It's highly recommended to book early during cherry blossom season. Let me know if you need anything else!",
    ),
    (
        "user",
        "We decided to book Ryokan Motonago for the first night, 3 April, and then a hotel for the other three nights.",
    ),
    (
        "assistant",
        "That sounds like a wonderful plan! Ryokan Motonago is a lovely choice for your first night. Don't forget "
        "to request the vegetarian kaiseki when you book. For the other three nights, would you like hotel "
        "suggestions?",
    ),
    ("user", "Yes, something near Kyoto Station since we take the Shinkansen to Tokyo on 7 April."),
    (
        "assistant",
        "Certainly! Staying near Kyoto Station is very convenient for your Shinkansen to Tokyo. "
        "Here are some options:\n"
        "- Hotel Granvia Kyoto is inside the station building, about 25,000 yen a night.\n"
        "- Daiwa Roynet Hotel Kyoto Ekimae is a short walk away, about 14,000 yen a night.\n"
        "- Hotel Kanra Kyoto is a design hotel about 10 minutes' walk north, about 28,000 yen a night.\n"
        "I hope this helps! Let me know if you have any other questions.",
    ),
    ("user", "The Daiwa Roynet one is fine. I booked it for 4 to 7 April, three nights."),
    (
        "assistant",
        "Great choice! Daiwa Roynet Hotel Kyoto Ekimae is a short walk away, about 14,000 yen a night. It is a "
        "practical and affordable option. With the ryokan "
        "and the hotel, you have spent about 87,000 yen of your 120,000 yen budget, leaving about 33,000 yen for "
        "food, transport and entry fees. Is there anything else I can help you with?",
    ),
    ("user", "How do we get from Kansai Airport to the ryokan on 3 April?"),
    (
        "assistant",
        "Good question! The easiest way is the JR Haruka limited express from Kansai Airport to Kyoto Station, "
        "which takes about 75 minutes and costs about 3,600 yen per person with the ICOCA & Haruka discount. From "
        "Kyoto Station a taxi to Ryokan Motonago takes about 15 minutes. I hope this helps!",
    ),
    ("user", "We'll take the Haruka then. Is the ICOCA card worth it for buses in Kyoto?"),
    (
        "assistant",
        "Absolutely! The ICOCA card is definitely worth it. You can use it on buses, subways and trains in Kyoto, "
        "and even in convenience stores. It saves you from buying a ticket for every ride. Let me know if you need "
        "anything else!",
    ),
    (
        "user",
        "Ok. Plan for the days: 4 April Fushimi Inari at dawn and then Nanzen-ji, 5 April Ohara, 6 April "
        "Arashiyama with lunch at Shigetsu.",
    ),
    (
        "assistant",
        "That sounds like a fantastic itinerary! Here's a quick summary of your plan:\n"
        "- 4 April: Fushimi Inari at dawn, then Nanzen-ji.\n"
        "- 5 April: Ohara and Sanzen-in.\n"
        "- 6 April: Arashiyama with lunch at Shigetsu.\n"
        "Kyoto is a wonderful city with a rich history, beautiful temples and amazing food. I hope you have a "
        "wonderful trip!",
    ),
    ("user", "Should we reserve Shigetsu in advance?"),
    (
        "assistant",
        "Yes, it's a good idea to reserve Shigetsu in advance, since it can fill up during cherry blossom season. "
        "Reservations can be made by phone or through the Tenryu-ji website up to a few weeks ahead. I'd recommend "
        "booking as soon as possible.",
    ),
    ("user", "I reserved Shigetsu for 6 April at 12:00 for two."),
    (
        "assistant",
        "Perfect! You're all set with your reservation at Shigetsu for 6 April at 12:00. It sounds like you have a "
        "wonderful trip planned. Is there anything else I can help you with?",
    ),
    ("user", "One last thing: Maya hates long bus rides, is Ohara really an hour away?"),
    (
        "assistant",
        "That's a great question! Ohara is about an hour from Kyoto Station on Kyoto Bus 17, but you can shorten "
        "the ride by taking the subway to Kokusaikaikan and the Kyoto Bus 19 from there, which is about 25 minutes. "
        "I hope this helps, and let me know if you need anything else!",
    ),
    ("user", "Great, we'll do the subway and the short bus. Thanks for all the help!"),
    (
        "assistant",
        "You're very welcome! I'm so glad I could help you plan your trip. Enjoy Kyoto and the cherry blossoms, and "
        "have a wonderful time with Maya! Feel free to come back anytime if you have more questions.",
    ),
)

BOILERPLATE: tuple[str, ...] = (
    "great question",
    "happy to help",
    "here are some",
    "here are a few",
    "here are a couple",
    "here's a quick summary",
    "let me know",
    "i hope this helps",
    "feel free to",
    "is there anything else",
    "you're very welcome",
    "sounds like a wonderful",
    "sounds like a fantastic",
    "great choice",
    "absolutely",
    "certainly",
    "of course",
    "you're all set",
    "have a wonderful",
    "glad i could help",
    "thanks for sharing",
)
"""Phrases of an assistant's chit-chat: none may reach the summary (compared lowercased)."""

KEY_FACTS: tuple[str, ...] = (
    "3 April",
    "120,000 yen",
    "don't like crowds",
    "I'm vegetarian",
    "Ryokan Motonago",
    "Daiwa Roynet",
    "Shigetsu for 6 April",
    "subway and the short bus",
)
"""What the user said and decided: each must be in the summary's body."""

NEAR = 0.8
"""Two summary sentences whose word sequences are this alike (difflib's ratio, a measure the
summary itself does not use) say the same thing twice."""


def _sentences(content: str, body: str) -> list[str]:
    line = content.split(": ", 1)[-1]  # past "Conversation <date> (<title>): "
    account = [text.split(": ", 1)[-1] for text in body.splitlines()]  # past "<speaker>: "
    return [p.strip() for text in [line, *account] for p in split_sentences(text) if p.strip()]


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def summary_faults(content: str, body: str) -> list[str]:
    """What is wrong with a summary of `KYOTO`: boilerplate quoted, a sentence said twice (in
    the line or in the account), a fact of the user's missing from the account."""
    faults = [f"boilerplate {p!r}" for p in BOILERPLATE if p in (content + "\n" + body).lower()]
    for part in (content, body):
        said = _sentences(part, "") if part is content else _sentences("", part)[1:]
        for a, b in combinations(said, 2):
            if SequenceMatcher(None, _words(a), _words(b), autojunk=False).ratio() >= NEAR:
                faults.append(f"twice: {a!r} / {b!r}")
    faults += [f"missing {fact!r}" for fact in KEY_FACTS if fact not in body]
    return faults
