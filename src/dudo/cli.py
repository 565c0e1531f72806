"""The ``dudo`` command: wiring from the command line to the library, nothing more."""

from __future__ import annotations

import json
import math
import re
import sys
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer
from typer.core import TyperGroup

import dudo.cli_help  # noqa: F401  (how the help looks: the module adjusts typer on import)
from dudo import __version__
from dudo.printable import counted
from dudo.rules import DEFAULT_PRESET, PRESETS, Rules, RulesError, parse_override
from dudo.rules_text import LANGUAGES, rules_sheet
from dudo.scenario import ScenarioError, format_output, load_json, load_scenario, run_scenario

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

MAX_ERROR_LENGTH = 300
"""The longest error line; a longer message keeps its start and end around an ellipsis."""


def _error_line(message: str, label: str = "error") -> str:
    """``dudo: error: MESSAGE`` (or another ``label``) on one line of bounded length,
    whatever the message holds (a file name with a newline, a value quoted in full by a
    lower layer)."""
    message = " ".join(message.split())
    if len(message) > MAX_ERROR_LENGTH:
        half = (MAX_ERROR_LENGTH - 3) // 2
        message = f"{message[:half]} … {message[-half:]}"
    return f"dudo: {label}: {message}"


_ClickException: type[Exception] = next(
    cls for cls in typer.BadParameter.__mro__ if cls.__name__ == "ClickException"
)
"""The base of click's errors, as the running typer has it: its own copy of click in newer
typers, click itself in older ones (both export ``BadParameter``, which derives from it)."""


@contextmanager
def _usage_errors_in_one_line() -> Iterator[None]:
    """Print a click error (unknown option, bad value, missing argument) as our one line
    and exit with its status (2 for usage errors)."""
    try:
        yield
    except _ClickException as caught:
        error: Any = caught  # click's API: format_message(), exit_code, and ctx if usage
        message = error.format_message()
        context = getattr(error, "ctx", None)
        if context is not None:
            message = f"{message.rstrip('.')} (see '{context.command_path} --help')"
        typer.echo(_error_line(message), err=True)
        raise typer.Exit(error.exit_code) from None


def flowing(text: str) -> str:
    """Help text whose paragraphs flow: the line breaks a docstring has in its source are
    spaces, so Rich wraps each paragraph to the terminal (Typer keeps them, and at 80
    columns a paragraph then wraps raggedly). Paragraphs stay apart; one that starts with
    click's ``\\b`` keeps its lines."""
    import inspect

    paragraphs = inspect.cleandoc(text).split("\n\n")
    return "\n\n".join(
        part if part.startswith("\b") else " ".join(part.split()) for part in paragraphs
    )


class _OneLineErrors(TyperGroup):
    """The ``dudo`` command group, with click's usage errors as one line.

    Every error of ours is one line on standard error (``dudo: error: ...``, exit 2). Click
    would print a usage block and a hint, and typer with Rich frames the message in a box,
    which a script or a log reader has to pick apart. Both places where click reads the
    command line are covered: the group's own options (``make_context``) and the command
    and its parameters (``invoke``). Help output is unchanged.
    """

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        """``dudo`` alone: the help on standard output and exit 0, as ``dudo --help``.

        Click 8.2 turned ``no_args_is_help`` into a usage error (exit 2, and the help on
        standard error without Rich), but asking what the commands are is no mistake."""
        if not args and self.no_args_is_help and not ctx.resilient_parsing:
            typer.echo(ctx.get_help(), color=ctx.color)
            ctx.exit(0)
        result: list[str] = super().parse_args(ctx, args)
        return result

    def make_context(self, *args: Any, **kwargs: Any) -> Any:
        with _usage_errors_in_one_line():
            return super().make_context(*args, **kwargs)

    def invoke(self, ctx: Any) -> Any:
        with _usage_errors_in_one_line():
            return super().invoke(ctx)


