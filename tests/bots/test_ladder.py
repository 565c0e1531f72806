"""The ladder (``dudo arena --ladder``): OpenSkill ratings from round-robins and mixed
tables with shuffled seats, per-bot call accuracy, bluff rate and dice lost by cause."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from dudo.bids import Bid
from dudo.bots.ladder import (
    LadderError,
    check_entrants,
    is_bluff,
    is_hand_bluff,
    pairings,
    play_ladder_game,
    run_ladder,
    seating,
)
from dudo.cli import app
from dudo.dice import ScriptedDice
from dudo.game import Game
from dudo.hands import Hand
from dudo.rules import Rules

ROOT = Path(__file__).parents[2]
runner = CliRunner()


def test_ratings_put_a_clearly_stronger_bot_above_random() -> None:
    report = run_ladder(["random", "normal"], 40, Rules.preset("perudo"), seed=1)
    best, worst = report.entries
    assert (best.player, worst.player) == ("normal", "random")
    assert best.rating.low > worst.rating.high  # the mu ± 2 sigma intervals do not overlap
    assert best.rating.ordinal > worst.rating.ordinal
    assert report.pairs[0].players == ("random", "normal") and report.pairs[0].games == 40


def test_mixed_tables_rank_the_levels_in_order() -> None:
    report = run_ladder(["easy", "random", "hard"], 40, Rules.preset("tavern"), seats=3, seed=2)
    assert [entry.player for entry in report.entries][-1] == "random"
    assert report.entries[0].player == "hard"
    assert report.entries[0].rating.mu > report.entries[1].rating.mu > report.entries[2].rating.mu
    assert report.pairs == ()  # no head-to-head scores at a table of three


@pytest.mark.parametrize(
    "rules,seats",
    [
        (Rules.preset("perudo"), 2),
        (Rules.preset("perudo"), 4),  # calza at a table of three or more
        (Rules.preset("dudo", loss_by_difference=True, starting_dice=3), 3),  # several dice a call
        (Rules.preset("dudo"), 2),  # calza in turn heads-up: dice won back
        (Rules.preset("tavern", format="points", points_rounds=5), 3),  # penalty points
    ],
    ids=["perudo-2", "perudo-4", "by-difference", "dudo-calza", "points"],
)
def test_the_stats_add_up(rules: Rules, seats: int) -> None:
    entrants = ["hard", "normal", "easy", "random"]
    games = 30
    report = run_ladder(entrants, games, rules, seats=seats, seed=5)
    stats = [entry.stats for entry in report.entries]
    assert sorted(entry.player for entry in report.entries) == sorted(entrants)
    assert sum(s.games for s in stats) == games * seats
    assert sum(s.wins for s in stats) == pytest.approx(games)
    for entry in report.entries:
        s = entry.stats
        # Dice lost by cause (counted from the reveals) add up to the dice lost (counted
        # from each game's end: dice started with + dice won on calzas - dice ended with).
        assert sum(s.lost_by_cause.values()) == s.lost_total, entry.player
        assert s.dudo_right <= s.dudo_calls and s.calza_right <= s.calza_calls
        assert s.bluffs <= s.bids and s.opening_bluffs <= s.openings <= s.bids
        assert s.calza_gained <= s.calza_right
        assert s.games <= s.places <= s.games * seats
    if not rules.loss_by_difference:
        # One die a call: each wrong call costs its caller one, each right "dudo" the bidder.
        assert sum(s.lost_calling + s.lost_calza for s in stats) == sum(
            s.calls - s.dudo_right - s.calza_right for s in stats
        )
        assert sum(s.lost_called for s in stats) == sum(s.dudo_right for s in stats)
    if rules.calza != "off" and seats >= rules.calza_min_players:
        assert any(s.calza_calls for s in stats)


def test_the_same_seed_gives_the_same_report_and_another_seed_another() -> None:
    entrants = ["normal", "easy", "random"]
    rules = Rules.preset("perudo")
    first = run_ladder(entrants, 30, rules, seed=9)
    again = run_ladder(entrants, 30, rules, seed=9)
    split = run_ladder(entrants, 30, rules, seed=9, jobs=2)
    other = run_ladder(entrants, 30, rules, seed=10)
    assert first.to_json() == again.to_json() == split.to_json()
    assert other.to_json() != first.to_json()


def test_seating_is_shuffled_and_every_pair_plays_in_turn() -> None:
    heads_up = [seating(4, 2, seed=1, number=number) for number in range(12)]
    assert [tuple(sorted(pair)) for pair in heads_up] == pairings(4) * 2
    assert any(pair[0] > pair[1] for pair in heads_up)  # both orders occur
    tables = {tuple(seating(5, 3, seed=1, number=number)) for number in range(40)}
    assert len(tables) > 20 and all(len(set(table)) == 3 for table in tables)
    assert seating(5, 3, seed=1, number=7) == seating(5, 3, seed=1, number=7)


def test_a_bluff_is_a_bid_above_own_dice_plus_the_expected_unseen_count() -> None:
    game = Game(
        Rules.preset("tavern"), 2, dice=ScriptedDice([[(6, 6, 1, 2, 3), (4, 4, 4, 4, 4)]]), opener=0
    )
    game.roll()
    # Seat 0 holds three 6s (a one is wild); five unseen dice are expected to show 5/3.
    assert not is_bluff(game, 0, 4, 6)  # 4 <= 3 + 1.67
    assert is_bluff(game, 0, 5, 6)  # 5 > 4.67
    assert not is_bluff(game, 0, 2, 5)  # one 5 (the wild one) + 1.67
    assert is_bluff(game, 0, 3, 5)
    # Seat 1 holds five 4s: its bids on 4s are no bluff up to 5 + 5/3.
    assert not is_bluff(game, 1, 6, 4) and is_bluff(game, 1, 7, 4)
    game.apply(0, Bid(2, 5))
    assert not is_bluff(game, 1, 2, 4)


def test_a_hand_bluff_is_a_hand_the_own_cup_makes_less_likely_than_not() -> None:
    game = Game(
        Rules.preset("common-hand"),
        2,
        dice=ScriptedDice([[(6, 6, 1, 2, 3), (4, 4, 4, 4, 4)]]),
        opener=0,
    )
    game.roll()
    # From seat 0's cup, the five other dice unseen (ones are not wild here):
    assert not is_hand_bluff(game, 0, Hand("pair", (6,)))  # two 6s held: certain
    assert not is_hand_bluff(game, 0, Hand("three", (6,)))  # one more 6 in five: 60%
    assert is_hand_bluff(game, 0, Hand("four", (6,)))  # two more 6s in five: 20%
    assert is_hand_bluff(game, 0, Hand("low_straight"))  # a 4 and a 5 in five: 33%
    assert is_hand_bluff(game, 0, Hand("full_house", (6, 5)))  # a 6 and two 5s: 9%
    assert not is_hand_bluff(game, 1, Hand("five", (4,)))
    assert is_hand_bluff(game, 1, Hand("high_straight"))  # 2, 3, 5, 6 in five: 6%


def test_a_common_hand_ladder_game_counts_bids_and_bluffs() -> None:
    result = play_ladder_game(
        ["easy", "random"], Rules.preset("common-hand"), seed=2, number=0, seats=2
    )
    assert sum(stats.bids for stats in result.stats) > 0
    assert 0 < sum(stats.bluffs for stats in result.stats) <= sum(s.bids for s in result.stats)
    assert sorted(result.places) == [1, 2]


def test_one_game_counts_placings_and_shares() -> None:
    result = play_ladder_game(
        ["hard", "easy", "random", "normal"], Rules.preset("perudo"), seed=3, number=0, seats=4
    )
    assert sorted(result.places) == [1, 2, 3, 4]
    assert sum(result.shares) == 1 and result.shares[result.places.index(1)] == 1
    assert len(set(result.entrants)) == 4


@pytest.mark.parametrize(
    "entrants,seats,fragment",
    [
        (["hard"], 2, "2 to 16 entrants"),
        (["hard", "hard", "easy"], 2, "hard is listed more than once"),
        (["hard", "easy"], 3, "at least 3 entrants"),
        (["hard", "easy"], 1, "2 to 10 players"),
        ([f"bot{n}" for n in range(12)], 11, "2 to 10 players"),
    ],
)
def test_entrants_that_make_no_ladder_are_refused(
    entrants: list[str], seats: int, fragment: str
) -> None:
    with pytest.raises(LadderError, match=fragment):
        check_entrants(entrants, seats)


def _one_line_error(args: list[str], fragment: str) -> None:
    result = runner.invoke(app, ["arena", *args])
    assert result.exit_code == 2, result.stdout
    assert result.stdout == ""
    assert len(result.stderr.splitlines()) == 1, result.stderr
    assert result.stderr.startswith("dudo: error: ") and fragment in result.stderr, result.stderr


@pytest.mark.parametrize(
    "args,fragment",
    [
        (["--seats", "3"], "--seats needs --ladder"),
        (["--ladder", "--seats", "5"], "tables of 5 need at least 5 entrants"),
        (["--ladder", "--seats", "11", "-p", ",".join(["easy"] * 11)], "listed more than once"),
        (["--ladder", "--seats", "1"], "2 to 10 players"),
        (["--ladder", "-p", "easy"], "2 to 16 entrants"),
        (["--ladder", "-p", "easy,random,easy"], "easy is listed more than once"),
        (["--ladder", "--games", "5"], "6 heads-up pairs, so --games must be at least that"),
        (["--ladder", "-p", "easy,grandmaster"], "unknown bot 'grandmaster'"),
        (["--ladder", "--seats", "abc"], "'--seats'"),
    ],
)
def test_bad_ladder_arguments_give_a_one_line_error(args: list[str], fragment: str) -> None:
    _one_line_error(args, fragment)


def test_ladder_json_is_its_own_shape_and_replays_from_the_seed() -> None:
    command = [
        sys.executable,
        "-m",
        "dudo",
        "arena",
        "--ladder",
        "--players",
        "normal,random,easy",
        "--games",
        "12",
        "--rules",
        "tavern",
        "--seed",
        "4",
        "--json",
    ]
    first = subprocess.run(command, capture_output=True, text=True, check=True)
    second = subprocess.run(command, capture_output=True, text=True, check=True)
    assert first.stdout == second.stdout
    assert first.stderr == ""  # no progress bar when standard error is not a terminal
    data = json.loads(first.stdout)
    assert data["ladder"] == "heads-up" and data["games"] == 12 and data["seats"] == 2
    assert data["rules"] == {"preset": "tavern"} and data["seed"] == 4
    assert [player["player"] for player in data["players"]][-1] == "random"
    for player in data["players"]:
        assert set(player) >= {
            "rating",
            "games",
            "wins",
            "call_accuracy",
            "bluff_rate",
            "dice_lost",
        }
        assert set(player["rating"]) == {"mu", "sigma", "low", "high", "ordinal"}
        lost = player["dice_lost"]
        assert lost["calling"] + lost["called"] + lost["calza"] == lost["total"]
    assert sorted(tuple(pair["players"]) for pair in data["pairs"]) == [
        ("normal", "easy"),
        ("normal", "random"),
        ("random", "easy"),
    ]
    assert all(pair["games"] == 4 for pair in data["pairs"])


def test_the_plain_arena_json_has_the_ladders_figures_too() -> None:
    result = runner.invoke(
        app, ["arena", "--players", "easy,random,easy", "--games", "6", "--seed", "2", "--json"]
    )
    assert result.exit_code == 0 and result.stderr == ""
    data = json.loads(result.stdout)
    assert list(data)[:2] == ["games", "results"] and data["seed"] == 2
    assert data["games"] == 6
    assert [entry["player"] for entry in data["results"]] == ["easy", "random", "easy"]
    assert [entry.get("label") for entry in data["results"]] == ["easy #1", None, "easy #2"]
    for entry in data["results"]:
        assert set(entry) >= {
            "wins",
            "win_rate",
            "win_interval",
            "call_accuracy",
            "bluff_rate",
            "dice_lost",
            "mean_place",
        }
        lost = entry["dice_lost"]
        assert lost["calling"] + lost["called"] + lost["calza"] == lost["total"]
    assert sum(entry["wins"] for entry in data["results"]) == 6
    # Every game's lost dice: all but the winner's five... in all, (players - 1) * 5 at
    # least (dice won back on calzas are lost again).
    assert sum(entry["dice_lost"]["total"] for entry in data["results"]) >= 6 * 2 * 5


def test_the_arena_table_tells_twins_apart_and_fits_80_columns() -> None:
    result = runner.invoke(
        app,
        ["arena", "--players", "normal,easy,normal", "--games", "3", "--seed", "1"],
        env={"COLUMNS": "80"},
    )
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "3 games, normal #1 vs easy vs normal #2, perudo, seed 1"
    assert any(line.startswith("│ normal #1") for line in lines)
    assert any(line.startswith("│ normal #2") for line in lines)
    assert max(len(line) for line in lines) <= 80


def test_the_ladder_table_names_every_column_and_a_plug_in_bot() -> None:
    bot = f"{ROOT / 'examples' / 'cautious_bot.py'}:CautiousBot"
    result = runner.invoke(
        app, ["arena", "--ladder", "--players", f"easy,{bot}", "--games", "4", "--seed", "1"]
    )
    assert result.exit_code == 0, result.stderr
    for word in (
        "rating",
        "wins",
        "calls right",
        "bluffs",
        "dice lost",
        "CautiousBot",
        "Heads-up pairs",
        "dice key",
    ):
        assert word in result.stdout


@pytest.mark.parametrize("jobs", [1, 2])
def test_progress_comes_every_few_games(jobs: int) -> None:
    # A bar that moves only every 20 games sat still for 16 s with the hard bot.
    from dudo.bots.arena import BATCH, run_arena

    steps: list[int] = []
    run_arena(
        ["easy", "random"], 23, Rules.preset("tavern"), seed=1, jobs=jobs, progress=steps.append
    )
    assert sum(steps) == 23 and max(steps) <= BATCH <= 5 and len(steps) == 5
    steps.clear()
    run_ladder(
        ["easy", "random", "normal"],
        23,
        Rules.preset("tavern"),
        seed=1,
        jobs=jobs,
        progress=steps.append,
    )
    assert sum(steps) == 23 and max(steps) <= BATCH and len(steps) == 5
