"""Benchmark: the dudo server under load, next to a bare WebSocket relay (the floor).

What it measures
    The server (``dudo serve`` on SQLite, the real process) is driven from this process by
    many WebSocket clients: rooms of 4 players, no bots. The figures:

    saturation
        The most actions per second the server applies, stores and broadcasts, with every
        room acting as fast as the protocol allows (each socket keeps under the server's
        rate limit of 8 messages a second, so a room makes at most ~30 actions a second).
        An action counts when the last of the room's 4 sockets has the state it produced.
    steady load
        Each room makes one action a second, at 100, 1,000 and 2,000 concurrent rooms:
        the 50th and 99th percentile of the time from sending an action to the last of the
        4 seats receiving the state with the new version, and the server's memory (VmRSS
        of its process, /proc/PID/status; VmHWM is the peak).

    departures
        After the largest steady dudo load, every other room's 4 sockets close at once while
        the other rooms play on for 6 s: the latency of the rooms that stayed, and whether
        the server's collector ran a reclaim (a full collection) and how long it took
        (its /metrics). ``--no-departures`` skips it.

    The same two loads run, in the same run, against bench/relay_app.py: a minimal Starlette
    app under the same uvicorn settings that only relays each message to the other 3
    sockets of its room. Our figures are also given as ratios to it.

    Also reported: CPU used by the server process (all its threads; 100% = one core), by
    this driver, log entries stored per second (/metrics), errors received, and the garbage
    collector's pauses inside the server (collections of the oldest generation and the
    longest pause), measured with ``gc.callbacks`` by a wrapper that then runs the
    unchanged ``dudo serve``.

How
    Rooms are made through the HTTP API (create + 3 joins) and the host's ``start``; after
    that every seat answers the states it receives: the seat whose turn it is makes one of
    the three lowest legal bids (from ``game.legal.bids`` of its state), or calls dudo after
    2 to 6 bids; seat 0 asks for a rematch when a game ends. Every action carries an ``id``
    and the ``version`` it was decided on. The server runs with zero bot, seed-window and
    reveal pauses (DUDO_*), so rooms are never waiting on a clock. Each load: set up, warm
    up, then a measured window; a fresh server (and database) per load.

    ``--gc python`` runs the server with Python's collector left as it is (``DUDO_GC=python``
    instead of the server's clock-driven policy, src/dudo/server/collector.py),
    ``--gc-compare`` runs the saturation and largest steady load both ways. With
    ``DUDO_GC_LOG=FILE`` the wrapper also writes one line per collection (generation, wall
    and CPU time, objects found, counts) and now and then what the young generation holds.
    ``DUDO_LOAD_TRACE=FILE`` writes every measured action's send time and latency (JSON),
    to see whether a tail is spread out or comes in bursts.
    ``--profile FILE`` records the server with py-spy during the saturation
    window (raw collapsed stacks; install py-spy first).

    python bench/load.py            # the full run (about 8 minutes)
    python bench/load.py --quick    # a small run (about 1 minute)

Why
    The issue asks what one process can carry, and where its time goes, before anyone
    reaches for several processes and Redis.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import gc
import json
import os
import random
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from ports import free_port  # bench/ports.py, next to this file

HERE = Path(__file__).resolve().parent
CLK_TCK = os.sysconf("SC_CLK_TCK")
SOCKET_RATE, SOCKET_BURST = 7.5, 20.0  # the server allows 8/s, bursts of 24


def raise_open_files() -> int:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return hard


# -- the server, wrapped to watch its garbage collector ------------------------------------


def serve_instrumented(argv: list[str]) -> None:
    """``load.py _serve GC_MODE STATS_FILE -- dudo serve args``: count GC pauses, then run
    the unchanged ``dudo serve``."""
    stats_file = argv[1]  # argv[0], the collector mode, reaches the server as DUDO_GC
    raise_open_files()
    stats: dict[int, list[float]] = {0: [0, 0.0, 0.0], 1: [0, 0.0, 0.0], 2: [0, 0.0, 0.0]}
    started = [0.0]

    probe = os.environ.get("DUDO_GC_LOG")
    probe_file = open(probe, "a") if probe else None  # noqa: SIM115
    counts = [(0, 0, 0)]
    cpu_started = [0.0]
    last_histogram = [time.time() + 30]

    def watch(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            if probe_file is not None:
                counts[0] = gc.get_count()
                if info["generation"] == 0 and time.time() - last_histogram[0] > 5:
                    young = gc.get_objects(generation=0)
                    kinds = collections.Counter(type(o).__qualname__ for o in young)
                    probe_file.write(f"young list {len(young)}: {kinds.most_common(40)}\n")
                    del young, kinds
                    last_histogram[0] = time.time()
                cpu_started[0] = time.thread_time()
            started[0] = time.perf_counter()
        else:
            pause = time.perf_counter() - started[0]
            if probe_file is not None:
                cpu = time.thread_time() - cpu_started[0]
                probe_file.write(
                    f"{time.time():.3f} gen={info['generation']} "
                    f"wall={pause * 1000:.1f}ms cpu={cpu * 1000:.1f}ms "
                    f"collected={info['collected']} counts={counts[0]}\n"
                )
                probe_file.flush()
            entry = stats[info["generation"]]
            entry[0] += 1
            entry[1] += pause
            entry[2] = max(entry[2], pause)

    gc.callbacks.append(watch)

    def dump() -> None:
        reset = Path(stats_file + ".reset")
        while True:
            time.sleep(0.25)
            if reset.exists():  # the driver starts a window: longest pauses from now on
                for entry in stats.values():
                    entry[2] = 0.0
                reset.unlink()
            with contextlib.suppress(Exception):
                text = json.dumps({str(k): list(v) for k, v in list(stats.items())})
                Path(stats_file + ".tmp").write_text(text)
                os.replace(stats_file + ".tmp", stats_file)

    threading.Thread(target=dump, daemon=True).start()
    from dudo.cli import app

    sys.argv = ["dudo", *argv[3:]]
    app()


@dataclass
class Server:
    kind: str  # "dudo" or "relay"
    workdir: Path
    gc_mode: str = "clock"
    port: int = 0
    process: subprocess.Popen[bytes] | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def gc_file(self) -> Path:
        return self.workdir / "gc.json"

    async def start(self) -> None:
        import httpx

        self.port = free_port()
        log = open(self.workdir / f"{self.kind}.log", "wb")  # noqa: SIM115
        # Every simulated player comes from this one address: the per-address limits
        # (sockets, connections, messages, rooms) are lifted; per-seat ones stay.
        env = {
            **os.environ,
            "DUDO_BOT_DELAY": "0",
            "DUDO_REVEAL_PAUSE": "0",
            "DUDO_SEED_WINDOW": "0",
            "DUDO_GC": self.gc_mode,
            "DUDO_SOCKETS_PER_ADDRESS": "1000000",
            "DUDO_CONNECT_BURST": "1000000",
            "DUDO_ACCEPT_BURST": "1000000",
            "DUDO_ADDRESS_MESSAGE_BURST": "100000000",
            "DUDO_CREATION_BURST": "1000000",
            "DUDO_MAX_LOBBIES": "100000",
        }
        if self.kind == "dudo":
            # DUDO_BENCH_WRAPPER: another wrapper with load.py's _serve arguments (diagnostics)
            wrapper = os.environ.get("DUDO_BENCH_WRAPPER", str(Path(__file__).resolve()))
            command = [
                sys.executable,
                wrapper,
                *([] if "DUDO_BENCH_WRAPPER" in os.environ else ["_serve"]),
                self.gc_mode,
                str(self.gc_file),
                "--",
                "serve",
                "--port",
                str(self.port),
                "--database",
                f"sqlite:///{self.workdir / 'load.db'}",
                "--log-level",
                "warning",
            ]
        else:
            command = [sys.executable, str(HERE / "relay_app.py"), "--port", str(self.port)]
        self.process = subprocess.Popen(
            command, env=env, stdout=log, stderr=subprocess.STDOUT, preexec_fn=raise_open_files
        )
        deadline = time.monotonic() + 30
        async with httpx.AsyncClient() as http:
            while True:
                with contextlib.suppress(httpx.HTTPError):
                    if (await http.get(f"{self.base}/healthz", timeout=1)).status_code == 200:
                        return
                if self.process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(
                        f"the {self.kind} server did not start: "
                        + (self.workdir / f"{self.kind}.log").read_text()
                    )
                await asyncio.sleep(0.1)

    def memory_mb(self) -> tuple[float, float]:
        """(VmRSS, VmHWM) of the server process in MiB."""
        assert self.process is not None
        found = {}
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                found[key] = int(value.split()[0]) / 1024
        return found["VmRSS"], found["VmHWM"]

    def cpu_seconds(self) -> float:
        assert self.process is not None
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / CLK_TCK

    def write_calls(self) -> int | None:
        """The write system calls the server process has made (``syscw`` of
        /proc/PID/io: the sockets' frames, the database's and the log's writes), or None
        where the kernel does not tell."""
        assert self.process is not None
        with contextlib.suppress(OSError, ValueError):
            for line in Path(f"/proc/{self.process.pid}/io").read_text().splitlines():
                key, _, value = line.partition(":")
                if key == "syscw":
                    return int(value)
        return None

    def reset_gc_maxima(self) -> None:
        Path(str(self.gc_file) + ".reset").touch()

    def gc_stats(self) -> dict[str, list[float]]:
        with contextlib.suppress(OSError, ValueError):
            data: dict[str, list[float]] = json.loads(self.gc_file.read_text())
            return data
        return {}

    async def metric(self, name: str) -> float | None:
        """One figure of the server's /metrics."""
        if self.kind != "dudo":
            return None
        import httpx

        async with httpx.AsyncClient() as http:
            text = (await http.get(f"{self.base}/metrics", timeout=10)).text
        for line in text.splitlines():
            if line.startswith(name + " "):
                return float(line.split()[1])
        return None

    async def store_entries(self) -> int | None:
        entries = await self.metric("dudo_store_entries_total")
        return None if entries is None else int(entries)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=30)


