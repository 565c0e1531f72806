"""Solve the heads-up endgames with CFR+ and write the strategies the hard bot ships.

What it does
    For every preset of :data:`dudo.rules.PRESETS`, the single round between two players
    with one die each (``1v1``) is solved with CFR+ on the public tree
    (:mod:`dudo.bots.cfr`); presets whose palifico round can happen heads-up (``dudo``)
    also get ``1v1-palifico``. Opener and responder are the two roles of one game, so one
    solve gives both seats' strategies.

What it writes
    ``src/dudo/bots/data/<preset>.<game>.json.gz``: ``{"rules": <every option>, "game":
    key, "strategy": {info set: {action: probability}}}`` with probabilities rounded to 4
    decimals, zeros dropped, and only the info sets that the player's own strategy can
    reach; and ``index.json``, the list of shipped games the loader reads first (entries
    of the presets solved are replaced, others kept).

What it prints
    Per game: public nodes, iterations, solve time, the exploitability (NashConv / 2, in
    round-utility units where losing the die is -1) of the solved average strategy and of
    the shipped (rounded) one, the uniform random strategy's, and the opener's game value.

Why a script and not the tests
    Solving takes seconds to minutes per game; the tests only re-measure the shipped data.

Usage: ``.venv/bin/python bench/solve_endgames.py [--iterations N] [--target X]``.
"""

from __future__ import annotations

import argparse
import gzip
import json
from pathlib import Path

from dudo.bots.cfr import Tree
from dudo.bots.endgame import MANIFEST, build_endgame
from dudo.rules import PRESETS, Rules

DATA = Path(__file__).resolve().parent.parent / "src" / "dudo" / "bots" / "data"


def games_for(rules: Rules) -> list[tuple[int, int, bool]]:
    """The (opener dice, responder dice, palifico) games to try for these rules.

    A palifico round is opened by the player who dropped to one die, so its games are
    ``1v1`` and ``1v2``. Larger games are tried and skipped when their full-recall tree
    is over ``--max-nodes``.
    """
    games = [(1, 1, False), (1, 2, False), (2, 1, False)]
    if rules.palifico and rules.palifico_min_players <= 2:
        games += [(1, 1, True), (1, 2, True)]
    return games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--iterations", type=int, default=20000, help="most CFR+ iterations")
    parser.add_argument(
        "--target", type=float, default=2e-6, help="stop once the exploitability is at most this"
    )
    parser.add_argument("--seconds", type=float, default=240.0, help="time limit per game")
    parser.add_argument("--presets", nargs="*", default=list(PRESETS))
    parser.add_argument("--method", choices=("cfr+", "dcfr"), default="cfr+")
    parser.add_argument(
        "--max-nodes",
        type=int,
        default=40000,
        help="skip games whose public tree is larger (1v2 is 262k nodes "
        "under most presets: minutes per hundred iterations)",
    )
    args = parser.parse_args()
    DATA.mkdir(parents=True, exist_ok=True)
    index_path = DATA / MANIFEST
    entries = json.loads(index_path.read_text()) if index_path.exists() else []
    header = (
        f"{'preset':<10} {'game':<12} {'nodes':>6} {'iters':>6} {'time s':>7} "
        f"{'expl solved':>12} {'expl shipped':>12} {'expl uniform':>12} {'value':>9}"
    )
    print(header)
    for name in args.presets:
        rules = PRESETS[name]
        entries = [entry for entry in entries if entry["preset"] != name]
        for old in DATA.glob(f"{name}.*.json.gz"):
            old.unlink()
        for opener_dice, responder_dice, palifico in games_for(rules):
            endgame = build_endgame(rules, opener_dice, responder_dice, palifico)
            nodes = sum(1 for _ in endgame.nodes())
            if nodes > args.max_nodes:
                print(f"{name:<10} {endgame.key:<12} {nodes:>6} skipped (over --max-nodes)")
                continue
            tree = Tree(endgame)
            result = tree.solve(
                args.iterations, target=args.target, seconds=args.seconds, method=args.method
            )
            table = tree.to_table(result.strategy)
            shipped = tree.evaluate(tree.from_table(table))
            uniform = tree.evaluate(tree.uniform())
            print(
                f"{name:<10} {endgame.key:<12} {nodes:>6} "
                f"{result.iterations:>6} {result.seconds:>7.1f} "
                f"{result.evaluation.exploitability:>12.2e} {shipped.exploitability:>12.2e} "
                f"{uniform.exploitability:>12.4f} {shipped.value:>+9.5f}",
                flush=True,
            )
            file = f"{name}.{endgame.key}.json.gz"
            payload = json.dumps(
                {"rules": rules.to_json(), "game": endgame.key, "strategy": table},
                separators=(",", ":"),
                sort_keys=True,
            )
            (DATA / file).write_bytes(gzip.compress(payload.encode(), compresslevel=9, mtime=0))
            entries.append(
                {"file": file, "preset": name, "game": endgame.key, "rules": rules.to_json()}
            )
    entries.sort(key=lambda entry: (list(PRESETS).index(entry["preset"]), entry["game"]))
    index_path.write_text(json.dumps(entries, indent=1, sort_keys=True) + "\n")
    total = sum(path.stat().st_size for path in DATA.iterdir())
    print(f"wrote {DATA} ({total / 1024:.0f} KiB in all)")


if __name__ == "__main__":
    main()
