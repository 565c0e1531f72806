"""How ``dudo --help`` looks: three adjustments to typer's Rich help, made on import.

Each wraps one typer function and leaves it alone if a typer release no longer has it (the
help is then typer's own). Kept out of :mod:`dudo.cli`, which wires commands to the library.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console, RenderableType
    from rich.table import Table


def _bare_flags() -> None:
    """Show on/off flags bare in the help (``--json``), as Click and Typer long did.

    This typer's Rich help prints the value type of every option, ``<bool>`` after flags
    too, which reads as if ``--json`` wanted a value. Options that take a value keep their
    type (``<int>``) or metavar; only flags (``is_flag``, not counters) lose it.
    """
    from typer.core import TyperOption

    shown = getattr(TyperOption, "display_type_rich", None)
    if shown is None or getattr(shown, "_dudo_bare_flags", False):
        return

    def display_type_rich(self: Any, ctx: Any) -> str | None:
        if getattr(self, "is_flag", False) and not getattr(self, "count", False):
            return None
        result: str | None = shown(self, ctx)
        return result

    display_type_rich._dudo_bare_flags = True  # type: ignore[attr-defined]
    TyperOption.display_type_rich = display_type_rich  # type: ignore[method-assign]


_bare_flags()


def _bare_named_arguments() -> None:
    """An argument with a metavar (``FILE|-``) shows no value type beside it: this typer
    prints both (``FILE|-  <str>``), while an option's metavar already replaces its type."""
    from typer.core import TyperArgument

    shown = getattr(TyperArgument, "display_type_rich", None)
    if shown is None or getattr(shown, "_dudo_bare_arguments", False):
        return

    def display_type_rich(self: Any, ctx: Any) -> str | None:
        if getattr(self, "metavar", None) is not None:
            return None
        result: str | None = shown(self, ctx)
        return result

    display_type_rich._dudo_bare_arguments = True  # type: ignore[attr-defined]
    TyperArgument.display_type_rich = display_type_rich  # type: ignore[method-assign]


_bare_named_arguments()


HELP_COLUMN_MIN = 24
"""The fewest columns an option's help may have beside its names in the help's table (and
never fewer than its longest word): on a narrower terminal each option's help goes under
its names instead (:func:`_options_stacked_when_narrow`)."""


def _help_words(cell: Any) -> list[str]:
    """The words of a help cell as this typer builds it: Rich ``Columns`` of ``Text`` (the
    help, ``[env var: ...]``, ``[default: ...]``) or ``Markdown``."""
    items = getattr(cell, "renderables", [cell])
    words: list[str] = []
    for item in items:
        text = getattr(item, "plain", None)
        if text is None:
            text = getattr(item, "markup", "")
        words += str(text).split()
    return words


def _stacked_options(table: Table) -> RenderableType:
    """An options table as one entry per option: its names, value and default on a line,
    and its help under them, indented, as wide as the panel."""
    from rich.console import Group
    from rich.padding import Padding
    from rich.text import Text

    *name_columns, help_column = table.columns
    names = [list(column.cells) for column in name_columns]
    parts: list[RenderableType] = []
    for row, help_cell in enumerate(help_column.cells):
        cells = [column[row] for column in names]
        shown = [cell if isinstance(cell, Text) else Text(str(cell)) for cell in cells]
        parts.append(Text("  ").join(cell for cell in shown if cell.plain.strip()))
        parts.append(Padding(help_cell, (0, 0, 0, 4)))
    return Group(*parts)


class _StackedWhenNarrow:
    """A console for typer's options panel that prints its table stacked
    (:func:`_stacked_options`) when the help column would be too narrow for its words."""

    def __init__(self, console: Console) -> None:
        self._console = console

    def __getattr__(self, name: str) -> Any:
        return getattr(self._console, name)

    def print(self, *objects: Any, **kwargs: Any) -> None:
        from rich.panel import Panel
        from rich.table import Table

        for shown in objects:
            table = shown.renderable if isinstance(shown, Panel) else None
            if isinstance(table, Table) and not self._fits(table):
                shown.renderable = _stacked_options(table)
        self._console.print(*objects, **kwargs)

    def _fits(self, table: Table) -> bool:
        """Whether the help column keeps :data:`HELP_COLUMN_MIN` columns and its longest
        word beside the names at their full width (each column padded by one a side)."""
        from rich.measure import Measurement

        console, options = self._console, self._console.options
        *name_columns, help_column = table.columns
        names_width = sum(
            2
            + max(
                (Measurement.get(console, options, cell).maximum for cell in column.cells),
                default=0,
            )
            for column in name_columns
        )
        longest = max(
            (len(word) for cell in help_column.cells for word in _help_words(cell)), default=0
        )
        room = console.width - 4 - names_width  # the panel's borders and padding
        return room >= max(HELP_COLUMN_MIN, longest)


def _options_stacked_when_narrow() -> None:
    """Keep every word of the options' help whole on a narrow terminal.

    Typer prints options as a table: names, short names, value and help side by side. At
    60 columns the names and values leave the help a dozen columns, and Rich breaks longer
    words in two (``OPTION=VALU`` ``E``) or cuts them short (``comma-separa…``); typer has no
    setting for this (``max_content_width`` is for click's plain help). So where the help
    column would be too narrow, each option's help goes under its names instead, as wide
    as the panel; wider terminals keep typer's table.
    """
    from typer import rich_utils

    shown = getattr(rich_utils, "_print_options_panel", None)
    if shown is None or getattr(shown, "_dudo_stacked", False):
        return

    def _print_options_panel(**kwargs: Any) -> None:
        if kwargs.get("console") is not None:
            kwargs["console"] = _StackedWhenNarrow(kwargs["console"])
        shown(**kwargs)

    _print_options_panel._dudo_stacked = True  # type: ignore[attr-defined]
    rich_utils._print_options_panel = _print_options_panel


_options_stacked_when_narrow()
