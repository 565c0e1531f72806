"""Players' names: cleaned for display, and visibly distinct at one table.

A name is what everyone at the table reads, so two seats must never look alike: not
"Ana" twice, not a 24-character name whose " 2" was cut off again, and not Latin "Ana"
beside Cyrillic "Аna". Looks are compared through a *skeleton*: every character is
replaced by one representative of its group of look-alikes (Unicode's confusables, as
shipped by ``confusable-homoglyphs``), after NFKC folding, so names with the same
skeleton would read the same on screen.
"""

from __future__ import annotations

import functools
import json
import unicodedata
from importlib import resources

from dudo.printable import KEPT_FORMAT, MOST_NAME, cut_name, has_visible, printable

MAX_NAME = MOST_NAME


def clean_name(value: str) -> str:
    """A display name as :func:`dudo.printable.printable` shows it (on one line, no control,
    stray format or blank character, a few combining marks at most on a letter), 1..24
    characters (never cut inside an emoji sequence's joiner, nor leaving a flag's tag
    characters without their end). Raises ValueError if nothing visible is left."""
    name = cut_name(printable(value))
    if not has_visible(name):
        raise ValueError("a name needs at least one visible character")
    return name


def clean_chat(value: str) -> str:
    """A line of table talk as shown: the same characters a name may have, on one line,
    trimmed ('' if nothing visible is left)."""
    return printable(value)


@functools.cache
def _representatives() -> dict[str, str]:
    """Each confusable character -> one representative of its group of look-alikes."""
    data = json.loads(
        resources.files("confusable_homoglyphs")
        .joinpath("confusables.json")
        .read_text(encoding="utf-8")
    )
    parent: dict[str, str] = {}

    def find(ch: str) -> str:
        parent.setdefault(ch, ch)
        while parent[ch] != ch:
            parent[ch] = parent[parent[ch]]
            ch = parent[ch]
        return ch

    for character, entries in data.items():
        for entry in entries:
            glyph = entry["c"].strip("\u200e\u200f")  # the data marks RTL glyphs so
            if len(character) == 1 and len(glyph) == 1:
                first, second = find(character), find(glyph)
                if first != second:
                    parent[max(first, second)] = min(first, second)
    return {ch: find(ch) for ch in parent}


def skeleton(name: str) -> str:
    """What a name looks like: equal skeletons read the same on screen."""
    folded = unicodedata.normalize("NFKC", name)
    table = _representatives()
    return "".join(table.get(ch, ch) for ch in folded if ch not in KEPT_FORMAT)


def first_word(name: str) -> str:
    """A name's first word as it reads: its first run of letters and digits, in any case
    and without accents, past any emoji or punctuation before or after it ("¡Ana!", "🎲
    ána-Maria" and "Ana 🎲🔥 la Reina" all read "ana"); '' if it has none."""
    word: list[str] = []
    for ch in unicodedata.normalize("NFKD", name).casefold():
        kind = unicodedata.category(ch)[0]
        if kind in "LN":
            word.append(ch)
        elif word and kind != "M":  # an accent stays in its word, and is left out
            break
    return "".join(word)


def reads_alike(name: str, other: str) -> bool:
    """Whether a bot called ``name`` would be taken for ``other`` in the log: the same
    look, or the same first word (:func:`first_word`, compared by look: "Ana" beside "ana
    🎲🔥 la Reina" or "¡ANA!": "Ana loses a die" could be either)."""
    if skeleton(name) == skeleton(other):
        return True
    firsts = [skeleton(word) for word in (first_word(name), first_word(other)) if word]
    return len(firsts) == 2 and firsts[0] == firsts[1]


def distinct_name(name: str, taken: list[str]) -> str:
    """``name``, or ``name 2``, ``name 3``... (the name shortened so the number always
    fits) so that it looks like none of ``taken``."""
    seen = {skeleton(other) for other in taken}
    if skeleton(name) not in seen:
        return name
    number = 2
    while True:
        suffix = f" {number}"
        candidate = cut_name(name, MAX_NAME - len(suffix)) + suffix
        if skeleton(candidate) not in seen:
            return candidate
        number += 1
