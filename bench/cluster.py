"""Benchmark: the cluster (issue 12), nodes of ``dudo serve --cluster`` on Redis and
PostgreSQL, driven by bench/load.py's driver.

What it measures
    saturation
        The most actions per second with every room acting as fast as the protocol allows
        (bench/load.py's saturation load), for a plain node (``dudo serve`` on PostgreSQL,
        no ``--cluster``), one cluster node, and two cluster nodes holding half the rooms
        each, every player connected to its room's holder. The ratio of 2 nodes to 1. The
        three run ``--rounds`` times (2 in the full run), alternated, since a shared
        machine's load drifts.
    cost of cluster mode
        A steady load (one action a second per room) on one plain node and on one cluster
        node, same database: server CPU per action, p50 and p99 (send to the last of the
        room's 4 seats having the new state).
    2 nodes, large
        The steady load at ``--large`` rooms (2,000) spread over two nodes.
    relayed
        The steady load on two nodes twice: every player connected to its room's holder
        (direct), then every player connected to the *other* node, which relays its socket
        frame by frame to the holder (relayed).
    takeover
        A node holding rooms that are being played is killed with SIGKILL; for every one of
        its rooms, seat 0 reconnects through the surviving node at once and every 50 ms
        after a refusal, seat 1 every 300 ms (what the browser does after a socket that
        opened and was closed with 4412 "moved"). The time from the kill to the first state
        of the room each receives, over ``--trials`` kills, with the default lease (3 s,
        renewed every 1 s) and with a shorter one (``--short-lease``). Also checked: the
        state after the takeover is at least as new as the last one any seat saw before the
        kill (no acknowledged action lost).
    quota (only when named: ``--only quota``; root and cgroups needed)
        Scale-out measured as on separate machines (issue 23): each node runs under a CPU
        quota of ``--cpu-quota`` cores (0.2 by default, so that 4 nodes fit on 2 cores
        beside the driver, PostgreSQL and Redis) in a cgroup of its own (bench/cpuquota.py:
        cgroup v2 or v1, whichever the machine has); the driver, Redis and PostgreSQL stay
        outside the quotas. The saturation load with ``--quota-rooms`` rooms per node (100;
        40 with --quick) on N = 1, 2 and 4 nodes (``--quota-nodes``), ``--quota-rounds``
        times (2; 1 with --quick), alternated (1 2 4, then 4 2 1): actions/s and the ratio
        to 1 node (the aim: at least 0.9 x N), each node's CPU (about the quota, not more)
        and the share of the CFS periods in which the kernel stopped it at its quota. A
        node that got less than its quota was short of CPU (see "other" and "busy"); on a
        machine shared with other work, ``--quota-weight 8`` weighs the nodes' cgroups and
        an uncapped one for the driver above it.

    Reported per load besides: CPU of each node, of the driver (this process), of Redis
    and of all PostgreSQL processes, the whole machine's busy CPU from /proc/stat (so what
    other users of the machine took shows up as "other"), each node's memory, the load
    average before the load, errors the driver received, and the sockets each node relayed
    (``dudo_relayed_sockets``, to show a relayed load really was relayed). Interrupt time is
    partly charged to processes too, so "other" is only good to about 0.15 of a core (it
    can come out slightly negative). Also reported when they happen: leases the nodes lost
    (``dudo_node_leases_lost_total``) and whatever the nodes logged (warnings and up).

How
    A fresh Redis (a redis-server on a free port) and a fresh PostgreSQL schema per load
    (``?schema=bench_<random>``, dropped afterwards). Nodes run with zero bot, seed and
    reveal pauses and the per-address limits lifted (every simulated player comes from
    127.0.0.1), as bench/load.py's server does; per-seat limits stay (the driver keeps each
    socket under 8 messages a second). Rooms are created on their holder through the HTTP
    API; the players' sockets pass their seat token as a subprotocol, as browsers do (a
    relayed socket loses a ``?token=`` in its URL: see docs/benchmarks.md).
    The room logic (RoomDriver, the reader, the latency bookkeeping) is bench/load.py's.

    python bench/cluster.py --quick           # about 2 minutes
    python bench/cluster.py --json FILE       # the full run: 7 minutes on an idle machine,
                                              # 9 to 11 when other work shares its cores
    python bench/cluster.py --only takeover   # parts: saturation cost large relay takeover
    python bench/cluster.py --only quota      # (and quota): 1, 2 and 4 nodes at 0.2 core

    DUDO_BENCH_POSTGRES sets the PostgreSQL URL (default postgresql://dudo:dudo@127.0.0.1
    :5432/dudo); DUDO_BENCH_CGROUPS where the cgroup filesystems are (default /sys/fs/cgroup).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import random
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import orjson

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from cpuquota import CGROUP_ROOT, Cgroup, CpuQuotas, QuotaUnavailable, Throttling  # noqa: E402
from load import (  # noqa: E402  (bench/load.py, next to this file)
    RoomDriver,
    Stats,
    begin,
    free_port,
    percentile,
    raise_open_files,
    reader,
)
from scratchredis import ScratchRedis  # noqa: E402

CLK_TCK = os.sysconf("SC_CLK_TCK")
POSTGRES = os.environ.get("DUDO_BENCH_POSTGRES", "postgresql://dudo:dudo@127.0.0.1:5432/dudo")

# bench/load.py's server settings: no pauses, and the per-address limits lifted since every
# simulated player comes from this one address (per-seat limits stay).
NODE_ENV = {
    "DUDO_BOT_DELAY": "0",
    "DUDO_REVEAL_PAUSE": "0",
    "DUDO_SEED_WINDOW": "0",
    "DUDO_SOCKETS_PER_ADDRESS": "1000000",
    "DUDO_CONNECT_BURST": "1000000",
    "DUDO_ACCEPT_BURST": "1000000",
    "DUDO_ADDRESS_MESSAGE_BURST": "100000000",
    "DUDO_CREATION_BURST": "1000000",
    "DUDO_MAX_LOBBIES": "100000",
    "DUDO_MAX_ROOMS": "100000",
    "DUDO_GRACE": "3600",
}


# -- processes: Redis, PostgreSQL schemas, nodes ---------------------------------------------


def cpu_of(pid: int) -> float:
    """CPU seconds (user + system, all threads) of a process; 0 if it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def postgres_pids() -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                if (entry / "comm").read_text().strip() == "postgres":
                    found.append(int(entry.name))
    return found


