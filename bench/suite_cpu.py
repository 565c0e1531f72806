"""Benchmark: where a command's CPU goes, by kind of process (for the test suite's time).

What it measures
    Runs a command (by default the browser tests of one module under pytest-xdist) and, while
    it runs, reads the CPU time (user + system) of every process on the machine from /proc
    every 0.2 s. Each process is put in a kind by its command line: Chromium's renderers,
    its browser process, its GPU process and its other helpers; Playwright's driver (node);
    ``dudo serve``; the test processes; everything else. A process is counted from the
    first time it is seen, so a process that ends between two reads loses at most 0.2 s,
    and one that starts and ends between two reads is missed. The machine's other jobs
    show up as "other" (run it on a quiet machine).

Why
    ``make test`` spends most of CI's time in the browser tests (docs/benchmarks.md, "The
    test suite's time"). Before making a test cheaper, know which process pays: the page's
    own work (the renderer), the browser around it, the server, or the test's Python.

    python bench/suite_cpu.py          # pytest -n 2 tests/browser/test_web_choice.py
    python bench/suite_cpu.py -- .venv/bin/python -m pytest -n 2 tests/browser/test_web_audit.py
"""

from __future__ import annotations

import argparse
import collections
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TICKS = os.sysconf("SC_CLK_TCK")
DEFAULT = [sys.executable, "-m", "pytest", "-n", "2", "-p", "no:cacheprovider"]
DEFAULT_TARGET = "tests/browser/test_web_choice.py"


def kind(command: str) -> str:
    """The kind of a process, from its command line."""
    if "chrom" in command:
        for role in ("renderer", "gpu-process"):
            if f"--type={role}" in command:
                return f"chromium {role.removesuffix('-process')}"
        return "chromium other" if "--type=" in command else "chromium browser"
    if "playwright" in command and "node" in command:
        return "playwright driver"
    if "dudo" in command and " serve" in command:
        return "dudo serve"
    if "pytest" in command or "exec(eval(sys.stdin.readline()))" in command:  # xdist's workers
        return "tests (pytest)"
    return "other"


def cpu_seconds(pid: str) -> tuple[float, str] | None:
    """A process's CPU time so far and its start time (which tells a reused pid apart)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / TICKS, fields[19]


def command_line(pid: str) -> str | None:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
            return cmdline.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return None


@dataclass
class Seen:
    """One process: its kind, its CPU time when first seen and when last seen."""

    kind: str
    first: float
    last: float


def watch(command: list[str]) -> tuple[int, float, dict[str, float]]:
    """Run ``command``; its exit code, its wall time and the CPU seconds by kind meanwhile."""
    seen: dict[tuple[str, str], Seen] = {}  # by (pid, start time)
    me = str(os.getpid())
    started = time.monotonic()
    process = subprocess.Popen(command, cwd=ROOT)
    while True:
        finished = process.poll() is not None
        for pid in os.listdir("/proc"):
            if not pid.isdigit() or pid == me:
                continue
            found = cpu_seconds(pid)
            if found is None:
                continue
            cpu, start = found
            entry = seen.get((pid, start))
            if entry is None:
                line = command_line(pid)
                if line is not None:
                    seen[(pid, start)] = Seen(kind(line), cpu, cpu)
            else:
                entry.last = cpu
        if finished:
            break
        time.sleep(0.2)
    wall = time.monotonic() - started
    totals: dict[str, float] = collections.defaultdict(float)
    for process_seen in seen.values():
        totals[process_seen.kind] += process_seen.last - process_seen.first
    return process.returncode, wall, totals


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        usage="%(prog)s [-h] [-- COMMAND...]",
        epilog=f"Without a command: {' '.join(DEFAULT[1:])} {DEFAULT_TARGET}",
    )
    parser.add_argument("command", nargs="*", help="the command to run and watch")
    options = parser.parse_args()
    if not Path("/proc/self/stat").exists():
        raise SystemExit("this needs Linux's /proc")
    command = options.command or [*DEFAULT, DEFAULT_TARGET]
    try:
        code, wall, totals = watch(command)
    except FileNotFoundError:
        raise SystemExit(f"no such command: {command[0]}") from None
    total = sum(totals.values())
    print(f"{'CPU s':>8}  {'share':>5}  kind of process   (wall {wall:.1f} s, exit {code})")
    for name, seconds in sorted(totals.items(), key=lambda item: -item[1]):
        print(f"{seconds:8.1f}  {100 * seconds / max(total, 1e-9):4.0f}%  {name}")
    print(f"{total:8.1f}  100%  in all")
    sys.exit(code)


if __name__ == "__main__":
    main()
