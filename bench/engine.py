"""Benchmark: random play with the dudo rules engine, next to OpenSpiel's ``liars_dice``.

What it measures
    Throughput of the engine under random play: whole games, from the first roll to a
    winner, where every turn the seat to act asks :meth:`dudo.game.Game.legal_actions` and
    plays one of those actions chosen uniformly (``random.Random.choice``). The figures are
    games per second and actions per second, where an action is an accepted player action
    (a bid or a call); rolls are not counted, though their time is. Tables: 2 players x 5
    dice and 6 players x 5 dice under ``perudo``, and every preset at 4 players x 5 dice.

    The same random play runs in OpenSpiel's C++ ``liars_dice`` (2 players x 5 dice) through
    its Python bindings: chance nodes (the dice) are drawn with the same kind of generator
    from ``state.chance_outcomes()`` and not counted as actions, player actions are chosen
    from ``state.legal_actions()``. An OpenSpiel game is a single round, so only actions per
    second compare across engines; games per second are given for each engine alone.

Why
    Bots, simulations and self-play training spend their time inside the engine. The goal
    (issue 23) is at least OpenSpiel's random-play actions per second (a ratio of 1.0 or
    more at 2 players x 5 dice, in one run of this benchmark) while playing whole games
    with every house rule, in plain Python; 6 players x 5 dice is reported against the
    same OpenSpiel figure. The house-rule table shows that no preset falls off a slow path.

How
    Each figure is the best (the default) or the median (``--stat``) of ``--repeats``
    timed repetitions of ``--duration`` seconds (default 40 x 0.3 s, under 2 minutes in
    all): whole games are played until the time is up and the rate is counted over the time
    actually spent. Repetitions are interleaved (ours 2x5, OpenSpiel, ours 6x5, the
    presets, then again) so that machine noise hits both engines alike. The best is the
    default because noise only ever slows a repetition down; many short repetitions give a
    shared machine more chances of an undisturbed one. Every repetition of a case replays
    the same seeded games (``--seed``). Each case is warmed up, untimed, before the first.

Run ``python bench/engine.py`` (``--quick`` for a short run, ``--json`` for JSON, and
``--profile`` for a cProfile of our 6x5 random play instead of the benchmark).
"""

from __future__ import annotations

import argparse
import cProfile
import datetime
import io
import json
import os
import platform
import pstats
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any, Literal

from dudo.dice import SeededDice
from dudo.game import Game, Phase
from dudo.rules import PRESETS, Rules

PlayOne = Callable[[random.Random], int]
"""Plays one whole game with the moves (and dice seeds) drawn from the generator; returns
the number of player actions taken."""

Stat = Literal["best", "median"]

MAIN_PRESET = "perudo"
HOUSE_RULES_PLAYERS = 4
DICE = 5
WARM_UP_SECONDS = 0.2


# -- the two players of random games ---------------------------------------------------


def dudo_player(rules: Rules, players: int) -> PlayOne:
    """Random play with our engine: roll, list the legal actions, pick one, apply it."""

    def play_one(rng: random.Random) -> int:
        game = Game(rules, players, dice=SeededDice(rng.getrandbits(64)))
        choice = rng.choice
        roll = game.roll
        legal_actions = game.legal_actions
        apply = game.apply
        actions = 0
        while True:
            phase = game.phase
            if phase is Phase.BIDDING:
                seat = game.turn
                apply(seat, choice(legal_actions(seat)))
                actions += 1
            elif phase is Phase.ROLL:
                roll()
            else:
                assert game.winners, "a finished game has a winner"
                return actions

    return play_one


