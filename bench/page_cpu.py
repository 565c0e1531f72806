"""Benchmark: what a table page costs the browser while it waits on a turn.

What it measures
    A real ``dudo serve`` (SQLite in a temporary directory) and Debian's Chromium through
    Playwright, drawing without a GPU (as in CI and on many small laptops' software
    fallbacks). For each screen size: a room of four (seat 0 ours, three easy bots, no turn
    timer), started; once the turn is ours the table waits on us. The CPU time of every
    Chromium process (user + system, from /proc) is read over two windows: the turn's first
    seconds (``--early``, from one second after the turn came) and a later stretch of the
    same wait (``--late``, from ``--settle`` seconds after it came). Printed as the share of
    one core. Then the same under ``prefers-reduced-motion: reduce`` (nothing moves), the
    floor.

Why
    A turn may wait minutes. Anything that moves on the page for the whole wait costs the
    player's battery, and on a machine drawing without a GPU it costs a large share of a
    core (the lit seat's pulsing box-shadow did: 45-72%, docs/benchmarks.md).

    python bench/page_cpu.py
    python bench/page_cpu.py --sizes 390x844 1920x1080 --late 20
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
from playwright.sync_api import Browser, Page, sync_playwright

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]


def chromium_cpu_seconds() -> float:
    """User + system CPU seconds of every Chromium process alive now."""
    ticks = 0
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            if "chrom" not in Path(f"/proc/{pid}/comm").read_text():
                continue
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # gone meanwhile
        ticks += int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


def core_share(seconds: float) -> float:
    """Chromium's CPU over the next `seconds`, as a share of one core."""
    start_cpu, start = chromium_cpu_seconds(), time.monotonic()
    time.sleep(seconds)
    return (chromium_cpu_seconds() - start_cpu) / (time.monotonic() - start)


@contextmanager
def serve(src: Path = ROOT / "src") -> Iterator[str]:
    """`dudo serve` (the package in `src`) on a free loopback port with quick bots; yields
    its base URL."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    folder = tempfile.mkdtemp(prefix="dudo-page-cpu-")
    env = {**os.environ, "PYTHONPATH": str(src), "DUDO_BOT_DELAY": "0.15"}
    command = [sys.executable, "-m", "dudo", "serve", "--port", str(port)]
    command += ["--database", f"sqlite:///{folder}/dudo.db", "--log-level", "warning"]
    process = subprocess.Popen(command, env=env)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                if httpx.get(f"{base}/healthz").status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.1)
        else:
            raise SystemExit("dudo serve did not answer /healthz within 30 s")
        yield base
    finally:
        process.kill()
        process.wait()


def waiting_table(browser: Browser, base: str, width: int, height: int, motion: str) -> Page:
    """A started table of four whose turn is ours, in a page of the given size."""
    body = {"name": "Ana", "seats": 4, "bots": [None, "easy", "easy", "easy"], "timer": 0}
    answer = httpx.post(f"{base}/api/rooms", json=body)
    answer.raise_for_status()
    ticket = answer.json()
    context = browser.new_context(
        viewport={"width": width, "height": height},
        reduced_motion=motion,  # type: ignore[arg-type]
    )
    page = context.new_page()
    page.goto(base + "/")
    page.evaluate(
        "(t) => localStorage.setItem(`dudo.seat.${t.code}`, JSON.stringify("
        "{token: t.token, seat: t.seat, name: t.name}))",
        ticket,
    )
    page.goto(f"{base}/r/{ticket['code']}")
    page.click("#start", timeout=30000)
    page.wait_for_selector("#bid-go", timeout=60000)
    return page


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", nargs="+", default=["390x844", "1280x720", "1920x1080"])
    parser.add_argument("--early", type=float, default=6.0, help="seconds of the first window")
    parser.add_argument("--settle", type=float, default=10.0, help="seconds before the second")
    parser.add_argument("--late", type=float, default=10.0, help="seconds of the second window")
    options = parser.parse_args()
    if not Path(CHROMIUM).exists():
        raise SystemExit(f"{CHROMIUM} is missing: apt-get install chromium")
    print("Chromium's CPU (share of one core) while a table of four waits on our turn")
    print(f"{'size':>10} {'motion':>13} {'first':>7} {'later':>7}")
    with serve() as base, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        for size in options.sizes:
            width, height = (int(part) for part in size.split("x"))
            for motion in ("no-preference", "reduce"):
                page = waiting_table(browser, base, width, height, motion)
                came = time.monotonic()
                time.sleep(1.0)
                early = core_share(options.early)
                time.sleep(max(0.0, came + options.settle - time.monotonic()))
                late = core_share(options.late)
                print(f"{size:>10} {motion:>13} {early:>7.0%} {late:>7.0%}", flush=True)
                page.context.close()
        browser.close()


if __name__ == "__main__":
    main()