app = typer.Typer(
    cls=_OneLineErrors,
    help="Liar's Dice (Dudo, Perudo, Cacho) for people and programs.",
    no_args_is_help=True,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _fail(message: str) -> NoReturn:
    """A one-line error on standard error and exit status 2 (bad input)."""
    typer.echo(_error_line(message), err=True)
    raise typer.Exit(2)


def _not_done(message: str) -> NoReturn:
    """A one-line error and exit status 1: what was typed is well formed, but it could not
    be done (no such database or profile, a file in the way, the database failing). Exit
    status 2 stays for input that is wrong, as for a bad option."""
    typer.echo(_error_line(message), err=True)
    raise typer.Exit(1)


def _given(value: str, what: str, hint: str) -> str:
    """``value``, or a one-line error (exit 2) when it is empty or only spaces: an empty
    ``--host`` would listen on every interface, an empty path name the current folder."""
    if not value.strip():
        _fail(f"{what} is empty: {hint}")
    return value


def _comma_list(value: str, option: str, example: str) -> list[str]:
    """The items of a comma-separated option, stripped (none when all are empty); an empty
    item among others (``random,,random``, a trailing comma) is a one-line error (exit 2),
    where it was dropped in silence."""
    items = [item.strip() for item in value.split(",")]
    if any(items) and "" in items:
        _fail(
            f"{option} has an empty item (item {items.index('') + 1} of {value!r}): "
            f"list them comma separated, like {example}"
        )
    return [item for item in items if item]


def _number_at_least(
    low: float, *, finite: bool = True, most: tuple[float, str] | None = None
) -> Callable[[Any], float]:
    """The parser of an option that takes a number from ``low`` up (``--pause``,
    ``--budget-ms``, ``--older-than``). ``nan`` is refused as no number: typer's own range
    check said it "should be greater than or equal to 0", as if it were a negative one.
    ``inf`` (``infinity``, or a number too big for a float, such as ``1e400``) is refused
    as no finite number: ``--budget-ms inf`` ran as "budget inf ms" and ``--older-than
    inf`` purged "closed more than inf days ago". ``finite=False`` lets it through, for an
    option with an upper bound of its own that says more (``--pause``). ``most``, a bound
    and how to say it (``(36525, "100 years")``), refuses a number above the bound."""

    def parse(value: Any) -> float:
        if isinstance(value, int | float):  # a default, already a number
            return float(value)
        try:
            number = float(value)
        except ValueError:
            number = None
        if number is None or number != number:  # not a number at all, or NaN
            raise typer.BadParameter(f"must be a number, not {value!r}")
        if finite and not math.isfinite(number):
            raise typer.BadParameter(f"must be a finite number, not {value!r}")
        if number < low:
            raise typer.BadParameter(f"must be at least {low:g}, not {value}")
        if most is not None and number > most[0]:
            raise typer.BadParameter(f"must be at most {most[0]:g} ({most[1]}), not {value}")
        return number

    return parse


def _read_text(source: str, what: str = "FILE") -> str:
    """The text of a file, or of standard input for ``-``, or a clean exit 2.

    Read as bytes and decoded as UTF-8 whatever the locale says, skipping a byte-order mark
    at the start (Notepad saves one), so a file reads the same on every machine. ``what``
    names the argument in the error for an empty name.
    """
    _given(source, what, "name a file, or - for standard input")
    try:
        raw = sys.stdin.buffer.read() if source == "-" else Path(source).read_bytes()
        return raw.decode("utf-8-sig")
    except OSError as error:
        _fail(f"cannot read {source!r}: {error.strerror or error}")
    except UnicodeDecodeError as error:
        _fail(f"cannot read {source!r}: not UTF-8 text ({error.reason} at byte {error.start})")


def _version(value: bool) -> None:
    if value:
        typer.echo(f"dudo {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """Liar's Dice (Dudo, Perudo, Cacho) for people and programs."""


@app.command()
def scenario(
    file: Annotated[
        str, typer.Argument(help="A scenario JSON file, or - for standard input.", metavar="FILE|-")
    ],
) -> None:
    """Play a scenario file (fixed dice, scripted actions) and print one JSON event a line.

    Exit status 0 for a valid file (illegal actions in it are normal output), 2 with a
    one-line error for an invalid one. The format is described in docs/rules-spec.md.
    """
    text = _read_text(file)
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
    typer.Option(
        "--set",
        "-s",
        metavar="OPTION=VALUE",
        help="Change one option of the preset, e.g. --set calza=any_time (repeatable).",
    ),
]


@app.command()
def rules(
    preset: Annotated[
        str, typer.Argument(metavar="PRESET", help=f"One of: {', '.join(PRESETS)}.")
    ] = DEFAULT_PRESET,
    settings: SetOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the options as JSON.")] = False,
    lang: Annotated[
        str,
        typer.Option(
            "--lang", "-l", metavar="LANG", help=f"Language of the sheet: {', '.join(LANGUAGES)}."
        ),
    ] = "en",
) -> None:
    """Print the rules of a preset (with house rules on top) in plain words."""
    if lang.lower() not in LANGUAGES:
        _fail(f"unknown language {lang!r} for --lang; choose one of {', '.join(LANGUAGES)}")
    chosen = build_rules(preset, settings)
    if as_json:
        typer.echo(json.dumps(chosen.to_json(), indent=2))
    else:
        typer.echo(_fitted_to_terminal(rules_sheet(chosen, lang.lower())))


def _fitted_to_terminal(text: str) -> str:
    """``text`` with each line wrapped between words to the terminal's width, when standard
    output is a terminal: the sheet's paragraphs are one line each, which a terminal breaks
    wherever its width falls, mid-word ("f / rom"). Piped or redirected, the text is left
    as it is, one paragraph a line, for a program or another formatter to take."""
    import shutil
    import textwrap

    if not sys.stdout.isatty():
        return text
    width = shutil.get_terminal_size().columns
    wrap = textwrap.TextWrapper(width, break_long_words=False, break_on_hyphens=False)
    return "\n".join(wrap.fill(line) if line else line for line in text.split("\n"))


@app.command()
def arena(
    players: Annotated[
        str | None,
        typer.Option(
            "--players",
            "-p",
            metavar="BOT,BOT,...",
            help="Entrants, comma-separated: random, easy, normal, hard, "
            "package.module:Class or path/to/file.py:Class. Default: hard,normal "
            "(with --ladder: hard,normal,easy,random).",
        ),
    ] = None,
    games: Annotated[
        int, typer.Option("--games", "-n", min=1, max=1_000_000, help="Number of games.")
    ] = 1000,
    preset: Annotated[
        str, typer.Option("--rules", "-r", metavar="PRESET", help=f"One of: {', '.join(PRESETS)}.")
    ] = DEFAULT_PRESET,
    settings: SetOption = None,
    seed: Annotated[
        int,
        typer.Option(
            "--seed",
            metavar="N",
            help="Seed: with the same options, the same seed replays a run of the built-in "
            "bots (unless a --budget-ms binds). A bot of your own gets a fresh dice key each "
            "run, so its run replays only with the --dice-key it printed as well.",
        ),
    ] = 0,
    jobs: Annotated[int, typer.Option("--jobs", "-j", min=1, max=64, help="Worker processes.")] = 1,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    dice_key: Annotated[
        str | None,
        typer.Option(
            "--dice-key",
            metavar="KEY",
            help="Replay a run with bots of your own: the key it printed. "
            "Without it such runs draw a fresh secret key, so no bot can "
            "work out the dice from the seed.",
        ),
    ] = None,
    ladder: Annotated[
        bool,
        typer.Option(
            "--ladder",
            help="Rate the entrants (OpenSkill, mu ± 2 sigma) from a heads-up "
            "round-robin, or from mixed tables with --seats; seating shuffled "
            "game by game. Also reports each bot's call accuracy (share of "
            "its dudo/calza calls that were right), bluff rate (share of its "
            "bids above what its own cup holds for the face plus the expected "
            "count among the dice it cannot see) and dice lost by cause "
            "(calling a bid that held, its bid called and false, a wrong "
            "calza).",
        ),
    ] = False,
    seats: Annotated[
        int | None,
        typer.Option(
            "--seats",
            metavar="N",
            help="With --ladder: players at each table (2, the default, is a heads-up "
            "round-robin of every pair; more draws N entrants a game).",
        ),
    ] = None,
    budget_ms: Annotated[
        float | None,
        typer.Option(
            "--budget-ms",
            metavar="MS",
            parser=_number_at_least(0),
            help="Decision budget in milliseconds for the hard bot (and any plug-in "
            "whose constructor takes budget_ms): once spent, the raises not yet "
            "weighed are left out. Default: none, so a run replays exactly (a "
            "budget that binds makes play depend on the machine's speed). The "
            "server gives hard 20 ms (DUDO_BOT_BUDGET_MS).",
        ),
    ] = None,
    debug: Annotated[
        bool, typer.Option("--debug", help="Show the full traceback when a bot fails.")
    ] = False,
) -> None:
    """Play many games among bots (seats rotated) and print each entrant's win rate.

    With --ladder, rate them (OpenSkill) and show how each one calls, bluffs and loses dice.
    """
    import secrets

    from dudo.bots.registry import LEVELS, BotSpecError, make_bot

    if seats is not None and not ladder:
        _fail("--seats needs --ladder (a plain arena seats every entrant at one table)")
    if players is None:
        players = "hard,normal,easy,random" if ladder else "hard,normal"
    entrants = _comma_list(players, "--players", "hard,normal")
    if not entrants:  # "" ran the default entrants, as if --players had been left out
        _fail(
            "--players names no entrant: list them comma separated, like hard,normal "
            "(or leave --players out for the default)"
        )
    if dice_key is not None:
        _given(dice_key, "--dice-key", "give the key a run printed, or leave it out")
    table = 2 if seats is None else seats  # 0 is no table of 2, but refused like 1 or 11
    if ladder:
        _check_ladder(entrants, table, games)
    elif not 2 <= len(entrants) <= 10:
        _fail(f"--players needs 2 to 10 entrants, not {len(entrants)}")
    chosen = build_rules(preset, settings)
    for spec in set(entrants):
        try:
            make_bot(spec, seed=0, budget_ms=budget_ms)
        except BotSpecError as error:
            _fail(str(error))
        except Exception as error:  # a user's bot that fails to construct
            _fail(f"bot {spec!r} could not be created: {error!r}")
    if "hard" in entrants:
        _solve_endgames_ahead(chosen)
    outsiders = any(spec not in LEVELS for spec in entrants)
    if dice_key is None:
        dice_key = secrets.token_hex(16) if outsiders else ""
    with _bot_errors(debug):
        if ladder:
            _run_ladder(entrants, games, chosen, table, seed, jobs, dice_key, as_json, budget_ms)
        else:
            _run_arena(entrants, games, chosen, seed, jobs, dice_key, as_json, budget_ms)


def _solve_endgames_ahead(rules: Rules) -> None:
    """Solve the heads-up endgames hard plays under ``rules`` before the games, saying so on
    standard error: a first use on a machine takes seconds per round (cached on disk after),
    which a silent arena would spend inside its first games."""
    from dudo.bots import solved

    for opener_dice, responder_dice, palifico in solved.heads_up_games(rules):
        if solved.is_ready(rules, opener_dice, responder_dice, palifico):
            continue
        where = solved.cache_dir()
        typer.echo(
            f"hard: solving the {opener_dice}v{responder_dice}"
            f"{' palifico' if palifico else ''} endgame of these rules once"
            + (f" (kept in {where})" if where else ""),
            err=True,
        )
        solved.solved_table(rules, opener_dice, responder_dice, palifico)


@contextmanager
def _bot_errors(debug: bool) -> Iterator[None]:
    """A bot that raises or returns what it may not: one line naming it and its seat (exit
    1), the traceback too with ``--debug``."""
    from dudo.bots.table import BotError

    try:
        yield
    except BotError as error:
        _report_bot_error(error, debug)


def _report_bot_error(error: Exception, debug: bool) -> NoReturn:
    if debug:
        import traceback

        traceback.print_exception(error)
        typer.echo(_error_line(str(error)), err=True)
    else:
        typer.echo(f"{_error_line(str(error))} (--debug shows the traceback)", err=True)
    raise typer.Exit(1)


def entrant_labels(entrants: list[str]) -> list[str]:
    """How tables name the entrants: a plug-in by its class, and entrants named alike
    numbered in order (``normal #1``, ``normal #2``)."""
    short = [name.rpartition(":")[2] for name in entrants]
    if len(set(short)) < len(set(entrants)):  # two plug-ins with one class name
        short = list(entrants)
    labels = []
    for index, label in enumerate(short):
        if short.count(label) > 1:
            label = f"{label} #{short[:index].count(label) + 1}"
        labels.append(label)
    return labels


def _progress(games: int) -> tuple[AbstractContextManager[Any], Callable[[int], None] | None]:
    """A progress bar of ``games`` on standard error when it is a terminal (else, or for
    no games, none), and the callback that advances it."""
    from contextlib import nullcontext

    from rich.console import Console
    from rich.progress import Progress

    errors = Console(stderr=True)
    if not errors.is_terminal or not games:
        return nullcontext(), None
    bar = Progress(console=errors, transient=True)
    task = bar.add_task(f"{games} games", total=games)

    def advance(done: int) -> None:
        bar.advance(task, done)

    return bar, advance


def _rules_named(rules: Rules) -> str:
    overrides = rules.to_overrides()
    return str(overrides.pop("preset")) + "".join(
        f", {key}={value}" for key, value in overrides.items()
    )


def _run_arena(
    entrants: list[str],
    games: int,
    rules: Rules,
    seed: int,
    jobs: int,
    dice_key: str,
    as_json: bool,
    budget_ms: float | None = None,
) -> None:
    """``dudo arena``: play, then print the win rates (or the JSON)."""
    from rich.console import Console
    from rich.table import Table

    from dudo.bots.arena import run_arena
    from dudo.bots.ladder import BotStats

    habits: list[BotStats] = []
    bar, advance = _progress(games if not as_json else 0)
    with bar:
        standings = run_arena(
            entrants,
            games,
            rules,
            seed=seed,
            jobs=jobs,
            progress=advance,
            dice_key=dice_key,
            habits=habits,
            budget_ms=budget_ms,
        )
    labels = entrant_labels(entrants)
    if as_json:
        results = []
        for standing, label, stats in zip(standings, labels, habits, strict=True):
            low, high = standing.interval()
            results.append(
                {
                    "player": standing.player,
                    "wins": int(standing.wins) if standing.wins.is_integer() else standing.wins,
                    **({"label": label} if label != standing.player else {}),
                    "win_rate": standing.rate,
                    "win_interval": [low, high],
                    **stats.habits_json(),
                }
            )
        typer.echo(
            json.dumps(
                {
                    "games": games,
                    "results": results,
                    "seed": seed,
                    "rules": rules.to_overrides(),
                    **({"dice_key": dice_key} if dice_key else {}),
                    **({"budget_ms": budget_ms} if budget_ms is not None else {}),
                }
            )
        )
        return
    console = Console()
    console.print(
        f"[bold]{counted(games, 'game')}[/], {' vs '.join(labels)}, "
        f"{_rules_named(rules)}, seed {seed}"
        + ("" if budget_ms is None else f", budget {budget_ms:g} ms"),
        soft_wrap=False,
    )
    table = Table()
    table.add_column("player")
    lost_word = "points" if rules.format == "points" else "dice lost"
    for column in ("wins", "win rate", "95% interval", "calls right", lost_word):
        table.add_column(column, justify="right")
    for standing, label, stats in zip(standings, labels, habits, strict=True):
        low, high = standing.interval()
        accuracy = stats.call_accuracy
        table.add_row(
            label,
            f"{standing.wins:g}",
            f"{standing.rate:.1%}",
            f"{low:.1%} – {high:.1%}",
            "–" if accuracy is None else f"{accuracy:.0%}",
            str(stats.lost_total),
        )
    console.print(table)
    console.print("calls right: dudo and calza calls that were right (more: --json)", style="dim")
    if dice_key:
        console.print(
            f"dice key {dice_key}, to replay the run:\n  --seed {seed} --dice-key {dice_key}",
            soft_wrap=True,
        )


def _check_ladder(entrants: list[str], seats: int, games: int) -> None:
    """A clean exit 2 for a ladder that cannot be played, before any game is."""
    from dudo.bots.ladder import LadderError, check_entrants, pairings

    try:
        check_entrants(entrants, seats)
    except LadderError as error:
        _fail(f"--ladder: {error}")
    if seats == 2 and games < len(pairings(len(entrants))):
        _fail(
            f"--ladder: {len(entrants)} entrants make {len(pairings(len(entrants)))} "
            f"heads-up pairs, so --games must be at least that, not {games}"
        )


def _run_ladder(
    entrants: list[str],
    games: int,
    rules: Rules,
    seats: int,
    seed: int,
    jobs: int,
    dice_key: str,
    as_json: bool,
    budget_ms: float | None = None,
) -> None:
    """``dudo arena --ladder``: play, then print the ratings table (or the JSON)."""
    from rich import box
    from rich.console import Console
    from rich.table import Table

    from dudo.bots.arena import Standing
    from dudo.bots.ladder import run_ladder

    bar, advance = _progress(games)
    with bar:
        report = run_ladder(
            entrants,
            games,
            rules,
            seats=seats,
            seed=seed,
            jobs=jobs,
            progress=advance,
            dice_key=dice_key,
            budget_ms=budget_ms,
        )
    if as_json:
        data = report.to_json()
        if budget_ms is not None:
            data["budget_ms"] = budget_ms
        typer.echo(json.dumps(data))
        return

    def share(value: float | None, digits: int = 1) -> str:
        return "–" if value is None else f"{value:.{digits}%}"

    kind = "heads-up round-robin" if seats == 2 else f"tables of {seats}"
    lost_word = "points" if rules.format == "points" else "dice lost"
    table = Table(box=box.SIMPLE_HEAD)
    for column in ("player", "rating", "wins", "calls right", "bluffs", lost_word):
        table.add_column(column, justify="left" if column == "player" else "right", no_wrap=True)
    shown = {name: name.rpartition(":")[2] for name in entrants}  # a plug-in by its class
    if len(set(shown.values())) < len(shown):
        shown = {name: name for name in entrants}
    for entry in report.entries:
        rating, stats = entry.rating, entry.stats
        lost = stats.lost_by_cause
        table.add_row(
            shown[entry.player],
            f"{rating.mu:.1f} ± {2 * rating.sigma:.1f}",
            f"{entry.standing.rate:.1%}",
            share(stats.call_accuracy),
            f"{share(stats.bluff_rate, 0)}/{share(stats.opening_bluff_rate, 0)}",
            f"{stats.lost_total}: {lost['calling']}/{lost['called']}/{lost['calza']}",
        )
    console = Console()
    console.print(
        f"[bold]Ladder: {counted(games, 'game')}[/], {kind}, {_rules_named(rules)}, seed {seed}"
    )
    console.print(table)
    for line in (
        "rating: OpenSkill mu ± 2 sigma, sorted by mu - 3 sigma",
        "calls right: dudo and calza calls that were right",
        "bluffs: bids above own cup + expected unseen (all / openings)",
        f"{lost_word}: calling a bid that held / own bid called / calza",
    ):
        console.print(line, style="dim")
    if report.pairs:
        console.print("[bold]Heads-up pairs[/]")
        pairs = Table(box=box.SIMPLE_HEAD)
        pairs.add_column("pair")
        pairs.add_column("games", justify="right")
        pairs.add_column("first's wins", justify="right")
        pairs.add_column("first's win rate (95%)", justify="right")
        for pair in report.pairs:
            standing = Standing(pair.players[0], pair.wins[0], pair.games)
            low, high = standing.interval()
            first, second = (shown[player] for player in pair.players)
            pairs.add_row(
                f"{first} vs {second}",
                str(pair.games),
                f"{pair.wins[0]:g}",
                f"{standing.rate:.1%} ({low:.1%}–{high:.1%})",
            )
        console.print(pairs)
    if dice_key:
        console.print(
            f"dice key {dice_key}, to replay the run:\n  --seed {seed} --dice-key {dice_key}",
            soft_wrap=True,
        )


MAX_PAUSE = 600
"""The longest --pause in seconds: ten minutes is already no pause a player wants, and a
bound keeps inf or 1e300 from failing at the first reveal (the clock cannot sleep that
long)."""


def _writable_folder(folder: Path) -> str | None:
    """Why the game's record could not be saved in ``folder`` (created if need be), or
    None if it can: asked before the game, so that nobody plays a whole game to learn at
    its end that its record is lost."""
    import tempfile

    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        return error.strerror or str(error)
    if not folder.is_dir():
        return "Not a directory"
    # A file made and removed, not os.access: root may "write" anywhere by the permission
    # bits, /proc and read-only mounts included, and learned otherwise after the game.
    try:
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".dudo-check-", suffix=".part"):
            pass
    except OSError as error:
        return error.strerror or str(error)
    return None


