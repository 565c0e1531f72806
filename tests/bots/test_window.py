"""Windowed endgames (dudo.bots.window): rounds too large for the exact solver, solved for a
strategy that sees its hand and the last few bids. The graph follows the engine's rules on
every path; where the full tree can be built, the solved strategy is measured by exact best
response; the solver, the cache and the hard bot use them for rounds over the node limit,
and only there."""

from __future__ import annotations

import gzip
import json
import random
from pathlib import Path

import pytest

from dudo.bids import Bid
from dudo.bots import solved
from dudo.bots.base import quantity_bid
from dudo.bots.cfr import Tree
from dudo.bots.endgame import (
    OPENER,
    RESPONDER,
    WindowTable,
    action_text,
    build_endgame,
    endgame_policy,
    start_round,
    window_name,
)
from dudo.bots.hard import HardBot
from dudo.bots.window import WindowedRound, on_tree
from dudo.dice import SeededDice
from dudo.game import Game
from dudo.rules import Rules
from dudo.view import view

ISSUE = Rules.preset("no-wilds", wild_ones=True)  # the rules of issue 24's outside check
LOCK = Rules.preset("ones-lock")  # ones stop being wild mid-round: the graph must tell
TAVERN = Rules.preset("tavern", wild_ones=False)  # no ones bids: a small 1v2 tree


@pytest.fixture(autouse=True)
def cache(endgame_cache: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh cache folder and empty memory, windowed solves on at their default bound."""
    monkeypatch.delenv("DUDO_ENDGAME_MAX_WINDOWS", raising=False)
    monkeypatch.delenv("DUDO_ENDGAME_WINDOW_ITERATIONS", raising=False)
    return endgame_cache


QUICK = 20
"""Windowed solves' iterations in the tests of how solves are made, kept and played (not
of how good they are): a seventh of the default's time."""


@pytest.fixture
def quick_windows(monkeypatch: pytest.MonkeyPatch) -> None:
    """Windowed solves of :data:`QUICK` iterations, here and in a solve's child process."""
    monkeypatch.setenv("DUDO_ENDGAME_WINDOW_ITERATIONS", str(QUICK))


@pytest.mark.parametrize(
    ("rules", "opener", "responder"),
    [(ISSUE, 1, 1), (ISSUE, 2, 1), (LOCK, 1, 2), (TAVERN, 2, 2)],
    ids=["issue-1v1", "issue-2v1", "ones-lock-1v2", "tavern-2v2"],
)
def test_every_path_of_the_engine_lands_on_a_window_with_its_actions(
    rules: Rules, opener: int, responder: int
) -> None:
    """The graph merges histories by their last bids; that is sound only if the engine's
    legal actions depend on nothing else. Random playouts through the engine check it."""
    memory = 3
    graph = WindowedRound(rules, opener, responder, memory=memory)
    by_key = {
        window_name(window.last, window.actor, window.wild): window for window in graph.windows
    }
    assert len(by_key) == len(graph.windows)  # no two windows share a name
    generator = random.Random(7)
    for _ in range(300):
        game, opener_seat = start_round(rules, opener, responder)
        history: list[Bid] = []
        while True:
            seat = game.turn
            role = OPENER if seat == opener_seat else RESPONDER
            window = by_key[window_name(history[-memory:], role, game.wild)]
            actions = tuple(game.legal_actions(seat))
            assert window.actions == actions
            action = generator.choice(actions)
            if not isinstance(action, Bid):
                break
            game.apply(seat, action)
            history.append(action)


def test_the_windows_are_few_where_the_tree_is_large() -> None:
    graph = WindowedRound(ISSUE, 1, 2, memory=3)
    assert len(graph.windows) < 2_000  # the full tree: 262,144 histories
    # the estimate the solver sizes rounds by never falls short of the real graph
    for rules, opener, responder, memory in [
        (ISSUE, 1, 1, 3),
        (ISSUE, 1, 2, 3),
        (LOCK, 1, 2, 3),
        (ISSUE, 2, 2, 2),
    ]:
        built = len(WindowedRound(rules, opener, responder, memory=memory).windows)
        estimate = solved.estimated_windows(rules, opener, responder, memory)
        assert built <= estimate, (rules.to_overrides(), opener, responder, memory)


