"""Benchmark: heads-up rounds past one die each, solved for a short memory (dudo.bots.window).

What it measures
    For each rule set, every round :func:`dudo.bots.solved.heads_up_games` solves ahead
    beyond 1v1 (by default 1v2, 2v1, 1v3, 2v2 and 3v1), solved as a first use solves it:
    the memory chosen, the windows of the graph, the CPU seconds of the solve (graph,
    iterations and table), the cache file's size, the time a later process takes to read
    it, and the memory the strategy holds. Where the round's full public tree can be built
    (``--exact-up-to`` dice in play, 3 by default: 1v2 and 2v1, 262,144 histories) the
    strategy as stored is also judged by an exact best response on that tree
    (exploitability, NashConv / 2 in round units), beside uniform play's.

Why
    Issue 24: the hard bot's heuristic gives away most of a round to a player who adapts
    (0.71-0.80 in the 1v1 round), and only 1v1 rounds were solved. The windowed solves take
    the rounds of up to four dice in play; this says how close to equilibrium they play
    and what they cost a first use.

Run ``python bench/windowed_endgames.py [--rules perudo,no-wilds+wild_ones]``.
It uses a fresh cache folder of its own.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

from dudo.bots import solved
from dudo.bots.cfr import Tree
from dudo.bots.endgame import WindowTable, build_endgame, solved_rules
from dudo.bots.window import on_tree
from dudo.rules import Rules

RULES: dict[str, dict[str, Any]] = {
    "no-wilds+wild_ones": {"preset": "no-wilds", "wild_ones": True},
    "perudo": {"preset": "perudo"},
    "tavern": {"preset": "tavern"},
    "ones-lock": {"preset": "ones-lock"},
    "dudo": {"preset": "dudo"},
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--rules", default=",".join(RULES), help="comma-separated: " + ", ".join(RULES)
    )
    parser.add_argument("--exact-up-to", type=int, default=3, help="dice in play judged exactly")
    args = parser.parse_args()
    names = args.rules.split(",")
    unknown = [name for name in names if name not in RULES]
    if unknown:
        sys.exit(f"windowed_endgames.py: unknown rules {unknown}; choose from {list(RULES)}")
    folder = Path(tempfile.mkdtemp(prefix="dudo-windowed-"))
    os.environ["DUDO_ENDGAME_CACHE"] = str(folder)
    print(
        f"{'rules':<20} {'round':<6} {'memory':>6} {'windows':>7} {'iters':>5} {'cpu s':>6} "
        f"{'file KB':>7} {'read ms':>7} {'held MB':>7} {'expl':>8} {'uniform':>7}"
    )
    for name in names:
        options = dict(RULES[name])
        rules = solved_rules(Rules.preset(options.pop("preset"), **options))
        for opener, responder, palifico in solved.heads_up_games(rules):
            memory = solved.window_memory(rules, opener, responder, palifico)
            if memory is None or not solved.surely_too_large(rules, opener, responder, palifico):
                continue  # an exact round (bench/solved_endgames.py measures those)
            started = time.process_time()
            table = solved.obtain(rules, opener, responder, palifico)
            cpu = time.process_time() - started
            assert isinstance(table, WindowTable)
            key = solved.cache_key(rules, opener, responder, palifico)
            path = folder / f"{key}.json.gz"
            stored = json.loads(gzip.decompress(path.read_bytes()))
            started = time.perf_counter()
            again = solved.obtain(rules, opener, responder, palifico)  # as a later process
            read_ms = (time.perf_counter() - started) * 1000
            assert again == table
            tracemalloc.start()
            again = solved.obtain(rules, opener, responder, palifico)
            held = tracemalloc.get_traced_memory()[0] / 2**20
            tracemalloc.stop()
            windows = len(table.windows)
            line = (
                f"{name:<20} {opener}v{responder:<4} {memory:>6} {windows:>7} "
                f"{stored['iterations']:>5} {cpu:>6.1f} {path.stat().st_size / 1024:>7.0f} "
                f"{read_ms:>7.0f} {held:>7.1f}"
            )
            if opener + responder <= args.exact_up_to:
                tree = Tree(build_endgame(rules, opener, responder, palifico))
                exploitability = tree.evaluate(on_tree(tree, table)).exploitability
                uniform = tree.evaluate(tree.uniform()).exploitability
                line += f" {exploitability:>8.4f} {uniform:>7.3f}"
            print(line, flush=True)


if __name__ == "__main__":
    main()
