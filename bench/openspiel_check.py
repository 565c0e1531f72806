"""Benchmark: OpenSpiel's own CFR+ and exploitability on our heads-up rounds.

What it measures
    For the one-die-each (1v1) heads-up round of every preset, and the 1v1 palifico round
    of ``dudo``, registered in OpenSpiel as ``python_dudo`` by :mod:`dudo.openspiel`:

    - the size of the game tree and the time to export it to a C++ EFG game;
    - OpenSpiel's exploitability of the uniform random policy;
    - OpenSpiel's CFR+ (``pyspiel.CFRPlusSolver``), with the average policy's
      exploitability (``pyspiel.exploitability``: NashConv / 2) every ``--every``
      iterations up to ``--iterations``;
    - if ``dudo.bots.endgame`` ships data for the round, OpenSpiel's exploitability of our
      own solved strategy (``endgame_policy``, read through the engine's ``view``), with
      how many information states it covers (the rest, off its own paths, are filled by
      two different fallbacks; equal figures mean the number is exact).

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

Run: ``.venv/bin/python bench/openspiel_check.py [--iterations 1000] [--every 100]``
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from dudo.openspiel import (
    DudoGame,
    efg_copy,
    endgame_report,
    load_game,
    solve,
    uniform_exploitability,
)

GAMES: list[tuple[str, dict[str, Any]]] = [
    ("perudo", {}),
    ("dudo", {}),
    ("dudo", {"palifico": True}),
    ("tavern", {}),
    ("ones-lock", {}),
    ("no-wilds", {}),
]


def label(preset: str, options: dict[str, Any]) -> str:
    return f"{preset} 1v1{' palifico' if options.get('palifico') else ''}"


def has_endgame_data() -> bool:
    try:
        from dudo.bots.endgame import data_files
    except ImportError:
        return False
    return bool(data_files())


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
            verdict = endgame_report(game)
        except Exception as error:  # report it and go on to the next game
            print(f"endgame_policy: not evaluated ({error})")
        else:
            if verdict.covered == 0:
                print("endgame_policy: no shipped data for this round")
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
    parser.add_argument("--only", help="run one preset only (e.g. perudo)")
    parser.add_argument(
        "--python-check",
        action="store_true",
        help="also compare Python CFR+ on the Python game (slow)",
    )
    args = parser.parse_args()
    endgame = has_endgame_data()
    if not endgame:
        print("dudo.bots.endgame ships no data: endgame_policy not evaluated\n")
    for preset, options in GAMES:
        if args.only and preset != args.only:
            continue
        game = load_game(preset, (1, 1), **options)
        check(game, label(preset, options), args.iterations, args.every, endgame)
    if args.python_check:
        python_check(2)


if __name__ == "__main__":
    main()
