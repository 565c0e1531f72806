"""Benchmark: OpenSpiel's own CFR+ and exploitability on our heads-up rounds.

What it measures
    For the one-die-each (1v1) heads-up round of every preset, the 1v1 palifico round of
    ``dudo``, and rule sets no preset plays (no-wilds with wild ones, the rules of issue
    24's outside check; ``--set OPTION=VALUE`` adds one more), registered in OpenSpiel as
    ``python_dudo`` by :mod:`dudo.openspiel`:

    - the size of the game tree and the time to export it to a C++ EFG game;
    - OpenSpiel's exploitability of the uniform random policy;
    - OpenSpiel's CFR+ (``pyspiel.CFRPlusSolver``), with the average policy's
      exploitability (``pyspiel.exploitability``: NashConv / 2) every ``--every``
      iterations up to ``--iterations``;
    - OpenSpiel's exploitability of our own solved strategy as the hard bot plays it
      (``endgame_policy`` over ``dudo.bots.solved.solved_table``, read through the engine's
      ``view``: the shipped data for the presets, solved on first use and cached in
      ``$DUDO_ENDGAME_CACHE`` for the other rules), with how many information states it
      covers (the rest, off its own paths, are filled by two different fallbacks; equal
      figures mean the number is exact).

Why
    It checks our game and our solver against an independent implementation: OpenSpiel's
    CFR+ should drive exploitability towards 0 on our rules, and our shipped strategies
    should be (near) unexploitable when judged by OpenSpiel's best response.

How
    The Python game drives the dudo engine for every legal action and outcome. Because
    OpenSpiel's tree algorithms are ~1000x too slow on Python states (seconds per CFR
    iteration), the whole tree is exported once to Gambit EFG and loaded as a C++ game;
    information set names are our information state strings, so policies map exactly.
    ``--python-check`` also runs the Python CFR+ (``open_spiel.python.algorithms.cfr``) and
    the Python exploitability on the Python game itself for a few iterations of the
    ``tavern`` round and prints both figures side by side (about a minute).

Run: ``.venv/bin/python bench/openspiel_check.py [--iterations 1000] [--every 100]
[--only no-wilds] [--set calza=in_turn --set wild_ones=false]``
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Mapping

from dudo.bots import solved
from dudo.bots.endgame import endgame_policy
from dudo.game import Action
from dudo.openspiel import (
    DudoGame,
    efg_copy,
    endgame_report,
    load_game,
    load_rules_game,
    solve,
    uniform_exploitability,
)
from dudo.rules import Rules
from dudo.view import SeatView

GAMES: list[tuple[str, Rules, bool]] = [
    ("perudo", Rules.preset("perudo"), False),
    ("dudo", Rules.preset("dudo"), False),
    ("dudo", Rules.preset("dudo"), True),
    ("tavern", Rules.preset("tavern"), False),
    ("ones-lock", Rules.preset("ones-lock"), False),
    ("no-wilds", Rules.preset("no-wilds"), False),
    ("no-wilds+wild_ones", Rules.preset("no-wilds", wild_ones=True), False),
]


def label(name: str, palifico: bool) -> str:
    return f"{name} 1v1{' palifico' if palifico else ''}"


def solved_policy(view: SeatView) -> Mapping[Action, float] | None:
    """What the hard bot plays: the shipped strategy, else the one solved for these rules."""
    return endgame_policy(view, solved.solved_table)


def check(game: DudoGame, name: str, iterations: int, every: int, endgame: bool) -> None:
    print(f"== {name} ==")
    started = time.perf_counter()
    copy = efg_copy(game)
    infosets = sum(len(table) for table in copy.infosets)
    nodes = copy.text.count("\n")
    print(
        f"tree: {nodes} nodes, {infosets} information states, "
        f"{game.num_distinct_actions()} actions; "
        f"exported in {time.perf_counter() - started:.1f} s"
    )
    print(f"uniform random: exploitability {uniform_exploitability(game):.4f}")
    started = time.perf_counter()

    def report(iteration: int, value: float) -> None:
        print(
            f"CFR+ {iteration:5d} iterations: exploitability {value:.6f} "
            f"({time.perf_counter() - started:.0f} s)"
        )

    solve(game, iterations, report=report, every=every)
    if endgame:
        try:
            verdict = endgame_report(game, solved_policy)
        except Exception as error:  # report it and go on to the next game
            print(f"endgame_policy: not evaluated ({error})")
        else:
            if verdict.covered == 0:
                print("endgame_policy: no strategy for this round")
            else:
                exact = (
                    "exact"
                    if verdict.exact
                    else (f"depends on the fallback: {verdict.exploitability_other_fallback:.6f}")
                )
                print(
                    f"endgame_policy: exploitability {verdict.exploitability:.3g} ({exact}; "
                    f"answers {verdict.covered} of {verdict.infosets} information states)"
                )
    print(flush=True)


def python_check(iterations: int) -> None:
    """Python CFR+ and exploitability on the Python game next to the C++ ones on the copy."""
    game = load_game("tavern")
    started = time.perf_counter()
    _, python_value = solve(game, iterations, backend="python")
    python_time = time.perf_counter() - started
    started = time.perf_counter()
    _, cpp_value = solve(game, iterations)
    cpp_time = time.perf_counter() - started
    print(
        f"== tavern 1v1, {iterations} CFR+ iterations: Python CFR+ on the Python game "
        f"{python_value:.9f} ({python_time:.0f} s), C++ CFR+ on the EFG copy "
        f"{cpp_value:.9f} ({cpp_time:.1f} s)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--iterations", type=int, default=1000)
    parser.add_argument("--every", type=int, default=100)
    parser.add_argument("--only", help="run one rule set only (e.g. perudo)")
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="OPTION=VALUE",
        help='add a rule set: perudo with these options (JSON values, e.g. calza="in_turn")',
    )
    parser.add_argument("--no-strategy", action="store_true", help="skip our strategy's check")
    parser.add_argument(
        "--python-check",
        action="store_true",
        help="also compare Python CFR+ on the Python game (slow)",
    )
    args = parser.parse_args()
    games = list(GAMES)
    if args.set:
        options = {}
        for item in args.set:
            option, _, value = item.partition("=")
            try:
                options[option] = json.loads(value)
            except ValueError:
                options[option] = value  # a bare word: a string option
        rules = Rules.preset("perudo", **options)
        games.append(("custom", rules, False))
        if rules.palifico and rules.palifico_min_players <= 2:
            games.append(("custom", rules, True))
    for name, rules, palifico in games:
        if args.only and name != args.only:
            continue
        print(f"rules: {rules.to_overrides()}")
        game = load_rules_game(rules, (1, 1), palifico)
        check(game, label(name, palifico), args.iterations, args.every, not args.no_strategy)
    if args.python_check:
        python_check(2)


if __name__ == "__main__":
    main()