def machine_busy() -> tuple[float, float]:
    """CPU seconds the whole machine spent busy (all cores; /proc/stat), and of them in
    interrupts (irq + softirq: much of it the loopback network, not charged to any
    process)."""
    ticks = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = ticks[3] + ticks[4]  # idle, iowait
    return (sum(ticks[:8]) - idle) / CLK_TCK, (ticks[5] + ticks[6]) / CLK_TCK


@dataclass
class Node:
    port: int
    process: subprocess.Popen[bytes]
    log: Path
    cluster: bool
    cgroup: Cgroup | None = None  # its CPU quota's (``--only quota``)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def cpu(self) -> float:
        return cpu_of(self.process.pid)

    def rss_mb(self) -> float:
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return float("nan")

    async def metrics(self) -> dict[str, float]:
        async with httpx.AsyncClient() as http:
            text = (await http.get(f"{self.base}/metrics", timeout=10)).text
        found = {}
        for line in text.splitlines():
            if line and not line.startswith("#"):
                name, _, value = line.partition(" ")
                with contextlib.suppress(ValueError):
                    found[name] = float(value)
        return found

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=30)


@dataclass
class Site:
    """One Redis and one PostgreSQL schema, and the nodes started on them."""

    directory: Path
    redis: str
    redis_pid: int
    database: str
    env: dict[str, str] = field(default_factory=dict)
    nodes: list[Node] = field(default_factory=list)
    quotas: CpuQuotas | None = None  # when set, every node runs under a CPU quota of
    quota_cores: float = 0.0  # this many cores, in a cgroup of its own
    quota_weight: float = 1.0  # and this many times the default CPU weight

    def complaints(self) -> list[str]:
        """What the nodes logged (they run with --log-level warning: warnings and up)."""
        found = []
        for node in self.nodes:
            for line in node.log.read_text(errors="replace").splitlines():
                if line.strip() and not (line.startswith("dudo ") and ": open http" in line):
                    found.append(f"{node.port}: {line[:5000]}")
        return found

    async def start_node(self, cluster: bool = True) -> Node:
        port = free_port()
        log = self.directory / f"node-{port}.log"
        command = [
            sys.executable,
            "-m",
            "dudo",
            "serve",
            "--port",
            str(port),
            "--database",
            self.database,
            "--log-level",
            "warning",
        ]
        if cluster:
            command += ["--cluster", self.redis, "--advertise", f"http://127.0.0.1:{port}"]
        with log.open("wb") as out:
            process = subprocess.Popen(
                command,
                env={**os.environ, **NODE_ENV, **self.env},
                stdout=out,
                stderr=subprocess.STDOUT,
                preexec_fn=raise_open_files,
            )
        node = Node(port, process, log, cluster)
        self.nodes.append(node)
        if self.quotas:  # at once, so that only the node is in it (the driver stays out)
            try:
                node.cgroup = self.quotas.confine(
                    process.pid, f"node-{port}", self.quota_cores, self.quota_weight
                )
            except BaseException:
                node.kill()
                raise
        deadline = time.monotonic() + 60
        async with httpx.AsyncClient() as http:
            while True:
                with contextlib.suppress(httpx.HTTPError):
                    if (await http.get(f"{node.base}/healthz", timeout=2)).status_code == 200:
                        return node
                if process.poll() is not None or time.monotonic() > deadline:
                    node.kill()
                    raise RuntimeError(f"a node did not start:\n{log.read_text()}")
                await asyncio.sleep(0.05)


@contextlib.asynccontextmanager
async def site(
    env: dict[str, str] | None = None,
    quotas: CpuQuotas | None = None,
    quota_cores: float = 0.0,
    quota_weight: float = 1.0,
) -> AsyncIterator[Site]:
    """A throwaway Redis and PostgreSQL schema; every node started on them is killed (and
    its cgroup removed, under a quota) and the schema dropped at the end."""
    binary = shutil.which("redis-server")
    if binary is None:
        raise SystemExit("redis-server is needed (apt-get install redis-server)")
    with tempfile.TemporaryDirectory(prefix="dudo-cluster-") as name:
        directory = Path(name)
        redis = ScratchRedis(directory, binary).start()
        schema = f"bench_{secrets.token_hex(4)}"
        separator = "&" if "?" in POSTGRES else "?"
        running = Site(
            directory,
            redis.url,
            redis.pid,
            f"{POSTGRES}{separator}schema={schema}",
            dict(env or {}),
            quotas=quotas,
            quota_cores=quota_cores,
            quota_weight=quota_weight,
        )
        try:
            yield running
        finally:
            for node in running.nodes:
                node.kill()
                if node.cgroup and quotas:
                    quotas.release(node.cgroup)
            redis.stop()
            subprocess.run(
                [
                    "psql",
                    POSTGRES.replace("postgresql://", "postgres://", 1),
                    "-q",
                    "-c",
                    f'DROP SCHEMA IF EXISTS "{schema}" CASCADE',
                ],
                capture_output=True,
                timeout=60,
            )


