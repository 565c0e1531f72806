"""A plug-in bot that cannot be loaded or built is one :class:`BotSpecError` line naming
the file (or module) and the class, from :func:`make_bot` itself (a program calling it,
not only ``dudo arena``), never the plug-in's own exception unexplained."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from dudo.bots import BotSpecError, make_bot
from dudo.bots.base import bid_odds
from dudo.bots.table import play_bot_game
from dudo.cli import app
from dudo.dice import SeededDice
from dudo.game import Game
from dudo.rules import PRESETS, Rules
from dudo.view import view

SRC = Path(__file__).parents[2] / "src"
PLUGINS = {
    "broken.py": "class Bot:\n    def act(self, view)\n        return None\n",
    "raising.py": "raise RuntimeError('no config file')\n",
    "bots.py": """
class NeedsLevel:
    def __init__(self, level):
        self.level = level

    def act(self, view):
        return view.legal[0]


class Grumpy:
    def __init__(self, seed=None):
        raise ValueError("not today")

    def act(self, view):
        return view.legal[0]


class Waiting:
    async def act(self, view):
        return view.legal[0]


def helper(view):
    return view.legal[0]
""",
}


@pytest.fixture
def plugins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name, text in PLUGINS.items():
        (tmp_path / name).write_text(text)
    (tmp_path / "settings.json").write_text("{}")
    (tmp_path / "plugin_pkg").mkdir()
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


CASES = [
    (
        "{dir}/broken.py:Bot",
        "'{dir}/broken.py' failed to load: SyntaxError at line 2: expected ':'",
    ),
    ("{dir}/raising.py:Bot", "'{dir}/raising.py' failed to load: RuntimeError: no config file"),
    ("raising:Bot", "'raising' failed to import: RuntimeError: no config file"),
    ("broken:Bot", "'broken' failed to import: SyntaxError at line 2: expected ':'"),
    (
        "{dir}/bots.py:NeedsLevel",
        "bot '{dir}/bots.py:NeedsLevel' could not be created: NeedsLevel() raised TypeError: "
        "NeedsLevel.__init__() missing 1 required positional argument: 'level' (a bot's "
        "constructor may take seed, budget_ms and wait_for_solves, no more)",
    ),
    (
        "{dir}/bots.py:Grumpy",
        "bot '{dir}/bots.py:Grumpy' could not be created: Grumpy(seed=0) raised ValueError: "
        "not today",
    ),
    (
        "{dir}/bots.py:Waiting",
        "'{dir}/bots.py:Waiting' has an async act(view): bots are called, not awaited; "
        "make it a plain def",
    ),
    (
        "{dir}/bots.py:helper",
        "'{dir}/bots.py' has no class 'helper' ('helper' is a function, not a class); "
        "bot classes there: Grumpy, NeedsLevel, Waiting",
    ),
    (
        "{dir}/bots.py:Missing",
        "'{dir}/bots.py' has no class 'Missing'; bot classes there: Grumpy, NeedsLevel, Waiting",
    ),
    (
        "{dir}/plugin_pkg:Bot",
        "'{dir}/plugin_pkg' is a folder: name a file, path/to/file.py:ClassName",
    ),
    # "cannot import '/tmp/x/good.json': No module named '/tmp/x/good'"
    *(
        (
            f"{where}:Bot",
            f"'{where}' is {what}: a plug-in bot is a Python file or a module, "
            "path/to/file.py:ClassName or package.module:ClassName",
        )
        for where, what in (
            ("{dir}/settings.json", "not a Python file (.py)"),
            ("{dir}/missing.json", "neither a .py file nor a module"),
            ("{dir}/bots", "neither a .py file nor a module"),
        )
    ),
]


@pytest.mark.parametrize(("spec", "message"), CASES)
def test_make_bot_says_what_is_wrong_with_a_plugin(plugins: Path, spec: str, message: str) -> None:
    with pytest.raises(BotSpecError) as caught:
        make_bot(spec.format(dir=plugins), seed=0)
    assert str(caught.value) == message.format(dir=plugins)


@pytest.mark.parametrize("command", [["arena", "-n", "1", "-p"], ["play", "--no-record", "-b"]])
def test_a_plugin_that_is_no_python_file_is_refused_in_one_line(
    plugins: Path, command: list[str]
) -> None:
    spec, message = CASES[-3]
    bots = f"{spec.format(dir=plugins)},random"
    result = CliRunner().invoke(app, [*command, bots, "--set", "starting_dice=1"], input="")
    assert result.exit_code == 2, result.output
    assert result.stderr == f"dudo: error: {message.format(dir=plugins)}\n"


def test_the_arena_prints_the_same_line(plugins: Path) -> None:
    spec, message = CASES[5]
    result = subprocess.run(
        [sys.executable, "-m", "dudo", "arena", "--players", f"{spec.format(dir=plugins)},easy"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(SRC)},
        timeout=120,
    )
    assert result.returncode == 2
    assert result.stderr.strip().splitlines()[-1] == f"dudo: error: {message.format(dir=plugins)}"


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_the_example_bot_plays_every_preset(preset: str) -> None:
    # The example a newcomer copies must not stop on a rule set it did not think of
    # (Common Hand's bids are hands: view.legal.any_bids, and bid_odds knows hands).
    example = Path(__file__).parents[2] / "examples" / "cautious_bot.py"
    bots = [make_bot(f"{example}:CautiousBot", seed=1), make_bot("random", seed=2)]
    game = Game(Rules.preset(preset), 2, dice=SeededDice(3))
    assert play_bot_game(game, bots)


@pytest.mark.parametrize("preset", ["perudo", "common-hand"])
def test_bid_odds_takes_either_kind_of_bid(preset: str) -> None:
    game = Game(Rules.preset(preset), 2, dice=SeededDice(5))
    game.roll()
    seen = view(game, game.turn)
    odds = [bid_odds(seen, bid) for bid in seen.legal.any_bids]
    assert all(0.0 <= chance <= 1.0 for chance in odds)
    assert odds[0] > odds[-1]  # the lowest bid is likelier than the highest