# -- the driver -----------------------------------------------------------------------------


@dataclass
class Stats:
    measuring: bool = False
    stopping: bool = False
    latencies: list[float] = field(default_factory=list)
    sent_at: list[float] = field(default_factory=list)
    completed: int = 0
    sent: int = 0
    acks: int = 0
    errors: collections.Counter[str] = field(default_factory=collections.Counter)
    messages_in: int = 0


class Bucket:
    def __init__(self) -> None:
        self.tokens = SOCKET_BURST
        self.updated = time.perf_counter()

    def _refill(self, now: float) -> None:
        self.tokens = min(SOCKET_BURST, self.tokens + (now - self.updated) * SOCKET_RATE)
        self.updated = now

    def ready_at(self, now: float) -> float:
        self._refill(now)
        return now if self.tokens >= 1 else now + (1 - self.tokens) / SOCKET_RATE

    def take(self, now: float) -> None:
        self._refill(now)
        self.tokens -= 1


class RoomDriver:
    """Four sockets of one room and the little logic that keeps them playing."""

    def __init__(self, index: int, kind: str, steady: bool, stats: Stats) -> None:
        self.index = index
        self.kind = kind
        self.steady = steady
        self.stats = stats
        self.sockets: list[Any] = [None] * 4
        self.buckets = [Bucket() for _ in range(4)]
        self.last_state: list[dict[str, Any] | None] = [None] * 4
        self.acted = -1
        self.rematched = ""
        self.pending: dict[int, list[Any]] = {}
        self.next_at = 0.0
        self.rng = random.Random(index)
        self.bids_before_call = self.rng.randint(2, 6)
        self.ids = 0
        self.recipients = 4 if kind == "dudo" else 3
        self.gone = False  # the room's players have left (--departures)

    def new_id(self) -> str:
        self.ids += 1
        return f"r{self.index}-{self.ids}"

    # scheduling -------------------------------------------------------------------------
    def schedule(self, seat: int, message: dict[str, Any], target: int | None) -> None:
        loop = asyncio.get_running_loop()
        now = time.perf_counter()
        when = self.buckets[seat].ready_at(now)
        if self.steady:
            when = max(when, self.next_at)
            self.next_at = max(when, now) + 1.0
        delay = when - now
        if delay <= 0:
            self.send(seat, message, target)
        else:
            loop.call_later(delay, self.send, seat, message, target)

    def send(self, seat: int, message: dict[str, Any], target: int | None) -> None:
        if self.stats.stopping or self.gone:
            return
        now = time.perf_counter()
        self.buckets[seat].take(now)
        if target is not None:
            self.pending[target] = [now, 0]
        self.stats.sent += 1
        asyncio.get_running_loop().create_task(self._send(seat, json.dumps(message)))

    async def _send(self, seat: int, text: str) -> None:
        with contextlib.suppress(Exception):
            await self.sockets[seat].send(text)

    def arrived(self, version: int) -> None:
        """A socket has a state (or relayed message) with ``version``."""
        if not self.pending:
            return
        now = time.perf_counter()
        for target in [t for t in self.pending if t <= version]:
            entry = self.pending[target]
            entry[1] += 1
            if entry[1] == self.recipients:
                del self.pending[target]
                if self.stats.measuring:
                    self.stats.latencies.append(now - entry[0])
                    self.stats.sent_at.append(entry[0])
                    self.stats.completed += 1

    # the dudo protocol ---------------------------------------------------------------------
    def on_dudo(self, seat: int, message: dict[str, Any]) -> None:
        kind = message["type"]
        if kind == "state":
            self.last_state[seat] = message
            self.arrived(message["version"])
            self.decide(seat, message)
        elif kind == "ack":
            if self.stats.measuring:
                self.stats.acks += 1
        elif kind == "error":
            self.stats.errors[message["code"]] += 1
            self.acted = -1  # look again at the latest state, a little later
            asyncio.get_running_loop().call_later(0.25, self.retry, seat)

    def retry(self, seat: int) -> None:
        state = self.last_state[seat]
        if state is not None:
            self.decide(seat, state)

    def decide(self, seat: int, state: dict[str, Any]) -> None:
        if self.stats.stopping:
            return
        game = state["game"]
        version = state["version"]
        if game is None:
            return
        if game["phase"] == "bidding" and game["turn"] == seat and version > self.acted:
            self.acted = version
            legal = game["legal"]
            bids, calls = legal["bids"], legal["calls"]
            message: dict[str, Any]
            if "dudo" in calls and (len(game["bids"]) >= self.bids_before_call or not bids):
                message = {"type": "call", "id": self.new_id(), "call": "dudo", "version": version}
                self.bids_before_call = self.rng.randint(2, 6)
            else:
                quantity, face = bids[min(len(bids) - 1, self.rng.randrange(3))]
                message = {
                    "type": "bid",
                    "id": self.new_id(),
                    "quantity": quantity,
                    "face": face,
                    "version": version,
                }
            self.schedule(seat, message, version + 1)
        elif game["phase"] == "over" and seat == 0 and self.rematched != state["fair"]["game_id"]:
            self.rematched = state["fair"]["game_id"]
            self.schedule(seat, {"type": "rematch", "id": self.new_id()}, None)

    # the relay ------------------------------------------------------------------------------
    def on_relay(self, seat: int, message: dict[str, Any]) -> None:
        version = message["version"]
        self.arrived(version)
        if seat == (message["seat"] + 1) % 4:
            self.relay_act(seat, version)

    def relay_act(self, seat: int, version: int) -> None:
        if self.stats.stopping:
            return
        message = {
            "type": "bid",
            "id": self.new_id(),
            "quantity": 3 + version % 7,
            "face": 1 + version % 6,
            "version": version + 1,
            "seat": seat,
        }
        self.schedule(seat, message, version + 1)