# -- CPU over a window ------------------------------------------------------------------------


@dataclass
class CpuSnapshot:
    at: float
    nodes: list[float]
    driver: float
    redis: float
    postgres: dict[int, float]
    machine: tuple[float, float]
    throttling: list[Throttling | None]

    @classmethod
    def take(cls, running: Site, nodes: list[Node]) -> CpuSnapshot:
        return cls(
            time.perf_counter(),
            [node.cpu() for node in nodes],
            time.process_time(),
            cpu_of(running.redis_pid),
            {pid: cpu_of(pid) for pid in postgres_pids()},
            machine_busy(),
            [node.cgroup.throttling() if node.cgroup else None for node in nodes],
        )

    def since(self, before: CpuSnapshot) -> dict[str, Any]:
        """Cores used between two snapshots (1.0 = one core busy all the time)."""
        elapsed = self.at - before.at
        nodes = [(a - b) / elapsed for a, b in zip(self.nodes, before.nodes, strict=True)]
        postgres = (
            sum(cpu - before.postgres.get(pid, 0.0) for pid, cpu in self.postgres.items()) / elapsed
        )
        driver = (self.driver - before.driver) / elapsed
        redis = (self.redis - before.redis) / elapsed
        machine = (self.machine[0] - before.machine[0]) / elapsed
        irq = (self.machine[1] - before.machine[1]) / elapsed
        throttled = [  # share of the CFS periods in which the node used all its quota
            a.since(b).throttled / max(a.since(b).periods, 1) if a and b else None
            for a, b in zip(self.throttling, before.throttling, strict=True)
        ]
        return {
            "throttled": throttled,
            "nodes": nodes,
            "driver": driver,
            "redis": redis,
            "postgres": postgres,
            "machine": machine,
            "irq": irq,
            "other": machine - sum(nodes) - driver - redis - postgres - irq,
        }


# -- one load ---------------------------------------------------------------------------------


@dataclass
class Seats:
    """Where a room lives and where its players connect."""

    holder: Node
    entry: Node
    code: str = ""
    tokens: list[str] = field(default_factory=list)


async def set_up(
    plan: list[Seats], steady: bool, stats: Stats
) -> tuple[list[RoomDriver], list[asyncio.Task[None]]]:
    """Rooms created on their holders (create + 3 joins), 4 sockets each through their
    entry node, the seat token as a subprotocol (the way browsers send it)."""
    from websockets.asyncio.client import connect

    began = time.perf_counter()
    drivers = [RoomDriver(i, "dudo", steady, stats) for i in range(len(plan))]
    # 8 requests at a time per node: httpx's pool costs the driver far more CPU per
    # request with many connections (5.9 ms a request at 64, 1.6 ms at 8).
    gates = {seats.holder.port: asyncio.Semaphore(8) for seats in plan}
    async with httpx.AsyncClient(
        timeout=60, limits=httpx.Limits(max_connections=8 * len(gates))
    ) as http:

        async def make(seats: Seats) -> None:
            async with gates[seats.holder.port]:
                made = (
                    await http.post(
                        f"{seats.holder.base}/api/rooms", json={"name": "p0", "seats": 4}
                    )
                ).json()
                seats.code, seats.tokens = made["code"], [made["token"]]
                for seat in range(1, 4):
                    joined = (
                        await http.post(
                            f"{seats.holder.base}/api/rooms/{seats.code}/join",
                            json={"name": f"p{seat}"},
                        )
                    ).json()
                    seats.tokens.append(joined["token"])

        await asyncio.gather(*(make(seats) for seats in plan))

    tasks: list[asyncio.Task[None]] = []
    firsts: list[asyncio.Future[None]] = []
    gate = asyncio.Semaphore(100)

    async def join(room: RoomDriver, seats: Seats, seat: int) -> None:
        async with gate:
            room.sockets[seat] = await connect(
                f"ws://127.0.0.1:{seats.entry.port}/ws/{seats.code}",
                subprotocols=["dudo.v1", f"token.{seats.tokens[seat]}"],  # type: ignore[list-item]
                max_size=2**22,
                open_timeout=60,
                ping_interval=None,
                compression=None,
            )
        first: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        firsts.append(first)
        tasks.append(asyncio.create_task(reader(room, seat, first)))

    made = time.perf_counter()
    await asyncio.gather(
        *(
            join(room, seats, seat)
            for room, seats in zip(drivers, plan, strict=True)
            for seat in range(4)
        )
    )
    await asyncio.wait_for(asyncio.gather(*firsts), 120)
    print(
        f"#   set up {len(plan)} rooms: HTTP {made - began:.1f} s, sockets "
        f"{time.perf_counter() - made:.1f} s",
        file=sys.stderr,
        flush=True,
    )
    return drivers, tasks


