"""How far the 1v1 value network's policy is from equilibrium: exact exploitability.

Lays the heads-up 1-die-each round of the rules the model was trained for (its scheme:
``no-wilds`` with wild ones for the first model, Perudo's or tavern's order for the others)
out as the CFR+ solver's public tree (``dudo.bots.cfr``), writes the
network's policy (Hedge at each rate asked) into it for every info set, and measures the
exploitability (NashConv / 2, in round utility: +1 a die won, -1 a die lost) with exact best
responses. For scale it prints the uniform strategy's and a CFR+ solution's too.

    python bench/opponents/valuenet_check.py [--model bench/opponents/models/valuenet.npz]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from dudo.bids import Bid
from dudo.bots.cfr import Tree
from dudo.bots.endgame import build_endgame
from dudo.game import DUDO

sys.path.insert(0, str(Path(__file__).parent))
from valuenet import (
    MODEL,
    PLAY_HEDGE,
    child_values,
    load_hedge,
    load_nets,
    load_scheme,
    policy,
)


def network_strategy(
    tree: Tree, model: Path, pair: tuple[int, int], hedge: float
) -> list[np.ndarray]:
    net = load_nets(model)[pair]
    scheme = load_scheme(model)
    positions = scheme.ladder(sum(pair)).positions
    size = len(positions)
    strategy = tree.uniform()
    for depth, level in enumerate(tree.levels):
        me = level.actor
        for n, node in enumerate(level.nodes):
            bits = np.zeros((2, size), dtype=np.float32)
            last = -1
            for i, bid in enumerate(node.history):
                last = positions[bid]
                bits[i % 2, last] = 1
            actions = [
                size if action is DUDO else positions[action]
                for action in node.actions
                if action is DUDO or isinstance(action, Bid)
            ]
            for h, hand in enumerate(tree.hands[me]):
                counts = np.bincount(np.asarray(hand) - 1, minlength=6)
                state_value, values = child_values(
                    net, pair, counts, me, bits, last, actions, scheme
                )
                row = np.zeros(level.width)
                row[: len(actions)] = policy(state_value, values, hedge)
                strategy[depth][n, h] = row
    return strategy


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, default=MODEL)
    parser.add_argument("--cfr-iterations", type=int, default=2000)
    parser.add_argument(
        "--hedge",
        type=float,
        action="append",
        help="policy rates to measure (repeatable; 0: regret matching); "
        "default: the model's training rate and the bot's play rate",
    )
    args = parser.parse_args()
    scheme = load_scheme(args.model)
    print(f"{args.model}: {scheme.key}")
    tree = Tree(build_endgame(scheme.rules(), 1, 1))
    rates = args.hedge or [load_hedge(args.model), PLAY_HEDGE]
    strategies = [("uniform", tree.uniform())]
    strategies += [
        (f"network, hedge {rate:g}", network_strategy(tree, args.model, (1, 1), rate))
        for rate in rates
    ]
    strategies.append(("CFR+", tree.solve(args.cfr_iterations).strategy))
    for name, strategy in strategies:
        result = tree.evaluate(strategy)
        print(
            f"1v1 {name:20} opener's value {result.value:+.4f}  "
            f"exploitability {result.exploitability:.4f}"
        )


if __name__ == "__main__":
    main()
