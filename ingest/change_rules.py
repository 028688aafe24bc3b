"""Changes told without the usual names: a job ended with no employer named, and other people's
jobs, homes and partners. Rows of the same `ingest.relation_rules.Rule` table, applied beside
`RULES` (`ingest.relation_extract`); kept apart so each table stays one screenful of patterns.

* **A job ended, no employer named** ("I quit my job today.", "I got laid off last week.", "I
  retired in March.", "I handed in my notice."): the extractor cannot know which job ends (it
  does not see the graph), so it records `left job` (`loci.relation_ends.ENDS_CURRENT`), which
  the window's writer turns into `worked at` the job current then (`ingest.relation_current`):
  the same row naming the employer would have made, so closing the job and the title held there
  (`ingest.relation_close`), reopening them when that chat is trashed (`ingest.graph_liveness`)
  and recall's current state first (`retrieval.superseded`) need nothing new. An employer named
  stays with `RULES` ("I quit my job at Acme": the ``(?!… at Acme)`` lookaheads below); a
  thing retired, a habit quit ("I retired my old laptop", "I quit sugar") names no job; a
  question or a condition ("should I quit my job?", "if I got fired") is no event.
* **Someone else's change** ("Hannah got a new job at Globex.", "Derek was hired by Stripe.",
  "Maya left Spotify.", "Priya got engaged to Sam."): the relations the user's own sayings
  make, with the named person as subject (``who``), or the person the speaker has named by that
  word ("my brother Derek" … "my brother started at Google": ``kin``, read by
  `ingest.relation_extract`); a word never given a name records nothing.
"""

from __future__ import annotations

import re

from ingest.relation_rules import MY_ROLE, NAME, NOW, Rule

__all__ = ["CHANGE_RULES", "LEFT_JOB"]

LEFT_JOB = "left job"
"""The predicate of a job ended with no employer named (`loci.relation_ends.ENDS_CURRENT`)."""

_UNREAL = "".join(rf"(?<!\b{w} )" for w in ("if", "should", "would", "could", "whether", "unless", "might", "when"))
"""Words before "I" that make the leaving a question or a condition ("should I quit my job?")."""
_NAMED_AT = r"(?!\s+(?:at|with|from|by)\s+(?-i:[A-Z]))"
"""No employer named after the verb: "at Acme" is `RULES`' (`worked at Acme`)."""
_JOB = r"(?:job|role|position|post)"
_QUIT_JOB = (
    rf"(?:quit|left|resigned from|walked out of|gave up|lost)\s+(?:my|our)\s+(?:old\s+|current\s+|day\s+)?{_JOB}\b"
    rf"{_NAMED_AT}"
)
_NOTICE = (
    r"(?:handed in|hand in|gave|given|put in|turned in)\s+(?:my\s+)?notice\b"
    r"(?!\s+(?:to|with|on|for)\b)(?!\s+at\s+(?-i:[A-Z]))"
)
"""Notice handed in, not to a landlord ("I gave notice on the flat", "… to my landlord")."""
_LET_GO = rf"(?:was|got|been|were|have been)\s+(?:laid off|let go|fired|sacked|made redundant)\b(?!\s+up\b){_NAMED_AT}"
_RETIRED = (
    r"(?:retired|resigned)\b(?!\s+(?:my|the|a|an|our|his|her|its|their|it|them|this|that|these|those|myself)\b)"
    rf"{_NAMED_AT}"
)
"""Retired or resigned as an event ("I retired in March"), never a thing retired ("I retired my
old laptop") nor "I resigned myself to it"."""
_USER_LEFT = rf"{_UNREAL}\b(?:I|we)(?:'ve| have|'m| am|'re| are)?\s+{NOW}"

_JOINED = (
    r"got a (?:new )?job (?:at|with)|(?:has |had )?(?:got|been|was) hired (?:by|at)|took a (?:new )?job (?:at|with)|"
    r"works (?:at|for)|is (?:now )?working (?:at|for)|(?:has |had )?started (?:a new job |working |work )?(?:at|for)|"
    r"accepted (?:an|the|a) (?:offer|job|position|role) (?:at|from|with)"
)
"""Ways of saying someone else's new employer, sure of it whatever the name's kind but a person's
("Derek was hired by Stripe", not "Hannah works for Tom")."""
_JOINED_IF_EMPLOYER = r"(?:has |had )?(?:re-?)?joined|moved (?:over )?to"
_LEFT = (
    r"(?:was|got|has been) (?:laid off|let go|fired|sacked|made redundant) (?:from|by|at)|retired from|"
    r"resigned from|(?:handed|gave|put) in (?:his|her|their) notice (?:at|to)"
)
_LEFT_IF_EMPLOYER = r"(?:has |had )?(?:left|quit|walked out of)"
"""Leaving, which only an organisation makes a job ("Maya left Spotify", not "Tom left Leeds")."""
_PARTNERED = (
    r"(?:got|is|was|has been|just got) (?:engaged|married) to|married|(?:is|has been|started|been) dating|"
    r"(?:is|are) in a relationship with"
)
_NOT_NAMES = r"(?:I|We|He|She|They|It|My|Our|His|Her|The|This|That|Then|And|But|So|Also)\b"
_OTHER = rf"(?:\b(?!{_NOT_NAMES})(?P<who>{NAME})|\b{MY_ROLE.replace('(?P<pred>', '(?P<kin>')})\s+{NOW}"
"""Someone else as the subject: a name, or "my brother" (the person so named: ``kin``)."""

CHANGE_RULES: tuple[Rule, ...] = (
    Rule(re.compile(rf"{_USER_LEFT}(?:{_QUIT_JOB}|{_NOTICE}|{_LET_GO}|{_RETIRED})", re.I), LEFT_JOB, value="job"),
    Rule(re.compile(rf"{_OTHER}(?i:{_JOINED})\s+(?P<value>{NAME})"), "works at", "o", refuses_kind="p"),
    Rule(re.compile(rf"{_OTHER}(?i:{_JOINED_IF_EMPLOYER})\s+(?P<value>{NAME})"), "works at", "o", needs_kind="o"),
    Rule(
        re.compile(rf"{_OTHER}(?i:left|quit)\s+{NAME}\s+(?i:to\s+(?:join|start\s+at))\s+(?P<value>{NAME})"),
        "works at",
        "o",
        refuses_kind="p",
    ),
    Rule(re.compile(rf"{_OTHER}(?i:{_LEFT})\s+(?P<value>{NAME})"), "worked at", "o", refuses_kind="p"),
    Rule(re.compile(rf"{_OTHER}(?i:{_LEFT_IF_EMPLOYER})\s+(?P<value>{NAME})"), "worked at", "o", needs_kind="o"),
    Rule(re.compile(rf"{_OTHER}(?i:{_PARTNERED})\s+(?P<value>{NAME})"), "partner", "p", needs_kind="p"),
    Rule(
        re.compile(rf"{_OTHER}(?i:lives\s+in|has\s+moved\s+to|moved\s+to)\s+(?P<value>{NAME})"),
        "lives in",
        "l",
        refuses_kind="o",
    ),
)
"""The rows; order does not matter (`ingest.relation_extract` keeps one fact per value)."""
