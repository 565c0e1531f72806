"""bench/chaos.py: random players doing everything at once against a real ``dudo serve``.

A short run (15 seconds, four rooms) must find no problem, on one server and on a cluster of
two nodes killed in turn, and its checks must catch what they look for: a spectator given
dice, a seat given another count of dice than it has, a version going down.
"""

from __future__ import annotations

import ast
import random
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))

from chaos import Agent, Findings, Servers  # noqa: E402  (bench/chaos.py)
from clusterkit import need_redis  # noqa: E402


def test_a_short_chaos_run_finds_no_problem() -> None:
    run = subprocess.run(
        [
            sys.executable,
            str(BENCH / "chaos.py"),
            "--minutes",
            "0.25",
            "--rooms",
            "4",
            "--seed",
            "11",
        ],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-4000:]
    assert run.stdout.rstrip().endswith("0 problems")
    answers = ast.literal_eval(run.stdout.split("answers: ", 1)[1].splitlines()[0])
    assert answers.get("state", 0) > 20  # the rooms were played, not only refused
    assert answers.get("ack", 0) > 0


def test_a_short_chaos_run_on_a_cluster_losing_nodes_finds_no_problem() -> None:
    need_redis()
    run = subprocess.run(
        [
            sys.executable,
            str(BENCH / "chaos.py"),
            "--minutes",
            "0.4",
            "--rooms",
            "4",
            "--seed",
            "12",
            "--nodes",
            "2",
            "--kill-every",
            "8",
        ],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-4000:]
    assert run.stdout.count("killed node") >= 2
    answers = ast.literal_eval(run.stdout.split("answers: ", 1)[1].splitlines()[0])
    assert answers.get("ack", 0) > 0


def agent() -> tuple[Agent, Findings]:
    findings = Findings()
    ticket = {"code": "ABCD", "seat": 1, "token": "t"}
    servers = Servers(Path("/nonexistent"), 0)
    return Agent(servers, ticket, random.Random(0), findings), findings


def state(seat: int | None, phase: str, dice: list[int], version: int) -> dict[str, object]:
    return {
        "type": "state",
        "version": version,
        "you": {"seat": seat},
        "game": {"phase": phase, "dice": dice, "dice_counts": [5, 3]},
    }


def test_the_checks_catch_dice_where_there_must_be_none_and_versions_going_back() -> None:
    player, findings = agent()
    last = [0]
    player.check_state(state(1, "bidding", [1, 2, 3], 4), last)
    assert findings.problems == []
    player.check_state(state(None, "bidding", [6], 5), last)
    player.check_state(state(1, "roll", [2, 2, 2], 6), last)
    player.check_state(state(1, "bidding", [1, 2, 3, 4, 5], 7), last)
    player.check_state(state(1, "bidding", [1, 2, 3], 3), last)
    player.check_state(state(1, "bidding", [1, 2, 3], 5), [0])  # a new socket, behind
    assert len(findings.problems) == 5
    assert "spectator got dice" in findings.problems[0]
    assert "outside bidding" in findings.problems[1]
    assert "got 5 dice, has 3" in findings.problems[2]
    assert "version went down 7 -> 3" in findings.problems[3]
    assert "version 7 seen, then 5 on a new socket" in findings.problems[4]
