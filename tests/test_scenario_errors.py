"""Invalid scenario files: exit status 2, one line on standard error, nothing on standard out."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from dudo.scenario import ScenarioError, load_scenario, run_scenario

GOOD_ROUND = {"dice": [[1, 2, 3, 4, 5], [2, 3, 4, 5, 6]],
              "actions": [{"seat": 0, "bid": [2, 3]}, {"seat": 1, "call": "dudo"}]}


def scenario(**changes: object) -> dict[str, object]:
    data: dict[str, object] = {"rules": {"preset": "tavern"}, "players": 2,
                               "rounds": [GOOD_ROUND]}
    data.update(changes)
    return data


INVALID = {
    "unknown preset": (scenario(rules={"preset": "casino"}), "unknown preset 'casino'"),
    "unknown option": (scenario(rules={"preset": "tavern", "jokers": True}),
                       "unknown option 'jokers'"),
    "bad option value": (scenario(rules={"starting_dice": 11}), "'starting_dice'"),
    "option of wrong type": (scenario(rules={"wild_ones": "yes"}), "'wild_ones'"),
    "halve without wild ones": (scenario(rules={"preset": "perudo", "wild_ones": False}),
                                "'ones_bids'"),
    "points with palifico": (scenario(rules={"preset": "perudo", "format": "points",
                                             "palifico": True}), "'palifico'"),
    "too few players": (scenario(players=1), "players"),
    "too many players": (scenario(players=11), "players"),
    "dice do not match the counts": (
        scenario(rounds=[{"dice": [[1, 2, 3], [2, 3, 4, 5, 6]], "actions": []}]),
        "seat 0 has 5 dice, but 3 were given"),
    "die out of range": (
        scenario(rounds=[{"dice": [[1, 2, 3, 4, 7], [2, 3, 4, 5, 6]], "actions": []}]),
        "7 is not a die face"),
    "dice for the wrong number of seats": (
        scenario(rounds=[{"dice": [[1, 2, 3, 4, 5]], "actions": []}]), "dice for 1 seats"),
    "actions after the call": (
        scenario(rounds=[{**GOOD_ROUND, "actions": [*GOOD_ROUND["actions"],
                                                    {"seat": 0, "bid": [3, 3]}]}]),
        "already ended with a call"),
    "a round without a call before another round": (
        scenario(rounds=[{**GOOD_ROUND, "actions": GOOD_ROUND["actions"][:1]}, GOOD_ROUND]),
        "no accepted call"),
    "rounds after the game ended": (
        scenario(players=2, start={"dice_counts": [1, 1]},
                 rounds=[{"dice": [[2], [3]], "actions": [{"seat": 0, "bid": [1, 2]},
                                                          {"seat": 1, "call": "dudo"}]},
                         {"dice": [[2], []], "actions": []}]),
        "already over"),
    "a call that is not dudo or calza": (
        scenario(rounds=[{**GOOD_ROUND, "actions": [{"seat": 0, "call": "liar"}]}]),
        "'liar'"),
    "a bid that is not two numbers": (
        scenario(rounds=[{**GOOD_ROUND, "actions": [{"seat": 0, "bid": ["4", 5]}]}]),
        "a bid is [quantity, face]"),
    "a seat that does not exist": (
        scenario(rounds=[{**GOOD_ROUND, "actions": [{"seat": 2, "bid": [4, 5]}]}]),
        "seat 2 is not a seat"),
    "bid and call together": (
        scenario(rounds=[{**GOOD_ROUND, "actions": [{"seat": 0, "bid": [4, 5],
                                                     "call": "dudo"}]}]),
        "exactly one of"),
    "start counts above the starting dice": (scenario(start={"dice_counts": [6, 5]}),
                                             "outside 0..5"),
    "opener who is out": (scenario(start={"dice_counts": [0, 5, 5], "opener": 0}, players=3),
                          "opener 0 has no dice"),
    "unknown start key": (scenario(start={"round": 3}), "unknown key 'round'"),
    "unknown top-level key": (scenario(seed=4), "unknown key 'seed'"),
    "missing rounds": ({"rules": {}, "players": 2}, "no 'rounds'"),
}


@pytest.mark.parametrize("name", INVALID)
def test_invalid_scenario_is_rejected_with_a_clear_message(name: str) -> None:
    data, fragment = INVALID[name]
    with pytest.raises(ScenarioError) as error:
        run_scenario(data)
    assert fragment in str(error.value)
    assert "\n" not in str(error.value)


def test_bad_json_is_rejected() -> None:
    with pytest.raises(ScenarioError, match="not valid JSON"):
        load_scenario('{"rules": ')
    with pytest.raises(ScenarioError, match="JSON object"):
        load_scenario("[1, 2]")


@pytest.mark.parametrize("name", ["dice do not match the counts", "unknown preset"])
def test_cli_exits_2_with_one_line_and_no_output(name: str) -> None:
    data, fragment = INVALID[name]
    result = subprocess.run([sys.executable, "-m", "dudo", "scenario", "-"],
                            input=json.dumps(data), capture_output=True, text=True)
    assert result.returncode == 2
    assert result.stdout == ""
    assert len(result.stderr.strip().splitlines()) == 1
    assert fragment in result.stderr


def test_cli_names_a_missing_file() -> None:
    result = subprocess.run([sys.executable, "-m", "dudo", "scenario", "/nonexistent.json"],
                            capture_output=True, text=True)
    assert result.returncode == 2
    assert "/nonexistent.json" in result.stderr
