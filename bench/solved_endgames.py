"""Benchmark: endgames solved on first use (``dudo.bots.solved``) in several rule sets.

What it measures
    For each rule set (the rules of issue 24's outside check, no-wilds with wild ones; the
    presets perudo, tavern and ones-lock; dudo, whose heads-up calza slows the solver; and
    an option mix drawn at random), every 1v1 round a table under them can reach
    (``solved.heads_up_games``: the plain round, and the palifico one where palifico rounds
    happen heads-up):

    - the public tree's size and the solve's CPU time (``time.process_time``: tree and
      discounted CFR to an exploitability of ``solved.TARGET``, as on first use), and the
      iterations it took;
    - the exploitability (NashConv / 2, round units: losing the die is -1) of the solved
      strategy as stored (rounded to 4 decimals), by our exact best response
      (``dudo.bots.cfr``), next to the uniform random strategy's;
    - the cache file's size and the time to read it back in a fresh memory;
    - with ``--openspiel``: OpenSpiel's own exploitability (``pyspiel.exploitability`` on an
      EFG copy of ``dudo.openspiel``'s game) of the same strategy, played through the
      engine's views as the hard bot plays it.

    Presets are solved too (their shipped files are not used here), so the solve time is
    comparable across rule sets.

Run: ``chrt --idle 0 .venv/bin/python bench/solved_endgames.py [--openspiel] [--only NAME]``
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import tempfile
import time
from pathlib import Path

from dudo.bots import solved
from dudo.bots.cfr import Tree
from dudo.bots.endgame import Table, build_endgame, endgame_policy
from dudo.rules import Rules, RulesError


def random_mix(seed: int) -> Rules:
    """A rule set drawn at random from every option that shapes a round (the cap on bids
    kept on: without it a 1v1 round is out of reach, see ``solved.surely_too_large``)."""
    rng = random.Random(seed)
    while True:
        options = {
            "wild_ones": rng.choice([True, False]),
            "ones_bids": rng.choice(["never", "halve", "lock", "plain"]),
            "calza": rng.choice(["off", "in_turn", "any_time"]),
            "calza_min_players": rng.choice([2, 3]),
            "palifico": rng.choice([True, False]),
            "palifico_min_players": rng.choice([2, 3]),
            "palifico_open_on_ones": rng.choice([True, False]),
            "palifico_one_die_may_change_face": rng.choice([True, False]),
            "loss_by_difference": rng.choice([True, False]),
            "starting_dice": rng.randint(2, 6),
            "first_opener": rng.choice(["random", "rotate", "host", "rolloff"]),
        }
        try:
            return Rules.preset("perudo", **options)
        except RulesError:  # e.g. halving without wild ones
            continue


def first_mix_with_palifico(start: int) -> tuple[int, Rules]:
    """The first draw from seed ``start`` on whose tables palifico rounds happen heads-up
    (so the mix has a palifico round to solve too)."""
    seed = start
    while True:
        rules = random_mix(seed)
        if rules.palifico and rules.palifico_min_players <= 2:
            return seed, rules
        seed += 1


def rule_sets(mix_seed: int) -> list[tuple[str, Rules]]:
    seed, mix = first_mix_with_palifico(mix_seed)
    return [
        ("no-wilds+wild_ones", Rules.preset("no-wilds", wild_ones=True)),
        ("perudo", Rules.preset("perudo")),
        ("tavern", Rules.preset("tavern")),
        ("ones-lock", Rules.preset("ones-lock")),
        ("dudo", Rules.preset("dudo")),
        (f"mix (seed {seed})", mix),
    ]


def openspiel_exploitability(rules: Rules, palifico: bool, table: Table) -> float:
    """OpenSpiel's exploitability of ``table`` played through the engine's views."""
    from dudo.openspiel import endgame_report, load_rules_game

    game = load_rules_game(rules, (1, 1), palifico)
    report = endgame_report(game, lambda view: endgame_policy(view, lambda *_: table))
    if not report.exact:
        print(f"  (OpenSpiel: the figure depends on the fallback: {report})")
    return report.exploitability


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--openspiel", action="store_true", help="also OpenSpiel's verdict")
    parser.add_argument("--only", help="rule sets whose name starts with this")
    parser.add_argument("--mix-seed", type=int, default=24)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="dudo-endgames-bench-"))
    os.environ["DUDO_ENDGAME_CACHE"] = str(folder)
    print(
        f"{'rules':<22} {'round':<13} {'nodes':>6} {'iters':>6} {'cpu s':>7} "
        f"{'expl ours':>10} {'uniform':>8} {'file KB':>8} {'read ms':>8}"
        + (f" {'expl OpenSpiel':>15}" if args.openspiel else "")
    )
    for name, rules in rule_sets(args.mix_seed):
        if args.only and not name.startswith(args.only):
            continue
        print(f"# {name}: {rules.to_overrides()}", flush=True)
        for opener_dice, responder_dice, palifico in solved.heads_up_games(rules):
            endgame = build_endgame(rules, opener_dice, responder_dice, palifico)
            tree = Tree(endgame)
            uniform = tree.evaluate(tree.uniform()).exploitability
            # First use: solved and written to the cache, as a bot's first lookup does.
            started = time.process_time()
            table = solved.obtain(rules, opener_dice, responder_dice, palifico)
            cpu = time.process_time() - started
            assert isinstance(table, dict), "over the node limit (or windowed)"
            ours = tree.evaluate(tree.from_table(table)).exploitability
            key = solved.cache_key(rules, opener_dice, responder_dice, palifico)
            path = folder / f"{key}.json.gz"
            stored = json.loads(gzip.decompress(path.read_bytes()))
            assert abs(stored["exploitability"] - ours) < 1e-12
            # Second use in a fresh process's memory: read back from the file.
            started = time.perf_counter()
            again = solved.obtain(rules, opener_dice, responder_dice, palifico)
            read_ms = (time.perf_counter() - started) * 1000
            assert again == table
            line = (
                f"{'':<22} {endgame.key:<13} {tree.node_count:>6} {stored['iterations']:>6} "
                f"{cpu:>7.2f} {ours:>10.2e} {uniform:>8.3f} "
                f"{path.stat().st_size / 1024:>8.1f} {read_ms:>8.1f}"
            )
            if args.openspiel:
                line += f" {openspiel_exploitability(rules, palifico, table):>15.2e}"
            print(line, flush=True)


if __name__ == "__main__":
    main()