@app.command()
def play(
    bots: Annotated[
        str,
        typer.Option(
            "--bots",
            "-b",
            metavar="LEVEL,LEVEL,...",
            help="Opponents, comma-separated (1 to 9): easy, normal, hard, random, or your own "
            "bot as package.module:Class or path/to/file.py:Class.",
        ),
    ] = "normal,hard,easy",
    preset: Annotated[
        str, typer.Option("--rules", "-r", metavar="PRESET", help=f"One of: {', '.join(PRESETS)}.")
    ] = DEFAULT_PRESET,
    settings: SetOption = None,
    name: Annotated[
        str, typer.Option("--name", metavar="NAME", help="Your name at the table.")
    ] = "You",
    seed: Annotated[
        int | None,
        typer.Option("--seed", metavar="N", help="Seed the dice and the bots to replay a game."),
    ] = None,
    pause: Annotated[
        float | None,
        typer.Option(
            "--pause",
            metavar="SECONDS",
            parser=_number_at_least(0, finite=False),  # inf: "--pause is at most 600 ..."
            help="How long the outcome of a call stays on screen before the next round, "
            f"up to {MAX_PAUSE} seconds. Default: until you press Enter (no pause when "
            "the input is not a terminal); 0 for none.",
        ),
    ] = None,
    records: Annotated[
        str | None,  # not a Path: that would make an empty --records the current folder
        typer.Option(
            "--records",
            metavar="DIR",
            envvar="DUDO_GAMES",
            help="Folder for the game's record, which dudo verify and dudo analyze read. "
            "Default: $XDG_DATA_HOME/dudo/games (~/.local/share/dudo/games).",
        ),
    ] = None,
    record: Annotated[
        bool, typer.Option("--record/--no-record", help="Save the game's record when it ends.")
    ] = True,
    debug: Annotated[
        bool, typer.Option("--debug", help="Show the full traceback when a bot fails.")
    ] = False,
    again: Annotated[
        bool,
        typer.Option(
            "--again/--no-again",
            help="When a game ends on a terminal, ask whether to play again: y starts a "
            "new game with the same bots and rules, fresh dice and a record of its own. "
            "Never asked when the input is not a terminal.",
        ),
    ] = True,
) -> None:
    """Play a game in the terminal against bots.

    The dice are provably fair, as on the server: each round's seed is sealed (SHA-256)
    before the roll, and the record saved at the end lets dudo verify recompute every die.
    On a terminal, the end of a game asks whether to play again (--no-again does not);
    with --seed N the next games use N+1, N+2, ... so that each can be replayed.
    Exit status 0 when the games end or you quit, 130 after Ctrl-C, 1 if a bot fails
    or a record cannot be saved.
    """
    from rich.console import Console

    from dudo.printable import cut_name, has_visible
    from dudo.terminal_records import default_folder
    from dudo.tui import printable_name

    levels = _comma_list(bots, "--bots", "normal,hard")
    if not 1 <= len(levels) <= 9:
        _fail(f"--bots needs 1 to 9 opponents, not {len(levels)}")
    if pause is not None and pause > MAX_PAUSE:
        _fail(f"--pause is at most {MAX_PAUSE} seconds, not {pause:g}")
    name = cut_name(printable_name(name))  # 24 characters, as the server cuts a name
    if not has_visible(name):  # nothing, or nothing visible in the 24 characters kept
        _fail("--name needs at least one visible character")
    if records is not None and record:
        _given(records, "--records", "name a folder (. for this one), or use --no-record")
    chosen = build_rules(preset, settings)
    folder = Path(records) if records else default_folder()
    problem = _writable_folder(folder) if record else None
    if problem is not None:
        _fail(
            f"cannot save game records in {str(folder)!r}: {problem}; choose a folder "
            "with --records DIR (or DUDO_GAMES), or play with --no-record"
        )
    console = Console(highlight=False)
    interactive = sys.stdin.isatty() and console.is_terminal
    if pause is None and not interactive:
        pause = 0
    played = 0
    while True:
        status, finished = _play_one_game(
            console,
            chosen,
            levels,
            name,
            seed=None if seed is None else seed + played,
            pause=pause,
            clear=interactive,
            folder=folder if record else None,
            debug=debug,
        )
        if not (finished and again and interactive and status == 0 and _again(console)):
            raise typer.Exit(status)
        played += 1


