"""Text that people type for others to read (a player's name, a line of table talk) as it
may be shown: on one line, with nothing that acts instead of showing and nothing that
only pretends to be a character.

The server cleans names and table talk with :func:`printable`, and the terminal game the
names it prints, so both read a name the same way (docs/protocol.md, "Limits"):

- tabs, line breaks and every other kind of whitespace become single spaces, trimmed;
- control and format characters are dropped (an ANSI escape, a bidi override, a zero-width
  space), except :data:`KEPT_FORMAT`;
- :data:`BLANK` characters are dropped: they are letters or symbols to Unicode but show
  as nothing, or as an empty space;
- after a character, at most :data:`MOST_MARKS` combining marks (or joiners) in a row are
  kept, and the rest dropped: an accent or two stays, "Zalgo" text is cut down to size;
- what has no visible character left (only spaces, joiners or combining marks) is
  nothing: ``''``.
"""

from __future__ import annotations

import unicodedata

KEPT_FORMAT = frozenset("\u200c\u200d\ufe0e\ufe0f")
"""Format characters that belong in names: the joiners that build emoji sequences (👩‍👩‍👧)
and Persian or Indic words, and the variation selectors that pick an emoji's look."""

BLANK = frozenset(
    "\u115f\u1160\u3164\uffa0"  # the Hangul fillers: "ㅤ" is a name that shows nothing
    "\u2800"  # the braille pattern with no dots: a blank cell
    "\U0001d159"  # MUSICAL SYMBOL NULL NOTEHEAD: a notehead drawn as nothing
)
"""Characters that are not whitespace nor format characters to Unicode, yet show as an
empty space (the Hangul fillers are, like the format characters, "default ignorable":
Unicode asks that they be drawn as nothing). They are dropped, so that a name of them
alone has nothing visible."""

MOST_MARKS = 4
"""How many combining marks (or joiners, or variation selectors) in a row a character
keeps. Real writing stacks few: Vietnamese ``ệ`` two, Thai a vowel and a tone mark, a
Tibetan stack three, an emoji keycap two (``#️⃣``); Zalgo text stacks a hundred, which
would spill over the lines above and below."""


def printable(text: str) -> str:
    """``text`` on one line as it may be shown (see the module's rules), trimmed; ``''``
    if nothing visible is left."""
    kept: list[str] = []
    marks = 0
    for ch in " ".join(text.split()):
        category = unicodedata.category(ch)
        if ch in BLANK or (category[0] == "C" and ch not in KEPT_FORMAT):
            continue
        if category[0] == "M" or ch in KEPT_FORMAT:
            marks += 1
            if marks > MOST_MARKS:
                continue
        else:
            marks = 0
        kept.append(ch)
    line = " ".join("".join(kept).split())
    return line if has_visible(line) else ""


def has_visible(text: str) -> bool:
    """Whether ``text`` has a character that shows by itself: not whitespace, not a
    control or format character, not :data:`BLANK`, and not a combining mark (a mark with
    nothing to sit on is no name)."""
    return any(
        not ch.isspace() and ch not in BLANK and unicodedata.category(ch)[0] not in "CM"
        for ch in text
    )


MOST_QUOTED = 40
"""The most characters of what someone typed that a reply quotes back (a refusal of the
server, the terminal game's "Not a bid: ..."); a longer text is cut there."""


def clipped(text: str) -> str:
    """``text`` as a reply quotes it back: its first :data:`MOST_QUOTED` characters, then
    "…" if there was more, so that a pasted page or a 5,000-character code is never
    repeated whole."""
    return text if len(text) <= MOST_QUOTED else text[:MOST_QUOTED] + "…"
