"""Instructions per action of the engine's random play, counted by Valgrind: a figure the
machine's load does not move.

What it measures
    The CPU instructions (Valgrind's cachegrind, ``I refs``) one action of random play
    costs with warm tables: the same seeded games as ``bench/engine.py`` (``dudo_player``,
    seed 2024), counted for the first ``--from`` games and for the first ``--to`` games,
    and the difference divided by the actions in between. The tables a kind of round fills
    on first use are mostly filled by ``--from``, so what remains is the steady state the
    benchmark's repetitions measure.

Why
    On a shared machine two timings of the same code move by 5-25% (other jobs, caches);
    a change of a few percent cannot be told from noise by timing alone. An instruction
    count is exact and repeatable. It is not time: cache misses and branch mispredictions
    are not in it, so the time ratio still comes from ``bench/engine.py``.

How
    ``python bench/engine_instructions.py [--players 6] [--from 900 --to 1500] [SRC ...]``
    counts each source tree given (a ``src`` folder to put first on ``sys.path``; default
    this checkout's) and prints one line per tree. Needs ``valgrind`` (Debian's package);
    a run takes about a minute per tree at 6x5 and one at 2x5.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
PLAY = """
import random, sys
sys.path.insert(0, {src!r})
sys.path.insert(0, {bench!r})
from engine import dudo_player
from dudo.rules import PRESETS
play = dudo_player(PRESETS[{preset!r}], {players})
rng = random.Random(2024)
print(sum(play(rng) for _ in range({games})))
"""


def actions_and_instructions(src: str, preset: str, players: int, games: int) -> tuple[int, int]:
    """(Actions played, instructions run) by ``games`` games in a fresh interpreter."""
    code = PLAY.format(src=src, bench=str(HERE), preset=preset, players=players, games=games)
    run = subprocess.run(
        [
            "valgrind",
            "--tool=cachegrind",
            "--cache-sim=no",
            "--cachegrind-out-file=/dev/null",
            sys.executable,
            "-c",
            code,
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    found = re.search(r"I\s+refs:\s+([\d,]+)", run.stderr)
    if found is None:
        raise SystemExit(f"no instruction count in valgrind's output:\n{run.stderr[-2000:]}")
    return int(run.stdout.split()[-1]), int(found.group(1).replace(",", ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sources", nargs="*", default=[str(HERE.parent / "src")], metavar="SRC")
    parser.add_argument("--preset", default="perudo")
    parser.add_argument("--players", type=int, default=6)
    parser.add_argument("--from", dest="first", type=int, default=900, metavar="GAMES")
    parser.add_argument("--to", dest="last", type=int, default=1500, metavar="GAMES")
    options = parser.parse_args()
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed (Debian: apt-get install valgrind)")
    if not 0 <= options.first < options.last:
        raise SystemExit("--from must be at least 0 and below --to")
    for src in options.sources:
        actions_a, count_a = actions_and_instructions(
            src, options.preset, options.players, options.first
        )
        actions_b, count_b = actions_and_instructions(
            src, options.preset, options.players, options.last
        )
        actions = actions_b - actions_a
        print(
            f"{src}: {options.preset} {options.players}x5, games {options.first}..{options.last}, "
            f"{actions:,} actions: {(count_b - count_a) / actions:,.0f} instructions per action",
            flush=True,
        )


if __name__ == "__main__":
    main()