def _again(console: Console) -> bool:
    """Whether the player wants another game: only a typed yes says so (Enter or the input
    ending end the program, as after a game without the question; Ctrl-C ends it with exit
    status 130, as at every other prompt)."""
    try:
        answer = console.input("Play again? [y/N] ", markup=False)
    except EOFError:
        console.print()
        return False
    except KeyboardInterrupt:
        console.print()
        raise typer.Exit(130) from None
    return answer.strip().lower() in ("y", "yes")


def _play_one_game(
    console: Console,
    rules: Rules,
    levels: list[str],
    name: str,
    *,
    seed: int | None,
    pause: float | None,
    clear: bool,
    folder: Path | None,
    debug: bool,
) -> tuple[int, bool]:
    """One game of ``dudo play`` with fresh bots and fresh dice, its record saved in
    ``folder`` (None: not saved); returns the exit status so far and whether the game was
    played to its end (the player did not quit)."""
    from dudo.bots.registry import BotSpecError, make_bot
    from dudo.bots.table import BotError
    from dudo.game import Game
    from dudo.terminal_records import CommittedDice, game_record, new_game_id, save_record
    from dudo.tui import QuitGame, TerminalGame, echoed_input

    try:
        players = [
            # an endgame solve (seconds, first time only) runs beside the game, not in it
            make_bot(level, seed=None if seed is None else seed * 16 + seat, wait_for_solves=False)
            for seat, level in enumerate(levels, start=1)
        ]
    except BotSpecError as error:
        _fail(str(error))
    except Exception as error:  # a user's bot that fails to construct
        _fail(f"a bot of --bots could not be created: {error!r}")
    dice = CommittedDice(len(players) + 1, seed)
    game = Game(rules, len(players) + 1, dice=dice)
    terminal = TerminalGame(
        game,
        players,
        name,
        console,
        console.input if clear else echoed_input(console),
        levels=[level.rpartition(":")[2] for level in levels],
        pause=pause,
        clear=clear,
        commitment=dice.commitment_for,
    )
    status = 0
    failed: BotError | None = None
    try:
        terminal.play()
    except QuitGame as reason:
        if reason.prompt_open:
            console.print()  # ends the prompt's line; a typed quit ended its own
        console.print(f"{reason} in round {game.round_number}.")
    except KeyboardInterrupt:
        console.print(f"\nCtrl-C: you left the table in round {game.round_number}.")
        status = 130
    except BotError as error:  # the record is saved, as when the player leaves
        failed = error
    if folder is not None and dice.fairness:
        data = game_record(game, dice, new_game_id(), terminal.names, range(1, len(players) + 1))
        try:
            path = save_record(data, folder)
        except OSError as error:
            typer.echo(
                _error_line(
                    f"cannot save the game record in {str(folder)!r}: {error.strerror or error}"
                ),
                err=True,
            )
            status = status or 1
        else:
            console.print(record_lines(path, bool(game.winners)), soft_wrap=True)
    if failed is not None:
        _report_bot_error(failed, debug)
    return status, bool(game.winners)