def openspiel_player(players: int, dice: int) -> PlayOne:
    """Random play in OpenSpiel's ``liars_dice``: one round, to the terminal state."""
    import pyspiel  # optional dependency: the ``openspiel`` extra

    game = pyspiel.load_game("liars_dice", {"players": players, "numdice": dice})
    _check_uniform_chance(game)

    def play_one(rng: random.Random) -> int:
        state = game.new_initial_state()
        choice = rng.choice  # methods bound once per game, as in dudo_player
        is_terminal = state.is_terminal
        is_chance_node = state.is_chance_node
        chance_outcomes = state.chance_outcomes
        legal_actions = state.legal_actions
        apply_action = state.apply_action
        actions = 0
        while not is_terminal():
            if is_chance_node():
                # Every chance node rolls one fair die (the check above), so a uniform
                # pick of an (outcome, probability) pair is the cheapest exact draw.
                apply_action(choice(chance_outcomes())[0])
            else:
                apply_action(choice(legal_actions()))
                actions += 1
        return actions

    return play_one


def _check_uniform_chance(game: Any) -> None:
    """Stop unless the first chance node (one die) has equally likely outcomes."""
    state = game.new_initial_state()
    probabilities = {probability for _, probability in state.chance_outcomes()}
    if len(probabilities) != 1:
        raise SystemExit(f"liars_dice chance outcomes are not uniform: {probabilities}")


def openspiel_version() -> str | None:
    try:
        return metadata.version("open-spiel")
    except metadata.PackageNotFoundError:
        return None


# -- timing ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Sample:
    """One timed repetition: whole games played, actions in them, seconds spent."""

    games: int
    actions: int
    seconds: float

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds

    @property
    def actions_per_second(self) -> float:
        return self.actions / self.seconds


def timed(play_one: PlayOne, seed: int, duration: float) -> Sample:
    """Play whole games from ``seed`` until ``duration`` seconds have passed."""
    rng = random.Random(seed)
    clock = time.perf_counter
    games = actions = 0
    start = clock()
    deadline = start + duration
    while True:
        actions += play_one(rng)
        games += 1
        now = clock()
        if now >= deadline:
            return Sample(games, actions, now - start)


def pick(stat: Stat, values: Sequence[float]) -> float:
    """The best (highest) or the median of the repetitions' rates."""
    return max(values) if stat == "best" else statistics.median(values)


@dataclass(slots=True)
class Case:
    """One benchmarked configuration and its repetitions."""

    key: str
    group: Literal["main", "house"]
    engine: str
    rules: str
    players: int
    dice: int
    play_one: PlayOne
    samples: list[Sample] = field(default_factory=list)

    def games_per_second(self, stat: Stat) -> float:
        return pick(stat, [sample.games_per_second for sample in self.samples])

    def actions_per_second(self, stat: Stat) -> float:
        return pick(stat, [sample.actions_per_second for sample in self.samples])

    @property
    def actions_per_game(self) -> float:
        return sum(s.actions for s in self.samples) / sum(s.games for s in self.samples)

    def to_json(self, stat: Stat) -> dict[str, Any]:
        return {
            "engine": self.engine,
            "rules": self.rules,
            "players": self.players,
            "dice": self.dice,
            "games_per_second": self.games_per_second(stat),
            "actions_per_second": self.actions_per_second(stat),
            "actions_per_game": self.actions_per_game,
            "samples": [
                {"games": s.games, "actions": s.actions, "seconds": s.seconds} for s in self.samples
            ],
        }


def build_cases(with_openspiel: bool) -> list[Case]:
    """The cases in the order each repetition runs them (ours and OpenSpiel's interleaved)."""
    cases = [
        Case(
            "dudo-2x5",
            "main",
            "dudo",
            MAIN_PRESET,
            2,
            DICE,
            dudo_player(Rules.preset(MAIN_PRESET), 2),
        )
    ]
    if with_openspiel:
        cases.append(
            Case(
                "openspiel-2x5",
                "main",
                "OpenSpiel",
                "liars_dice",
                2,
                DICE,
                openspiel_player(2, DICE),
            )
        )
    cases.append(
        Case(
            "dudo-6x5",
            "main",
            "dudo",
            MAIN_PRESET,
            6,
            DICE,
            dudo_player(Rules.preset(MAIN_PRESET), 6),
        )
    )
    for name in PRESETS:  # perudo too, as the reference for the others
        players = HOUSE_RULES_PLAYERS
        cases.append(
            Case(
                f"dudo-{name}-{players}x{DICE}",
                "house",
                "dudo",
                name,
                players,
                DICE,
                dudo_player(Rules.preset(name), players),
            )
        )
    return cases