async def run_load(
    name: str,
    *,
    nodes: int,
    cluster: bool,
    load: str,
    rooms: int,
    relayed: bool,
    args: argparse.Namespace,
    quotas: CpuQuotas | None = None,
) -> dict[str, Any]:
    """One load on fresh nodes, a fresh Redis and a fresh schema; with ``quotas``, each
    node under a CPU quota of ``args.cpu_quota`` cores."""
    steady = load == "steady"
    warmup = args.warmup_steady if steady else args.warmup
    window = args.window_steady if steady else args.window_saturation
    loadavg = os.getloadavg()
    gc.set_threshold(50_000, 20, 100)
    async with site(
        quotas=quotas, quota_cores=args.cpu_quota, quota_weight=args.quota_weight
    ) as running:
        started = [await running.start_node(cluster) for _ in range(nodes)]
        plan = [Seats(started[i % nodes], started[(i + relayed) % nodes]) for i in range(rooms)]
        stats = Stats()
        tasks: list[asyncio.Task[None]] = []
        try:
            set_up_started = time.perf_counter()
            drivers, tasks = await set_up(plan, steady, stats)
            set_up_time = time.perf_counter() - set_up_started
            gc.collect()
            gc.freeze()  # as bench/load.py: the driver's own collections are not latency
            begin(drivers, steady)
            await asyncio.sleep(warmup)
            before = CpuSnapshot.take(running, started)
            errors0 = sum(stats.errors.values())
            window_started = time.perf_counter()
            stats.measuring = True
            await asyncio.sleep(window)
            stats.measuring = False
            elapsed = time.perf_counter() - window_started
            cpu = CpuSnapshot.take(running, started).since(before)
            gc.unfreeze()
            rss = [node.rss_mb() for node in started]
            metrics = [await node.metrics() for node in started]
            stats.stopping = True
            complaints = running.complaints()
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
    rate = stats.completed / elapsed
    return {
        "name": name,
        "nodes": nodes,
        "cluster": cluster,
        "load": load,
        "rooms": rooms,
        "relayed": relayed,
        "cpu_quota": args.cpu_quota if quotas else None,
        "quota_weight": args.quota_weight if quotas else None,
        "sockets": 4 * rooms,
        "set_up_seconds": round(set_up_time, 1),
        "window_seconds": round(elapsed, 2),
        "loadavg_before": loadavg,
        "actions_per_second": rate,
        "p50_ms": percentile(stats.latencies, 0.50) * 1000,
        "p99_ms": percentile(stats.latencies, 0.99) * 1000,
        "max_ms": max(stats.latencies, default=float("nan")) * 1000,
        "cpu": cpu,
        "nodes_cpu": sum(cpu["nodes"]),
        "cpu_ms_per_action": 1000 * sum(cpu["nodes"]) / max(rate, 1e-9),
        # everything this benchmark runs (nodes, driver, PostgreSQL, Redis, interrupts)
        "all_ms_per_action": 1000 * (cpu["machine"] - cpu["other"]) / max(rate, 1e-9),
        "rss_mb": rss,
        "relayed_sockets": [m.get("dudo_relayed_sockets") for m in metrics],
        "rooms_held": [m.get("dudo_rooms") for m in metrics],
        "leases_lost": [m.get("dudo_node_leases_lost_total") for m in metrics],
        "errors": sum(stats.errors.values()) - errors0,
        "error_codes": dict(stats.errors),
        "node_log_complaints": complaints,
    }


# -- takeover after kill -9 ---------------------------------------------------------------------


async def reconnect(
    entry: Node, seats: Seats, seat: int, killed: float, pause: float, give_up: float = 60.0
) -> dict[str, Any]:
    """Connect seat ``seat`` through ``entry`` until the room's state arrives: the time
    from the kill, the state's version, and the attempts it took."""
    from websockets.asyncio.client import connect

    attempts = 0
    refusals: dict[str, int] = {}
    url = f"ws://127.0.0.1:{entry.port}/ws/{seats.code}"
    while time.perf_counter() - killed < give_up:
        attempts += 1
        with contextlib.suppress(Exception):
            offered: Any = ["dudo.v1", f"token.{seats.tokens[seat]}"]
            async with connect(
                url, subprotocols=offered, open_timeout=10, ping_interval=None, compression=None
            ) as ws:
                async for text in ws:
                    message = orjson.loads(text)
                    if message.get("type") == "state":
                        return {
                            "seconds": time.perf_counter() - killed,
                            "version": message["version"],
                            "attempts": attempts,
                            "refusals": refusals,
                        }
                    if message.get("type") == "error":
                        refusals[message["code"]] = refusals.get(message["code"], 0) + 1
        await asyncio.sleep(pause)
    return {"seconds": None, "version": None, "attempts": attempts, "refusals": refusals}


