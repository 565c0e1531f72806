"""Text that people type for others to read (a player's name, a line of table talk) as it
may be shown: on one line, with nothing that acts instead of showing and nothing that
only pretends to be a character.

The server cleans names and table talk with :func:`printable`, and the terminal game the
names it prints, so both read a name the same way (docs/protocol.md, "Limits"):

- tabs, line breaks and every other kind of whitespace become single spaces, trimmed;
- control and format characters are dropped (an ANSI escape, a bidi override, a zero-width
  space), except :data:`KEPT_FORMAT` and the tag characters of an emoji tag sequence
  (England's flag: a black flag, ``gbeng`` in tag characters, CANCEL TAG; see
  :func:`is_emoji_tag_sequence`); tag characters anywhere else, invisible, are dropped;
- :data:`BLANK` characters are dropped: they are letters or symbols to Unicode but show
  as nothing, or as an empty space;
- after a character, at most :data:`MOST_MARKS` combining marks (or joiners) in a row are
  kept, and the rest dropped: an accent or two stays, "Zalgo" text is cut down to size;
- what has no visible character left (only spaces, joiners or combining marks) is
  nothing: ``''``.
"""

from __future__ import annotations

import json
import reprlib
import unicodedata
from collections.abc import Sequence

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

TAGS = range(0xE0020, 0xE007F)
"""The tag characters an emoji tag sequence spells its tag in (U+E0020..U+E007E): they
show as nothing, so outside such a sequence they could hide text in a name or a line."""
CANCEL_TAG = "\U000e007f"
"""The end of an emoji tag sequence."""
MOST_TAGS = 7
"""The most tag characters an emoji tag sequence may have to be kept: the flags of
subdivisions name theirs in at most 7 (a region of 2 letters or 3 digits and up to 4 more,
``gbeng`` for England). A longer "flag" would carry text nobody sees."""
EMOJI_MODIFIERS = range(0x1F3FB, 0x1F400)
"""The skin tones, which may stand between an emoji and its tags."""

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
    line = " ".join(text.split())
    skip_to = 0
    for index, ch in enumerate(line):
        if index < skip_to:
            continue
        if ord(ch) in TAGS:
            skip_to = tags_end(line, index)
            if is_emoji_tag_sequence(line[index:skip_to], kept):
                kept.append(line[index:skip_to])
            continue  # else the run of tags, invisible, is dropped whole
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


def tags_end(text: str, start: int) -> int:
    """The end of the run of tag characters at ``text[start]``: the index after the
    :data:`CANCEL_TAG` that ends it, or after its last tag character if none does."""
    end = start
    while end < len(text) and ord(text[end]) in TAGS:
        end += 1
    return end + 1 if text[end : end + 1] == CANCEL_TAG else end


def is_emoji_tag_sequence(tags: str, before: Sequence[str]) -> bool:
    """Whether the run of ``tags`` (from :func:`tags_end`) after what :func:`printable`
    kept ``before`` it is a well-formed emoji tag sequence: after an emoji (a symbol,
    perhaps with a variation selector or a skin tone after it), 1 to :data:`MOST_TAGS` tag
    characters, then :data:`CANCEL_TAG`. England's, Scotland's and Wales's flags are."""
    if not tags.endswith(CANCEL_TAG) or not 1 < len(tags) <= MOST_TAGS + 1:
        return False
    base = before[-1] if before else ""
    if len(before) > 1 and (base == "\ufe0f" or (len(base) == 1 and ord(base) in EMOJI_MODIFIERS)):
        base = before[-2]  # the emoji, before its variation selector or skin tone
    return len(base) == 1 and unicodedata.category(base) == "So"


def has_visible(text: str) -> bool:
    """Whether ``text`` has a character that shows by itself: not whitespace, not a
    control or format character, not :data:`BLANK`, and not a combining mark (a mark with
    nothing to sit on is no name)."""
    return any(
        not ch.isspace() and ch not in BLANK and unicodedata.category(ch)[0] not in "CM"
        for ch in text
    )


MOST_NAME = 24
"""The most characters a player's name keeps (the server's and the terminal game's)."""


def cut_name(name: str, limit: int = MOST_NAME) -> str:
    """``name`` (as :func:`printable` shows it) cut to its first ``limit`` characters
    without leaving half an emoji sequence that would show broken: no flag's tag characters
    without their CANCEL TAG (England's flag cut in its tags is a black flag), no joiner
    or variation selector with nothing after it (a family emoji cut after a joiner keeps
    the emoji before it); trimmed. The server cuts names with it, and so does ``dudo play
    --name``."""
    name = name[:limit]
    while name and ord(name[-1]) in TAGS:  # a flag's tags cut before their CANCEL TAG
        name = name[:-1]
    while name and name[-1] in KEPT_FORMAT:  # a joiner with nothing after it
        name = name[:-1]
    return name.rstrip()


MOST_QUOTED = 40
"""The most characters of what someone typed that a reply quotes back (a refusal of the
server, the terminal game's "Not a bid: ..."); a longer text is cut there."""


def clipped(text: str) -> str:
    """``text`` as a reply quotes it back: its first :data:`MOST_QUOTED` characters, then
    "…" if there was more, so that a pasted page or a 5,000-character code is never
    repeated whole."""
    return text if len(text) <= MOST_QUOTED else text[:MOST_QUOTED] + "…"


def counted(number: float, noun: str) -> str:
    """``1 round``, ``2 rounds``, ``0.5 days``: a number and its English noun, singular for
    one (the CLI's and the record checks' messages; nouns that take an s)."""
    return f"{number:g} {noun}{'' if number == 1 else 's'}"


class _JsonRepr(reprlib.Repr):
    """``reprlib.repr``'s short quotes, spelled the way JSON spells the value."""

    def repr_str(self, x: str, level: int) -> str:
        text = _json_string(x[: self.maxstring])
        if len(text) > self.maxstring:  # cut in the middle, as reprlib does
            i = max(0, (self.maxstring - 3) // 2)
            j = max(0, self.maxstring - 3 - i)
            text = _json_string(x[:i] + x[len(x) - j :])
            text = text[:i] + self.fillvalue + text[len(text) - j :]
        return text

    def repr_bool(self, x: bool, level: int) -> str:
        return "true" if x else "false"

    def repr_NoneType(self, x: None, level: int) -> str:  # reprlib's naming: repr_ and the type's
        return "null"

    def repr_float(self, x: float, level: int) -> str:
        return json.dumps(x)  # NaN and Infinity, as Python's JSON reads and writes them


def _json_string(text: str) -> str:
    quoted = json.dumps(text, ensure_ascii=False)
    # a bidi override or a zero-width space would show as nothing or garble the line
    return quoted if quoted.isprintable() else json.dumps(text)


_JSON_REPR = _JsonRepr()


def json_quoted(value: object) -> str:
    """A value read from a JSON file as an error message quotes it: in JSON's spelling
    (``true``, ``null``, ``"2"``, ``[2.0, 3]``, not Python's ``True``, ``None``, ``'2'``),
    cut short as ``reprlib.repr`` cuts (a long string in the middle, a list after six
    items), so a pasted page is never repeated whole. What no JSON file holds (a tuple or a
    set from a Python caller) is quoted as Python's ``repr`` would."""
    return _JSON_REPR.repr(value)