async def reader(room: RoomDriver, seat: int, first: asyncio.Future[None]) -> None:
    socket_ = room.sockets[seat]
    handle = room.on_dudo if room.kind == "dudo" else room.on_relay
    stats = room.stats
    try:
        async for text in socket_:
            stats.messages_in += 1
            handle(seat, orjson.loads(text))  # the driver shares the 2 cores: decode fast
            if not first.done():
                first.set_result(None)
    except Exception:  # the server was killed at the end of the run
        pass
    finally:
        if not first.done():
            first.set_result(None)


async def set_up(
    server: Server, rooms: int, steady: bool, stats: Stats, compression: bool
) -> tuple[list[RoomDriver], list[asyncio.Task[None]]]:
    import httpx
    from websockets.asyncio.client import connect

    drivers = [RoomDriver(i, server.kind, steady, stats) for i in range(rooms)]
    ws_base = f"ws://127.0.0.1:{server.port}/ws/"
    tickets: list[list[str]] = [[] for _ in range(rooms)]
    gate = asyncio.Semaphore(64)
    if server.kind == "dudo":
        async with httpx.AsyncClient(
            base_url=server.base, timeout=60, limits=httpx.Limits(max_connections=64)
        ) as http:

            async def make(index: int) -> None:
                # On a busy machine a request may time out in the store (503 unavailable)
                # or lose its connection: the room is made afresh (a half-made one is left
                # in the lobby), a few times at most.
                for attempt in range(5):
                    try:
                        async with gate:
                            tickets[index] = await make_room()
                        return
                    except (httpx.HTTPError, KeyError):
                        if attempt == 4:
                            raise
                        await asyncio.sleep(1.0)

            async def make_room() -> list[str]:
                made = (await http.post("/api/rooms", json={"name": "p0", "seats": 4})).json()
                urls = [f"{ws_base}{made['code']}?token={made['token']}"]
                for seat in range(1, 4):
                    joined = (
                        await http.post(
                            f"/api/rooms/{made['code']}/join", json={"name": f"p{seat}"}
                        )
                    ).json()
                    urls.append(f"{ws_base}{made['code']}?token={joined['token']}")
                return urls

            await asyncio.gather(*(make(i) for i in range(rooms)))
    else:
        tickets = [[f"{ws_base}r{i}"] * 4 for i in range(rooms)]

    tasks: list[asyncio.Task[None]] = []
    firsts: list[asyncio.Future[None]] = []
    gate = asyncio.Semaphore(100)

    async def join(room: RoomDriver, seat: int) -> None:
        async with gate:
            room.sockets[seat] = await connect(
                tickets[room.index][seat],
                max_size=2**22,
                open_timeout=60,
                ping_interval=None,
                compression="deflate" if compression else None,
            )
        first: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        if server.kind == "relay":
            first.set_result(None)
        firsts.append(first)
        tasks.append(asyncio.create_task(reader(room, seat, first)))

    await asyncio.gather(*(join(room, seat) for room in drivers for seat in range(4)))
    await asyncio.wait_for(asyncio.gather(*firsts), 120)
    return drivers, tasks