async def takeover(label: str, env: dict[str, str], args: argparse.Namespace) -> dict[str, Any]:
    """``args.trials`` kills of a node holding ``args.takeover_rooms`` rooms in play."""
    rng = random.Random(12)
    trials: list[dict[str, Any]] = []
    loadavg = os.getloadavg()
    async with site(env) as running:
        survivor = await running.start_node()
        for trial in range(args.trials):
            victim = await running.start_node()
            plan = [Seats(victim, victim) for _ in range(args.takeover_rooms)]
            stats = Stats()
            drivers, tasks = await set_up(plan, False, stats)
            begin(drivers, False)  # as fast as the protocol allows: the kill is mid-round
            await asyncio.sleep(rng.uniform(1.0, 2.0))  # and at any point of the renewals
            victim.process.send_signal(signal.SIGKILL)
            killed = time.perf_counter()
            stats.stopping = True
            found = await asyncio.gather(
                *(reconnect(survivor, seats, 0, killed, 0.05) for seats in plan),
                *(reconnect(survivor, seats, 1, killed, 0.3) for seats in plan),
            )
            victim.process.wait(timeout=30)
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            for room in drivers:
                for socket_ in room.sockets:
                    with contextlib.suppress(Exception):
                        await socket_.close()
            seen = [
                max((s["version"] for s in room.last_state if s), default=-1) for room in drivers
            ]
            tight, browser = found[: len(plan)], found[len(plan) :]
            lost = sum(
                1
                for got, last in zip(tight + browser, seen + seen, strict=True)
                if got["version"] is None or got["version"] < last
            )
            trials.append(
                {
                    "tight_seconds": [got["seconds"] for got in tight],
                    "browser_seconds": [got["seconds"] for got in browser],
                    "tight_attempts": [got["attempts"] for got in tight],
                    "refusals": [got["refusals"] for got in tight],
                    "behind": lost,
                    "actions_before_kill": stats.sent,
                }
            )
            times = [t for t in trials[-1]["tight_seconds"] if t is not None]
            print(
                f"#   {label} trial {trial + 1}: all {len(plan)} rooms back after "
                f"{max(times, default=float('nan')):.2f} s (seat reconnecting every "
                f"50 ms), behind: {lost}",
                file=sys.stderr,
                flush=True,
            )
        complaints = running.complaints()

    def figures(key: str) -> dict[str, float]:
        nan = float("nan")
        first = [min((s for s in t[key] if s is not None), default=nan) for t in trials]
        last = [max((s for s in t[key] if s is not None), default=nan) for t in trials]
        every = [s for t in trials for s in t[key] if s is not None]
        return {
            "first_p50": percentile(first, 0.5),
            "first_max": max(first),
            "all_p50": percentile(last, 0.5),
            "all_max": max(last),
            "room_p50": percentile(every, 0.5),
            "room_max": max(every),
            "never": sum(1 for t in trials for s in t[key] if s is None),
        }

    return {
        "name": label,
        "env": env,
        "trials": len(trials),
        "rooms_per_trial": args.takeover_rooms,
        "loadavg_before": loadavg,
        "tight": figures("tight_seconds"),
        "browser": figures("browser_seconds"),
        "behind": sum(t["behind"] for t in trials),
        "node_log_complaints": complaints,
        "detail": trials,
    }


# -- the run ------------------------------------------------------------------------------------


def cores(value: float) -> str:
    return f"{value:.2f}"


