"""bench/suite_cpu.py: the CPU of a command's processes, by kind of process."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))

from suite_cpu import kind, watch  # noqa: E402  (bench/suite_cpu.py)


def test_each_process_is_put_in_its_kind_by_its_command_line() -> None:
    chromium = "/usr/lib/chromium/chromium --headless --no-sandbox"
    assert kind(f"{chromium} --type=renderer --lang=en-US") == "chromium renderer"
    assert kind(f"{chromium} --type=gpu-process --use-gl=disabled") == "chromium gpu"
    assert kind(f"{chromium} --type=utility --utility-sub-type=network") == "chromium other"
    assert kind(f"{chromium} --remote-debugging-pipe about:blank") == "chromium browser"
    driver = ".venv/lib/python3.11/site-packages/playwright/driver/node"
    assert kind(f"{driver} .../playwright/driver/package/cli.js run-driver") == "playwright driver"
    assert kind("/usr/bin/python3 -m dudo serve --port 8123") == "dudo serve"
    assert kind("python -m pytest -n 2 tests/browser") == "tests (pytest)"
    assert kind("python -u -c import sys;exec(eval(sys.stdin.readline()))") == "tests (pytest)"
    assert kind("/usr/sbin/sshd -D") == "other"


def test_the_cpu_a_command_uses_is_counted_and_its_exit_code_kept() -> None:
    busy = "import time\nend = time.process_time() + 1.0\nwhile time.process_time() < end: pass"
    code, wall, totals = watch([sys.executable, "-c", busy + "\nraise SystemExit(3)"])
    assert code == 3
    assert wall >= 0.9
    assert totals["other"] >= 0.6  # the busy child; its last 0.2 s may be missed


def test_a_missing_command_is_named() -> None:
    run = subprocess.run(
        [sys.executable, str(BENCH / "suite_cpu.py"), "--", "no-such-command-here"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode != 0
    assert "no such command: no-such-command-here" in run.stderr
