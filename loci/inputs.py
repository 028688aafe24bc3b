"""What a caller-chosen id and stored text may contain: one rule for every way in.

The HTTP API, the CLI, import, the benchmark and (later) the MCP server all store what
callers send, so the rules live here in core and each raises `InvalidInput` naming the
field. They exist because of what got through before:

* an id such as ``"a/b 🎉"`` was stored, then no route could address it (the slash splits
  the path; clients encode the rest differently), so ids are a URL-safe alphabet;
* a NUL byte reached PostgreSQL, whose own message came back to the caller, and other
  C0 controls (ESC, BEL…) have no place in a chat transcript and can forge terminal or
  log output, so they are refused everywhere except tab, newline and carriage return;
* a lone surrogate (``"\\ud800"`` in JSON) cannot be encoded as UTF-8 and fails deep in
  the driver;
* a name of zero-width spaces (U+200B) or other invisible characters was stored and shown as
  a label nobody can see (``:`` before a turn, an empty row in a listing), so every display
  name (a speaker, a user, a key, an agent, a title) must hold a visible character.
"""

from __future__ import annotations

import re

from loci.errors import InvalidInput

__all__ = [
    "EMAIL_PATTERN",
    "ID_ALPHABET",
    "ID_PATTERN",
    "MAX_ID_CHARS",
    "MAX_SPEAKER_CHARS",
    "NAME_PATTERN",
    "NONBLANK_TEXT_PATTERN",
    "PATTERN_RULES",
    "SLUG_PATTERN",
    "SPEAKER_PATTERN",
    "TEXT_PATTERN",
    "check_id",
    "check_name",
    "check_speaker",
    "check_text",
]

MAX_ID_CHARS = 128
"""Longest conversation or agent id: a UUID, a session key or an e-mail-like id fits with room."""
ID_ALPHABET = "A-Z a-z 0-9 . _ : @ -"
"""The characters an id may hold (it must start with a letter or digit); said in errors and the README."""
ID_PATTERN = rf"^[A-Za-z0-9][A-Za-z0-9._:@-]{{0,{MAX_ID_CHARS - 1}}}$"
"""The same rule as a regular expression, for the OpenAPI schema of every id field."""
_ID = re.compile(ID_PATTERN)
_CONTROL = r"\x00-\x08\x0b\x0c\x0e-\x1f"
_UNSAFE = re.compile(rf"[{_CONTROL}\ud800-\udfff]")
_BLANK = r"\t\n\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
"""The whitespace `str.strip` removes, less the control characters. Spelled out rather than ``\\s``, which
differs between Python (``\\x85``) and the ECMA regular expressions a schema's reader uses (``\\ufeff``): a
schema-valid request must never be one the server refuses."""
_INVISIBLE = (
    r"\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f"
    r"\u2800\u3164\ufe00-\ufe0f\ufeff\uffa0"
)
"""Characters that show nothing on their own: zero-width spaces and joiners, direction marks, the word
joiner and invisible operators, the byte-order mark, variation selectors, the soft hyphen and the blank
fillers (Hangul, Braille). A name of only these reads as no name. Spelled out, as `_BLANK` is, so the
schemas' patterns say the same rule (Unicode's ``Cf`` category would also take visible signs)."""
TEXT_PATTERN = rf"^[^{_CONTROL}]*$"
NONBLANK_TEXT_PATTERN = rf"^[{_BLANK}]*[^{_CONTROL}{_BLANK}][^{_CONTROL}]*$"
"""`check_text`'s rule (TEXT_PATTERN), and that plus "not blank", as a regular expression for schemas (JSON cannot
carry the lone surrogates `check_text` also refuses). Only blanks may come before the first visible character, so
it matches in linear time: the equivalent ``^[^C]*[^C\\s][^C]*$`` backtracks quadratically (2.4 s for 20,000
characters ending in a NUL, on every request), which had kept the rule off the long fields (a message, a turn)."""

MAX_SPEAKER_CHARS = 100
"""A speaker's name (a turn's ``name``): the width of ``turns.name`` and ``drawers.speaker``."""
_LINE_BLANK = _BLANK.removeprefix(r"\t\n\r")
SPEAKER_PATTERN = rf"^[{_LINE_BLANK}{_INVISIBLE}]*[^{_CONTROL}{_BLANK}{_INVISIBLE}][^{_CONTROL}\n\r\t]*$"
"""`check_speaker`'s rule for schemas: one line, something visible, no control characters (linear, as
NONBLANK_TEXT_PATTERN)."""
_SPEAKER = re.compile(SPEAKER_PATTERN)
NAME_PATTERN = rf"^[{_BLANK}{_INVISIBLE}]*[^{_CONTROL}{_BLANK}{_INVISIBLE}][^{_CONTROL}]*$"
"""`check_name`'s rule for schemas: a visible character, no control characters (linear, as NONBLANK_TEXT_PATTERN)."""
_VISIBLE = re.compile(rf"[^{_CONTROL}{_BLANK}{_INVISIBLE}\ud800-\udfff]")

