"""How long bots take to decide, on the biggest common table: 6 players x 5 dice.

Plays whole games among hard bots (so the hard bot meets every kind of position a game
produces, from 30 dice in play down to the endgame) and times every decision of every seat
with ``time.perf_counter``; prints the median, 95th and 99th percentile and the maximum per
level. Run on one core: ``python bench/bots.py``.
"""

from __future__ import annotations

import argparse
import statistics
import time

from dudo.bots.registry import make_bot
from dudo.bots.table import ask
from dudo.dice import SeededDice
from dudo.game import CALZA, Game, Phase
from dudo.rules import Rules


def decision_times(
    level: str, games: int, players: int, seed: int, rules: Rules, clock: str = "wall"
) -> list[float]:
    """Seconds per decision of ``level`` bots playing each other (``clock="cpu"``: the
    thread's CPU time, which a busy machine's other processes do not inflate)."""
    now = time.thread_time if clock == "cpu" else time.perf_counter
    timings: list[float] = []
    for number in range(games):
        bots = [make_bot(level, seed=seed + number * 16 + seat) for seat in range(players)]
        game = Game(rules, players, dice=SeededDice(seed + number))
        while game.phase is not Phase.OVER:
            if game.phase is Phase.ROLL:
                game.roll()
                continue
            seat = game.turn
            started = now()
            action = ask(bots[seat], game, seat)
            timings.append(now() - started)
            assert action is not None
            if action is CALZA or action in game.legal_actions(seat):
                game.apply(seat, action)
    return timings


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--players", type=int, default=6)
    parser.add_argument("--rules", default="perudo")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--levels", default="easy,normal,hard")
    parser.add_argument(
        "--clock",
        choices=("wall", "cpu"),
        default="wall",
        help="wall time (perf_counter) or the thread's CPU time",
    )
    args = parser.parse_args()
    rules = Rules.preset(args.rules)
    print(
        f"{args.players} players x {rules.starting_dice} dice, {args.rules}, "
        f"{args.games} games per level, {args.clock} clock"
    )
    print(
        f"{'level':8} {'decisions':>9} {'median ms':>10} {'p95 ms':>8} {'p99 ms':>8} {'max ms':>8}"
    )
    for level in args.levels.split(","):
        times = decision_times(level, args.games, args.players, args.seed, rules, args.clock)
        print(
            f"{level:8} {len(times):9d} {statistics.median(times) * 1e3:10.3f} "
            f"{percentile(times, 0.95) * 1e3:8.3f} {percentile(times, 0.99) * 1e3:8.3f} "
            f"{max(times) * 1e3:8.3f}"
        )


if __name__ == "__main__":
    main()