def show(results: list[dict[str, Any]]) -> None:
    loads = [r for r in results if "load" in r]
    for r in loads:  # (JSON of earlier versions)
        r.setdefault(
            "all_ms_per_action",
            1000 * (r["cpu"]["machine"] - r["cpu"]["other"]) / max(r["actions_per_second"], 1e-9),
        )
    if loads:
        header = (
            f"{'load':24} {'rooms':>5} {'act/s':>6} {'p50 ms':>7} {'p99 ms':>7} "
            f"{'max ms':>7} {'nodes CPU':>11} {'ms/act':>6} {'all':>5} {'driver':>6} "
            f"{'pg':>5} {'redis':>5} {'irq':>5} {'other':>5} {'busy':>5} {'RSS MB':>9} "
            f"{'relayed':>11} {'err':>4} {'load avg':>8}"
        )
        print(header)
        print("-" * len(header))
        for r in loads:
            cpu = r["cpu"]
            nodes = "+".join(f"{c:.2f}" for c in cpu["nodes"])
            rss = "+".join(f"{m:.0f}" for m in r["rss_mb"])
            relayed = "+".join("-" if s is None else f"{s:.0f}" for s in r["relayed_sockets"])
            print(
                f"{r['name']:24} {r['rooms']:5d} {r['actions_per_second']:6.0f} "
                f"{r['p50_ms']:7.1f} {r['p99_ms']:7.1f} {r['max_ms']:7.0f} {nodes:>11} "
                f"{r['cpu_ms_per_action']:6.2f} {r['all_ms_per_action']:5.2f} "
                f"{cores(cpu['driver']):>6} "
                f"{cores(cpu['postgres']):>5} {cores(cpu['redis']):>5} "
                f"{cores(cpu.get('irq', 0.0)):>5} "
                f"{cores(cpu['other']):>5} {cores(cpu['machine']):>5} {rss:>9} "
                f"{relayed:>11} {r['errors']:4d} {r['loadavg_before'][0]:8.2f}"
            )
        print(
            "(CPU in cores, 1.00 = one core busy. 'nodes CPU' per node; 'ms/act' all nodes'\n"
            " CPU per action; 'all' the same for everything the benchmark runs: nodes,\n"
            " driver, PostgreSQL, Redis, interrupts; 'pg' all PostgreSQL processes; 'irq' the\n"
            " machine's interrupts (mostly loopback networking); 'other' the machine's busy\n"
            " CPU not accounted for (other users); 'busy' of 2 cores; 'relayed' sockets each\n"
            " node relayed; 'load avg' 1-minute, before the load)"
        )
        named = {r["name"]: r for r in loads}
        print()
        rounds = sorted(
            {r["name"].partition(" #")[2] for r in loads if r["name"].startswith("saturation")}
        )
        for round_ in rounds:
            tag = f" #{round_}" if round_ else ""
            plain = named.get("saturation plain" + tag)
            one, two = named.get("saturation 1 node" + tag), named.get("saturation 2 nodes" + tag)
            for row in (plain, one, two):
                if row:
                    cpus = os.cpu_count() or 1
                    print(
                        f"{row['name']}: {row['cpu']['other']:.2f} cores taken by other "
                        f"users; this machine's ceiling with the driver on it: {cpus} cores / "
                        f"{row['all_ms_per_action']:.2f} ms = "
                        f"{1000 * cpus / row['all_ms_per_action']:.0f} actions/s"
                    )
            if one and two:
                ratio = two["actions_per_second"] / one["actions_per_second"]
                print(
                    f"saturation{tag}, 2 nodes / 1 node: actions/s x{ratio:.2f}, CPU per "
                    f"action x{two['cpu_ms_per_action'] / one['cpu_ms_per_action']:.2f}"
                )
            if plain and one:
                cost = one["cpu_ms_per_action"] / plain["cpu_ms_per_action"]
                print(
                    f"saturation{tag}, cluster node / plain node: actions/s "
                    f"x{one['actions_per_second'] / plain['actions_per_second']:.2f}, "
                    f"CPU per action x{cost:.2f}"
                )
        show_quota([r for r in loads if r.get("cpu_quota")])
        for a, b in (
            ("steady plain", "steady 1 node"),
            ("steady 2 nodes direct", "steady 2 nodes relayed"),
        ):
            if a in named and b in named:
                x, y = named[a], named[b]
                cost, base = y["cpu_ms_per_action"], x["cpu_ms_per_action"]
                print(
                    f"{b} / {a}: CPU per action x{cost / base:.2f} ({cost - base:+.2f} ms), "
                    f"p50 {x['p50_ms']:.1f} -> {y['p50_ms']:.1f} ms, "
                    f"p99 {x['p99_ms']:.1f} -> {y['p99_ms']:.1f} ms"
                )
    for r in results:
        lost = [n for n in r.get("leases_lost") or [] if n]
        if lost:
            print(
                f"{r['name']}: leases lost (the node let all its rooms go): "
                f"{'+'.join(f'{n:.0f}' for n in r['leases_lost'] if n is not None)}; rooms "
                f"held at the end {'+'.join(f'{n:.0f}' for n in r['rooms_held'])} of "
                f"{r['rooms']}"
            )
        said = r.get("node_log_complaints") or []
        if said:
            print(
                f"{r['name']}: the nodes logged {len(said)} lines, first: "
                + " | ".join(line[:300] for line in said[:3])
            )
    for r in results:
        if "tight" not in r:
            continue
        print()
        print(
            f"takeover, {r['name']} ({r['trials']} kills of a node holding "
            f"{r['rooms_per_trial']} rooms in play; seconds from kill -9 to the room's "
            f"state through the survivor):"
        )
        for key, what in (
            ("tight", "seat retrying every 50 ms"),
            ("browser", "seat retrying every 300 ms (the browser)"),
        ):
            f = r[key]
            print(
                f"  {what:42} first room p50 {f['first_p50']:.2f} max {f['first_max']:.2f}; "
                f"every room p50 {f['room_p50']:.2f} max {f['room_max']:.2f}; "
                f"last room of a kill p50 {f['all_p50']:.2f} max {f['all_max']:.2f}"
                + (f"; never back: {f['never']}" if f["never"] else "")
            )
        print(f"  states older than one seen before the kill: {r['behind']}")


def show_quota(rows: list[dict[str, Any]]) -> None:
    """N nodes under a CPU quota each against the fewest nodes of the same round."""
    rounds: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        rounds.setdefault(row["name"].partition(" #")[2], []).append(row)
    ratios: dict[int, list[float]] = {}
    for tag, found in sorted(rounds.items()):
        found.sort(key=lambda r: r["nodes"])
        base = found[0]
        print()
        print(
            f"quota{f' #{tag}' if tag else ''}: each node under a quota of "
            f"{base['cpu_quota']:g} core"
            + (
                f" and {base['quota_weight']:g} x the default CPU weight (the driver too)"
                if base.get("quota_weight", 1.0) != 1.0
                else ""
            )
            + f", {base['rooms'] // base['nodes']} rooms per node, "
            f"against {base['nodes']} node{'s' if base['nodes'] > 1 else ''}:"
        )
        for row in found:
            scale = row["nodes"] / base["nodes"]
            ratio = row["actions_per_second"] / base["actions_per_second"]
            ratios.setdefault(row["nodes"], []).append(ratio)
            cpu = row["cpu"]
            # the same per core the nodes got: below the quota, a node was short of CPU
            per_core = (row["actions_per_second"] / sum(cpu["nodes"])) / (
                base["actions_per_second"] / sum(base["cpu"]["nodes"])
            )
            shares = [t for t in cpu.get("throttled") or [] if t is not None]
            print(
                f"  {row['nodes']} node{'s' if row['nodes'] > 1 else ' '} "
                f"{row['actions_per_second']:6.0f} actions/s  x{ratio:.2f} "
                f"(aim x{0.9 * scale:.2f}: {'met' if ratio >= 0.9 * scale else 'NOT met'}), "
                f"per core the nodes got x{per_core:.2f}; "
                f"nodes CPU {'+'.join(f'{c:.2f}' for c in cpu['nodes'])} (most "
                f"{max(cpu['nodes']):.2f}, least {min(cpu['nodes']):.2f}), throttled in "
                f"{100 * min(shares, default=float('nan')):.0f}% or more of the periods; "
                f"driver {cpu['driver']:.2f}, busy {cpu['machine']:.2f} of "
                f"{os.cpu_count()}, other {cpu['other']:.2f}, load avg "
                f"{row['loadavg_before'][0]:.2f}"
            )
    if len(rounds) > 1:
        print(
            "  ratios over the rounds: "
            + "; ".join(
                f"{n} nodes " + " ".join(f"x{r:.2f}" for r in found)
                for n, found in sorted(ratios.items())
            )
        )


