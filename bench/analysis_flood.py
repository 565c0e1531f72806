"""Benchmark: a live room's ping while a crowd asks for analyses of finished games.

What it measures
    ``dudo serve`` (the real process, on SQLite) first plays ``--games`` games to the end
    (a program and bots), with ``DUDO_ANALYSIS_CACHE`` set below that count so the flood
    keeps missing the cache, as 16 clients cycling 152 games did against the 128-game
    cache. Then a player's socket in a live room pings the room every 20 ms: for
    ``--seconds`` alone (the baseline), then while ``--clients`` HTTP clients, each with
    an address of its own (``X-Forwarded-For`` from a trusted proxy), cycle through the
    games' ``/analysis`` as fast as answers come. Reported: the ping's p50/p99/max in
    each phase, the analyses made, the answers by status (200, 429 too_many_analyses,
    503 busy), and the server's CPU seconds (its worker process included).

    python bench/analysis_flood.py                 # the figures of docs/benchmarks.md
    python bench/analysis_flood.py --worker thread --no-client-limit   # as before
    python bench/analysis_flood.py --pin           # the server on a core, the clients on the other

Why
    Issue 21: 16 clients cycling 152 games got 506 analyses in 45 s (33.7 s of CPU), and a
    live room's ping went from p99 5.5 ms to 98 ms (max 40 ms to 1,047 ms): the analysis
    thread competed with the event loop for the interpreter lock, with no limit per
    client. The target: ping p99 within 2x of its baseline during the flood.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import websockets

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from dudo.bots import make_bot  # noqa: E402
from dudo.client import Client  # noqa: E402
from ports import free_port  # noqa: E402  (bench/ports.py, next to this file)


class Server:
    def __init__(self, database: str, env: dict[str, str], cpus: set[int] | None = None) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        environment = {
            **os.environ,
            "DUDO_BOT_DELAY": "0",
            "DUDO_SEED_WINDOW": "0",
            "DUDO_REVEAL_PAUSE": "0",
            "DUDO_CREATION_BURST": "100000",
            "DUDO_CONNECT_BURST": "100000",
            "DUDO_ACCEPT_BURST": "100000",
            "DUDO_ADDRESS_MESSAGE_BURST": "100000",
            "DUDO_MESSAGE_BURST": "100000",
            "DUDO_FORWARDED_ALLOW_IPS": "127.0.0.1",
            "PYTHONPATH": str(ROOT / "src"),
            **env,
        }
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "dudo",
                "serve",
                "--port",
                str(self.port),
                "--database",
                database,
                "--log-level",
                "warning",
            ],
            env=environment,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            cwd=ROOT,
            # Set in the child before it runs, so the worker process it starts inherits it.
            preexec_fn=(lambda: os.sched_setaffinity(0, cpus)) if cpus else None,
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{self.base}/healthz", timeout=1).status_code == 200:
                    return
            time.sleep(0.1)
        raise RuntimeError("the server did not start")

    def cpu_seconds(self) -> float:
        """The server's CPU time and its children's that are still running."""
        ticks = os.sysconf("SC_CLK_TCK")
        total = 0.0
        pids = [self.process.pid]
        for task in Path(f"/proc/{self.process.pid}/task").glob("*"):
            with contextlib.suppress(OSError):  # children of any thread (the worker's)
                pids += [int(pid) for pid in (task / "children").read_text().split()]
        for pid in pids:
            with contextlib.suppress(OSError):
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
                total += (int(fields[11]) + int(fields[12])) / ticks
        return total

    def metric(self, name: str) -> float:
        text = httpx.get(f"{self.base}/metrics", timeout=30).text
        for line in text.splitlines():
            if line.startswith(name + " "):
                return float(line.split()[1])
        return float("nan")

    def stop(self) -> None:
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()


async def play_games(base: str, count: int, seats: int, dice: int, parallel: int = 4) -> list[str]:
    """``count`` finished games (a program and bots in the other seats); their ids."""
    ids: list[str] = []

    async def one(number: int) -> None:
        async with Client(base) as client:
            seat = await client.create_room(
                f"P{number}",
                rules={"preset": "perudo", "starting_dice": dice},
                seats=seats,
                bots=[None] + [("normal", "easy")[n % 2] for n in range(seats - 1)],
            )
            async with client.table(seat) as table:
                await table.start()
                await table.play(make_bot("normal", seed=number))
                ids.append(table.state["fair"]["game_id"])

    for start in range(0, count, parallel):
        await asyncio.gather(*(one(n) for n in range(start, min(count, start + parallel))))
    await asyncio.sleep(1.0)  # records are stored a moment after the game-over state
    return ids


async def ping_for(socket: Any, seconds: float, every: float = 0.02) -> list[float]:
    """Round trips (ms) of pings through the room's actor, one every ``every`` s."""
    times = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        started = time.perf_counter()
        await socket.send(json.dumps({"type": "ping"}))
        while True:
            message = json.loads(await socket.recv())
            if message.get("type") == "pong":
                break
        times.append((time.perf_counter() - started) * 1000)
        await asyncio.sleep(every)
    return times


def summary(times: list[float]) -> dict[str, float]:
    ordered = sorted(times)
    return {
        "pings": len(ordered),
        "p50_ms": round(statistics.median(ordered), 2),
        "p99_ms": round(ordered[int(len(ordered) * 0.99) - 1], 2),
        "max_ms": round(ordered[-1], 2),
    }


