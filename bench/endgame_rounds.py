"""Benchmark: what solved endgames are worth, round by round, in 1-against-1 rounds.

Plays games that start with one die each (so a game is one heads-up round), the seats
alternating who opens, each game's dice from its own seed, and prints each side's win rate
with its 95% Wilson interval. ``hard`` plays the solved strategy (``dudo.bots.solved``: the
shipped data, or solved on first use for other rules); ``hard-heuristic`` is the same bot
with the endgame tables taken away (what hard played before in rules no file covered);
``valuenet`` is ``bench/opponents/valuenet.py``.

``--exploitability`` also measures, by exact best response on the round's public tree
(``dudo.bots.cfr``), how exploitable hard's heuristic is in the 1v1 round (a fresh bot,
nothing learnt yet, is a fixed strategy: its draw weights at every bid history and hand)
next to the solved strategy it now plays.

Run: ``chrt --idle 0 .venv/bin/python bench/endgame_rounds.py --games 4000 --rules no-wilds
--rules-option wild_ones=true [--exploitability]``
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

from dudo.bots.base import Bot
from dudo.bots.endgame import Table
from dudo.bots.hard import HardBot
from dudo.bots.registry import make_bot
from dudo.bots.table import play_bot_game
from dudo.dice import SeededDice
from dudo.game import Game
from dudo.rules import Rules, parse_override

VALUENET = f"{Path(__file__).parent / 'opponents' / 'valuenet.py'}:ValueNetBot"


class HeuristicHard(HardBot):
    """Hard without endgame tables: its belief and odds in every round."""

    def _endgame_table(
        self, rules: Rules, opener_dice: int, responder_dice: int, palifico: bool
    ) -> Table | None:
        return None


def bot(name: str, seed: int) -> Bot:
    if name == "hard-heuristic":
        return HeuristicHard(seed=seed)
    if name == "valuenet":
        return make_bot(VALUENET, seed=seed)
    return make_bot(name, seed=seed)


def heuristic_exploitability(rules: Rules) -> tuple[float, float]:
    """The exploitability of hard's heuristic and of the solved strategy in the 1v1 round."""
    from dudo.bots import solved
    from dudo.bots.cfr import Tree
    from dudo.bots.endgame import build_endgame
    from dudo.view import view

    tree = Tree(build_endgame(rules, 1, 1))
    strategy = tree.uniform()
    for depth, level in enumerate(tree.levels):
        seat = level.actor  # the opener sits in seat 0
        for n, node in enumerate(level.nodes):
            for h, hand in enumerate(tree.hands[level.actor]):
                game = Game(rules, 2, dice_counts=[1, 1], opener=0)
                game.roll([hand, (6,)] if seat == 0 else [(6,), hand])
                for index, bid in enumerate(node.history):
                    game.apply(index % 2, bid)
                weighed = HeuristicHard(seed=0).weigh(view(game, seat))
                row = [0.0] * level.width
                for option, weight in zip(weighed.options, weighed.weights, strict=True):
                    assert option is not None
                    row[node.actions.index(option)] += weight
                total = sum(row)
                strategy[depth][n, h] = [value / total for value in row]
    table = solved.solved_table(rules, 1, 1)
    assert isinstance(table, dict)  # an exact table: a 1v1 round is never windowed
    return (
        tree.evaluate(strategy).exploitability,
        tree.evaluate(tree.from_table(table)).exploitability,
    )


def wilson(wins: float, games: int) -> tuple[float, float]:
    z = 1.96
    p = wins / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return centre - half, centre + half


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--rules", default="no-wilds")
    parser.add_argument("--rules-option", action="append", default=[], metavar="OPTION=VALUE")
    parser.add_argument(
        "--match",
        action="append",
        default=[],
        help="A,B (default: hard,hard-heuristic; hard,valuenet; hard-heuristic,valuenet)",
    )
    parser.add_argument("--exploitability", action="store_true")
    args = parser.parse_args()
    rules = Rules.preset(args.rules, **dict(parse_override(o) for o in args.rules_option))
    if args.exploitability:
        heuristic, equilibrium = heuristic_exploitability(rules)
        print(
            f"## {rules.to_overrides()}, 1v1 round: exploitability of hard's heuristic "
            f"{heuristic:.4f}, of the solved strategy {equilibrium:.2e}",
            flush=True,
        )
    matches = args.match or ["hard,hard-heuristic", "hard,valuenet", "hard-heuristic,valuenet"]
    print(f"## {rules.to_overrides()}, 1v1 rounds, {args.games} games a match, seed {args.seed}")
    for match in matches if args.games else []:
        first, second = match.split(",")
        wins = 0.0
        for number in range(args.games):
            seed = args.seed * 1_000_003 + number
            names = (first, second) if number % 2 == 0 else (second, first)
            bots = [bot(name, seed * 2 + seat) for seat, name in enumerate(names)]
            game = Game(rules, 2, dice=SeededDice(seed), dice_counts=[1, 1], opener=0)
            winners = play_bot_game(game, bots)
            wins += sum(1 for seat in winners if names[seat] == first) / len(winners)
        low, high = wilson(wins, args.games)
        print(
            f"{first} vs {second}: {first} wins {wins / args.games:.1%} "
            f"[{low:.1%}–{high:.1%}] of {args.games}",
            flush=True,
        )


if __name__ == "__main__":
    main()