@pytest.mark.parametrize("rules", [ISSUE, LOCK], ids=["issue", "ones-lock"])
def test_a_three_bid_memory_plays_the_1v1_round_near_equilibrium(rules: Rules) -> None:
    graph = WindowedRound(rules, 1, 1, memory=3)
    strategy, iterations = graph.solve(150)
    assert iterations == 150
    table = graph.to_table(strategy)
    assert table.memory == 3
    assert WindowTable.from_json(table.to_json()) == table
    tree = Tree(build_endgame(rules, 1, 1))
    measured = tree.evaluate(on_tree(tree, table))
    assert measured.exploitability < 0.01  # measured: 0.005; the heuristic's is 0.79-0.80
    assert tree.evaluate(tree.uniform()).exploitability > 0.7
    # the graph's own value of the strategy is the tree's
    assert graph.value(strategy) == pytest.approx(measured.value, abs=2e-3)


def test_a_1v2_round_is_solved_near_equilibrium_with_a_short_memory() -> None:
    graph = WindowedRound(TAVERN, 1, 2, memory=3)
    strategy, _ = graph.solve(150)
    tree = Tree(build_endgame(TAVERN, 1, 2))
    assert tree.node_count > 10 * len(graph.windows)
    measured = tree.evaluate(on_tree(tree, graph.to_table(strategy)))
    assert measured.exploitability < 0.02
    assert tree.evaluate(tree.uniform()).exploitability > 0.5


