"""``dudo analyze`` takes every scenario file ``dudo scenario`` takes: the engine's refusals
are left out (they change nothing) and said so, the rest is weighed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from dudo.bots.analysis import analyze
from dudo.cli import app
from dudo.scenario import ScenarioError, accepted_actions, load_scenario, run_scenario

SCENARIOS = sorted((Path(__file__).parents[1] / "scenarios").glob("*/*.json"))
runner = CliRunner()


def valid(path: Path) -> bool:
    try:
        run_scenario(load_scenario(path.read_text(encoding="utf-8-sig")))
    except ScenarioError:
        return False
    return True


VALID = [path for path in SCENARIOS if valid(path)]


def test_there_are_valid_scenarios_with_refused_actions() -> None:
    assert len(VALID) >= 20
    assert any(
        '"illegal"' in json.dumps(run_scenario(load_scenario(path.read_text()))) for path in VALID
    )


@pytest.mark.parametrize("path", VALID, ids=lambda path: f"{path.parent.name}/{path.name}")
def test_every_valid_scenario_can_be_analysed(path: Path) -> None:
    data = load_scenario(path.read_text(encoding="utf-8-sig"))
    kept, refused = accepted_actions(data)
    illegal = [event for event in run_scenario(data) if event["event"] == "illegal"]
    assert len(refused) == len(illegal)
    analysis = analyze(kept, hard=False)
    accepted = sum(len(entry.get("actions", [])) for entry in kept["rounds"])
    assert sum(len(entry.decisions) for entry in analysis.rounds) == accepted


def test_the_readme_example_is_analysed_and_its_refusals_named() -> None:
    path = Path(__file__).parents[1] / "scenarios" / "shared" / "tavern-reveal.json"
    result = runner.invoke(app, ["analyze", str(path)], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert (
        "left out 2 refused actions (they change nothing): round 1: seat 2 cannot bid "
        "seven aces (ones_not_allowed); round 1: seat 0 cannot call dudo (not_your_turn)"
    ) in result.stdout
    data = json.loads(runner.invoke(app, ["analyze", str(path), "--json"]).stdout)
    assert len(data["left_out"]) == 2


def test_a_game_record_with_a_refused_action_is_still_refused(tmp_path: Path) -> None:
    # A record (it has fairness material) is what a server or dudo play wrote: an illegal
    # action in it means it was changed, and analysing it would hide that.
    path = Path(__file__).parents[1] / "scenarios" / "shared" / "tavern-reveal.json"
    record = {**json.loads(path.read_text()), "fairness": []}
    changed = tmp_path / "record.json"
    changed.write_text(json.dumps(record))
    result = runner.invoke(app, ["analyze", str(changed)])
    assert result.exit_code == 2
    assert "cannot bid seven aces" in result.stderr


def test_names_and_ids_in_a_record_are_printed_as_text_not_markup_or_escapes(
    tmp_path: Path,
) -> None:
    # A record is a file anyone may hand over: a name "[/]" ended dudo analyze with a
    # MarkupError traceback, and an ANSI escape in one reached the terminal.
    path = Path(__file__).parents[1] / "scenarios" / "shared" / "tavern-reveal.json"
    record = {
        **json.loads(path.read_text()),
        "names": ["Ana[/]\x1b[2J", "[bold]Bo", "\u202e"],
        "game_id": "[red]g1\x07",
    }
    changed = tmp_path / "record.json"
    changed.write_text(json.dumps(record))
    result = runner.invoke(app, ["analyze", str(changed)], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out
    assert out.startswith("left out 2 refused actions")
    assert "game [red]g1: Ana[/][2J, [bold]Bo, seat 2" in out


def test_a_common_hand_game_fits_80_columns_without_losing_a_column() -> None:
    """Poker hands are long words: the table wraps them rather than squeezing the players'
    names and the notes down to an ellipsis (or cropping the lines)."""
    path = Path(__file__).parents[1] / "scenarios" / "own" / "poker-game-over.json"
    result = runner.invoke(app, ["analyze", str(path)], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80
    header = next(line for line in lines if line.lstrip().startswith("step"))
    assert header.split() == ["step", "player", "move", "chance", "hard", "expected", "notes"]
    rows = [line for line in lines if line.lstrip()[:3] in ("1.1", "1.2")]
    assert [row.split()[1:3] for row in rows] == [["Player", "1"], ["Player", "2"]]
    assert all("MISTAKE: long" in row for row in rows)
    assert "…" not in result.stdout


def test_an_expected_change_that_rounds_to_nothing_is_plus_zero() -> None:
    """`dudo analyze` printed -0.00 for a 100%-safe bid's (negative zero) expected dice."""
    from dudo.cli import _signed

    assert _signed(-0.0) == _signed(-0.004) == _signed(0.004) == "+0.00"
    assert (_signed(-0.006), _signed(0.25)) == ("-0.01", "+0.25")
