"""The ``dudo`` command: wiring from the command line to the library, nothing more."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer

from dudo import __version__
from dudo.rules import DEFAULT_PRESET, PRESETS, Rules, RulesError, parse_override
from dudo.rules_text import rules_sheet
from dudo.scenario import ScenarioError, format_output, load_scenario, run_scenario

app = typer.Typer(
    help="Liar's Dice (Dudo, Perudo, Cacho) for people and programs.",
    no_args_is_help=True,
    add_completion=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _fail(message: str) -> NoReturn:
    """A one-line error on standard error and exit status 2 (bad input)."""
    typer.echo(f"dudo: error: {message}", err=True)
    raise typer.Exit(2)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"dudo {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True,
                           help="Print the version and exit.")
    ] = False,
) -> None:
    """Liar's Dice (Dudo, Perudo, Cacho) for people and programs."""


@app.command()
def scenario(
    file: Annotated[str, typer.Argument(help="A scenario JSON file, or - for standard input.",
                                        metavar="FILE|-")],
) -> None:
    """Play a scenario file (fixed dice, scripted actions) and print one JSON event a line.

    Exit status 0 for a valid file (illegal actions in it are normal output), 2 with a
    one-line error for an invalid one. The format is described in docs/rules-spec.md.
    """
    if file == "-":
        text = sys.stdin.read()
    else:
        try:
            text = Path(file).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            _fail(f"cannot read {file!r}: {getattr(error, 'strerror', None) or error}")
    try:
        output = format_output(run_scenario(load_scenario(text)))
    except ScenarioError as error:
        _fail(f"{file}: {error}")
    sys.stdout.write(output)


def build_rules(preset: str, settings: list[str] | None) -> Rules:
    """Rules from a preset name and ``option=value`` strings, or a clean exit 2."""
    options: dict[str, Any] = {"preset": preset}
    for text in settings or []:
        try:
            option, value = parse_override(text)
        except RulesError as error:
            _fail(str(error))
        options[option] = value
    try:
        return Rules.from_json(options)
    except RulesError as error:
        _fail(str(error))


SetOption = Annotated[
    list[str] | None,
    typer.Option("--set", "-s", metavar="OPTION=VALUE",
                 help="Change one option of the preset, e.g. --set calza=any_time "
                      "(repeatable)."),
]


@app.command()
def rules(
    preset: Annotated[str, typer.Argument(
        help=f"One of: {', '.join(PRESETS)}.")] = DEFAULT_PRESET,
    settings: SetOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the options as JSON.")] = False,
) -> None:
    """Print the rules of a preset (with house rules on top) in plain words."""
    chosen = build_rules(preset, settings)
    if as_json:
        typer.echo(json.dumps(chosen.to_json(), indent=2))
    else:
        typer.echo(rules_sheet(chosen))