@pytest.mark.usefixtures("quick_windows")
def test_rounds_over_the_node_limit_are_solved_windowed_and_cached(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert solved.surely_too_large(ISSUE, 2, 1, False)
    assert solved.window_memory(ISSUE, 2, 1, False) == 4
    assert solved.window_memory(ISSUE, 2, 2, False) == 3
    assert solved.window_memory(ISSUE, 2, 3, False) is None  # five dice: out
    table = solved.solved_table(ISSUE, 2, 1)
    assert isinstance(table, WindowTable) and table.memory == 4
    assert solved.counters["solved"] == 1
    files = sorted(cache.glob("*.json.gz"))
    assert len(files) == 1
    solved.forget()
    assert solved.solved_table(ISSUE, 2, 1) == table
    assert solved.counters["from_disk"] == 1
    # the windowed solver's settings are part of the key: an exact 1v1 key differs
    material = solved.key_material(ISSUE, 2, 1, False)
    assert material["solver"] == ["window", 4, QUICK]
    assert solved.key_material(ISSUE, 1, 1, False)["solver"][0] != "window"
    # a strategy of other iterations is not taken for this one: solved again
    monkeypatch.setenv("DUDO_ENDGAME_WINDOW_ITERATIONS", str(QUICK + 1))
    solved.forget()
    assert isinstance(solved.solved_table(ISSUE, 2, 1), WindowTable)
    assert solved.counters["solved"] == 2 and len(list(cache.glob("*.json.gz"))) == 2


@pytest.mark.usefixtures("quick_windows")
def test_a_damaged_windowed_file_is_ignored_and_solved_again(cache: Path) -> None:
    first = solved.solved_table(TAVERN, 1, 2)
    [path] = cache.glob("*.json.gz")
    data = json.loads(gzip.decompress(path.read_bytes()))
    name = next(iter(data["strategy"]["windows"]))
    data["strategy"]["windows"][name][1].pop()  # a row short
    path.write_bytes(gzip.compress(json.dumps(data).encode()))
    solved.forget()
    assert solved.solved_table(TAVERN, 1, 2) == first
    assert solved.counters["solved"] == 2 and solved.counters["from_disk"] == 0
    with pytest.raises(ValueError, match="not a windowed strategy"):
        WindowTable.from_json({"memory": 3})


def test_windowed_solves_can_be_turned_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DUDO_ENDGAME_MAX_WINDOWS", "0")
    assert solved.window_memory(ISSUE, 1, 2, False) is None
    assert solved.solved_table(ISSUE, 1, 2) is None
    assert solved.counters["solved"] == 0
    monkeypatch.setenv("DUDO_ENDGAME_MAX_WINDOWS", "lots")
    with pytest.raises(ValueError, match="DUDO_ENDGAME_MAX_WINDOWS must be a number"):
        solved.max_windows()


def test_the_iterations_of_a_windowed_solve_are_a_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    assert solved.window_iterations() == solved.WINDOW_ITERATIONS == 150
    monkeypatch.setenv("DUDO_ENDGAME_WINDOW_ITERATIONS", "40")
    assert solved.window_iterations() == 40
    for bad in ("0", "-5", "inf", "many"):
        monkeypatch.setenv("DUDO_ENDGAME_WINDOW_ITERATIONS", bad)
        with pytest.raises(ValueError, match="DUDO_ENDGAME_WINDOW_ITERATIONS must be"):
            solved.window_iterations()


def _heads_up(rules: Rules, counts: list[int], seed: int) -> Game:
    game = Game(rules, 2, dice=SeededDice(seed), dice_counts=counts, opener=0)
    game.roll()
    return game


@pytest.mark.usefixtures("quick_windows")
def test_hard_plays_the_windowed_strategy_in_a_2v1_round() -> None:
    table = solved.solved_table(ISSUE, 2, 1)
    assert isinstance(table, WindowTable)
    for seed in range(8):
        game = _heads_up(ISSUE, [2, 1], seed)
        bot = HardBot(seed=seed)
        # a few moves in, so the window holds bids
        for _ in range(seed % 4):
            seat = game.turn
            bids = [a for a in game.legal_actions(seat) if isinstance(a, Bid)]
            if not bids:
                break
            game.apply(seat, bids[0])
        seen = view(game, game.turn)
        policy = endgame_policy(seen, solved.solved_table)
        assert policy is not None
        role = OPENER if game.turn == 0 else RESPONDER
        bids = [quantity_bid(bid) for _, bid in seen.bids]
        entry = table.entry(seen.dice, bids, role, seen.wild)
        assert {action_text(action): p for action, p in policy.items()} == (
            pytest.approx(entry, abs=1e-3)  # the table's rounding, normalised
        )
        weighed = bot.weigh(seen)
        assert dict(zip(weighed.options, weighed.weights, strict=True)) == pytest.approx(policy)
        assert bot.decisions == 0  # not weighed on its belief


def test_the_server_solves_the_windowed_rounds_ahead() -> None:
    assert solved.heads_up_games(ISSUE) == [
        (1, 1, False),
        (1, 2, False),
        (2, 1, False),
        (1, 3, False),
        (2, 2, False),
        (3, 1, False),
    ]
    # a table of two dice each never sees three
    assert solved.heads_up_games(ISSUE.with_options(starting_dice=2)) == [
        (1, 1, False),
        (1, 2, False),
        (2, 1, False),
        (2, 2, False),
    ]


@pytest.mark.usefixtures("quick_windows")
def test_a_bot_that_may_not_wait_gets_the_windowed_strategy_from_its_child(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As the server makes it: the heuristic plays until the child process has solved the
    round, whose answer crosses the pipe in the compact form."""
    monkeypatch.setenv("DUDO_ENDGAME_MAX_WINDOWS", "1000000")  # 1v2 and 2v1 only: quicker
    assert solved.heads_up_games(ISSUE) == [(1, 1, False), (1, 2, False), (2, 1, False)]
    bot = HardBot(seed=1, budget_ms=20, wait_for_solves=False)
    game = _heads_up(ISSUE, [2, 1], 5)
    seen = view(game, game.turn)
    bot.weigh(seen)
    assert bot.decisions == 1  # the heuristic played
    solved.wait_background(600)
    assert solved.counters["solved"] == 0  # solved in the child, not here
    assert len(list(cache.glob("*.json.gz"))) >= 1
    weighed = bot.weigh(seen)
    assert bot.decisions == 1  # now the windowed strategy
    table = solved.solved_table(ISSUE, 2, 1, wait=False)
    assert isinstance(table, WindowTable)
    policy = endgame_policy(seen, solved.solved_table)
    assert dict(zip(weighed.options, weighed.weights, strict=True)) == pytest.approx(policy)


@pytest.mark.usefixtures("quick_windows")
def test_the_arena_solves_hard_s_endgames_first_and_says_so(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A first use on a machine takes seconds per round: the arena says so on standard
    error before the games, once; the games are the same either way."""
    from typer.testing import CliRunner

    from dudo.cli import app

    monkeypatch.setenv("DUDO_ENDGAME_MAX_WINDOWS", "1000000")  # 1v1, 1v2 and 2v1: quick
    args = ["arena", "--players", "hard,normal", "--games", "4", "--seed", "2", "--json"]
    args += ["--rules", "tavern", "--set", "wild_ones=false", "--set", "starting_dice=2"]
    first = CliRunner().invoke(app, args)
    assert first.exit_code == 0, first.stderr
    said = [line for line in first.stderr.splitlines() if line.startswith("hard: solving")]
    assert [line.split(" endgame")[0] for line in said] == [
        "hard: solving the 1v1",
        "hard: solving the 1v2",
        "hard: solving the 2v1",
    ]
    solved.forget()  # a later process: from the disk
    again = CliRunner().invoke(app, args)
    assert again.exit_code == 0 and "solving" not in again.stderr
    assert again.stdout == first.stdout