async def flood(base: str, ids: list[str], clients: int, seconds: float) -> dict[str, int]:
    statuses: dict[int, int] = {}
    end = time.monotonic() + seconds

    async def client(number: int) -> None:
        headers = {"X-Forwarded-For": f"10.{number}.0.1"}  # a network of its own, too
        async with httpx.AsyncClient(base_url=base, timeout=60, headers=headers) as http:
            turn = number
            while time.monotonic() < end:
                answer = await http.get(f"/api/games/{ids[turn % len(ids)]}/analysis")
                statuses[answer.status_code] = statuses.get(answer.status_code, 0) + 1
                turn += 1
                if answer.status_code != 200:  # told to wait: a polite client does
                    await asyncio.sleep(min(float(answer.headers.get("retry-after", 1)), 1))

    await asyncio.gather(*(client(n) for n in range(clients)))
    return {str(code): count for code, count in sorted(statuses.items())}


def flood_process(
    base: str, ids: list[str], clients: int, seconds: float, results: Any, cpus: set[int] | None
) -> None:
    if cpus:  # pinned beside the pinger: niced, so that the pinger, which measures, goes first
        os.sched_setaffinity(0, cpus)
        os.nice(10)
    results.put(asyncio.run(flood(base, ids, clients, seconds)))


def split_cpus(pin: bool) -> tuple[set[int] | None, set[int] | None]:
    """The CPUs of the server (with its worker) and of the bench's own processes.

    With ``--pin``, the server gets the first CPU this process may use and the pinger and
    the flood's clients the rest: the clients stand in for people on other machines, and
    the server's worker must share the event loop's one core (the harder case: on a
    bigger machine it would have cores of its own)."""
    if not pin:
        return None, None
    allowed = sorted(os.sched_getaffinity(0))
    if len(allowed) < 2:
        raise SystemExit(
            f"--pin needs two CPUs or more, and this process may use {len(allowed)}"
            f" ({allowed}): run without --pin"
        )
    return {allowed[0]}, set(allowed[1:])


async def run(args: argparse.Namespace) -> dict[str, Any]:
    server_cpus, bench_cpus = split_cpus(args.pin)
    if bench_cpus:
        os.sched_setaffinity(0, bench_cpus)
    with tempfile.TemporaryDirectory() as directory:
        env = {"DUDO_ANALYSIS_CACHE": str(max(1, args.games // 4))}
        if args.worker == "thread":
            env["DUDO_ANALYSIS_WORKER"] = "thread"
        if args.no_client_limit:
            env["DUDO_ANALYSES_PER_CLIENT"] = "1000000"
            env["DUDO_ANALYSIS_REQUESTS"] = "1000000"
        server = Server(f"sqlite:///{directory}/bench.db", env, server_cpus)
        try:
            started = time.monotonic()
            ids = await play_games(server.base, args.games, args.seats, args.dice)
            made_in = time.monotonic() - started
            room = httpx.post(
                f"{server.base}/api/rooms",
                json={"name": "Live", "seats": 2, "bots": [None, "easy"]},
            ).json()
            url = "ws" + server.base.removeprefix("http") + f"/ws/{room['code']}"
            async with websockets.connect(
                url,
                origin=server.base,  # type: ignore[arg-type]
                subprotocols=["dudo.v1", f"token.{room['token']}"],  # type: ignore[list-item]
            ) as socket:
                await socket.recv()
                baseline = summary(await ping_for(socket, args.seconds))
                cpu_before = server.cpu_seconds()
                made_before = server.metric("dudo_analyses_made_total")
                # The flood runs in a process of its own, so that the pinger's event loop
                # measures the server, not the flood's clients.
                context = multiprocessing.get_context("spawn")
                results = context.Queue()
                flooder = context.Process(
                    target=flood_process,
                    args=(server.base, ids, args.clients, args.seconds, results, bench_cpus),
                )
                flooder.start()
                await asyncio.sleep(1.0)  # (the flood's process starting up)
                pings = await ping_for(socket, args.seconds - 1.5)
                answers = results.get(timeout=120)
                flooder.join(timeout=30)
                during = summary(pings)
                cpu = server.cpu_seconds() - cpu_before
                made = server.metric("dudo_analyses_made_total") - made_before
        finally:
            server.stop()
    return {
        "worker": args.worker,
        "pinned": {"server": sorted(server_cpus), "bench": sorted(bench_cpus or ())}
        if server_cpus
        else None,
        "load_average": [round(value, 2) for value in os.getloadavg()],
        "client_limit": not args.no_client_limit,
        "games": len(ids),
        "seats": args.seats,
        "dice": args.dice,
        "games_played_in_s": round(made_in, 1),
        "clients": args.clients,
        "seconds": args.seconds,
        "baseline": baseline,
        "during_flood": during,
        "p99_ratio": round(during["p99_ms"] / baseline["p99_ms"], 2),
        "analyses_made": int(made),
        "answers": answers,
        "server_cpu_s": round(cpu, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seats", type=int, default=6, help="seats of the games played")
    parser.add_argument("--dice", type=int, default=5, help="starting dice of those games")
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--worker", choices=["process", "thread"], default="process")
    parser.add_argument(
        "--no-client-limit",
        action="store_true",
        help="lift the per-client limits, on analyses made and on requests (the bounded"
        " queue still holds)",
    )
    parser.add_argument(
        "--pin",
        action="store_true",
        help="run the server and its worker on one CPU and the pinger and the flood's clients"
        " on the others (as if the clients were other machines); needs two CPUs",
    )
    args = parser.parse_args()
    print(json.dumps(asyncio.run(run(args)), indent=2))


if __name__ == "__main__":
    main()
