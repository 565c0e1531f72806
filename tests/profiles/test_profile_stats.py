"""A player's numbers from game records: exact counts on a scripted game, and the counts of
whole bot games checked against each other (every call has a caller and a bidder, every
game one winner, places a ranking) and against the rating update."""

from __future__ import annotations

from typing import Any

import pytest
from test_bots_analysis import play_with_bots

from dudo.profiles.rating import rate
from dudo.profiles.stats import PlayedGame, places, profile_stats
from dudo.rules import Rules

SCRIPTED: dict[str, Any] = {
    "rules": {"preset": "perudo", "starting_dice": 2, "first_opener": "host", "palifico": False},
    "players": 3,
    "rounds": [
        # Ana (0) bids two 5s, Ben (1) doubts: there are two (a 5 and an ace). Ben loses one.
        {
            "dice": [[2, 6], [3, 3], [5, 1]],
            "actions": [{"seat": 0, "bid": [2, 5]}, {"seat": 1, "call": "dudo"}],
        },
        # Ben bids two 4s, Cho (2) calls calza: exactly two.
        {
            "dice": [[4, 2], [3], [4, 6]],
            "actions": [{"seat": 1, "bid": [2, 4]}, {"seat": 2, "call": "calza"}],
        },
        # Cho bids three 4s, Ana doubts: only two. Cho loses one.
        {
            "dice": [[4, 2], [3], [4, 6]],
            "actions": [{"seat": 2, "bid": [3, 4]}, {"seat": 0, "call": "dudo"}],
        },
    ],
}


def test_a_scripted_game_counts_exactly() -> None:
    ana = profile_stats([PlayedGame("g1", 0, 1.0, SCRIPTED)])["total"]
    ben = profile_stats([PlayedGame("g1", 1, 1.0, SCRIPTED)])["total"]
    cho = profile_stats([PlayedGame("g1", 2, 1.0, SCRIPTED)])["total"]
    assert (ana["calls_right"], ana["calls_wrong"], ana["bluffs_survived"]) == (1, 0, 1)
    assert (ben["calls_right"], ben["calls_wrong"], ben["bluffs_caught"]) == (0, 1, 0)
    assert (cho["calza_right"], cho["calza_wrong"], cho["bluffs_caught"]) == (1, 0, 1)
    assert ana["rounds"] == ben["rounds"] == cho["rounds"] == 3
    assert ana["games"] == 1 and ana["wins"] == 0  # the game is not over in the script


@pytest.mark.parametrize("seed", [3, 8, 21])
def test_whole_bot_games_add_up(seed: int) -> None:
    record = play_with_bots(Rules.preset("perudo"), ["normal", "hard", "easy", "normal"], seed)
    seats = [profile_stats([PlayedGame("g", seat, 1.0, record)]) for seat in range(4)]
    totals = [seat["total"] for seat in seats]
    assert sum(total["wins"] for total in totals) == 1
    calls = sum(t["calls_right"] + t["calls_wrong"] for t in totals)
    doubted = sum(t["bluffs_caught"] + t["bluffs_survived"] for t in totals)
    assert calls == doubted > 0  # every dudo has one caller and one bidder
    assert sum(t["calls_right"] for t in totals) == sum(t["bluffs_caught"] for t in totals)
    calzas = sum(t["calza_right"] + t["calza_wrong"] for t in totals)
    assert calls + calzas == len(record["rounds"])  # each round ends with one call
    ranking = places(record)
    assert sorted(ranking) == [1, 2, 3, 4]
    winner = ranking.index(1)
    assert totals[winner]["wins"] == 1 and totals[winner]["best_streak"] == 1
    # The winner of a rated game gains, the last loses.
    new = rate([(25.0, 25 / 3)] * 4, ranking)
    assert new[winner][0] > 25.0 > new[ranking.index(4)][0]


def test_streaks_and_presets_follow_the_games_in_time_order() -> None:
    won = play_with_bots(Rules.preset("perudo"), ["normal", "easy"], 5)
    seat = places(won).index(1)
    lost = 1 - seat
    games = [
        PlayedGame(f"g{at}", seat if at != 2 else lost, float(at), won) for at in (4, 1, 2, 3)
    ]  # won, won, lost, won (by time)
    stats = profile_stats(games)
    assert [entry["won"] for entry in stats["timeline"]] == [True, False, True, True]
    assert stats["total"]["best_streak"] == 2 and stats["total"]["wins"] == 3
    assert stats["presets"]["perudo"]["games"] == 4