def shell_path(path: Path, home: Path | None = None) -> str:
    """``path`` as a shell reads it: under the home folder as ``~/...`` (so the commands
    that name it fit an 80-column line), quoted where it needs to be."""
    import shlex

    home = Path.home() if home is None else home
    try:
        inside = path.relative_to(home)
    except ValueError:
        return shlex.quote(str(path))
    return "~" if not inside.parts else "~/" + shlex.quote(str(inside))


def record_lines(path: Path, finished: bool, home: Path | None = None) -> str:
    """What the end of a terminal game says about its record: where it is, and the two
    commands that read it, each alone on its line so that the path is never broken in
    two (printed with ``soft_wrap``: Rich adds no line breaks, and a default path fits
    at 80 columns; a longer one is wrapped by the terminal only)."""
    shown = shell_path(path, home)
    return (
        f"Game record{'' if finished else ' (the game is not finished)'}:\n"
        f"  {shown}\n"
        "Check its dice, and weigh every move:\n"
        f"  dudo verify {shown}\n"
        f"  dudo analyze {shown}"
    )


def _cannot_start(message: str, exit_code: int) -> NoReturn:
    """A start failure: one line on standard error (no password in it) and ``exit_code``
    (2 for bad input, 1 for a machine that is not ready)."""
    from dudo.server.logs import redact

    typer.echo(_error_line(redact(message)), err=True)
    raise typer.Exit(exit_code)


def _check_cluster_options(cluster: str, kind: str, advertise: str | None, workers: int) -> None:
    """--cluster, and --advertise beside it: a Redis URL, a database all nodes share, and
    an address the other nodes can reach (exit 2 on the first that is wrong)."""
    from dudo.store.base import hide_password

    if not cluster.startswith(("redis://", "rediss://", "unix://")):
        _fail(
            f"--cluster must be a Redis URL (redis://HOST:PORT/DB), not {hide_password(cluster)!r}"
        )
    if kind == "memory":
        _fail(
            "--cluster needs a database all nodes share: postgresql://... (or "
            "sqlite:///FILE for workers on one machine), not memory://"
        )
    if advertise is not None:
        from urllib.parse import urlsplit

        parts = urlsplit(advertise)
        try:
            port_given = parts.port is not None
        except ValueError:
            _fail(f"--advertise has a bad port: {advertise!r}")
        if parts.scheme != "http" or not parts.hostname or parts.path not in ("", "/"):
            _fail(f"--advertise must be http://HOST:PORT, not {advertise!r}")
        if workers > 1 and port_given:
            _fail(
                "with --workers, --advertise names the host only (http://HOST): each "
                "worker opens a relay port of its own"
            )
        if workers == 1 and not port_given:
            _fail(f"--advertise must name a port too: http://HOST:PORT, not {advertise!r}")


