"""The ``dudo`` command as a whole: usage errors in one line, help for every command, and
``--set`` changing options only."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from dudo.cli import app
from dudo.rules import PRESETS
from dudo.rules_text import rules_sheet
from serverkit import free_port

runner = CliRunner()
ROOT = Path(__file__).parents[2]
COMMANDS = sorted(name for name in typer.main.get_command(app).commands)  # type: ignore[attr-defined]

USAGE_ERRORS = {
    "unknown option": (["scenario", "--bogus", "x"], "No such option: --bogus"),
    "missing argument": (["scenario"], "Missing argument"),
    "option without its value": (["rules", "--lang"], "'--lang' requires an argument"),
    "not a number": (["arena", "--games", "abc"], "'--games'"),
    "number out of range": (["serve", "--port", "0"], "'--port'"),
    "unknown command": (["bogus"], "No such command 'bogus'"),
    "unknown option of the group": (["--bogus"], "No such option: --bogus"),
}


def assert_one_line(stderr: str, fragment: str) -> None:
    assert len(stderr.splitlines()) == 1, stderr
    assert stderr.startswith("dudo: error: ") and fragment in stderr, stderr
    assert not any(box in stderr for box in "╭│╰"), "a Rich box"


@pytest.mark.parametrize("name", USAGE_ERRORS)
def test_a_usage_error_is_one_line_with_status_2(name: str) -> None:
    args, fragment = USAGE_ERRORS[name]
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert_one_line(result.stderr, fragment)


def test_a_usage_error_is_one_line_from_the_installed_command_too() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "dudo", "rules", "--sett", "x"],
        capture_output=True,
        text=True,
        env={
            "COLUMNS": "80",
            "FORCE_COLOR": "1",
            "PATH": "/usr/bin:/bin",
            "PYTHONPATH": str(ROOT / "src"),  # this checkout's dudo, not the venv's
        },
    )
    assert result.returncode == 2 and result.stdout == ""
    assert_one_line(result.stderr, "No such option: --sett")
    assert "(see 'dudo rules --help')" in result.stderr


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_every_command_still_has_help(command: str, flag: str) -> None:
    result = runner.invoke(app, [command, flag])
    assert result.exit_code == 0, result.stderr
    assert "Usage:" in result.stdout and result.stderr == ""


def test_the_commands_are_the_known_ones() -> None:
    assert COMMANDS == [
        "analyze",
        "arena",
        "backup",
        "forget",
        "play",
        "purge",
        "rules",
        "scenario",
        "serve",
        "verify",
    ]


def test_dudo_alone_shows_the_help_and_succeeds() -> None:
    # Click 8.2 made no_args_is_help a usage error (exit 2); typing `dudo` to see the
    # commands is no mistake, so it is the help on standard output and exit 0, as --help.
    result = runner.invoke(app, [])
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    assert "Usage:" in result.stdout and all(command in result.stdout for command in COMMANDS)
    assert result.stdout == runner.invoke(app, ["--help"]).stdout


def test_dudo_alone_succeeds_from_the_installed_command_too() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "dudo"],
        capture_output=True,
        text=True,
        env={"COLUMNS": "80", "PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT / "src")},
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert "Usage: dudo [OPTIONS] COMMAND" in result.stdout and "serve" in result.stdout


@pytest.mark.parametrize(
    "args",
    [
        ["rules", "perudo", "--set", "preset=dudo"],
        ["rules", "perudo", "--set", "calza=off", "--set", "Preset = tavern"],
        ["arena", "--rules", "perudo", "--set", "preset=dudo", "--games", "1"],
        ["play", "--set", "preset=tavern"],
    ],
)
def test_set_refuses_to_change_the_preset(args: list[str]) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert_one_line(result.stderr, "the preset is not an option")


def test_set_still_changes_options() -> None:
    result = runner.invoke(app, ["rules", "perudo", "--set", "starting_dice=3"])
    assert result.exit_code == 0
    assert (
        result.stdout.strip()
        == rules_sheet(PRESETS["perudo"].with_options(starting_dice=3)).strip()
    )


CLUSTER_MISTAKES = {
    "workers without a cluster": (["serve", "--workers", "2"], "--workers needs --cluster"),
    "advertise without a cluster": (
        ["serve", "--advertise", "http://10.0.0.11:8001"],
        "so it needs --cluster",
    ),
    "a cluster that is not Redis": (
        ["serve", "--cluster", "http://x:1"],
        "--cluster must be a Redis URL",
    ),
    "a cluster on a memory store": (
        ["serve", "--cluster", "redis://x:1/0", "--database", "memory://"],
        "a database all nodes share",
    ),
    "an advertised address without a port": (
        ["serve", "--cluster", "redis://x:1/0", "--advertise", "http://node1"],
        "must name a port",
    ),
    "an advertised address that is not http": (
        ["serve", "--cluster", "redis://x:1/0", "--advertise", "node1:8000"],
        "--advertise must be http://HOST:PORT",
    ),
    "workers with a port to advertise": (
        [
            "serve",
            "--cluster",
            "redis://x:1/0",
            "--workers",
            "2",
            "--advertise",
            "http://node1:8000",
        ],
        "names the host only",
    ),
    "too many workers": (["serve", "--cluster", "redis://x:1/0", "--workers", "65"], "'--workers'"),
}


@pytest.mark.parametrize("name", CLUSTER_MISTAKES)
def test_cluster_options_are_checked_before_anything_starts(name: str) -> None:
    args, fragment = CLUSTER_MISTAKES[name]
    result = runner.invoke(app, args)
    assert result.exit_code != 0
    assert fragment in result.stderr, result.stderr
    assert len(result.stderr.splitlines()) == 1, result.stderr


# -- empty values ----------------------------------------------------------------------------

EMPTY_VALUES = {
    # An empty --host is all interfaces to uvicorn: exposing the server must be asked for.
    "serve --host ''": (["serve", "--host", ""], "--host is empty"),
    "serve --host ' '": (["serve", "--host", " "], "--host is empty"),
    "serve --lan --host ''": (["serve", "--lan", "--host", ""], "--host is empty"),
    "serve --database ''": (["serve", "--database", ""], "--database is empty"),
    "serve --cluster ''": (["serve", "--cluster", ""], "--cluster is empty"),
    "serve --advertise ''": (
        ["serve", "--cluster", "redis://x:1/0", "--advertise", " "],
        "--advertise is empty",
    ),
    "purge --database ''": (["purge", "--database", ""], "--database is empty"),
    "forget --database ''": (["forget", "abc", "--database", ""], "--database is empty"),
    "backup ''": (["backup", ""], "the backup's PATH is empty"),
    "backup ' '": (["backup", " "], "the backup's PATH is empty"),
    "backup --database ''": (["backup", "copy.db", "--database", ""], "--database is empty"),
    "scenario ''": (["scenario", ""], "FILE is empty"),
    "verify ''": (["verify", ""], "GAME_RECORD is empty"),
    "analyze ''": (["analyze", " "], "FILE is empty"),
    "play --records ''": (["play", "--records", ""], "--records is empty"),
}


@pytest.mark.parametrize("name", EMPTY_VALUES)
def test_an_empty_value_is_one_clear_line_before_anything_starts(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import dudo.server.host.nodes

    def started(launch: object) -> None:
        raise AssertionError(f"the server started on {launch!r}")

    monkeypatch.setattr(dudo.server.host.nodes, "serve", started)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "dudo.db").touch()
    args, fragment = EMPTY_VALUES[name]
    if args[0] == "serve":
        args = [*args, "--port", str(free_port())]
    result = runner.invoke(app, args, input="quit\n")
    assert result.exit_code == 2, (result.output, result.exception)
    assert result.stdout == ""
    assert_one_line(result.stderr, fragment)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["dudo.db"]


def test_all_interfaces_are_still_there_for_the_asking(monkeypatch: pytest.MonkeyPatch) -> None:
    import dudo.server.host.nodes

    launched: list[str] = []
    monkeypatch.setattr(
        dudo.server.host.nodes, "serve", lambda launch: launched.append(launch.host)
    )
    for args in (["--lan"], ["--host", "0.0.0.0"], ["--lan", "--host", "0.0.0.0"], []):
        result = runner.invoke(
            app, ["serve", *args, "--port", str(free_port()), "--database", "memory://"]
        )
        assert result.exit_code == 0, result.output
    assert launched == ["0.0.0.0", "0.0.0.0", "0.0.0.0", "127.0.0.1"]


def a_record(preset: str, seed: int) -> dict[str, Any]:
    """The record ``dudo play`` saves of a game of ``preset``, every seat a random bot."""
    from dudo.bots.registry import make_bot
    from dudo.bots.table import ask, out_of_turn_seats
    from dudo.game import CALZA, Game, Phase
    from dudo.rules import Rules
    from dudo.terminal_records import CommittedDice, game_record

    rules = Rules.from_json({"preset": preset, "starting_dice": 2})
    bots = [make_bot("random", seed=seed * 10 + seat) for seat in range(3)]
    dice = CommittedDice(3, seed)
    game = Game(rules, 3, dice=dice)
    while game.phase is not Phase.OVER:
        if game.phase is Phase.ROLL:
            game.roll()
            continue
        calling = [s for s in out_of_turn_seats(game) if ask(bots[s], game, s) is CALZA]
        seat = calling[0] if calling else game.turn
        action = CALZA if calling else ask(bots[seat], game, seat)
        assert action is not None
        game.apply(seat, action)
    return game_record(game, dice, f"g{seed}", ["You", "b1", "b2"], [1, 2])


@pytest.mark.parametrize("preset", PRESETS)
def test_the_record_of_a_game_of_every_preset_plays_with_dudo_scenario(
    preset: str, tmp_path: Path
) -> None:
    # A dudo-preset record (first opener rolled off) has rolloff_fairness, which the
    # scenario reader refused as an unknown key (exit 2).
    record = a_record(preset, 5)
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    result = runner.invoke(app, ["scenario", str(path)])
    assert result.exit_code == 0, result.output
    assert '"event": "game_over"' in result.stdout
    if preset == "dudo":
        assert "rolloff_fairness" in record