def begin(drivers: list[RoomDriver], steady: bool) -> None:
    now = time.perf_counter()
    for room in drivers:
        room.next_at = now + (room.rng.random() if steady else 0.0)
        if room.kind == "dudo":
            room.schedule(0, {"type": "start", "id": room.new_id()}, None)
        else:
            room.relay_act(0, 0)


async def departures(server: Server, drivers: list[RoomDriver], stats: Stats) -> dict[str, Any]:
    """Every other room's players leave at once (their sockets close) while the rest play
    on. Once as many sockets have gone as remain, the server's collector reclaims what the
    leavers left behind: one full collection. Reported: the reclaim's pause as the server
    measured it (/metrics) and the latency of the rooms that stayed, across it."""
    reclaims_before = await server.metric("dudo_gc_reclaims_total") or 0
    window = stats.latencies, stats.sent_at, stats.completed  # the window's own figures
    stats.latencies, stats.sent_at = [], []
    stats.measuring = True
    leaving = drivers[::2]
    gate = asyncio.Semaphore(200)

    async def leave(room: RoomDriver) -> None:
        room.gone = True
        for socket_ in room.sockets:
            async with gate:
                with contextlib.suppress(Exception):
                    await socket_.close()

    await asyncio.gather(*(leave(room) for room in leaving))
    await asyncio.sleep(6.0)
    stats.measuring = False
    stayed = stats.latencies
    stats.latencies, stats.sent_at, stats.completed = window
    reclaims = (await server.metric("dudo_gc_reclaims_total") or 0) - reclaims_before
    pause = await server.metric("dudo_gc_last_reclaim_seconds")
    freed = await server.metric("dudo_gc_reclaimed_objects_total")
    return {
        "sockets_left": 4 * len(leaving),
        "sockets_stayed": 4 * (len(drivers) - len(leaving)),
        "reclaims": int(reclaims),
        "reclaim_ms": None if pause is None else pause * 1000,
        "objects_freed": freed,
        "stayed_actions": len(stayed),
        "stayed_p50_ms": percentile(stayed, 0.50) * 1000,
        "stayed_p99_ms": percentile(stayed, 0.99) * 1000,
        "stayed_max_ms": max(stayed, default=float("nan")) * 1000,
    }


