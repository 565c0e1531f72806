"""Moves a player did not make are in the game record (`"by": "timer"` or `"stand_in"`),
`dudo verify` and `dudo scenario` take them, and the analysis credits them to the bot
that made them, not to the player: a game a player left (a stand-in bot played on) and
a game in which the turn timer moved for a player who never did."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from typer.testing import CliRunner

from dudo.bots.analysis import analyze
from dudo.cli import app as cli
from dudo.fairness import verify_record
from dudo.scenario import ScenarioError, accepted_actions, replay, run_scenario
from serverkit import FakeClock, app_and_lobby, fast_config
from socketkit import connect, seat_table

ONE_DIE = {"preset": "tavern", "starting_dice": 2, "first_opener": "host"}


def stand_in_game() -> dict[str, Any]:
    """A real game in which seat 1's player left at once: a bot played every move of it."""
    app, _ = app_and_lobby()
    with TestClient(app) as client:
        table = seat_table(client, 2, rules=ONE_DIE)
        with (
            connect(client, table.code, table.tokens[0], "host") as host,
            connect(client, table.code, table.tokens[1], "p1") as p1,
        ):
            assert host.reply_to({"type": "start", "id": "go"})["type"] == "ack"
            assert p1.reply_to({"type": "leave", "id": "bye"})["type"] == "ack"
            while True:
                state = host.wait_for(
                    lambda m: (
                        m["room"]["status"] == "over"
                        or (
                            m["game"] is not None
                            and m["game"]["phase"] == "bidding"
                            and m["game"]["turn"] == 0
                        )
                    )
                )
                if state["room"]["status"] == "over":
                    break
                legal = state["game"]["legal"]
                message = (
                    {"type": "call", "call": "dudo"}
                    if "dudo" in legal["calls"]
                    else {
                        "type": "bid",
                        "quantity": legal["bids"][0][0],
                        "face": legal["bids"][0][1],
                    }
                )
                host.reply_to(
                    {"id": f"m{state['version']}", "version": state["version"], **message}
                )
                host.wait_for(lambda m, v=state["version"]: m["version"] > v)
            record: dict[str, Any] = client.get(f"/api/games/{state['fair']['game_id']}").json()
            return record


def test_stand_in_moves_are_marked_in_the_record_and_credited_to_the_bot(tmp_path: Path) -> None:
    record = stand_in_game()
    actions = [action for played in record["rounds"] for action in played["actions"]]
    ones = [action for action in actions if action["seat"] == 1]
    assert ones and all(action.get("by") == "stand_in" for action in ones), ones
    assert not any("by" in action for action in actions if action["seat"] != 1), actions
    # The verifier and the scenario runner take the marks.
    assert verify_record(record)
    replay(record)
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    run_scenario(json.loads(path.read_text()))
    kept, refused = accepted_actions(record)
    assert not refused and kept["rounds"] == record["rounds"]
    # The analysis: every step of seat 1 is the bot's, none counts for its player.
    analysis = analyze(record, hard=False).to_json()
    steps = [step for played in analysis["rounds"] for step in played["steps"]]
    assert {step["by"] for step in steps if step["seat"] == 1} == {"stand_in"}
    summary = analysis["summary"][1]
    assert summary["by_bot"] == len(ones) and summary["decisions"] == 0, summary
    assert analysis["summary"][0]["by_bot"] == 0


def timer_game() -> dict[str, Any]:
    """A real game with a turn timer in which the host never moved: every time its turn
    came, the clock ran past the deadline and a bot moved for it (``by: "timer"``); the
    guest made its own moves."""
    clock = FakeClock()
    app, _ = app_and_lobby(fast_config(), clock=clock)
    with TestClient(app) as client:
        table = seat_table(client, 2, rules=ONE_DIE, timer=10)
        with (
            connect(client, table.code, table.tokens[0], "host") as host,
            connect(client, table.code, table.tokens[1], "guest") as guest,
        ):
            assert host.reply_to({"type": "start", "id": "go"})["type"] == "ack"
            for _ in range(200):
                state = guest.wait_for(
                    lambda m: (
                        m["room"]["status"] == "over"
                        or (m["game"] is not None and m["game"]["phase"] == "bidding")
                    )
                )
                if state["room"]["status"] == "over":
                    break
                version = state["version"]
                if state["game"]["turn"] == 0:
                    clock.advance(11)  # past the host's deadline: the timer moves
                    host.ping()
                else:
                    legal = state["game"]["legal"]
                    message = (
                        {"type": "call", "call": "dudo"}
                        if "dudo" in legal["calls"]
                        else {
                            "type": "bid",
                            "quantity": legal["bids"][0][0],
                            "face": legal["bids"][0][1],
                        }
                    )
                    guest.reply_to({"id": f"m{version}", "version": version, **message})
                guest.wait_for(lambda m, v=version: m["version"] > v)
            else:
                raise AssertionError("the game did not end")
            record: dict[str, Any] = client.get(f"/api/games/{state['fair']['game_id']}").json()
            return record


def test_timer_moves_are_marked_in_the_record_and_credited_to_the_bot(tmp_path: Path) -> None:
    record = timer_game()
    actions = [action for played in record["rounds"] for action in played["actions"]]
    hosts = [action for action in actions if action["seat"] == 0]
    guests = [action for action in actions if action["seat"] == 1]
    assert hosts and all(action.get("by") == "timer" for action in hosts), hosts
    assert guests and not any("by" in action for action in guests), guests
    # The verifier, `dudo verify` and `dudo scenario` take the marks.
    assert verify_record(record)
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    runner = CliRunner()
    verified = runner.invoke(cli, ["verify", str(path)])
    assert verified.exit_code == 0, verified.output
    played = runner.invoke(cli, ["scenario", str(path)])
    assert played.exit_code == 0, played.output
    assert '"event": "game_over"' in played.output, played.output
    replay(record)
    run_scenario(json.loads(path.read_text()))
    kept, refused = accepted_actions(record)
    assert not refused and kept["rounds"] == record["rounds"]
    # The analysis: every step of seat 0 is the timer's bot's, none counts for its player;
    # the guest's own moves count for the guest.
    analysis = analyze(record, hard=False).to_json()
    steps = [step for played in analysis["rounds"] for step in played["steps"]]
    assert {step["by"] for step in steps if step["seat"] == 0} == {"timer"}
    assert {step["by"] for step in steps if step["seat"] == 1} == {None}
    host, guest = analysis["summary"]
    assert host["by_bot"] == len(hosts) and host["decisions"] == 0, host
    assert host["mistakes"] == 0 and host["bluffs"] == 0 and host["bluffs_caught"] == 0, host
    assert host["calls"]["right"] == host["calls"]["wrong"] == 0, host
    assert guest["by_bot"] == 0 and guest["decisions"] == len(guests), guest


def test_a_mark_that_is_not_a_mover_is_refused() -> None:
    record = stand_in_game()
    bad = copy.deepcopy(record)
    bad["rounds"][0]["actions"][0]["by"] = "ghost"
    with pytest.raises(ScenarioError, match="'by' says who moved"):
        replay(bad)
