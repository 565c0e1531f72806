"""The hard bot's decision budget: a named setting (``budget_ms``) that make_bot, the arena
(``dudo arena --budget-ms``, one process or several, plain or ladder) and the server
(``DUDO_BOT_BUDGET_MS``, RoomConfig.bot_budget_ms) hand to the hard bots they make, and
that changes what hard weighs once it is spent."""

from __future__ import annotations

import json
from typing import Any, ClassVar

import pytest
from typer.testing import CliRunner

from dudo.bids import Bid
from dudo.bots import arena, ladder
from dudo.bots.hard import BUDGET_MS, HardBot
from dudo.bots.registry import make_bot
from dudo.bots.table import bot_step, play_bot_game
from dudo.cli import app
from dudo.dice import SeededDice
from dudo.game import Game, Phase
from dudo.rules import Rules
from dudo.server.table.schedule import Schedule
from dudo.server.table.state import RoomConfig
from dudo.server.web.settings import ServerSettings
from dudo.view import SeatView

runner = CliRunner()


class Recorder:
    """A plug-in bot that keeps the budget it was made with (and bids the lowest bid)."""

    budgets: ClassVar[list[float | None]] = []

    def __init__(self, seed: int | None = None, budget_ms: float | None = None) -> None:
        self.name = "Recorder"
        Recorder.budgets.append(budget_ms)

    def act(self, view: SeatView) -> Any:
        return view.legal[0] if view.my_turn else None


def test_make_bot_gives_the_budget_to_bots_that_take_one() -> None:
    assert make_bot("hard", seed=1).budget_ms is None  # type: ignore[attr-defined]
    assert make_bot("hard", seed=1, budget_ms=7.5).budget_ms == 7.5  # type: ignore[attr-defined]
    assert make_bot("normal", seed=1, budget_ms=7.5).name  # takes none: made as before
    Recorder.budgets.clear()
    make_bot(f"{__name__}:Recorder", budget_ms=3.0)
    make_bot(f"{__name__}:Recorder")
    assert Recorder.budgets == [3.0, None]
    with pytest.raises(ValueError, match="milliseconds"):
        HardBot(budget_ms=-1)


def play(budget_ms: float | None, seed: int) -> tuple[list[HardBot], list[tuple[Bid, Bid]]]:
    """A six-seat perudo game among hard bots with ``budget_ms``: the bots, and every raise
    made beside the cheapest raise that was open to it."""
    bots = [HardBot(seed=seed * 10 + seat, budget_ms=budget_ms) for seat in range(6)]
    game = Game(Rules.preset("perudo"), 6, dice=SeededDice(seed))
    raises: list[tuple[Bid, Bid]] = []
    while game.phase is not Phase.OVER:
        open_bids = game.legal_actions(game.turn).bids if game.phase is Phase.BIDDING else ()
        cheapest = open_bids[0] if open_bids else None
        placed = len(game.bids)
        bot_step(game, bots)
        if cheapest is not None and len(game.bids) > placed:
            bid = game.bids[-1][1]
            assert isinstance(bid, Bid)
            raises.append((bid, cheapest))
    return bots, raises


def test_a_spent_budget_leaves_out_the_raises_of_other_faces() -> None:
    # A budget of 0 is spent before the first raise is weighed: only the face of the
    # cheapest raise is weighed (and the calls), so every raise hard makes is of that face.
    bots, raises = play(0.0, seed=3)
    assert sum(bot.over_budget for bot in bots) > 0
    assert sum(bot.over_budget for bot in bots) <= sum(bot.decisions for bot in bots)
    assert raises and all(bid.face == cheapest.face for bid, cheapest in raises)
    # Without a budget hard raises other faces too, and nothing is cut short.
    free, free_raises = play(None, seed=3)
    assert sum(bot.over_budget for bot in free) == 0
    assert any(bid.face != cheapest.face for bid, cheapest in free_raises)