@app.command()
def serve(
    host: Annotated[
        str | None,
        typer.Option(
            envvar="DUDO_HOST",
            metavar="ADDRESS",
            show_default=False,
            help="Address to listen on: 127.0.0.1 (the default) is this computer only; "
            "0.0.0.0 is all its interfaces, and the addresses to share are printed. An "
            "empty address is refused.",
        ),
    ] = None,
    port: Annotated[
        int,
        typer.Option(
            envvar="DUDO_PORT", metavar="PORT", min=1, max=65535, help="Port to listen on."
        ),
    ] = 8000,
    lan: Annotated[
        bool,
        typer.Option(
            "--lan",
            help="A party on your home network: listen on all interfaces (0.0.0.0) "
            "and print this computer's addresses to share, with a QR code for "
            "phones on the same Wi-Fi.",
        ),
    ] = False,
    database: Annotated[
        str,
        typer.Option(
            envvar="DUDO_DATABASE",
            metavar="URL",
            help="sqlite:///FILE, postgresql://... or memory://.",
        ),
    ] = "sqlite:///dudo.db",
    log_level: Annotated[
        str, typer.Option(metavar="LEVEL", help="debug, info, warning or error.")
    ] = "info",
    log_format: Annotated[
        str,
        typer.Option(
            envvar="DUDO_LOG_FORMAT",
            metavar="FORMAT",
            help="text, json or auto: auto (the default) is a banner on standard output and "
            "readable log lines when standard error is a terminal, and JSON lines (one "
            "'listening' event instead of the banner) anywhere else: a pipe, a file, "
            "systemd's journal, a container's log.",
        ),
    ] = "auto",
    forwarded_allow_ips: Annotated[
        str,
        typer.Option(
            envvar="DUDO_FORWARDED_ALLOW_IPS",
            metavar="ADDRESSES",
            help="Addresses of your reverse proxies, comma separated (or *): only requests from "
            "them may name the client's address in X-Forwarded-For. Default: none, so "
            "nobody can dodge the per-address limits with a made-up header.",
        ),
    ] = "",
    cluster: Annotated[
        str | None,
        typer.Option(
            envvar="DUDO_CLUSTER",
            metavar="URL",
            help="redis://HOST:PORT/DB: run as one node of a cluster sharing this Redis and "
            "the --database (PostgreSQL across machines). Any node answers any request; "
            "a dead node's rooms move to the others.",
        ),
    ] = None,
    advertise: Annotated[
        str | None,
        typer.Option(
            envvar="DUDO_ADVERTISE",
            metavar="URL",
            help="http://HOST:PORT where the other nodes reach this one (with --cluster). "
            "Default: the --host and --port (this machine's address for 0.0.0.0). With "
            "--workers: http://HOST, and each worker opens a relay port of its own "
            "(default: on the loopback, so all nodes on one machine).",
        ),
    ] = None,
    workers: Annotated[
        int,
        typer.Option(
            envvar="DUDO_WORKERS",
            metavar="N",
            min=1,
            max=64,
            help="Start this many nodes on this machine behind one port, to use all its "
            "cores (needs --cluster).",
        ),
    ] = 1,
) -> None:
    """Run the game server (rooms, bots, fair dice) and print where to open it.

    Before it starts it checks what it needs: an address of this machine and a free port,
    the database (and its driver) and Redis for --cluster. Each problem is one line on
    standard error: exit 2 for a bad option, 1 for a machine that is not ready (port in
    use, database or Redis unreachable). No password is ever printed.
    """
    from dudo.server.guard.proxies import parse_proxies
    from dudo.server.host.addresses import (
        ListenError,
        check_listen,
        is_all_interfaces,
        machine_addresses,
    )
    from dudo.server.host.banner import Banner, url_of
    from dudo.server.host.nodes import Launch
    from dudo.server.host.nodes import serve as run_server
    from dudo.server.host.preflight import StartError, check_database, check_redis, database_kind
    from dudo.server.logs import configure as configure_logs
    from dudo.server.logs import resolve_format
    from dudo.server.web.app import ServerSettings
    from dudo.store.base import hide_password

    if host is not None:  # empty is every interface to uvicorn: that must be asked for
        _given(
            host,
            "--host",
            "name the address to listen on: 127.0.0.1 (this computer only, the default), "
            "or 0.0.0.0 or --lan (all its interfaces)",
        )
    _given(database, "--database", "use sqlite:///FILE, postgresql://... or memory://")
    if cluster is not None:
        _given(cluster, "--cluster", "give Redis's URL, redis://HOST:PORT/DB")
    if advertise is not None:
        _given(
            advertise, "--advertise", "give http://HOST:PORT where the other nodes reach this one"
        )
    level = log_level.upper()
    if level not in ("DEBUG", "INFO", "WARNING", "ERROR"):
        _fail(f"--log-level must be debug, info, warning or error, not {log_level!r}")
    try:
        chosen_format = resolve_format(log_format.strip().lower())
    except ValueError as error:
        _fail(str(error))
    if lan and host not in (None, "0.0.0.0", "::"):
        _fail(
            f"--lan listens on all interfaces (0.0.0.0), so it takes no --host {host}: "
            "leave out one or the other"
        )
    host = host if host is not None else ("0.0.0.0" if lan else "127.0.0.1")
    try:
        kind = database_kind(database)
    except StartError as error:
        _cannot_start(str(error), error.exit_code)
    try:
        ServerSettings.from_env(database)
    except ValueError as error:
        _fail(str(error))
    if workers > 1 and not cluster:
        _fail("--workers needs --cluster redis://...: the nodes share their rooms through Redis")
    if advertise is not None and not cluster:
        _fail(
            "--advertise says where the other nodes of a cluster reach this one, so it needs "
            "--cluster redis://...: leave it out to serve alone"
        )
    if cluster is not None:
        _check_cluster_options(cluster, kind, advertise, workers)
    try:
        proxies = parse_proxies(forwarded_allow_ips)
    except ValueError as error:
        _fail(str(error))
    launch = Launch(
        host=host,
        port=port,
        database=database,
        log_level=log_level,
        proxies=proxies,
        cluster=cluster,
        advertise=advertise,
        workers=workers,
        log_format=chosen_format,
    )
    configure_logs(level, chosen_format)
    addresses = machine_addresses() if is_all_interfaces(host) else []
    launch.share_origins = [url_of(address, port).rstrip("/") for address in addresses]
    try:
        check_listen(host, port)
        check_database(database)
        if cluster is not None:
            check_redis(cluster)
    except (ListenError, StartError) as error:
        _cannot_start(str(error), error.exit_code)
    launch.banner = Banner(
        version=__version__,
        host=host,
        port=port,
        database=hide_password(database),
        cluster=hide_password(cluster) if cluster else None,
        workers=workers,
        lan=lan,
        addresses=addresses,
        log_format=chosen_format,
    )
    from contextlib import suppress

    with suppress(KeyboardInterrupt):  # uvicorn raises Ctrl-C again once it
        run_server(launch)  # has stopped; it is how a person stops it, not an error
    if chosen_format == "text":
        typer.echo("dudo stopped")


@app.command()
def backup(
    path: Annotated[
        str,
        typer.Argument(
            help="The new file to write the copy to (it must not exist yet; folders "
            "missing on the way are made).",
            metavar="PATH",
        ),
    ],
    database: Annotated[
        str,
        typer.Option(
            envvar="DUDO_DATABASE",
            metavar="URL",
            help="The SQLite database to copy: sqlite:///FILE.",
        ),
    ] = "sqlite:///dudo.db",
) -> None:
    """Copy a SQLite database, even while the server runs on it.

    SQLite's online backup API copies one consistent moment, every game in it. `dudo serve
    --database sqlite:///PATH` on the copy carries on every live room. PostgreSQL: use
    pg_dump.

    Exit status: 0 copied, 1 not copied (the error says why), 2 a bad option or argument.
    """
    from dudo.store.backup import BackupError, backup_sqlite, sqlite_database

    _given(path, "the backup's PATH", "name the new file to write the copy to")
    _given(database, "--database", "name the SQLite database to copy, sqlite:///FILE")
    try:
        source = sqlite_database(database)  # not sqlite:///FILE: a bad --database (2)
    except BackupError as error:
        _fail(str(error))
    try:
        report = backup_sqlite(source, Path(path))
    except BackupError as error:
        _not_done(str(error))
    rooms = counted(report.live_rooms, "live room")
    games = counted(report.games, "finished game")
    typer.echo(
        f"backed up {source} to {report.path} ({report.size / 1024:.0f} KB: {rooms}, {games})"
    )