def run(cases: Sequence[Case], seed: int, duration: float, repeats: int) -> None:
    for index, case in enumerate(cases):
        timed(case.play_one, seed + index, WARM_UP_SECONDS)
    for repeat in range(repeats):
        print(f"repetition {repeat + 1}/{repeats} ...", file=sys.stderr, flush=True)
        for index, case in enumerate(cases):
            case.samples.append(timed(case.play_one, seed + index, duration))


# -- reports ---------------------------------------------------------------------------


def environment() -> dict[str, Any]:
    return {
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "nproc": os.cpu_count(),
        "machine": platform.machine(),
        "processor": _processor_name(),
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "open_spiel": openspiel_version(),
        "commit": _commit(),
        "load_average": os.getloadavg()[0],
    }


def _commit() -> str | None:
    """The checked-out commit (``-dirty`` if tracked files differ from it), if in git."""
    try:
        done = subprocess.run(
            ["git", "describe", "--always", "--dirty"],
            cwd=Path(__file__).resolve().parent,
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() or None


def _processor_name() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.partition(":")[2].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def ratios(cases: Sequence[Case], stat: Stat) -> dict[str, float]:
    """Our actions/s over OpenSpiel's (2x5), for our 2x5 and 6x5 perudo."""
    by_key = {case.key: case for case in cases}
    reference = by_key.get("openspiel-2x5")
    if reference is None:
        return {}
    base = reference.actions_per_second(stat)
    return {key: by_key[f"dudo-{key}"].actions_per_second(stat) / base for key in ("2x5", "6x5")}


def table(cases: Sequence[Case], stat: Stat, duration: float, repeats: int) -> str:
    """The figures as Markdown tables (readable as they are, pasteable into the docs)."""
    by_key = {case.key: case for case in cases}
    main = [case for case in cases if case.group == "main"]
    house = [case for case in cases if case.group == "house"]
    lines = [
        f"{stat} of {repeats} x {duration:g} s per figure",
        "",
        "| engine | rules | players x dice | games/s | actions/s | actions/game "
        "| actions/s, slowest..fastest repetition |",
        "|---|---|---|--:|--:|--:|--:|",
    ]
    for case in main:
        rates = [sample.actions_per_second for sample in case.samples]
        lines.append(
            f"| {case.engine} | {case.rules} | {case.players}x{case.dice} "
            f"| {case.games_per_second(stat):,.0f} | {case.actions_per_second(stat):,.0f} "
            f"| {case.actions_per_game:.1f} | {min(rates):,.0f}..{max(rates):,.0f} |"
        )
    found = ratios(cases, stat)
    if found:
        other: Stat = "median" if stat == "best" else "best"
        lines += [
            "",
            f"dudo actions/s / OpenSpiel liars_dice 2x5 actions/s ({stat}): "
            + ", ".join(f"{key} {value:.3f}" for key, value in found.items())
            + f" ({other}: "
            + ", ".join(f"{key} {value:.3f}" for key, value in ratios(cases, other).items())
            + ")",
        ]
    reference = by_key[f"dudo-{MAIN_PRESET}-{HOUSE_RULES_PLAYERS}x{DICE}"]
    lines += [
        "",
        f"every preset, {HOUSE_RULES_PLAYERS} players x {DICE} dice:",
        "",
        f"| preset | games/s | actions/s | actions/game | actions/s vs {MAIN_PRESET} |",
        "|---|--:|--:|--:|--:|",
    ]
    for case in house:
        relative = case.actions_per_second(stat) / reference.actions_per_second(stat)
        lines.append(
            f"| {case.rules} | {case.games_per_second(stat):,.0f} "
            f"| {case.actions_per_second(stat):,.0f} | {case.actions_per_game:.1f} "
            f"| {relative:.2f} |"
        )
    return "\n".join(lines)


def report_json(cases: Sequence[Case], args: argparse.Namespace, env: dict[str, Any]) -> str:
    return json.dumps(
        {
            "benchmark": "rules engine: random play",
            "statistic": args.stat,
            "duration": args.duration,
            "repeats": args.repeats,
            "seed": args.seed,
            "environment": env,
            "cases": {case.key: case.to_json(args.stat) for case in cases},
            "ratio_actions_per_second_vs_openspiel_2x5": ratios(cases, args.stat),
        },
        indent=2,
    )


def profile(seed: int, games: int, top: int) -> str:
    """cProfile of our 6x5 perudo random play over ``games`` seeded games."""
    play_one = dudo_player(Rules.preset(MAIN_PRESET), 6)
    rng = random.Random(seed)
    profiler = cProfile.Profile()
    actions = 0
    profiler.enable()
    for _ in range(games):
        actions += play_one(rng)
    profiler.disable()
    out = io.StringIO()
    out.write(
        f"cProfile: {games} games of {MAIN_PRESET} 6x{DICE} random play, "
        f"{actions} actions (seed {seed}); top {top} by tottime\n"
    )
    pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(top)
    return out.getvalue()


# -- command line ----------------------------------------------------------------------


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Random-play throughput of the dudo engine, next to OpenSpiel's liars_dice."
    )
    parser.add_argument(
        "--duration", type=float, help="seconds per timed repetition (default: 0.3, --quick: 0.2)"
    )
    parser.add_argument(
        "--repeats", type=int, help="timed repetitions per figure (default: 40, --quick: 5)"
    )
    parser.add_argument(
        "--quick", action="store_true", help="a short run (about 10 s): 5 repetitions of 0.2 s"
    )
    parser.add_argument(
        "--stat",
        choices=("best", "median"),
        default="best",
        help="which repetition each figure reports (default: best)",
    )
    parser.add_argument(
        "--seed", type=int, default=2024, help="seed of the moves and dice (default: 2024)"
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help="print JSON (every repetition included) instead of the tables",
    )
    parser.add_argument(
        "--no-openspiel", action="store_true", help="skip OpenSpiel (it is needed for the ratio)"
    )
    parser.add_argument(
        "--profile",
        action="store_true",
        help="instead of the benchmark, cProfile our 6x5 random play",
    )
    parser.add_argument(
        "--profile-games",
        type=int,
        default=1000,
        help="games played under --profile (default: 1000)",
    )
    parser.add_argument(
        "--profile-top", type=int, default=25, help="functions listed under --profile (default: 25)"
    )
    args = parser.parse_args(argv)
    if args.duration is None:
        args.duration = 0.2 if args.quick else 0.3
    if args.repeats is None:
        args.repeats = 5 if args.quick else 40
    if args.duration <= 0 or args.repeats < 1:
        parser.error("--duration must be positive and --repeats at least 1")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.profile:
        print(profile(args.seed, args.profile_games, args.profile_top))
        return 0
    with_openspiel = not args.no_openspiel
    if with_openspiel and openspiel_version() is None:
        print(
            "open-spiel is not installed (pip install -e '.[openspiel]'): measuring dudo alone",
            file=sys.stderr,
        )
        with_openspiel = False
    env = environment()  # the date is the start of the run
    cases = build_cases(with_openspiel)
    run(cases, args.seed, args.duration, args.repeats)
    env["load_average_after"] = os.getloadavg()[0]
    if args.json:
        print(report_json(cases, args, env))
    else:
        print(
            f"{env['date']}; {env['nproc']} CPUs ({env['processor']}); "
            f"{env['implementation']} {env['python']}; open-spiel {env['open_spiel']}; "
            f"dudo at {env['commit']}; load average {env['load_average']:.2f} before, "
            f"{env['load_average_after']:.2f} after"
        )
        print(table(cases, args.stat, args.duration, args.repeats))
    return 0


if __name__ == "__main__":
    sys.exit(main())
