"""Lines of the terminal game that wrap between words but never inside a name.

Rich wraps a long line at any space, so at 60 columns "Lucy Anne 2+5=7" came out as
"Lucy" at the end of one line and "Anne 2+5=7" at the start of the next, and a reader took
"Anne" for another player. Rich has no per-span "do not break here" (``no_wrap`` is for a
whole text, which is then cut off instead), and a non-breaking space does not help either:
Rich's word splitter counts it as a space. So :class:`KeepWhole` lays out its own lines:
it breaks only at spaces outside the phrases it is told to keep whole (players' names, a
"who: what" bid), and hands each line to Rich already short enough not to be wrapped again.
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.text import Text


def break_points(plain: str, whole: Iterable[str]) -> list[int]:
    """The offsets of the spaces in ``plain`` where a line may break: every space but
    those inside an occurrence of one of the ``whole`` phrases."""
    kept: set[int] = set()
    for phrase in whole:
        if " " not in phrase:
            continue
        start = plain.find(phrase)
        while start != -1:
            kept.update(start + i for i, ch in enumerate(phrase) if ch == " ")
            start = plain.find(phrase, start + 1)
    return [i for i, ch in enumerate(plain) if ch == " " and i not in kept]


def wrap_offsets(plain: str, width: int, spaces: list[int]) -> list[int]:
    """Where to cut ``plain`` (each cut at the start of a line's first word) so that each
    line, its trailing space dropped, fits ``width`` where it can: a piece longer than the
    width stays whole on its own line (and Rich folds it there)."""
    cuts: list[int] = []
    line_start = 0
    last_space = None
    for space in [*spaces, len(plain)]:
        if space - line_start > width and last_space is not None and last_space > line_start:
            cuts.append(last_space + 1)
            line_start = last_space + 1
        last_space = space
    return cuts


class KeepWhole:
    """A text that wraps between words and never inside any of the ``whole`` phrases."""

    def __init__(self, text: Text, whole: Iterable[str]) -> None:
        self.text = text
        self.whole = [phrase for phrase in whole if phrase]

    def lines(self, width: int) -> list[Text]:
        plain = self.text.plain
        spaces = break_points(plain, self.whole)
        pieces = self.text.divide(wrap_offsets(plain, width, spaces))
        result = []
        for piece in pieces:
            piece.rstrip()
            result.append(piece)
        return result

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield from self.lines(options.max_width)

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement.get(console, options, self.text)

    @property
    def plain(self) -> str:
        return self.text.plain
