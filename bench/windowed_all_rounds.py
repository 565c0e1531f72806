"""Experiment (issue 24): windowed strategies for every heads-up round up to 5v5.

hard plays a solved strategy only in heads-up rounds of up to four dice in play
(``dudo.bots.solved``); larger rounds keep its heuristic. This script solves every
heads-up round of five to ten dice (1v4 ... 5v5) with ``dudo.bots.window``, for the
longest memory (4, 3, 2, then 1) whose cost fits ``--budget`` (windows x half the ladder x
pairs of hands: about the work of one CFR iteration), and writes each strategy as JSON
into ``--out``. ``WindowedAllHard`` (a plug-in bot: ``bench/windowed_all_rounds.py:
WindowedAllHard``, reading the folder from ``$DUDO_WINDOWED_ALL``) is hard with those
strategies where its own stop; ``WindowedMidHard`` leaves out the ones with a memory of a
single bid; ``MixedMidHard`` mixes those with hard's heuristic (``$DUDO_WINDOWED_MIX``).
docs/benchmarks.md ("Windowed strategies past four dice") has what they did.

    python bench/windowed_all_rounds.py --out /tmp/bigwin --rules no-wilds --set wild_ones=true
    DUDO_WINDOWED_ALL=/tmp/bigwin python bench/bots_vs_opponents.py --games 1000 --seed 7 \\
        --rules no-wilds --rules-option wild_ones=true \\
        --match bench/windowed_all_rounds.py:WindowedMidHard,hard

Not part of the product: the files are large (up to 160 MB of JSON for a memory of four
bids at 1v4) and a rule set takes about 40 minutes of CPU to solve.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from dudo.bids import quantity_limits
from dudo.bots import solved
from dudo.bots.endgame import Strategy, WindowTable, solved_rules
from dudo.bots.hard import HardBot, Weighed
from dudo.game import Action, Call
from dudo.rules import Rules
from dudo.view import SeatView

FOLDER_VARIABLE = "DUDO_WINDOWED_ALL"


def pick_memory(rules: Rules, opener: int, responder: int, budget: float) -> int:
    """The longest memory whose one iteration costs at most ``budget`` (else 1)."""
    faces, ones = quantity_limits(opener + responder, rules.cap_at_dice_in_play)
    bids = 5 * faces + ones
    pairs = math.comb(opener + 5, 5) * math.comb(responder + 5, 5)
    for memory in (4, 3, 2, 1):
        windows = solved.estimated_windows(rules, opener, responder, memory)
        if windows * (bids / 2) * pairs <= budget:
            return memory
    return 1


def file_of(folder: Path, opener: int, responder: int) -> Path:
    return folder / f"{opener}v{responder}.json"


def solve_one(job: tuple[dict[str, Any], int, int, float, float, str]) -> str:
    from dudo.bots.window import WindowedRound

    rules_json, opener, responder, budget, seconds, out = job
    os.nice(19)
    rules = Rules.from_json(rules_json)
    path = file_of(Path(out), opener, responder)
    if path.exists():
        return f"{path.name}: there already"
    memory = pick_memory(rules, opener, responder, budget)
    started = time.process_time()
    round_ = WindowedRound(rules, opener, responder, False, memory=memory)
    strategy, iterations = round_.solve(solved.WINDOW_ITERATIONS, seconds=seconds)
    data = {"rules": rules_json, **solved.strategy_json(round_.to_table(strategy))}
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps(data))
    temporary.replace(path)
    cpu = time.process_time() - started
    return (
        f"{path.name}: memory {memory}, {len(round_.windows)} windows, {iterations} "
        f"iterations, {cpu:.0f} s CPU, {path.stat().st_size / 1e6:.1f} MB"
    )


_loaded: dict[tuple[str, int, int], Strategy | None] = solved.__dict__.setdefault(
    "_windowed_all_loaded", {}
)  # kept on an imported module: a plug-in file is loaded afresh for every bot made


def table_for(rules: Rules, opener: int, responder: int) -> Strategy | None:
    folder = os.environ.get(FOLDER_VARIABLE)
    if not folder:
        raise SystemExit(f"set {FOLDER_VARIABLE} to the folder this script wrote")
    key = (folder, opener, responder)
    if key not in _loaded:
        path = file_of(Path(folder), opener, responder)
        table = None
        if path.exists():
            data = json.loads(path.read_text())
            if "rules" in data and Rules.from_json(data["rules"]) != rules:
                raise SystemExit(f"{path} was solved for other rules: {data['rules']}")
            table = solved.strategy_from_json(data)
        _loaded[key] = table
    return _loaded[key]


class WindowedAllHard(HardBot):
    """hard, with this script's strategies in the heads-up rounds its own do not cover."""

    min_memory = 1

    def _endgame_table(
        self, rules: Rules, opener_dice: int, responder_dice: int, palifico: bool
    ) -> Strategy | None:
        found = super()._endgame_table(rules, opener_dice, responder_dice, palifico)
        if found is not None or palifico:
            return found
        table = table_for(rules, opener_dice, responder_dice)
        if isinstance(table, WindowTable) and table.memory >= self.min_memory:
            return table
        return None


