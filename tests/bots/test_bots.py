"""Bots: they see only their seat's view, play every rule set, and reproduce by seed."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from dudo.bots import LEVELS, BotSpecError, make_bot
from dudo.bots.arena import Standing, play_one, run_arena
from dudo.bots.base import Bot
from dudo.bots.table import play_bot_game
from dudo.dice import ScriptedDice, SeededDice
from dudo.game import Game, Phase
from dudo.rules import PRESETS, Rules
from dudo.view import SeatView, view

ROOT = Path(__file__).parents[2]
RULE_SETS = [
    *(Rules.preset(name) for name in PRESETS),
    Rules.preset("perudo", starting_dice=2),
    Rules.preset("dudo", loss_by_difference=True, starting_dice=3),
    Rules.preset("tavern", format="points", points_rounds=4),
    Rules.preset("perudo", calza="any_time", calza_min_players=2, palifico_min_players=2),
    Rules.preset("ones-lock", cap_at_dice_in_play=False),
]


class Recorder:
    """Wraps a bot and keeps every view it was given."""

    def __init__(self, inner: Bot) -> None:
        self.inner = inner
        self.name = inner.name
        self.seen: list[SeatView] = []

    def act(self, seen: SeatView):  # type: ignore[no-untyped-def]
        self.seen.append(seen)
        return self.inner.act(seen)


@pytest.mark.parametrize("level", ["easy", "normal", "hard"])
@pytest.mark.parametrize("rules", RULE_SETS, ids=lambda rules: str(rules.to_overrides()))
def test_every_level_finishes_games_under_every_rule_set(level: str, rules: Rules) -> None:
    for seed, players in ((1, 2), (2, 4)):
        bots = [make_bot(level, seed=seed * 10 + seat) for seat in range(players)]
        game = Game(rules, players, dice=SeededDice(seed))
        winners = play_bot_game(game, bots)
        assert game.phase is Phase.OVER
        assert winners and set(winners) <= set(range(players))


@pytest.mark.parametrize("level", list(LEVELS))
def test_a_bot_gets_identical_inputs_when_only_others_hidden_dice_differ(level: str) -> None:
    """Two games, same actions, different dice under every other cup: the bot in seat 0
    is given the same views, and so answers the same way."""
    rules = Rules.preset("perudo")
    mine = (2, 2, 5, 1, 6)
    tables = [
        [mine, (3, 3, 3, 4, 4), (6, 6, 1, 2, 5)],
        [mine, (1, 1, 1, 6, 6), (2, 4, 4, 5, 3)],
    ]
    answers = []
    inputs = []
    for cups in tables:
        game = Game(rules, 3, dice=ScriptedDice([cups]), opener=1)
        game.roll()
        from dudo.bids import Bid

        game.apply(1, Bid(3, 4))
        game.apply(2, Bid(4, 4))
        bot = Recorder(make_bot(level, seed=5))
        answers.append(bot.act(view(game, 0)))
        inputs.append([seen.to_json() for seen in bot.seen])
    assert inputs[0] == inputs[1]
    assert answers[0] == answers[1]


def test_bots_only_ever_see_their_own_dice_during_a_round() -> None:
    rules = Rules.preset("perudo")
    bots = [
        Recorder(make_bot(level, seed=seat))
        for seat, level in enumerate(["easy", "normal", "hard", "normal"])
    ]
    game = Game(rules, 4, dice=SeededDice(11))
    cups_by_round: dict[int, tuple[tuple[int, ...], ...]] = {}

    def remember(_events: object) -> None:
        if game.phase is Phase.BIDDING:
            cups_by_round[game.round_number] = game.cups

    while game.phase is not Phase.OVER:
        from dudo.bots.table import bot_step

        remember(bot_step(game, bots))
    for seat, bot in enumerate(bots):
        for seen in bot.seen:
            assert seen.seat == seat
            assert seen.phase == "bidding"
            cups = cups_by_round[seen.round_number]
            assert seen.dice == cups[seat]
            payload = seen.to_json()
            # The only dice in the payload are the seat's own and past reveals.
            assert payload["dice"] == list(cups[seat])
            reveal = payload["last_reveal"]
            if reveal is not None:
                assert reveal["cups"] != [list(cup) for cup in cups]


def test_bots_are_reproducible_by_seed() -> None:
    rules = Rules.preset("dudo")
    results = []
    for _ in range(2):
        bots = [make_bot(level, seed=seat) for seat, level in enumerate(["hard", "normal", "easy"])]
        game = Game(rules, 3, dice=SeededDice(99))
        play_bot_game(game, bots)
        results.append(game.record())
    assert results[0] == results[1]


def test_bots_have_names_and_personalities() -> None:
    for level in ("easy", "normal", "hard"):
        bot = make_bot(level, seed=1)
        assert bot.name and bot.name != level
        assert getattr(bot, "personality", "")


def test_arena_rotates_seats_and_reports_every_entrant_in_order() -> None:
    standings = run_arena(["normal", "random"], 40, Rules.preset("tavern"), seed=3)
    assert [s.player for s in standings] == ["normal", "random"]
    assert sum(s.wins for s in standings) == 40
    assert standings[0].wins > standings[1].wins
    # Game g seats the first entrant at seat g mod 2, so the same entrant is not always first.
    assert play_one(["easy", "random"], Rules.preset("tavern"), 3, 0) != [0.5, 0.5]


def test_arena_splits_across_processes_without_changing_results() -> None:
    rules = Rules.preset("tavern")
    alone = run_arena(["easy", "normal"], 30, rules, seed=4, jobs=1)
    split = run_arena(["easy", "normal"], 30, rules, seed=4, jobs=2)
    assert alone == split


def test_wilson_interval_contains_the_rate_and_narrows_with_games() -> None:
    few = Standing("x", 6, 10)
    many = Standing("x", 600, 1000)
    assert few.interval()[0] < 0.6 < few.interval()[1]
    assert many.interval()[1] - many.interval()[0] < few.interval()[1] - few.interval()[0]


def test_arena_cli_json_output_and_user_bot_from_a_file() -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "dudo",
            "arena",
            "--players",
            f"{ROOT / 'examples' / 'cautious_bot.py'}:CautiousBot,random",
            "--games",
            "30",
            "--rules",
            "tavern",
            "--seed",
            "7",
            "--json",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    data = json.loads(result.stdout)
    assert data["games"] == 30
    assert [entry["player"] for entry in data["results"]] == [
        f"{ROOT / 'examples' / 'cautious_bot.py'}:CautiousBot",
        "random",
    ]
    assert data["results"][0]["wins"] + data["results"][1]["wins"] == 30
    assert data["results"][0]["wins"] > 20


@pytest.mark.parametrize(
    "spec,fragment",
    [
        ("grandmaster", "unknown bot"),
        ("nowhere/bot.py:Bot", "not found"),
        ("dudo.rules:Rules", "no act(view)"),
        ("dudo.nothing:Bot", "cannot import"),
    ],
)
def test_bad_bot_names_give_clear_errors(spec: str, fragment: str) -> None:
    with pytest.raises(BotSpecError, match=re.escape(fragment)):
        make_bot(spec)
    result = subprocess.run(
        [sys.executable, "-m", "dudo", "arena", "--players", f"{spec},easy", "--games", "2"],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 2
    assert fragment in result.stderr


def test_a_bot_cannot_work_out_the_dice_from_its_own_seed() -> None:
    """A plug-in bot once re-rolled every cup from its seed (seed = game_seed*16 + seat,
    dice = SeededDice(game_seed)) and beat hard 86%. Now a cheat that tries every small
    arena seed and game number finds its game, but without the run's dice key it cannot
    predict the cups."""
    from dudo.bots.arena import bot_seed, dice_seed

    rules = Rules.preset("perudo")

    def first_cups(seed: int, number: int, key: str) -> list[list[int]]:
        game = Game(rules, 2, dice=SeededDice(dice_seed(seed, number, key)))
        game.roll()
        return [list(cup) for cup in game.cups]

    def cheat(own_seed: int, seat: int) -> list[list[int]] | None:
        for seed in range(20):
            for number in range(20):
                if bot_seed(seed, number, seat) == own_seed:
                    return first_cups(seed, number, "")  # the dice if there is no key
        return None

    seed, number, seat = 7, 3, 1
    guessed = cheat(bot_seed(seed, number, seat), seat)
    assert guessed == first_cups(seed, number, "")  # without a key the cheat works...
    assert guessed != first_cups(seed, number, "a3f9" * 8)  # ...with one it does not
