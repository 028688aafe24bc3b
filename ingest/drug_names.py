"""Medicines as chat types them, in lower case: "started on metformin", "amoxicillin 500mg".

A capitalised run finds brands ("Ventolin", `ingest.entity_scan`); a generic drug is typed in
lower case and no capital finds it. A generic name is read by its stem, the ending the WHO's
International Nonproprietary Names give a drug's class ("-cillin" a penicillin, "-statin" a
statin, "-prazole" an acid blocker, "-olol" a beta blocker), plus a short list of everyday
generics whose names carry no class stem ("paracetamol", "insulin"). Only whole words count, so
"pill" or "statistics" is no drug.

`drug_names(text)` lists the medicines a text says someone takes, in order (duplicates kept):
being or going on one ("I'm on X", "started on X", "put me on X", "she wants me on X"), "off X", "took a X",
"prescribed X", or X with its dose ("X 20mg"). A medicine named otherwise is a question, a topic
or a fact about it ("can I take X?", "advice on X", "thoughts on X", "allergic to X"), and one
denied or weighed ("never been on X", "should I go on X") is not taken: the labelled chats do not
all count those as entities. The relation rules may reuse `is_drug` to tell a medicine
from another object ("on metformin" vs "on holiday").
"""

from __future__ import annotations

import re

from ingest.entity_vocab import words

__all__ = ["COMMON_DRUGS", "drug_names", "is_drug"]

_STEMS = (
    "cillin",  # penicillins
    "mycin",  # macrolide and aminoglycoside antibiotics
    "cycline",  # tetracyclines
    "floxacin",  # quinolones
    "cef[a-z]+",  # cephalosporins (a prefix, below)
    "statin",  # statins
    "prazole",  # proton pump inhibitors
    "tidine",  # H2 blockers
    "olol",  # beta blockers
    "pril",  # ACE inhibitors
    "sartan",  # angiotensin receptor blockers
    "dipine",  # calcium channel blockers
    "azepam",  # benzodiazepines
    "azolam",  # benzodiazepines
    "oxetine",  # SSRIs and SNRIs
    "triptyline",  # tricyclics
    "gliptin",  # DPP-4 inhibitors
    "gliflozin",  # SGLT2 inhibitors
    "glutide",  # GLP-1 agonists
    "formin",  # biguanides
    "sone",  # corticosteroids (prednisone, hydrocortisone)
    "solone",  # corticosteroids
    "vir",  # antivirals
    "profen",  # NSAIDs
    "coxib",  # COX-2 inhibitors
    "setron",  # anti-sickness
    "dronate",  # bisphosphonates
    "thyroxine",  # thyroid hormone
)
"""INN stems, as endings (a cephalosporin's is its "cef-" start)."""

COMMON_DRUGS = words(
    """paracetamol acetaminophen aspirin ibuprofen naproxen diclofenac codeine tramadol morphine oxycodone
    insulin warfarin heparin apixaban rivaroxaban clopidogrel digoxin furosemide frusemide
    levothyroxine thyroxine metformin gliclazide allopurinol colchicine gabapentin pregabalin
    sertraline citalopram escitalopram venlafaxine mirtazapine quetiapine olanzapine
    diazepam lorazepam zopiclone melatonin salbutamol albuterol montelukast loratadine cetirizine
    fexofenadine amoxicillin penicillin flucloxacillin doxycycline metronidazole
    nitrofurantoin trimethoprim methotrexate hydroxychloroquine tamoxifen letrozole finasteride
    tamsulosin sildenafil omeprazole ranitidine gaviscon loperamide movicol lithium"""
)
"""Everyday generics, some without a class stem (paracetamol, insulin, warfarin)."""

_STEM_RE = re.compile(
    rf"\b(?:[a-z]{{2,}}(?:{'|'.join(s for s in _STEMS if not s.startswith('cef'))})|cef[a-z]{{4,}})\b"
)
_WORD = re.compile(r"\b[a-z][a-z\-]{3,}\b")
_TAKEN_BEFORE = re.compile(
    r"(?:\b(?:i['’]?m|i\s+am|i\s+was|we['’]re|(?:s?he|they)['’]?s|is|are|was|were|been|still|now|started|starting|"
    r"back|stay(?:ed|ing)?|kept|keep|went|"
    r"(?:put(?:s|ting)?|keep(?:s|ing)?|kept|want(?:s|ed)?|start(?:s|ed)?|switch(?:ed)?|mov(?:e|ed)|ha(?:ve|s|d))"
    r"\s+(?:me|him|her|them|us))\s+on|"
    r"\b(?:off|took\s+an?|taking|prescribed|prescription\s+for))\s+(?:(?:the|my|regular|some|a|an|more|less)\s+)?$",
    re.I,
)
_NOT_TAKEN = re.compile(
    r"\b(?:never|not|no\s+longer|n['’]t|should|shall|could|would|whether|if|thinking\s+of|considering)\b[^.!?,;]*$",
    re.I,
)
"""Before a medicine in its sentence, words that deny or weigh taking it ("never been on X")."""
_DOSE_AFTER = re.compile(r"\s*\d+(?:\.\d+)?\s*(?:mg|mcg|µg|g|ml|units?|iu)\b", re.I)


def is_drug(word: str) -> bool:
    """A generic medicine's name (module doc), in lower case."""
    w = word.lower()
    if w in COMMON_DRUGS:
        return True
    return _STEM_RE.fullmatch(w) is not None


def drug_names(text: str) -> list[str]:
    """The lower-case medicines ``text`` says someone takes (module doc), in order (duplicates kept)."""
    return [
        m.group()
        for m in _WORD.finditer(text)
        if is_drug(m.group())
        and (
            _TAKEN_BEFORE.search(text, max(0, m.start() - 24), m.start()) is not None
            or _DOSE_AFTER.match(text, m.end()) is not None
        )
        and _NOT_TAKEN.search(text, max(0, m.start() - 60), m.start()) is None
    ]