MAX_OLDER_THAN = 36_525
"""The most days ``dudo purge --older-than`` takes: 100 years, before any room was closed.
A larger number purged nothing without a word, and ``1e305`` days made infinite seconds."""


@app.command()
def purge(
    database: Annotated[
        str,
        typer.Option(
            envvar="DUDO_DATABASE",
            metavar="URL",
            help="sqlite:///FILE or postgresql://...",
        ),
    ] = "sqlite:///dudo.db",
    older_than: Annotated[
        float,
        typer.Option(
            parser=_number_at_least(0, most=(MAX_OLDER_THAN, "100 years")),
            metavar="DAYS",
            help="Delete the logs of rooms closed more than this many days ago "
            f"(up to {MAX_OLDER_THAN}, 100 years).",
        ),
    ] = 1,  # shown as [default: 1], where 1.0 read as a fraction of a day
) -> None:
    """Apply the retention policy now: delete closed rooms' logs.

    Finished games' records are kept; the server also does this once an hour. Safe while
    the server runs.

    Exit status: 0 done, 1 not done (the error says why), 2 a bad option.
    """
    import asyncio
    import time

    from dudo.store import StoreError, open_store

    _given(database, "--database", "use sqlite:///FILE or postgresql://...")
    problem = _sqlite_database_problem(database, "purge")
    if problem is not None:
        _not_done(problem)

    try:
        store = open_store(database)  # an unknown kind of URL is a bad --database (2)
    except StoreError as error:
        _fail(str(error))

    async def run() -> int:
        await store.open()
        try:
            return await store.purge_closed_rooms(time.time() - older_than * 86_400)
        finally:
            await store.close()

    try:
        purged = asyncio.run(run())
    except StoreError as error:
        _not_done(str(error))
    typer.echo(
        f"purged {counted(purged, 'closed room')} "
        f"(closed more than {counted(older_than, 'day')} ago); game records kept"
    )


PROFILE_ID = re.compile(r"[0-9a-fA-F]{16}")
"""A profile's public id as the server makes it: eight random bytes in hex."""


@app.command()
def forget(
    profile: Annotated[
        str,
        typer.Argument(
            metavar="PROFILE_ID",
            help="The profile's public id (shown on its /me page and in its export).",
        ),
    ],
    database: Annotated[
        str,
        typer.Option(
            envvar="DUDO_DATABASE",
            metavar="URL",
            help="sqlite:///FILE or postgresql://...",
        ),
    ] = "sqlite:///dudo.db",
) -> None:
    """Forget a player's profile: delete everything the server keeps for it.

    That is the profile, its device keys, transfer codes, rating and links to finished
    games. The games' records stay, as for any player without a profile. Safe while the
    server runs.

    Exit status: 0 forgotten, 1 not done (no such database or profile), 2 not a profile id
    or a bad option.
    """
    import asyncio

    from dudo.profiles.book import open_book
    from dudo.store import StoreError, open_store

    _given(database, "--database", "use sqlite:///FILE or postgresql://...")
    if not PROFILE_ID.fullmatch(profile):  # "zzz" was "no profile 'zzz' in this database"
        _fail(
            f"{profile!r} is not a profile id: 16 characters 0-9 and a-f, as /me shows it "
            "(like 3f9a0c2e71b4d856)"
        )
    profile = profile.lower()
    problem = _sqlite_database_problem(database, "forget")
    if problem is not None:
        _not_done(problem)

    try:
        store = open_store(database)  # an unknown kind of URL is a bad --database (2)
    except StoreError as error:
        _fail(str(error))

    async def run() -> bool:
        await store.open()
        try:
            return await (await open_book(store)).forget(profile)
        finally:
            await store.close()

    try:
        gone = asyncio.run(run())
    except StoreError as error:
        _not_done(str(error))
    if not gone:
        _not_done(f"no profile {profile!r} in this database (forgotten already?)")
    typer.echo(f"forgot profile {profile}: its keys, rating and game links are deleted")


def _sqlite_database_problem(database: str, command: str) -> str | None:
    """Why ``dudo COMMAND`` must not open the file a ``sqlite:///FILE`` URL names, or
    ``None`` (any other URL, or dudo's database). Opening a file creates dudo's tables in it:
    a missing file became an empty database, and another program's database or an empty
    file gained dudo's schema (an audit's ``purge`` then said "purged 0 closed rooms"). A
    directory made the driver's thread fail with a traceback. Read without writing."""
    sqlite = re.match(r"sqlite(\+\w+)?:///", database)  # sqlite+aiosqlite:/// too
    if sqlite is None:
        return None
    name = database[sqlite.end() :].partition("?")[0]
    if not name or name == ":memory:":
        return None
    where = (
        f"run dudo {command} where the server keeps its database, or name it with "
        "--database sqlite:///FILE (or DUDO_DATABASE)"
    )
    import sqlite3
    from contextlib import closing

    path = Path(name)
    if not path.exists():
        return f"no database at {name!r}: {where}"
    if path.is_dir():
        return f"{name!r} is a directory, not a database: {where}"
    try:
        read_only = f"{path.resolve().as_uri()}?mode=ro"
        with closing(sqlite3.connect(read_only, uri=True)) as db:
            tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
    except sqlite3.Error as error:
        return f"{name!r} is not a SQLite database ({error}): {where}"
    if "rooms" not in tables:
        return f"{name!r} is not dudo's database (it has no rooms table): {where}"
    return None


def _read_record(source: str, what: str = "FILE") -> dict[str, Any]:
    """A game record from a file or standard input, by the reading and JSON rules of
    scenario files; anything else is a one-line error and exit 2."""
    try:
        data = load_json(_read_text(source, what))
    except ScenarioError as error:
        _fail(f"{source}: {error}")
    if not isinstance(data, dict):
        _fail(f"{source}: a game record is a JSON object")
    return data


@app.command()
def verify(
    record: Annotated[
        str,
        typer.Argument(
            help="A game's record: the JSON of a server's /api/games/ID, or a file dudo play "
            "saved (by default in ~/.local/share/dudo/games), or - for standard input.",
            metavar="GAME_RECORD|-",
        ),
    ],
) -> None:
    """Recompute every die of a game from its seeds and replay its actions.

    Reads a server's record (/api/games/ID) or one dudo play saved. Exit status: 0 when
    every die follows from the published seeds, 1 when the record does not verify (dudo:
    NOT VERIFIED: ... on standard error), 2 when the input is no game record.
    """
    from dudo.fairness import FairnessError, NotAGameRecord, verify_record

    data = _read_record(record, "GAME_RECORD")
    try:
        lines = verify_record(data)
    except NotAGameRecord as error:
        _fail(f"{record}: {error}")
    except FairnessError as error:
        typer.echo(_error_line(str(error), "NOT VERIFIED"), err=True)
        raise typer.Exit(1) from None
    for line in lines:
        typer.echo(line)
    typer.echo("verified: every die follows from the published seeds")