def percentile(values: list[float], share: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


async def run_load(
    kind: str,
    load: str,
    rooms: int,
    args: argparse.Namespace,
    gc_mode: str = "clock",
    profile: bool = False,
) -> dict[str, Any]:
    steady = load == "steady"
    warmup = args.warmup_steady if steady else args.warmup
    window = args.window_saturation if not steady else args.window_steady
    gc.set_threshold(50_000, 20, 100)
    with tempfile.TemporaryDirectory(prefix="dudo-load-") as workdir:
        server = Server(kind, Path(workdir), gc_mode)
        await server.start()
        stats = Stats()
        tasks: list[asyncio.Task[None]] = []
        profiler = None
        try:
            set_up_started = time.perf_counter()
            drivers, tasks = await set_up(server, rooms, steady, stats, args.compression)
            set_up_time = time.perf_counter() - set_up_started
            # The driver is the instrument: its own full collections over thousands of
            # sockets would stall it and show up as server latency. Same for both servers.
            gc.collect()
            gc.freeze()
            begin(drivers, steady)
            server.reset_gc_maxima()
            await asyncio.sleep(warmup)
            cpu0, driver0, gc0 = server.cpu_seconds(), time.process_time(), server.gc_stats()
            writes0 = server.write_calls()
            entries0 = await server.store_entries()
            errors0 = sum(stats.errors.values())
            if profile:
                spy = Path(sys.executable).parent / "py-spy"
                assert server.process is not None
                profiler = subprocess.Popen(
                    [
                        str(spy) if spy.exists() else "py-spy",
                        "record",
                        "-p",
                        str(server.process.pid),
                        "-d",
                        str(int(window)),
                        "-f",
                        "raw",
                        "-o",
                        args.profile,
                        "-r",
                        "200",
                    ],
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            started = time.perf_counter()
            stats.measuring = True
            await asyncio.sleep(window)
            stats.measuring = False
            elapsed = time.perf_counter() - started
            gc.unfreeze()  # the sockets of this load are garbage once it ends
            cpu1, driver1, gc1 = server.cpu_seconds(), time.process_time(), server.gc_stats()
            writes1 = server.write_calls()
            completed = stats.completed
            entries1 = await server.store_entries()
            rss, hwm = server.memory_mb()
            left = None
            if args.departures and steady and kind == "dudo" and rooms == max(args.steady):
                left = await departures(server, drivers, stats)
            stats.stopping = True
            if profiler is not None:
                profiler.wait(timeout=60)
        finally:
            server.stop()
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
    if os.environ.get("DUDO_LOAD_TRACE"):
        Path(os.environ["DUDO_LOAD_TRACE"]).write_text(
            json.dumps({"sent_at": stats.sent_at, "latencies": stats.latencies})
        )
    gc_pauses = {}
    for generation in ("0", "1", "2"):
        before = gc0.get(generation, [0, 0.0, 0.0])
        after = gc1.get(generation, [0, 0.0, 0.0])
        gc_pauses[generation] = {
            "count": after[0] - before[0],
            "seconds": after[1] - before[1],
            "max": after[2],
        }
    return {
        "server": kind,
        "load": load,
        "rooms": rooms,
        "gc": gc_mode if kind == "dudo" else "python",  # the relay leaves its collector alone
        "sockets": rooms * 4,
        "set_up_seconds": round(set_up_time, 1),
        "window_seconds": round(elapsed, 2),
        "actions_per_second": stats.completed / elapsed,
        "p50_ms": percentile(stats.latencies, 0.50) * 1000,
        "p99_ms": percentile(stats.latencies, 0.99) * 1000,
        "rss_mb": rss,
        "hwm_mb": hwm,
        "server_cpu": (cpu1 - cpu0) / elapsed,
        "driver_cpu": (driver1 - driver0) / elapsed,
        "entries_per_second": (
            None if entries0 is None or entries1 is None else (entries1 - entries0) / elapsed
        ),
        "writes_per_action": (
            None if writes0 is None or writes1 is None else (writes1 - writes0) / max(completed, 1)
        ),
        "errors": sum(stats.errors.values()) - errors0,
        "error_codes": dict(stats.errors),
        "departures": left,
        "profiled": profile,
        "gc_pauses": gc_pauses if kind == "dudo" else None,
    }


def show(results: list[dict[str, Any]]) -> None:
    header = (
        f"{'server':6} {'gc':7} {'load':10} {'rooms':>5} {'actions/s':>9} {'p50 ms':>7} "
        f"{'p99 ms':>7} {'RSS MB':>7} {'srv CPU':>7} {'CPU ms/act':>10} {'drv CPU':>7} "
        f"{'entries/s':>9} {'writes/act':>10} "
        f"{'gen2 GCs':>8} {'max GC ms':>9} {'errors':>6}"
    )
    print(header)
    print("-" * len(header))
    for r in results:
        pauses = r["gc_pauses"] or {}
        gen2 = pauses.get("2", {})
        maxima = [p["max"] for p in pauses.values()] if pauses else []
        entries = r["entries_per_second"]
        writes = r.get("writes_per_action")
        server = r["server"] + ("*" if r.get("profiled") else "")
        print(
            f"{server:6} {r['gc']:7} {r['load']:10} {r['rooms']:5d} "
            f"{r['actions_per_second']:9.0f} {r['p50_ms']:7.1f} {r['p99_ms']:7.1f} "
            f"{r['rss_mb']:7.0f} {r['server_cpu']:7.0%} "
            f"{1000 * r['server_cpu'] / max(r['actions_per_second'], 1e-9):10.2f} "
            f"{r['driver_cpu']:7.0%} "
            f"{'' if entries is None else f'{entries:.0f}':>9} "
            f"{'' if writes is None else f'{writes:.2f}':>10} "
            f"{gen2.get('count', '') if pauses else '':>8} "
            f"{f'{max(maxima) * 1000:.1f}' if maxima else '':>9} {r['errors']:6d}"
        )
    if any(r.get("profiled") for r in results):
        print("* under py-spy (sampling slows it down)")
    print()
    for r in results:
        gone = r.get("departures")
        if gone:
            print(
                f"departures (gc {r['gc']}) at {r['rooms']} rooms: "
                f"{gone['sockets_left']:,} sockets left while "
                f"{gone['sockets_stayed']:,} played on: {gone['reclaims']} reclaim(s), "
                f"the last {gone['reclaim_ms'] or 0:.0f} ms "
                f"({gone['objects_freed'] or 0:,.0f} objects freed); the staying rooms "
                f"over 6 s: p50 {gone['stayed_p50_ms']:.1f} ms, "
                f"p99 {gone['stayed_p99_ms']:.1f} ms, max {gone['stayed_max_ms']:.0f} ms"
            )
    print()
    print("dudo as a ratio to the relay (same load):")
    relay = {(r["load"], r["rooms"]): r for r in results if r["server"] == "relay"}

    def cpu(r: dict[str, Any]) -> float:
        return float(r["server_cpu"]) / max(float(r["actions_per_second"]), 1e-9)

    for r in results:
        floor = relay.get((r["load"], r["rooms"]))
        if r["server"] != "dudo" or floor is None or r["gc"] != "clock" or r["profiled"]:
            continue
        rate = r["actions_per_second"] / floor["actions_per_second"]
        print(
            f"  {r['load']:10} {r['rooms']:5d} rooms: actions/s x{rate:.2f}, "
            f"p50 x{r['p50_ms'] / floor['p50_ms']:.1f}, "
            f"p99 x{r['p99_ms'] / floor['p99_ms']:.1f}, "
            f"RSS x{r['rss_mb'] / floor['rss_mb']:.1f}, "
            f"server CPU per action x{cpu(r) / cpu(floor):.1f}"
        )


async def main(args: argparse.Namespace) -> list[dict[str, Any]]:
    results = []
    plan: list[tuple[str, str, int, str, bool]] = []
    for kind in args.servers:
        if args.saturation_rooms > 0:
            plan.append((kind, "saturation", args.saturation_rooms, "clock", False))
        for rooms in args.steady:
            plan.append((kind, "steady", rooms, "clock", False))
    if args.gc_compare and "dudo" in args.servers:
        plan.append(("dudo", "saturation", args.saturation_rooms, "python", False))
        plan.append(("dudo", "steady", max(args.steady), "python", False))
    if args.gc != "clock":
        plan = [
            (k, load, n, args.gc if k == "dudo" else "clock", False) for k, load, n, _, _ in plan
        ]
    if args.profile:  # a run of its own: sampling slows the server down a little
        plan.append(("dudo", "saturation", args.saturation_rooms, args.gc, True))
    for kind, load, rooms, gc_mode, profile in plan:
        print(f"# {kind} {load} {rooms} rooms (gc {gc_mode}) ...", file=sys.stderr, flush=True)
        result = await run_load(kind, load, rooms, args, gc_mode, profile)
        print(f"#   {json.dumps(result)}", file=sys.stderr, flush=True)
        results.append(result)
    return results


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Load test of the dudo server.")
    parser.add_argument("--quick", action="store_true", help="a small, short run")
    parser.add_argument("--steady", type=int, nargs="+", help="room counts of the steady loads")
    parser.add_argument("--saturation-rooms", type=int, help="rooms of the saturation load")
    parser.add_argument(
        "--servers", nargs="+", default=["dudo", "relay"], choices=["dudo", "relay"]
    )
    parser.add_argument("--warmup", type=float, help="seconds before the saturation window")
    parser.add_argument(
        "--warmup-steady",
        type=float,
        help="seconds before a steady window (rooms all start at once; their "
        "rounds need a while to fall out of step, and the database's "
        "first checkpoint copies the whole set-up)",
    )
    parser.add_argument("--window-saturation", type=float)
    parser.add_argument("--window-steady", type=float)
    parser.add_argument(
        "--gc",
        choices=["clock", "python"],
        default="clock",
        help="the dudo server's collector: its own policy or Python's",
    )
    parser.add_argument(
        "--gc-compare",
        action="store_true",
        help="also run saturation and the largest steady load with --gc python",
    )
    parser.add_argument(
        "--no-compression",
        dest="compression",
        action="store_false",
        help="clients do not offer permessage-deflate (browsers do)",
    )
    parser.add_argument("--profile", metavar="FILE", help="py-spy record the saturation window")
    parser.add_argument(
        "--no-departures",
        dest="departures",
        action="store_false",
        help="skip the departures phase after the largest steady dudo load",
    )
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    args = parser.parse_args(argv)
    if args.profile and not (
        (Path(sys.executable).parent / "py-spy").exists() or shutil.which("py-spy")
    ):
        parser.error("--profile needs py-spy: pip install py-spy (into this venv or on PATH)")
    quick = args.quick
    args.steady = args.steady or ([20, 100] if quick else [100, 1000, 2000])
    if args.saturation_rooms is None:
        args.saturation_rooms = 50 if quick else 200
    args.warmup = args.warmup if args.warmup is not None else (2.0 if quick else 4.0)
    if args.warmup_steady is None:
        args.warmup_steady = 3.0 if quick else 15.0
    args.window_saturation = args.window_saturation or (4.0 if quick else 10.0)
    args.window_steady = args.window_steady or (5.0 if quick else 15.0)
    return args


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "_show":  # the table again, from --json output
        show(json.loads(Path(sys.argv[2]).read_text()))
        sys.exit(0)
    if len(sys.argv) > 1 and sys.argv[1] == "_serve":
        serve_instrumented(sys.argv[2:])
        sys.exit(0)
    arguments = parse(sys.argv[1:])
    print(f"open files: {raise_open_files()}", file=sys.stderr)
    try:
        import uvloop

        runner = uvloop.run
    except ImportError:  # pragma: no cover
        runner = asyncio.run
    began = time.time()
    found = runner(main(arguments))
    print(
        f"\ndudo load benchmark, {time.strftime('%Y-%m-%d %H:%M', time.gmtime(began))} UTC, "
        f"{time.time() - began:.0f} s, {os.cpu_count()} CPUs, Python {sys.version.split()[0]}, "
        f"command: python bench/load.py {' '.join(sys.argv[1:])}"
    )
    show(found)
    if arguments.json:
        Path(arguments.json).write_text(json.dumps(found, indent=1))
