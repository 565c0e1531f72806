"""The order the session runs its tests in: the costliest modules first, dealt to the
pytest-xdist workers so that each starts on long ones (tests/conftest.py calls ``order``).

Why: ``make test`` runs on both cores with ``--dist worksteal``. xdist hands each worker a
contiguous share of the collected list (the first half to one, the rest to the other), and
a worker that runs out takes the end of the other's queue. A long module near the end of a
share (the accessibility walks take minutes) then runs alone while the other core idles.
So the modules are dealt out by their recorded cost: each share gets long modules at its
start, greedily balanced (longest first, to the share with the least so far), then the
many short ones to fill it to its length; within a share the costliest come first, and
the end, which the other worker may take, is the cheapest. A module stays whole and in its
own order unless it has to fill the end of a share (module fixtures are set up once per
worker that runs a part of it).

The costs are seconds per module from a whole run, in ``costs.json`` next to this file.
A module the file does not know costs :data:`UNKNOWN` seconds per test (``slow`` marked:
at least :data:`SLOW`). Refresh the file after a run that printed every duration::

    pytest -n 2 --dist worksteal --durations=0 > run.log
    python tests/costs.py run.log

The figures only order the run; nothing is asserted on them, and a stale file costs time,
never a result.
"""

from __future__ import annotations

import json
import re
import sys
from collections import defaultdict
from pathlib import Path
from typing import Protocol, TypeVar

COSTS = Path(__file__).with_name("costs.json")
UNKNOWN = 0.5  # seconds per test of a module costs.json does not know
SLOW = 60.0  # the least a ``slow`` module is taken to cost


class Item(Protocol):
    nodeid: str

    def get_closest_marker(self, name: str) -> object: ...


T = TypeVar("T", bound=Item)


def recorded() -> dict[str, float]:
    try:
        data = json.loads(COSTS.read_text())
    except (OSError, ValueError):
        return {}
    return {str(name): float(seconds) for name, seconds in data.items()}


def order(items: list[T], workers: int, costs: dict[str, float]) -> list[T]:
    """`items` in the order to run them on `workers` xdist workers (1: no xdist)."""
    modules: dict[str, list[T]] = defaultdict(list)
    for item in items:
        modules[item.nodeid.split("::")[0]].append(item)

    def cost(name: str) -> float:
        members = modules[name]
        seconds = costs.get(name, UNKNOWN * len(members))
        if members[0].get_closest_marker("slow") is not None:
            seconds = max(seconds, SLOW)
        return seconds

    # Costliest first; ties (and unknown modules of one size) in collection order.
    ranked = sorted(modules, key=cost, reverse=True)
    workers = max(1, workers)
    if workers == 1:
        return [item for name in ranked for item in modules[name]]
    # The shares xdist makes: len // workers items each, the last one the rest.
    room = [len(items) // workers] * (workers - 1)
    room.append(len(items) - sum(room))
    shares: list[list[T]] = [[] for _ in range(workers)]
    loads = [0.0] * workers
    for name in ranked:
        members = modules[name]
        seconds = cost(name)
        fits = [w for w in range(workers) if room[w] >= len(members)]
        if fits:
            share = min(fits, key=lambda w: loads[w])
            shares[share].extend(members)
            room[share] -= len(members)
            loads[share] += seconds
            continue
        # Too many tests for any share's room: split over the shares, least loaded first.
        for share in sorted(range(workers), key=lambda w: loads[w]):
            part, members = members[: room[share]], members[room[share] :]
            shares[share].extend(part)
            room[share] -= len(part)
            loads[share] += seconds * len(part) / len(modules[name])
            if not members:
                break
    return [item for share in shares for item in share]


def from_log(log: str) -> dict[str, float]:
    """Seconds per module from pytest's ``--durations=0`` lines (setup, call, teardown)."""
    totals: dict[str, float] = defaultdict(float)
    for line in log.splitlines():
        found = re.match(r"([\d.]+)s (?:call|setup|teardown)\s+(\S+?)::", line)
        if found:
            totals[found[2]] += float(found[1])
    return {name: round(seconds, 1) for name, seconds in sorted(totals.items())}


if __name__ == "__main__":
    figures = from_log(Path(sys.argv[1]).read_text())
    if not figures:
        sys.exit(f"no --durations=0 lines in {sys.argv[1]}")
    COSTS.write_text(json.dumps(figures, indent=1) + "\n")
    print(f"{len(figures)} modules, {sum(figures.values()):.0f} s, written to {COSTS}")
