"""A plug-in bot's mistake is one line naming the bot, its seat and what it returned or
raised, in ``dudo arena`` (one process or several) and ``dudo play``; ``--debug`` adds the
traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from dudo.bids import Bid
from dudo.bots.table import LEGAL_SHOWN, BotError, ask, legal_summary
from dudo.cli import app
from dudo.dice import SeededDice
from dudo.game import Action, Game
from dudo.rules import Rules
from dudo.view import SeatView

SRC = Path(__file__).parents[2] / "src"
BOTS = """
from dudo.bids import Bid


class Stringy:
    name = "Stringy"

    def act(self, view):
        return "dudo" if view.my_turn else None


class Lowball:
    def act(self, view):
        return Bid(1, 2) if view.my_turn else None


class Crashy:
    def __init__(self, seed=None):
        self.name = "Crash Test"

    def act(self, view):
        if view.my_turn:
            raise ZeroDivisionError("division by zero")
        return None


class Silent:
    def act(self, view):
        return None


class Quitter:
    def act(self, view):
        if view.my_turn:
            import sys

            sys.exit(0)
        return None
"""

runner = CliRunner()


@pytest.fixture
def bots(tmp_path: Path) -> Path:
    path = tmp_path / "bad_bots.py"
    path.write_text(BOTS)
    return path


@pytest.mark.parametrize(
    "bot,line",
    [
        (
            "Stringy",
            "bot Stringy at seat 0 returned 'dudo', which is not an action: "
            "return one of view.legal (a Bid, DUDO or CALZA)",
        ),
        (
            "Lowball",
            "bot Lowball at seat 0 returned 1x2 (one 2), which is not legal now: A raise on "
            "one 3 names more dice, or as many of a higher face; on 2s that is at least two "
            "2s. (legal: 1x4, 1x5, 1x6, 2x2, ... (58 bids), dudo)",
        ),
        (
            "Crashy",
            "bot 'Crash Test' (Crashy) at seat 0 raised ZeroDivisionError: division by zero",
        ),
        (
            "Silent",
            "bot Silent at seat 0 returned None on its turn; it must return one of view.legal",
        ),
        # sys.exit(0) in act() ended the arena with exit 0 and no result
        ("Quitter", "bot Quitter at seat 0 raised SystemExit: 0"),
    ],
)
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_the_arena_names_the_bot_its_seat_and_its_answer(
    bots: Path, bot: str, line: str, jobs: str
) -> None:
    result = runner.invoke(
        app,
        [
            "arena",
            "--players",
            f"{bots}:{bot},easy",
            "--games",
            "4",
            "--seed",
            "1",
            "--dice-key",
            "fixed",  # the legal bids listed depend on the dice
            "--jobs",
            jobs,
        ],
    )
    assert result.exit_code == 1
    assert result.stderr == f"dudo: error: {line} (--debug shows the traceback)\n"
    assert result.stdout == ""


def test_debug_shows_the_traceback(bots: Path) -> None:
    result = runner.invoke(
        app, ["arena", "--players", f"{bots}:Crashy,easy", "--games", "2", "--debug"]
    )
    assert result.exit_code == 1
    assert "Traceback" in result.stderr and 'raise ZeroDivisionError("division by zero")' in (
        result.stderr
    )
    assert result.stderr.rstrip().splitlines()[-1] == (
        "dudo: error: bot 'Crash Test' (Crashy) at seat 0 raised "
        "ZeroDivisionError: division by zero"
    )


def test_the_terminal_game_names_the_bot_too(bots: Path) -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "dudo",
            "play",
            "--bots",
            f"{bots}:Lowball",
            "--no-record",
            "--rules",
            "dudo",
            "--seed",
            "1",
            "--set",
            "first_opener=host",
        ],
        input="1 6s\n",
        capture_output=True,
        text=True,
        timeout=60,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(SRC), "COLUMNS": "80"},
    )
    assert result.returncode == 1
    assert result.stderr == (
        "dudo: error: bot Lowball at seat 1 returned 1x2 (one 2), which "
        "is not legal now: A raise on one 6 names more dice, or as many of a higher face; "
        "on 2s that is at least two 2s. (legal: 2x2, 2x3, 2x4, 2x5, ... (55 bids), dudo, calza) "
        "(--debug shows the traceback)\n"
    )


@pytest.mark.parametrize(
    ("bot", "line"),
    [
        ("Quitter", "bot Quitter at seat 1 raised SystemExit: 0"),
        ("Crashy", "bot 'Crash Test' (Crashy) at seat 1 raised ZeroDivisionError"),
    ],
)
def test_the_terminal_game_saves_its_record_when_a_bot_fails(
    bots: Path, bot: str, line: str, tmp_path: Path
) -> None:
    # A bot's sys.exit(0) ended the game with exit 0 and nothing said; and a bot that
    # raised left no record, where quitting, the input's end and Ctrl-C all leave one.
    records = tmp_path / "records"
    result = subprocess.run(
        [sys.executable, "-m", "dudo", "play", "-b", f"{bots}:{bot}", "-r", "dudo", "--seed", "1"],
        input="1 6s\n",
        capture_output=True,
        text=True,
        timeout=60,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(SRC), "COLUMNS": "80"}
        | {"DUDO_GAMES": str(records)},
    )
    assert result.returncode == 1, result.stderr
    assert result.stderr.startswith(f"dudo: error: {line}"), result.stderr
    assert len(result.stderr.splitlines()) == 1
    [record] = records.glob("*.json")
    assert "Game record (the game is not finished):" in result.stdout
    verify = runner.invoke(app, ["verify", str(record)])
    assert verify.exit_code == 0, verify.output


# -- the wrapper every table uses ------------------------------------------------------


class NineSevens:
    """Answers a bid no rules know: nine 7s."""

    name = "NineSevens"

    def act(self, view: SeatView) -> Action | None:
        return Bid(9, 7) if view.my_turn else None


class Boom:
    def __init__(self) -> None:
        self.name = "Boom"

    def act(self, view: SeatView) -> Action | None:
        raise ValueError("boom")


def opened_game() -> Game:
    """Three seats of five dice under Perudo, rolled, seat 0 to open."""
    game = Game(Rules.preset("perudo"), 3, dice=SeededDice(7))
    game.roll()
    return game


def test_a_bid_no_rules_know_is_one_line_with_the_first_legal_actions() -> None:
    game = opened_game()
    seat = game.turn
    with pytest.raises(BotError) as caught:
        ask(NineSevens(), game, seat)
    (line,) = str(caught.value).splitlines()
    legal = game.legal_actions(seat)
    first = ", ".join(str(bid) for bid in legal.bids[:LEGAL_SHOWN])
    assert line == (
        f"bot NineSevens at seat {seat} returned 9x7 (nine 7s), which is not legal now: "
        f"A die's faces are 1 to 6. (legal: {first}, ... ({len(legal.bids)} bids))"
    )


def test_a_bot_that_raises_is_its_exception_type_and_message_with_the_cause_kept() -> None:
    game = opened_game()
    with pytest.raises(BotError) as caught:
        ask(Boom(), game, 2)  # off its turn too: asked for a calza, it raised
    assert str(caught.value) == "bot Boom at seat 2 raised ValueError: boom"
    assert isinstance(caught.value.__cause__, ValueError)


def test_a_bot_that_exits_is_a_bot_error_and_ctrl_c_goes_through() -> None:
    class Exits:
        name = "Exits"

        def act(self, view: SeatView) -> Action | None:
            sys.exit(3)

    class Interrupted:
        def act(self, view: SeatView) -> Action | None:
            raise KeyboardInterrupt

    game = opened_game()
    with pytest.raises(BotError) as caught:
        ask(Exits(), game, game.turn)
    assert str(caught.value) == f"bot Exits at seat {game.turn} raised SystemExit: 3"
    assert isinstance(caught.value.__cause__, SystemExit)
    with pytest.raises(KeyboardInterrupt):
        ask(Interrupted(), game, game.turn)


def test_the_legal_summary_lists_a_few_bids_then_every_call() -> None:
    game = opened_game()
    game.apply(game.turn, Bid(3, 5))
    legal = game.legal_actions(game.turn)
    summary = legal_summary(legal)
    shown = [str(bid) for bid in legal.bids[:LEGAL_SHOWN]]
    assert summary == ", ".join([*shown, f"... ({len(legal.bids)} bids)", "dudo", "calza"])
    assert legal_summary(game.legal_actions((game.turn + 1) % 3)) in ("calza", "nothing")


def test_a_bid_of_things_not_numbers_is_shown_as_its_constructor() -> None:
    class Odd:
        name = "Odd"

        def act(self, view: SeatView) -> Action | None:
            return Bid("x", None) if view.my_turn else None  # type: ignore[arg-type]

    game = opened_game()
    with pytest.raises(BotError, match=r"returned Bid\('x', None\), which is not legal now"):
        ask(Odd(), game, game.turn)


def test_the_ladder_names_the_bot_too(bots: Path) -> None:
    result = runner.invoke(
        app,
        ["arena", "--ladder", "--players", f"{bots}:Silent,easy", "--games", "2", "--seed", "1"],
    )
    assert result.exit_code == 1
    assert result.stderr.count("\n") == 1
    assert "bot Silent at seat " in result.stderr
    assert "returned None on its turn; it must return one of view.legal" in result.stderr
