"""A plug-in bot's mistake is one line naming the bot, its seat and what it returned or
raised, in ``dudo arena`` (one process or several) and ``dudo play``; ``--debug`` adds the
traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from dudo.cli import app

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
            "bot Lowball at seat 0 returned 1x2 (one 2), which is not legal now: that "
            "does not raise the standing bid",
        ),
        (
            "Crashy",
            "bot 'Crash Test' (Crashy) at seat 0 raised ZeroDivisionError('division by zero')",
        ),
        (
            "Silent",
            "bot Silent at seat 0 returned None on its turn; it must return one of view.legal",
        ),
    ],
)
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_the_arena_names_the_bot_its_seat_and_its_answer(
    bots: Path, bot: str, line: str, jobs: str
) -> None:
    result = runner.invoke(
        app,
        ["arena", "--players", f"{bots}:{bot},easy", "--games", "4", "--seed", "1", "--jobs", jobs],
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
        "ZeroDivisionError('division by zero')"
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
        "is not legal now: that does not raise the standing bid "
        "(--debug shows the traceback)\n"
    )
