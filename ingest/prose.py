"""The prose of a turn: what its words say, without the code or markup it quotes.

People paste code and HTML into chats with an assistant ("my page breaks when I add this:
<script>…</script> <div class="nav">…"). The offline extractor reads names, topics and
subjects off the words, and a chat about a disappearing navbar was filed under the closet
and wing "script", a Python question under "load". What a person would file such a chat
under is in the sentences around the code, so topics, entities, facts and the wing's
subject are read from the prose only; the drawers keep the verbatim text (recall and the
block still quote the code).

Why patterns rather than a parser: the markers are few and conventional in chat (Markdown
code fences and inline code, HTML elements, and lines whose shape is code's: a statement
ending in ``;``, a brace alone, a keyword opening a definition, deep indentation), and a
line of prose rarely has any of them. A turn that is all code has no prose: it gives no
topic rather than a wrong one.

Links are taken out too. A URL is an address, not words the person said about a subject,
yet its path reads as names: "https://www.amazon.com/Skyline-City-Poster-Print-Frame/dp/…"
became the entity "Skyline-City-Poster-Print-Frame", whose tag the keyword index splits
into words (``tag_text`` is read with the 'simple' configuration), so "Which city should I
look for flats in?" ranked that link first, above "I moved to Lisbon"; a shared sheet's
"…&rtpof=true&sd=true" named a closet "true". The content's own index never saw those
words (PostgreSQL's parser keeps a URL as one lexeme) and the vector reads them as noise,
so only the extraction took them for names. The sentence around a link stays, with the
punctuation that ended it.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import replace

from ingest.extraction import TurnView

__all__ = ["composed", "prose_of", "prose_turns"]

_FENCED = re.compile(r"(?:```|~~~).*?(?:```|~~~|\Z)", re.S)
_INLINE = re.compile(r"`[^`\n]+`")
_RAW_ELEMENT = re.compile(r"<(script|style|pre|code)\b[^>]*>.*?(?:</\1\s*>|\Z)", re.S | re.I)
_TAG = re.compile(r"</?[A-Za-z][\w:-]*(?:\s[^<>]*)?/?>")
_LINK = re.compile(r"(?<![a-z0-9+.-])(?:[a-z][a-z0-9+.-]{0,31}://|www\.)[^\s<>\"'`]*[^\s<>\"'`.,;:!?)\]}]", re.I)
"""A URL with a scheme, or one opening "www.", up to whitespace, a quote or a tag; the
punctuation after it ends the sentence, not the link, and stays. The scheme starts where no
scheme character precedes it and runs at most 32 characters: with ``\b`` and an unbounded
scheme, a long run such as "a.a.a…" was tried from every word boundary (40k characters took
4.5 s, a 100k-character turn about 28 s per call)."""
_CODE_LINE = re.compile(
    r"^(?:\s{4,}|\t)\S.*[=(){};:\[\]]"  # indented as a block of code, with code's punctuation
    r"|^\s*(?:def\s+\w+\s*\(|class\s+\w+\s*[:(]|import\s+[\w.]+\s*$|from\s+[\w.]+\s+import\b"
    r"|function\s*\w*\s*\(|(?:const|let|var)\s+\w+\s*=|(?:public|private|static)\s+\w+|#include\b"
    r"|SELECT\b.*\bFROM\b|INSERT\s+INTO\b|UPDATE\s+\w+\s+SET\b|DELETE\s+FROM\b|CREATE\s+(?:TABLE|INDEX)\b)"
    r"|^\s*[{}\[\]();,]+\s*$"  # brackets alone on a line
    r"|^\s*(?:\$|>>>)\s"  # a shell or REPL prompt
    r"|[;{]\s*$"  # a statement ended or a block opened
)


_MARKERS = (
    *("`", "~~~", "<", ";", "{", "}", "]", "    ", "\t", "$ ", ">>>", "#include", "://", "www.", "WWW."),
    *("def ", "class ", "import ", "function", "const ", "let ", "var ", "public ", "private ", "static "),
    *("SELECT", "INSERT", "UPDATE", "DELETE", "CREATE"),
)
"""Characters or words every pattern above needs: plain chat has none, and is returned as is."""


def prose_of(text: str) -> str:
    """``text`` without fenced or inline code, HTML elements, links and code-shaped lines
    (module doc), composed (NFC): a name typed decomposed ("Inês" as ``e`` + U+0302, as macOS
    and some keyboards send it) is read, and stored, as the same name typed composed."""
    text = unicodedata.normalize("NFC", text)
    if not any(marker in text for marker in _MARKERS):
        return text  # the common case: plain chat, nothing to take out
    text = _FENCED.sub(" ", text)
    text = _RAW_ELEMENT.sub(" ", text)
    text = _INLINE.sub(" ", text)
    text = _TAG.sub(" ", text)
    text = _LINK.sub(" ", text)  # after the tags: an ``href`` goes with its element
    return "\n".join(line for line in text.split("\n") if not _CODE_LINE.search(line))


def prose_turns(turns: Sequence[TurnView]) -> list[TurnView]:
    """The turns with their prose as content (same ids, seqs, roles and times)."""
    return [t if (prose := prose_of(t.content)) == t.content else replace(t, content=prose) for t in turns]


def composed(turns: Sequence[TurnView]) -> list[TurnView]:
    """The turns with their content and speaker's name composed (NFC), for mining to read: names
    typed decomposed are found and stored as typed composed. A turn's drawers keep it as sent."""
    out = []
    for t in turns:
        content, name = unicodedata.normalize("NFC", t.content), t.name and unicodedata.normalize("NFC", t.name)
        out.append(t if (content, name) == (t.content, t.name) else replace(t, content=content, name=name))
    return out
