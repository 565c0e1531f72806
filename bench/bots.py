"""How long bots take to decide, on the biggest common table: 6 players x 5 dice.

Plays whole games among bots of one level (so the hard bot meets every kind of position a
game produces, from 30 dice in play down to the endgame) and times every decision of every
seat, its turns and the chances to call calza out of turn the table offers it (as
:func:`dudo.bots.table.bot_step` asks them), with both clocks around the same call: wall
time (``time.perf_counter``) and the thread's CPU time (``time.thread_time``, which other
processes on a busy machine do not inflate). Prints the median, 95th, 99th and 99.9th
percentile and the maximum per level, kind of decision and clock; ``--budget-ms`` gives
the hard bots a decision budget and counts the decisions it cut short. Run on one core:
``taskset -c 1 python bench/bots.py``.
"""

from __future__ import annotations

import argparse
import statistics
import time
from dataclasses import dataclass, field

from dudo.bots.registry import make_bot
from dudo.bots.table import ask, out_of_turn_seats
from dudo.dice import SeededDice
from dudo.game import CALZA, Game, Phase
from dudo.rules import Rules


@dataclass
class Timings:
    """Seconds per decision on each clock, by kind ("turn": the seat's own turn, "calza":
    a chance to call calza out of turn), and the hard bots' own counts."""

    wall: dict[str, list[float]] = field(default_factory=lambda: {"turn": [], "calza": []})
    cpu: dict[str, list[float]] = field(default_factory=lambda: {"turn": [], "calza": []})
    weighed: int = 0  # hard's turns weighed on its belief (not by the endgame table)
    over_budget: int = 0  # ... of which the budget cut short


def decision_times(
    level: str,
    games: int,
    players: int,
    seed: int,
    rules: Rules,
    budget_ms: float | None = None,
) -> Timings:
    """Time every decision of ``level`` bots playing ``games`` games among themselves."""
    timings = Timings()

    def timed(bot: object, game: Game, seat: int, kind: str) -> object:
        wall, cpu = time.perf_counter(), time.thread_time()
        action = ask(bot, game, seat)  # type: ignore[arg-type]
        timings.cpu[kind].append(time.thread_time() - cpu)
        timings.wall[kind].append(time.perf_counter() - wall)
        return action

    for number in range(games):
        bots = [
            make_bot(level, seed=seed + number * 16 + seat, budget_ms=budget_ms)
            for seat in range(players)
        ]
        game = Game(rules, players, dice=SeededDice(seed + number))
        while game.phase is not Phase.OVER:
            if game.phase is Phase.ROLL:
                game.roll()
                continue
            called = next(
                (s for s in out_of_turn_seats(game) if timed(bots[s], game, s, "calza") is CALZA),
                None,
            )
            if called is not None:
                game.apply(called, CALZA)
                continue
            seat = game.turn
            action = timed(bots[seat], game, seat, "turn")
            assert action is not None
            game.apply(seat, action)  # type: ignore[arg-type]
        timings.weighed += sum(getattr(bot, "decisions", 0) for bot in bots)
        timings.over_budget += sum(getattr(bot, "over_budget", 0) for bot in bots)
    return timings


def percentile(values: list[float], share: float) -> float:
    """The value below which ``share`` of ``values`` lie (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def row(label: str, values: list[float]) -> str:
    shares = (0.95, 0.99, 0.999)
    figures = [statistics.median(values), *(percentile(values, s) for s in shares), max(values)]
    return f"{label:18} {len(values):9d} " + " ".join(f"{x * 1e3:9.3f}" for x in figures)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--players", type=int, default=6)
    parser.add_argument("--rules", default="perudo")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--levels", default="easy,normal,hard")
    parser.add_argument(
        "--budget-ms",
        type=float,
        default=None,
        help="the decision budget given to bots that take one (hard); default none",
    )
    args = parser.parse_args()
    rules = Rules.preset(args.rules)
    budget = "no budget" if args.budget_ms is None else f"budget {args.budget_ms:g} ms"
    print(
        f"{args.players} players x {rules.starting_dice} dice, {args.rules}, "
        f"{args.games} games per level, {budget}"
    )
    print(
        f"{'level, clock':18} {'decisions':>9} {'p50 ms':>9} {'p95 ms':>9} {'p99 ms':>9} "
        f"{'p99.9 ms':>9} {'max ms':>9}"
    )
    for level in args.levels.split(","):
        timings = decision_times(level, args.games, args.players, args.seed, rules, args.budget_ms)
        for kind in ("turn", "calza"):
            if timings.wall[kind]:
                print(row(f"{level} {kind} wall", timings.wall[kind]))
                print(row(f"{level} {kind} cpu", timings.cpu[kind]))
        if timings.weighed:
            print(
                f"{level}: {timings.weighed} turns weighed on its belief, "
                f"{timings.over_budget} of them cut short by the budget"
            )


if __name__ == "__main__":
    main()
