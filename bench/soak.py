"""Benchmark: crowds of sockets and spectators in waves, and a connection flood.

What it measures
    soak
        ``dudo serve`` (the real process, on ``memory://``) gets waves of WebSocket
        connections: each wave opens ``--sockets`` spectator sockets spread over ``--rooms``
        rooms (at most 200 watchers a room, the server's cap), holds them for a moment,
        then closes them all. Reported per wave: the server's memory (VmRSS of its process
        from /proc/PID/status) with the wave open and a few seconds after it closed, and
        the server's CPU time for the wave. The figure that matters: memory after the
        last wave against memory before the first (the issue asks for within 20%).
    flood
        With the server's default per-address limits, one address opens ``--flood``
        WebSocket connections at once while another task pings ``/healthz`` every 20 ms
        and a playing room's seat pings over its socket: the p50/p99/max latency of both,
        and how many of the flood's connections were accepted and refused (HTTP 429 in the
        handshake).
    spectator cost
        CPU seconds the server spends per 500 spectator joins into one quiet room, for the
        first and the last 500 of ``--crowd`` joins (an O(n) join would make the last 500
        cost many times the first).

    python bench/soak.py            # the full run (about 3 minutes)
    python bench/soak.py --quick    # a small run (about 40 s)

Why
    Issue 14: spectators joining once cost more and more each, a flood of 2,000 sockets from
    one address stalled /healthz for 27 s, and memory did not come back after sockets closed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import resource
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import websockets

from ports import free_port  # bench/ports.py, next to this file

ROOT = Path(__file__).resolve().parent.parent


class Server:
    """``dudo serve`` as a process, with its memory and CPU readable from /proc."""

    def __init__(self, env: dict[str, str]) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        environment = {
            **os.environ,
            "DUDO_BOT_DELAY": "0",
            "DUDO_SEED_WINDOW": "0",
            "DUDO_GC": os.environ.get("DUDO_GC", "clock"),
            "DUDO_REVEAL_PAUSE": "0",
            "DUDO_CREATION_BURST": "100000",
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
                "memory://",
                "--log-level",
                "warning",
            ],
            env=environment,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            cwd=ROOT,
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{self.base}/healthz", timeout=1).status_code == 200:
                    return
            time.sleep(0.1)
        raise RuntimeError("the server did not start")

    def rss_mb(self) -> float:
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return float("nan")

    def cpu_seconds(self) -> float:
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        ticks = os.sysconf("SC_CLK_TCK")
        return (int(fields[11]) + int(fields[12])) / ticks

    def metric(self, name: str) -> float:
        text = httpx.get(f"{self.base}/metrics", timeout=30).text
        for line in text.splitlines():
            if line.startswith(name + " "):
                return float(line.split()[1])
        return float("nan")

    def stop(self) -> None:
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()


async def make_rooms(server: Server, count: int, seats: int = 2) -> list[dict[str, Any]]:
    async with httpx.AsyncClient(base_url=server.base, timeout=30) as http:
        made = []
        for _ in range(count):
            response = await http.post("/api/rooms", json={"name": "Host", "seats": seats})
            response.raise_for_status()
            made.append(response.json())
        return made


async def open_watchers(
    server: Server, codes: list[str], count: int, batch: int = 100
) -> list[Any]:
    """``count`` spectator sockets spread over the rooms, each past its first state."""
    url = server.base.replace("http", "ws")
    sockets: list[Any] = []

    async def one(code: str) -> Any:
        socket_ = await websockets.connect(f"{url}/ws/{code}", max_size=2**22, open_timeout=30)
        await asyncio.wait_for(socket_.recv(), 30)
        return socket_

    for start in range(0, count, batch):
        wanted = [codes[(start + i) % len(codes)] for i in range(min(batch, count - start))]
        sockets.extend(await asyncio.gather(*(one(code) for code in wanted)))
    return sockets


async def close_all(sockets: list[Any]) -> None:
    await asyncio.gather(*(s.close() for s in sockets), return_exceptions=True)


async def soak(waves: int, sockets: int, rooms: int) -> dict[str, Any]:
    server = Server(
        {
            "DUDO_SOCKETS_PER_ADDRESS": "100000",
            "DUDO_CONNECTS_PER_SECOND": "100000",
            "DUDO_ACCEPTS_PER_SECOND": "100000",
            "DUDO_ACCEPT_BURST": "100000",
        }
    )
    try:
        made = await make_rooms(server, rooms)
        codes = [room["code"] for room in made]
        await asyncio.sleep(2)
        start = server.rss_mb()
        blocks_start = server.metric("dudo_python_allocated_blocks")
        rows = []
        for wave in range(waves):
            cpu = server.cpu_seconds()
            opened = await open_watchers(server, codes, sockets)
            during = server.rss_mb()
            await close_all(opened)
            del opened
            await asyncio.sleep(3)
            rows.append(
                {
                    "wave": wave + 1,
                    "rss_open_mb": round(during, 1),
                    "rss_after_mb": round(server.rss_mb(), 1),
                    "blocks_after": int(server.metric("dudo_python_allocated_blocks")),
                    "server_cpu_s": round(server.cpu_seconds() - cpu, 2),
                }
            )
            print(
                f"  wave {wave + 1}: {sockets} sockets open {during:.1f} MB, "
                f"closed {rows[-1]['rss_after_mb']} MB, Python blocks "
                f"{rows[-1]['blocks_after']:,}, cpu {rows[-1]['server_cpu_s']} s",
                flush=True,
            )
        await asyncio.sleep(5)
        end = server.rss_mb()
        blocks_end = server.metric("dudo_python_allocated_blocks")
        return {
            "rss_start_mb": round(start, 1),
            "rss_end_mb": round(end, 1),
            "growth": round(end / start - 1, 3),
            "blocks_start": int(blocks_start),
            "blocks_end": int(blocks_end),
            "waves": rows,
        }
    finally:
        server.stop()


async def flood(connections: int) -> dict[str, Any]:
    """One address opens ``connections`` sockets at once under the default limits."""
    server = Server({})
    try:
        (room,) = await make_rooms(server, 1)
        url = server.base.replace("http", "ws")
        seat = await websockets.connect(f"{url}/ws/{room['code']}?token={room['token']}")
        await seat.recv()
        health: list[float] = []
        pings: list[float] = []
        stop = asyncio.Event()

        async def probe_health() -> None:
            async with httpx.AsyncClient(base_url=server.base, timeout=60) as http:
                while not stop.is_set():
                    began = time.perf_counter()
                    await http.get("/healthz")
                    health.append(time.perf_counter() - began)
                    await asyncio.sleep(0.02)

        async def probe_room() -> None:
            while not stop.is_set():
                began = time.perf_counter()
                await seat.send(json.dumps({"type": "ping"}))
                while json.loads(await seat.recv())["type"] != "pong":
                    pass
                pings.append(time.perf_counter() - began)
                await asyncio.sleep(0.1)  # under the seat's message rate

        probes = [asyncio.create_task(probe_health()), asyncio.create_task(probe_room())]
        await asyncio.sleep(1)
        # The flood comes from another process, so that its thousands of handshakes do
        # not stall this process's probes (only the server's latency is measured).
        began = time.perf_counter()
        attack = await asyncio.create_subprocess_exec(
            sys.executable,
            __file__,
            "_attack",
            url,
            room["code"],
            str(connections),
            stdout=subprocess.PIPE,
        )
        output, _ = await attack.communicate()
        took = time.perf_counter() - began
        outcomes = json.loads(output.decode().strip().splitlines()[-1])
        await asyncio.sleep(1)
        stop.set()
        await asyncio.gather(*probes, return_exceptions=True)
        await seat.close()
        metrics = httpx.get(f"{server.base}/metrics").text
        refused_metric = next(
            (
                line.split()[1]
                for line in metrics.splitlines()
                if line.startswith("dudo_sockets_refused_total")
            ),
            "n/a",
        )
        dropped_metric = next(
            (
                line.split()[1]
                for line in metrics.splitlines()
                if line.startswith("dudo_connections_dropped_total")
            ),
            "n/a",
        )

        def summary(values: list[float]) -> dict[str, float]:
            ordered = sorted(values)
            return {
                "n": len(values),
                "p50_ms": round(statistics.median(ordered) * 1000, 1),
                "p99_ms": round(ordered[int(len(ordered) * 0.99) - 1] * 1000, 1),
                "max_ms": round(ordered[-1] * 1000, 1),
            }

        return {
            "connections": connections,
            "seconds": round(took, 1),
            **outcomes,
            "metric_refused": refused_metric,
            "metric_dropped": dropped_metric,
            "healthz": summary(health),
            "room_ping": summary(pings),
        }
    finally:
        server.stop()


async def spectator_cost(crowd: int) -> dict[str, Any]:
    """CPU per 500 joins into one quiet room, first and last 500 (one room; the watcher cap
    is lifted for this measure with DUDO_MAX_SPECTATORS)."""
    server = Server(
        {
            "DUDO_SOCKETS_PER_ADDRESS": "100000",
            "DUDO_CONNECTS_PER_SECOND": "100000",
            "DUDO_ACCEPTS_PER_SECOND": "100000",
            "DUDO_ACCEPT_BURST": "100000",
            "DUDO_MAX_SPECTATORS": str(crowd),
        }
    )
    try:
        (room,) = await make_rooms(server, 1)
        costs = []
        held: list[Any] = []
        for _ in range(0, crowd, 500):
            cpu = server.cpu_seconds()
            held.extend(await open_watchers(server, [room["code"]], 500))
            costs.append(server.cpu_seconds() - cpu)
        await close_all(held)
        return {
            "joins": crowd,
            "first_500_cpu_s": round(costs[0], 2),
            "last_500_cpu_s": round(costs[-1], 2),
            "ratio_last_to_first": round(costs[-1] / max(costs[0], 1e-3), 2),
        }
    finally:
        server.stop()


async def attack(url: str, code: str, connections: int) -> dict[str, int]:
    """The flood itself (run as its own process): ``connections`` sockets at once, held
    open until all have an answer; how many were accepted, refused (HTTP 429 with a
    reason), or dropped (closed by the server as soon as it accepted them, or any other
    failure to connect)."""
    outcomes = {"accepted": 0, "refused": 0, "dropped": 0}
    held: list[Any] = []

    async def attacker() -> None:
        try:
            socket_ = await websockets.connect(f"{url}/ws/{code}", open_timeout=60)
        except websockets.InvalidStatus as error:  # refused in the handshake
            outcomes["refused" if error.response.status_code == 429 else "dropped"] += 1
            return
        except Exception:
            outcomes["dropped"] += 1
            return
        try:
            first = json.loads(await asyncio.wait_for(socket_.recv(), 60))
        except Exception:
            outcomes["refused"] += 1
            return
        if first.get("type") == "state":
            outcomes["accepted"] += 1
            held.append(socket_)
        else:
            outcomes["refused"] += 1
            await socket_.close()

    await asyncio.gather(*(attacker() for _ in range(connections)))
    await close_all(held)
    return outcomes


def main() -> None:
    if sys.argv[1:2] == ["_attack"]:
        _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        url, code, count = sys.argv[2], sys.argv[3], int(sys.argv[4])
        print(json.dumps(asyncio.run(attack(url, code, count))))
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="a small run")
    parser.add_argument("--waves", type=int, default=6)
    parser.add_argument("--sockets", type=int, default=4000, help="sockets per wave")
    parser.add_argument("--rooms", type=int, default=40)
    parser.add_argument("--flood", type=int, default=2000)
    parser.add_argument("--crowd", type=int, default=3000)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    if args.quick:
        args.waves, args.sockets, args.flood, args.crowd = 3, 1000, 500, 1000
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    results: dict[str, Any] = {}
    print(f"soak: {args.waves} waves of {args.sockets} spectator sockets on {args.rooms} rooms")
    results["soak"] = asyncio.run(soak(args.waves, args.sockets, args.rooms))
    soaked = results["soak"]
    print(
        f"  memory {soaked['rss_start_mb']} MB before, {soaked['rss_end_mb']} MB after "
        f"({soaked['growth']:+.1%}); Python blocks {soaked['blocks_start']:,} before, "
        f"{soaked['blocks_end']:,} after"
    )
    print(f"flood: {args.flood} connections at once from one address")
    results["flood"] = asyncio.run(flood(args.flood))
    print(f"  {results['flood']}")
    print(f"spectator cost: {args.crowd} joins into one room")
    results["spectator_cost"] = asyncio.run(spectator_cost(args.crowd))
    print(f"  {results['spectator_cost']}")
    if args.json:
        print(json.dumps(results))


if __name__ == "__main__":
    main()