_LABEL = rf"[^@.{_CONTROL}{_BLANK}]+"
EMAIL_PATTERN = rf"^[^@{_CONTROL}{_BLANK}]+@{_LABEL}(?:\.{_LABEL})+$"
r"""The shape of an e-mail address: one ``@`` with a dotted domain after it, no blank or control
character (the blanks spelled out, as in the patterns above: Python's and ECMA's ``\s`` differ).
The domain is dot-free labels joined by dots, so no two ways to split it: linear time."""

_SLUG_CHAR = rf"[^\x00-\x2f\x3a-\x60\x7b-\x9f{_BLANK}{_INVISIBLE}]"
SLUG_PATTERN = rf"^{_SLUG_CHAR}+(-{_SLUG_CHAR}+)*$"
"""A wing's slug as an agent's access list names it (`domain.agent_access_edit`): the form mining gives a name
(`loci.name_keys`): ASCII lower-case letters and digits, or any character outside ASCII but a blank or an
invisible one ("王伟", "ольга"), words joined by '-'. A negated class, so Python and a schema's ECMA reader
(which sees a character past U+FFFF as two) take the same strings. Only the outer bound: every key matches
it (tests/unit/loci/test_name_keys.py), and the access check refuses what is not its own key ("ОЛЬГА",
"é"), a rule no pattern can state."""

PATTERN_RULES = {
    ID_PATTERN: f"must be 1-{MAX_ID_CHARS} characters of {ID_ALPHABET}, starting with a letter or digit",
    TEXT_PATTERN: "must not contain control characters (tab, newline and carriage return are fine)",
    NONBLANK_TEXT_PATTERN: "must not be blank, nor contain control characters (tab, newline, carriage return are fine)",
    SPEAKER_PATTERN: "must be one line with a visible character (not only spaces or invisible ones such as U+200B), "
    "without control characters",
    NAME_PATTERN: "must hold a visible character (not only spaces or invisible ones such as U+200B), "
    "without control characters",
    EMAIL_PATTERN: "must look like name@example.org (no spaces)",
    SLUG_PATTERN: "must be a wing's slug: lower-case letters and digits (of any script), words joined by '-' "
    "(e.g. billing-service)",
}
"""Each pattern above in words, for the error a schema refusal answers: a client reads
"must not be blank", not three hundred characters of escaped regular expression."""


def check_speaker(value: str | None, *, field: str) -> str | None:
    """A speaker's name with its spaces collapsed (None stays None): 1-`MAX_SPEAKER_CHARS`
    characters on one line, not blank. A name is printed as a label before what that person said (``Priya:``),
    so a newline or a control character in it could forge a line of the memory block."""
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise InvalidInput(f"{field} must not be blank", field=field)
    if len(value) > MAX_SPEAKER_CHARS:
        raise InvalidInput(f"{field} must be at most {MAX_SPEAKER_CHARS} characters", field=field)
    if _UNSAFE.search(value) or not _VISIBLE.search(value) or not _SPEAKER.fullmatch(value):
        check_name(value, field=field)  # says which: a control character, or nothing visible
        raise InvalidInput(f"{field} must be one line without control characters", field=field)
    return " ".join(value.split())


def check_name(value: str, *, field: str) -> str:
    """``value`` when `check_text` takes it and it holds a visible character; else InvalidInput
    naming ``field`` and the invisible code points it holds (a name of U+200B reads as none)."""
    check_text(value, field=field)
    if not _VISIBLE.search(value):
        shown = ", ".join(f"U+{ord(c):04X}" for c in dict.fromkeys(value) if not c.isspace())
        holds = f"only spaces and invisible characters ({shown})" if shown else "only spaces"
        raise InvalidInput(f"{field} must hold a visible character; it has {holds}", field=field)
    return value


def check_id(value: str, *, field: str) -> str:
    """``value`` when it is a safe id (1-``MAX_ID_CHARS`` of ``ID_ALPHABET``, starting alphanumeric).

    Starting with a letter or digit keeps ``.`` and ``..`` (which URL clients collapse) out.
    """
    if not isinstance(value, str) or not _ID.fullmatch(value):
        raise InvalidInput(
            f"{field} must be 1-{MAX_ID_CHARS} characters of {ID_ALPHABET}, starting with a letter or digit",
            field=field,
        )
    return value


def check_text(value: str, *, field: str) -> str:
    """``value`` when it holds no control character but tab, newline and carriage return, and
    no lone surrogate; else InvalidInput naming ``field`` and the character's code point."""
    if found := _UNSAFE.search(value):
        raise InvalidInput(
            f"{field} must not contain control characters (found U+{ord(found.group()):04X} "
            f"at position {found.start()}); only tab, newline and carriage return are allowed",
            field=field,
        )
    return value