async def main(args: argparse.Namespace, quotas: CpuQuotas | None) -> list[dict[str, Any]]:
    results: list[dict[str, Any]] = []
    # SIGTERM as Ctrl-C: the run is cancelled, so the nodes, Redis, the schema and the
    # cgroups are cleaned up (a handler that raised would land in whatever callback runs)
    running = asyncio.current_task()
    assert running is not None
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, running.cancel)

    async def step(coro: Any) -> None:
        result = await coro
        print(
            f"#   {json.dumps({k: v for k, v in result.items() if k != 'detail'})}",
            file=sys.stderr,
            flush=True,
        )
        results.append(result)
        if args.json:  # as it goes: a late failure keeps what was measured
            Path(args.json).write_text(json.dumps(results, indent=1))

    def say(what: str) -> None:
        print(f"# {what} (load average {os.getloadavg()[0]:.2f}) ...", file=sys.stderr, flush=True)

    parts = args.only
    n = args.saturation_rooms
    if "saturation" in parts:
        for round_ in range(1, args.rounds + 1):  # alternated: the machine's load drifts
            for name, nodes, cluster in (
                ("saturation plain", 1, False),
                ("saturation 1 node", 1, True),
                ("saturation 2 nodes", 2, True),
            ):
                name += f" #{round_}" if args.rounds > 1 else ""
                say(name)
                await step(
                    run_load(
                        name,
                        nodes=nodes,
                        cluster=cluster,
                        load="saturation",
                        rooms=n,
                        relayed=False,
                        args=args,
                    )
                )
    if "cost" in parts:
        for name, cluster in (("steady plain", False), ("steady 1 node", True)):
            say(name)
            await step(
                run_load(
                    name,
                    nodes=1,
                    cluster=cluster,
                    load="steady",
                    rooms=args.steady,
                    relayed=False,
                    args=args,
                )
            )
    if "relay" in parts:
        for name, relayed in (("steady 2 nodes direct", False), ("steady 2 nodes relayed", True)):
            say(name)
            await step(
                run_load(
                    name,
                    nodes=2,
                    cluster=True,
                    load="steady",
                    rooms=args.steady,
                    relayed=relayed,
                    args=args,
                )
            )
    if "large" in parts:
        say("steady 2 nodes, large")
        await step(
            run_load(
                "steady 2 nodes large",
                nodes=2,
                cluster=True,
                load="steady",
                rooms=args.large,
                relayed=False,
                args=args,
            )
        )
    if "takeover" in parts:
        short = {"DUDO_LEASE": str(args.short_lease), "DUDO_RENEW_EVERY": str(args.short_renew)}
        for label, env in (
            ("default lease 3 s, renewed every 1 s", {}),
            (f"lease {args.short_lease:g} s, renewed every {args.short_renew:g} s", short),
        ):
            say(f"takeover, {label}")
            await step(takeover(label, env, args))
    if "quota" in parts:
        assert quotas is not None
        if args.quota_weight != 1.0:  # the driver weighed like the nodes, but no quota
            quotas.confine(os.getpid(), "driver", None, args.quota_weight)
        for round_ in range(1, args.quota_rounds + 1):
            # alternated, 1 2 4 then 4 2 1: a drift of the machine's load over the run
            # weighs on every N alike
            order = args.quota_nodes if round_ % 2 else args.quota_nodes[::-1]
            for nodes in order:
                name = f"quota {nodes} node{'s' if nodes > 1 else ''}"
                name += f" #{round_}" if args.quota_rounds > 1 else ""
                say(f"{name}, {args.cpu_quota:g} core each")
                await step(
                    run_load(
                        name,
                        nodes=nodes,
                        cluster=True,
                        load="saturation",
                        rooms=args.quota_rooms * nodes,
                        relayed=False,
                        args=args,
                        quotas=quotas,
                    )
                )
    return results


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Benchmark of the dudo cluster (issue 12).")
    parser.add_argument("--quick", action="store_true", help="a small, short run")
    parser.add_argument(
        "--only",
        nargs="+",
        choices=["saturation", "cost", "relay", "large", "takeover", "quota"],
        default=["saturation", "cost", "relay", "large", "takeover"],
        help="parts to run; quota (each node under a CPU quota: root and cgroups needed) "
        "runs only when named",
    )
    parser.add_argument(
        "--cpu-quota",
        type=float,
        default=0.2,
        metavar="CORES",
        help="the quota part's CPU quota of each node, in cores (default 0.2: 4 nodes fit "
        "on 2 cores beside the driver, PostgreSQL and Redis)",
    )
    parser.add_argument(
        "--quota-nodes",
        default="1,2,4",
        help="the quota part's node counts, compared with the first (default 1,2,4)",
    )
    parser.add_argument(
        "--quota-weight",
        type=float,
        default=1.0,
        metavar="TIMES",
        help="on a machine shared with other work, give each node's cgroup, and one without "
        "a quota for the driver (this process, and the Redis it starts), this many times the "
        "default CPU weight, so that they get their share first (default 1: no favour)",
    )
    parser.add_argument(
        "--quota-rooms", type=int, help="the quota part's rooms per node (saturation load)"
    )
    parser.add_argument(
        "--quota-rounds", type=int, help="the quota part's loads, each this often, alternated"
    )
    parser.add_argument("--saturation-rooms", type=int)
    parser.add_argument(
        "--rounds", type=int, help="saturation loads, each one this often, alternated"
    )
    parser.add_argument("--steady", type=int, help="rooms of the cost and relay loads")
    parser.add_argument("--large", type=int, help="rooms of the large load over 2 nodes")
    parser.add_argument("--warmup", type=float)
    parser.add_argument("--warmup-steady", type=float)
    parser.add_argument("--window-saturation", type=float)
    parser.add_argument("--window-steady", type=float)
    parser.add_argument("--trials", type=int, help="kills per lease setting")
    parser.add_argument("--takeover-rooms", type=int, help="rooms on the node killed")
    parser.add_argument("--short-lease", type=float, default=1.5)
    parser.add_argument("--short-renew", type=float, default=0.5)
    parser.add_argument(
        "--hogs",
        type=int,
        default=0,
        help="busy-loop processes kept running for the whole run, to "
        "overload the machine (they show as 'other'): does a node "
        "whose event loop falls seconds behind keep its lease?",
    )
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    args = parser.parse_args(argv)
    if args.hogs < 0:
        parser.error("--hogs must be 0 or more")
    try:
        args.quota_nodes = [int(n) for n in args.quota_nodes.split(",")]
    except ValueError:
        parser.error("--quota-nodes takes node counts separated by commas, e.g. 1,2,4")
    if min(args.quota_nodes) < 1:
        parser.error("--quota-nodes: every count must be 1 or more")
    if not 0.01 <= args.cpu_quota <= (os.cpu_count() or 1):
        parser.error(f"--cpu-quota must be 0.01 to {os.cpu_count()} cores")
    quick = args.quick
    args.quota_rooms = args.quota_rooms or (40 if quick else 100)
    args.quota_rounds = args.quota_rounds or (1 if quick else 2)
    args.saturation_rooms = args.saturation_rooms or (60 if quick else 300)
    args.rounds = args.rounds or (1 if quick else 2)
    args.steady = args.steady or (200 if quick else 1000)
    args.large = args.large or (400 if quick else 2000)
    args.warmup = args.warmup if args.warmup is not None else (2.0 if quick else 4.0)
    if args.warmup_steady is None:
        args.warmup_steady = 3.0 if quick else 8.0
    args.window_saturation = args.window_saturation or (4.0 if quick else 10.0)
    args.window_steady = args.window_steady or (5.0 if quick else 12.0)
    args.trials = args.trials or (3 if quick else 10)
    args.takeover_rooms = args.takeover_rooms or (5 if quick else 10)
    return args


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "_show":  # the tables again, from --json output
        show(json.loads(Path(sys.argv[2]).read_text()))
        sys.exit(0)
    arguments = parse(sys.argv[1:])
    raise_open_files()
    runner: Any = asyncio.run
    with contextlib.suppress(ImportError):
        import uvloop

        runner = uvloop.run

    quotas = None
    if "quota" in arguments.only:
        try:  # every reason a quota cannot be set shows here, before anything starts
            quotas = CpuQuotas(Path(os.environ.get("DUDO_BENCH_CGROUPS", CGROUP_ROOT))).open()
        except QuotaUnavailable as error:
            print(f"bench/cluster.py --only quota: {error}", file=sys.stderr)
            sys.exit(2)
    began = time.time()
    load_before = os.getloadavg()
    hogs = [
        subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(arguments.hogs)
    ]
    try:
        found = runner(main(arguments, quotas))
    except (KeyboardInterrupt, asyncio.CancelledError):  # Ctrl-C or SIGTERM, cleaned up
        print("bench/cluster.py: interrupted", file=sys.stderr)
        sys.exit(130)
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
        if quotas:  # also after an error or Ctrl-C: no cgroup is left behind
            quotas.close()
    load_after = os.getloadavg()
    print(
        f"\ndudo cluster benchmark, {time.strftime('%Y-%m-%d %H:%M', time.gmtime(began))} "
        f"UTC, {time.time() - began:.0f} s, {os.cpu_count()} CPUs, Python "
        f"{sys.version.split()[0]}, load average before "
        f"{' '.join(f'{x:.2f}' for x in load_before)}, after "
        f"{' '.join(f'{x:.2f}' for x in load_after)}, "
        f"command: python bench/cluster.py {' '.join(sys.argv[1:])}"
    )
    show(found)
    if arguments.json:
        Path(arguments.json).write_text(json.dumps(found, indent=1))