class WindowedMidHard(WindowedAllHard):
    """The same without the strategies that remember one bid only (8 to 10 dice)."""

    min_memory = 2


MIX_VARIABLE = "DUDO_WINDOWED_MIX"


class MixedMidHard(WindowedMidHard):
    """``WindowedMidHard``'s strategies mixed with hard's heuristic where they apply, as
    ``$DUDO_WINDOWED_MIX`` says (``p_s``: the solved strategy's probabilities, ``p_h``
    the heuristic's softmax):

    - ``support:EPS``: the heuristic's choice among the actions ``p_s`` gives more than EPS;
    - ``lin:X``: ``X p_s + (1 - X) p_h``;
    - ``geo:X``: ``p_s^X p_h^(1 - X)`` over the actions both consider;
    - ``callfrom:0``: how often to call from ``p_s``, which raise from ``p_h``;
    - ``raisefrom:0``: how often to call from ``p_h``, which raise from ``p_s``.
    """

    _mid_used = False
    _mid_off = False

    def _endgame_table(
        self, rules: Rules, opener_dice: int, responder_dice: int, palifico: bool
    ) -> Strategy | None:
        own = HardBot._endgame_table(self, rules, opener_dice, responder_dice, palifico)
        if own is not None or palifico or self._mid_off:
            return own
        found = super()._endgame_table(rules, opener_dice, responder_dice, palifico)
        self._mid_used = found is not None
        return found

    def weigh(self, view: SeatView) -> Weighed:
        self._mid_used = False
        solved_weighed = super().weigh(view)
        if not self._mid_used or not solved_weighed.drawn:
            return solved_weighed
        self._mid_off = True
        try:
            heuristic = super().weigh(view)
        finally:
            self._mid_off = False
        if not heuristic.drawn:
            return solved_weighed
        kind, _, argument = os.environ.get(MIX_VARIABLE, "support:0.02").partition(":")
        x = float(argument or 0)
        p_s = _normalised(solved_weighed)
        p_h = _normalised(heuristic)
        options: list[Action | None]
        weights: list[float]
        if kind == "support":
            options = [o for o in heuristic.options if p_s.get(o, 0.0) > x]
            weights = [p_h[o] for o in options]
        elif kind == "lin":
            options = list(dict.fromkeys([*p_s, *p_h]))
            weights = [x * p_s.get(o, 0.0) + (1 - x) * p_h.get(o, 0.0) for o in options]
        elif kind == "geo":
            options = [o for o in heuristic.options if p_s.get(o, 0.0) > 0]
            weights = [p_s[o] ** x * p_h[o] ** (1 - x) for o in options]
        elif kind in ("callfrom", "raisefrom"):
            calls_from, raises_from = (p_s, p_h) if kind == "callfrom" else (p_h, p_s)
            calls = {o: w for o, w in calls_from.items() if isinstance(o, Call)}
            raises = {o: w for o, w in raises_from.items() if not isinstance(o, Call)}
            raised = sum(raises.values())
            options = [*calls, *raises]
            weights = [
                *calls.values(),
                *((1 - sum(calls.values())) * w / (raised or 1.0) for w in raises.values()),
            ]
        else:
            raise SystemExit(f"{MIX_VARIABLE}={kind}:{argument}: not a mixture this script knows")
        if not options or sum(weights) <= 0:
            return solved_weighed
        return Weighed(tuple(options), tuple(weights))


def _normalised(weighed: Weighed) -> dict[Action | None, float]:
    total = sum(weighed.weights) or 1.0
    shares: dict[Action | None, float] = {}
    for option, weight in zip(weighed.options, weighed.weights, strict=True):
        shares[option] = shares.get(option, 0.0) + weight / total
    return shares


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="folder for the strategies")
    parser.add_argument("--rules", default="perudo", help="a preset (default perudo)")
    parser.add_argument(
        "--set", action="append", default=[], metavar="OPTION=VALUE", help="a rules option"
    )
    parser.add_argument("--budget", type=float, default=8e8, help="cost of one iteration")
    parser.add_argument("--seconds", type=float, default=300, help="CPU limit per round")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    overrides: dict[str, Any] = {}
    for setting in args.set:
        name, _, value = setting.partition("=")
        try:
            overrides[name] = json.loads(value)
        except json.JSONDecodeError:
            overrides[name] = value
    rules = solved_rules(Rules.preset(args.rules, **overrides))  # as hard looks them up
    args.out.mkdir(parents=True, exist_ok=True)
    jobs = [
        (rules.to_json(), opener, responder, args.budget, args.seconds, str(args.out))
        for opener in range(1, 6)
        for responder in range(1, 6)
        if opener + responder >= 5
    ]
    jobs.sort(key=lambda job: -(job[1] + job[2]))
    with ProcessPoolExecutor(args.jobs) as pool:
        for line in pool.map(solve_one, jobs):
            print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
