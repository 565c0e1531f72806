"""The project's bots against opponents they were not built from: the table of issue 11.

Plays each match the way ``dudo arena`` does (each game's dice and each bot's seed from
separate one-way hashes of the run's seed and a dice key, see ``dudo.bots.arena``; heads-up
the seats alternate, at a table of three or more the seating is shuffled game by game), and
prints per match each entrant's win rate with its 95% Wilson interval, how often its "dudo"
calls and calzas were right, and how the dice it lost were lost (calling a bid that held /
its bid called and false / a wrong calza).

Opponents live in ``bench/opponents/`` (ports of public bots, each naming its source, and
a Bayesian bot of our own). Tune on one seed range, report on another: the hard bot's
parameters were chosen on arena seed 1000 (dice key ``tune``), and the table in
docs/benchmarks.md is seed 7 (dice key ``bench``), so no reported game was seen in tuning.

    python bench/bots_vs_opponents.py --games 1000 --seed 7              # every match
    python bench/bots_vs_opponents.py --match hard,bayes --rules tavern  # one match
    python bench/bots_vs_opponents.py --match hard,bayes,ismcts,normal --games 300
    python bench/bots_vs_opponents.py --match hard,valuenet --rules no-wilds \\
        --rules-option wild_ones=true                                 # issue 24's rules
"""

from __future__ import annotations

import argparse
import math
import random
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from dudo.bots.arena import bot_seed, dice_seed
from dudo.bots.ladder import BotStats, count_events
from dudo.bots.registry import make_bot
from dudo.bots.table import play_bot_game
from dudo.dice import SeededDice
from dudo.game import Event, Game
from dudo.rules import Rules, parse_override

HERE = Path(__file__).parent / "opponents"
OPPONENTS = {
    "two-threshold": f"{HERE / 'threshold.py'}:TwoThresholdBot",
    "heuristic": f"{HERE / 'threshold.py'}:HeuristicBot",
    "ismcts": f"{HERE / 'ismcts.py'}:ISMCTSBot",
    "ismcts1000": f"{HERE / 'ismcts.py'}:ISMCTS1000",
    "so-mcts": f"{HERE / 'somcts.py'}:SOMCTSBot",
    "bayes": f"{HERE / 'bayes.py'}:BayesBot",
    "valuenet": f"{HERE / 'valuenet.py'}:ValueNetBot",
    "valuenet-endgames": f"{HERE / 'valuenet.py'}:ValueNetEndgames",
}
DEFAULT_MATCHES = [
    "hard,bayes",
    "hard,ismcts",
    "hard,so-mcts",
    "hard,two-threshold",
    "hard,heuristic",
    "normal,two-threshold",
    "normal,heuristic",
    "hard,normal",
    "normal,easy",
]


def spec(name: str) -> str:
    return OPPONENTS.get(name, name)


def wilson(wins: float, games: int, z: float = 1.96) -> tuple[float, float]:
    if not games:
        return (0.0, 1.0)
    p = wins / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return (max(0.0, centre - half), min(1.0, centre + half))


def play_games(
    entrants: Sequence[str], rules: Rules, seed: int, numbers: Sequence[int], dice_key: str
) -> list[BotStats]:
    """Play games ``numbers``; one tally per entrant (in entrant order)."""
    players = len(entrants)
    tallies = [BotStats() for _ in entrants]
    for number in numbers:
        if players == 2:  # heads-up: alternate seats, as the arena does
            seat_of = [(index + number) % players for index in range(players)]
        else:  # a table: shuffled seating, so neighbours change from game to game
            seat_of = random.Random(f"seats|{seed}|{number}").sample(range(players), players)
        entrant_at = {seat: entrant for entrant, seat in enumerate(seat_of)}
        bots = [
            make_bot(spec(entrants[entrant_at[seat]]), seed=bot_seed(seed, number, seat))
            for seat in range(players)
        ]
        game = Game(rules, players, dice=SeededDice(dice_seed(seed, number, dice_key)))

        by_seat = [tallies[entrant_at[seat]] for seat in range(players)]

        def seen(events: list[Event], by_seat: list[BotStats] = by_seat, game: Game = game) -> None:
            count_events(game, by_seat, events, [])

        winners = play_bot_game(game, bots, on_events=seen)  # type: ignore[arg-type]
        for entrant, seat in enumerate(seat_of):
            tallies[entrant].games += 1
            if seat in winners:
                tallies[entrant].wins += 1 / len(winners)
    return tallies