def _as_markup(text: str) -> str:
    """Text from a file (a record's names, its game id) as Rich markup that prints it as
    written: no control characters for the terminal to obey (an ANSI escape) and its
    brackets escaped, so that a name like ``[/]`` is no markup error."""
    from rich.markup import escape

    from dudo.tui import printable_name

    return escape(printable_name(str(text)))


def _signed(dice: float) -> str:
    """An expected change in dice, +0.00 style; a loss that rounds to nothing is +0.00, not
    -0.00."""
    shown = f"{dice:+.2f}"
    return "+0.00" if shown == "-0.00" else shown


def _chance(decision: Any) -> str:
    """How likely the bid made (or, for a call, the bid called) was to hold."""
    if decision.bid_odds is not None:
        return f"{decision.bid_odds.holds:.0%}"
    assert decision.standing_odds is not None
    if decision.kind == "dudo":
        return f"bid {decision.standing_odds.holds:.0%}"
    return f"exact {decision.standing_odds.exact:.0%}"


def _decision_notes(
    decision: Any, reveal: Any, name: Callable[[int], str], points: bool
) -> list[str]:
    """The notes column of `dudo analyze`: mistakes, bluffs and how a call ended."""
    notes = []
    if decision.mistake == "call_on_likely_bid":
        notes.append("[bold red]MISTAKE[/]: called a likely bid")
    elif decision.mistake:
        notes.append("[bold red]MISTAKE[/]: long shot")
    if decision.bluff:
        notes.append("bluff, caught" if decision.caught else "bluff")
    if decision.outcome and reveal is not None:
        lost = (
            "nobody loses"
            if reveal.loser is None
            else f"{name(reveal.loser)} {'+' if points else '−'}{reveal.change}"
        )
        counted = (
            ""
            if reveal.count is None  # a Common Hand reveal counts no face
            else f" {reveal.count} counted,"
        )
        notes.append(f"{decision.outcome}:{counted} {lost}")
    return notes


def _player_summary(analysis: Any, name: Callable[[int], str]) -> Table:
    """The per-player table under `dudo analyze`'s list of moves."""
    from rich import box
    from rich.table import Table

    summary = Table(title="per player", box=box.SIMPLE_HEAD, pad_edge=False)
    for column in (
        "player",
        "calls right",
        "calls wrong",
        "bluffs (caught)",
        "average risk",
        "mistakes",
        "as hard would",
    ):
        summary.add_column(column, justify="left" if column == "player" else "right")
    for player in analysis.summary:
        risk = player.average_risk
        summary.add_row(
            name(player.seat) + (" (winner)" if player.seat in analysis.winners else ""),
            str(player.calls_right),
            str(player.calls_wrong),
            f"{player.bluffs} ({player.bluffs_caught})",
            "–" if risk is None else f"{risk:.0%}",
            str(player.mistakes),
            f"{player.agreed_with_hard} of {player.decisions}",
        )
    return summary


@app.command()
def analyze(
    record: Annotated[
        str,
        typer.Argument(
            help="A game's record (from /api/games/ID or saved by dudo play), any scenario "
            "file dudo scenario takes (its refused actions are left out: they change "
            "nothing), or - for standard input.",
            metavar="FILE|-",
        ),
    ],
    as_json: Annotated[
        bool,
        typer.Option(
            "--json", help="Print one JSON object (the same as GET /api/games/ID/analysis)."
        ),
    ] = False,
    mistakes_only: Annotated[
        bool, typer.Option("--mistakes", help="List only the moves marked as mistakes.")
    ] = False,
) -> None:
    """Weigh every bid and call of a game from the seat that made it.

    For each move: the odds the seat saw, what the hard bot would have done, and whether
    it was a mistake or a bluff; then a summary per player.
    """
    from dudo.bots.analysis import AnalysisError
    from dudo.bots.analysis import analyze as analyze_record
    from dudo.scenario import accepted_actions

    data = _read_record(record)
    left_out: list[str] = []
    if "fairness" not in data:  # a scenario, not a game's record: refusals are output
        try:
            data, left_out = accepted_actions(data)
        except ScenarioError as error:
            _fail(f"{record}: {error}")
    try:
        analysis = analyze_record(data)
    except AnalysisError as error:
        _fail(f"{record}: {error}")
    if as_json:
        typer.echo(
            json.dumps({**analysis.to_json(), **({"left_out": left_out} if left_out else {})})
        )
        return
    from rich import box
    from rich.console import Console
    from rich.table import Table

    from dudo.bids import Bid
    from dudo.game import Action
    from dudo.hands import Hand

    def name(seat: int) -> str:
        return _as_markup(analysis.names[seat]) or f"seat {seat}"

    def move(action: Action | None) -> str:
        if action is None:
            return "no calza"
        if isinstance(action, (Bid, Hand)):
            return action.words()
        return "Liar!" if action.value == "dudo" else "Calza"

    points = analysis.rules.format == "points"
    unit = "points" if points else "dice"
    console = Console(highlight=False)
    if isinstance(data.get("room"), str):
        title = f"table {_as_markup(data['room'])}"
    elif isinstance(data.get("game_id"), str):
        title = f"game {_as_markup(data['game_id'])}"
    else:
        title = "a game"
    if left_out:
        console.print(
            f"left out {len(left_out)} refused action"
            f"{'s' if len(left_out) > 1 else ''} (they change nothing): "
            + "; ".join(map(_as_markup, left_out))
        )
    console.print(
        f"[bold]{title}[/]: "
        + ", ".join(
            f"{name(seat)}{' (bot)' if seat in analysis.bots else ''}"
            for seat in range(analysis.players)
        )
    )
    table = Table(
        title="every bid and call, from the seat that made it",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        collapse_padding=True,
    )
    for column, justify in (
        ("step", "right"),
        ("player", "left"),
        ("move", "left"),
        ("chance", "right"),
        ("hard", "left"),
        ("expected", "right"),
        ("notes", "left"),
    ):
        table.add_column(
            column,
            justify=justify,  # type: ignore[arg-type]
            no_wrap=column in ("step", "chance", "expected"),
            ratio=2 if column == "notes" else None,
            min_width={"player": 6, "notes": 14}.get(column),
        )
    sign = -1 if points else 1
    for entry in analysis.rounds:
        shown = [d for d in entry.decisions if d.mistake or not mistakes_only]
        for decision in shown:
            chance = _chance(decision)
            notes = _decision_notes(decision, entry.reveal, name, points)
            table.add_row(
                f"{entry.number}.{decision.index + 1}",
                name(decision.seat),
                move(decision.action),
                chance,
                "same" if decision.agrees else move(decision.hard),
                f"{_signed(sign * decision.ev)}/{_signed(sign * decision.hard_ev)}",
                "; ".join(notes),
                end_section=decision is entry.decisions[-1],
            )
    console.print(table)
    console.print(_player_summary(analysis, name))
    console.print(
        "chance: how likely the bid was to hold (for a call: the bid called) from "
        "the player's own dice, the rest unseen. hard: what the hard bot would have "
        f"done. expected: {unit} to gain (-: to lose) by the move / by hard's, if judged "
        "(a call at once, a bid if called)."
    )


# Every command's help from its docstring, its paragraphs flowing (see flowing).
for _command in app.registered_commands:
    if _command.help is None and _command.callback is not None and _command.callback.__doc__:
        _command.help = flowing(_command.callback.__doc__)