def test_a_budget_that_is_not_spent_changes_nothing() -> None:
    records = []
    for budget in (None, 10_000.0):
        game = Game(Rules.preset("tavern"), 4, dice=SeededDice(11))
        bots = [HardBot(seed=seat, budget_ms=budget) for seat in range(4)]
        play_bot_game(game, bots)
        records.append(game.record())
        assert sum(bot.over_budget for bot in bots) == 0
    assert records[0] == records[1]


@pytest.fixture
def recorded(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, float | None]]:
    """Every (entrant, budget) the arena and the ladder make a bot with, in this process."""
    made: list[tuple[str, float | None]] = []

    def spy(spec: str, seed: int | None = None, budget_ms: float | None = None) -> Any:
        made.append((spec, budget_ms))
        return make_bot(spec, seed=seed, budget_ms=budget_ms)

    monkeypatch.setattr(arena, "make_bot", spy)
    monkeypatch.setattr(ladder, "make_bot", spy)
    return made


@pytest.mark.parametrize("extra", [[], ["--ladder"]])
def test_the_arena_passes_its_budget_to_every_bot(
    recorded: list[tuple[str, float | None]], extra: list[str]
) -> None:
    result = runner.invoke(
        app,
        ["arena", "--players", "hard,easy", "--games", "2", "--budget-ms", "2.5", "--json", *extra],
    )
    assert result.exit_code == 0, result.output
    assert recorded and {budget for _, budget in recorded} == {2.5}
    assert json.loads(result.stdout)["budget_ms"] == 2.5
    recorded.clear()
    result = runner.invoke(app, ["arena", "--players", "hard,easy", "--games", "2", *extra])
    assert result.exit_code == 0, result.output
    assert recorded and {budget for _, budget in recorded} == {None}


def test_the_budget_reaches_bots_in_worker_processes_too() -> None:
    # Several processes: a budget of 0 plays differently from none, the same seeds else.
    def run(*budget: str) -> Any:
        result = runner.invoke(
            app,
            [
                "arena",
                "--players",
                "hard,hard",
                "--games",
                "10",
                "--seed",
                "4",
                "--jobs",
                "2",
                "--json",
                *budget,
            ],
        )
        assert result.exit_code == 0, result.output
        return json.loads(result.stdout)["results"]

    assert run("--budget-ms", "0") != run()
    assert run() == run()  # without a budget a run replays exactly


def test_the_help_names_the_setting() -> None:
    result = runner.invoke(app, ["arena", "--help"], env={"COLUMNS": "200"})
    assert "--budget-ms" in result.stdout and "DUDO_BOT_BUDGET_MS" in result.stdout


def test_the_server_gives_its_hard_bots_the_rooms_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    assert RoomConfig().bot_budget_ms == BUDGET_MS == 20.0
    monkeypatch.setenv("DUDO_BOT_BUDGET_MS", "4.5")
    assert ServerSettings.from_env("memory://").room.bot_budget_ms == 4.5
    monkeypatch.setenv("DUDO_BOT_BUDGET_MS", "none")
    assert ServerSettings.from_env("memory://").room.bot_budget_ms is None
    for bad in ("-1", "soon", "nan"):
        monkeypatch.setenv("DUDO_BOT_BUDGET_MS", bad)
        with pytest.raises(ValueError, match="DUDO_BOT_BUDGET_MS"):
            ServerSettings.from_env("memory://")
    from dudo.server.table.state import RoomState, Seat

    config = RoomConfig(bot_budget_ms=4.5)
    state = RoomState("ROOM", config, deal=lambda *args: None)  # type: ignore[arg-type,return-value]
    state.seats = [Seat(kind="bot", level="hard"), Seat(kind="bot", level="normal")]
    schedule = Schedule(state, config, clock=lambda: 0.0, entropy=lambda size: "ab" * size)
    hard = schedule.bot_for(0)
    assert isinstance(hard, HardBot) and hard.budget_ms == 4.5
    assert not hard.wait_for_solves  # an endgame solve never holds up the room
    assert not isinstance(schedule.bot_for(1), HardBot)
    assert make_bot("hard", seed=1).wait_for_solves  # type: ignore[attr-defined]