def tweak(settings: Sequence[str]) -> None:
    """Set constants of ``dudo.bots.hard`` (``NAME=VALUE``, the value read as JSON) or of
    another level (``normal.NAME=VALUE``): how the ablations in docs/benchmarks.md take one
    part of a bot out."""
    import importlib
    import json

    for setting in settings:
        name, _, value = setting.partition("=")
        level, _, name = name.rpartition(".")
        module = importlib.import_module(f"dudo.bots.{level or 'hard'}")
        if not hasattr(module, name):
            raise SystemExit(f"{module.__name__} has no {name!r}")
        parsed = json.loads(value)
        setattr(module, name, tuple(parsed) if isinstance(parsed, list) else parsed)


def run(
    entrants: Sequence[str],
    rules: Rules,
    games: int,
    seed: int,
    jobs: int,
    dice_key: str,
    settings: Sequence[str] = (),
) -> list[BotStats]:
    chunks = [list(range(start, min(start + 10, games))) for start in range(0, games, 10)]
    totals = [BotStats() for _ in entrants]
    if jobs <= 1:
        results = [play_games(entrants, rules, seed, chunk, dice_key) for chunk in chunks]
    else:
        with ProcessPoolExecutor(
            max_workers=jobs, initializer=tweak, initargs=(list(settings),)
        ) as pool:
            results = list(
                pool.map(
                    play_games,
                    [entrants] * len(chunks),
                    [rules] * len(chunks),
                    [seed] * len(chunks),
                    chunks,
                    [dice_key] * len(chunks),
                )
            )
    for result in results:
        for total, part in zip(totals, result, strict=True):
            total.add(part)
    return totals


def describe(name: str, tally: BotStats) -> str:
    low, high = wilson(tally.wins, tally.games)
    accuracy = tally.dudo_right / tally.dudo_calls if tally.dudo_calls else 0.0
    return (
        f"{name:14} {tally.wins / tally.games:6.1%} [{low:5.1%}–{high:5.1%}]  "
        f"calls {tally.dudo_calls:5d} right {accuracy:5.1%}  calzas {tally.calza_calls} "
        f"right {tally.calza_right}  dice lost: calling {tally.lost_calling}, "
        f"bid called {tally.lost_called}, calza {tally.lost_calza}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=500)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--rules", default="perudo,tavern")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument(
        "--dice-key",
        default="bench",
        help="mixed into every game's dice seed (the arena's dice key)",
    )
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="set a constant of dudo.bots.hard (JSON value), e.g. "
        "PER_HAND=false, or of another level, e.g. "
        "normal.OPEN_TRUST=0 (repeatable)",
    )
    parser.add_argument(
        "--rules-option",
        action="append",
        default=[],
        metavar="OPTION=VALUE",
        help="change a rules option of every rule set played, as dudo's --set does, "
        "e.g. wild_ones=true (repeatable)",
    )
    parser.add_argument(
        "--match",
        action="append",
        help="entrants of one match, comma-separated (repeatable; a table "
        "of 3 or more rotates seats game by game); default: the "
        "issue 11 table",
    )
    args = parser.parse_args()
    matches = [m.split(",") for m in (args.match or DEFAULT_MATCHES)]
    tweak(args.set)
    for rules_name in args.rules.split(","):
        rules = Rules.preset(rules_name, **dict(map(parse_override, args.rules_option)))
        changed = "".join(f" --set {option}" for option in args.rules_option)
        print(f"## {rules_name}{changed}, {args.games} games a match, seed {args.seed}")
        for entrants in matches:
            started = time.perf_counter()
            tallies = run(
                entrants, rules, args.games, args.seed, args.jobs, args.dice_key, args.set
            )
            print(f"{' vs '.join(entrants)}  ({time.perf_counter() - started:.0f} s)")
            for name, tally in zip(entrants, tallies, strict=True):
                print("  " + describe(name, tally))
        print()


if __name__ == "__main__":
    main()
