"""Chaos: many players doing everything at once, at random, against a real ``dudo serve``.

What it does
    Starts ``dudo serve`` (SQLite in a temporary folder) and opens ``--rooms`` rooms of 2 to
    6 seats with random rules, bots and timers. Every human seat is played by an agent that,
    at random and without waiting for answers, mixes the legal move with everything a
    careless or hostile client sends: bids and calls out of turn, made-up bids, stale
    versions, repeated ids, ``start``, ``rematch``, ``next_round``, ``configure`` and
    ``remove`` from anyone, seeds for any round, chat and emotes, bad JSON and wrong
    types, binary and oversized frames, a second socket for its seat, reconnecting, cutting
    the connection, and leaving the table (then joining again as someone else, or watching).
    Spectators come and go. Quick games are joined now and then.

    With ``--nodes N`` the server is a cluster of N ``dudo serve --cluster`` nodes on a Redis
    of its own (one SQLite file shared), every agent connecting to any node; with
    ``--kill-every S`` a random node is killed (SIGKILL) every S seconds and started again
    3 seconds later, so rooms move to the other nodes in the middle of all this. Without
    ``--nodes``, ``--kill-every`` kills and restarts the one server: its rooms come back
    from the database.

What it checks, and prints
    - The server never answers ``internal`` and never logs an error or a traceback (its
      JSON log lines at level error or above are printed).
    - Every state a seat gets holds its own dice only while bidding, as many as it has, and a
      spectator's none; versions never go down, on one socket or from one socket to the
      next (on any node): every change is stored before anyone hears of it.
    - ``/healthz`` answers throughout, and every room's summary at the end.
    Exit status 1 if a check failed, else 0, with counts of what was sent and answered.

    python bench/chaos.py --minutes 5 --seed 1
    python bench/chaos.py --minutes 5 --seed 1 --nodes 3 --kill-every 30

Why
    The server's tests and audits send one odd thing at a time. Rooms fail in the orders
    nobody writes down: a leave racing a rematch, a configure between a reveal and the
    next roll, a reconnect in the middle of a timer. This runs those orders by the thousand.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import websockets

sys.path.insert(0, str(Path(__file__).resolve().parent))

from ports import free_port
from scratchredis import ScratchRedis

PRESETS = ("perudo", "dudo", "tavern", "ones-lock", "no-wilds", "common-hand")
LEVELS = ("easy", "normal", "hard")
HANDS = ("pair", "two_pair", "three", "low_straight", "high_straight", "full_house", "four")


@dataclass
class Findings:
    """What went wrong, and counts of what happened."""

    problems: list[str] = field(default_factory=list)
    sent: Counter[str] = field(default_factory=Counter)
    answers: Counter[str] = field(default_factory=Counter)

    def problem(self, text: str) -> None:
        if len(self.problems) < 200:
            self.problems.append(text)
        print("PROBLEM", text, flush=True)


class Agent:
    """One seat's player: sends anything, reads everything, checks what it reads."""

    def __init__(
        self, servers: Servers, ticket: dict[str, Any], rng: random.Random, findings: Findings
    ) -> None:
        self.servers = servers
        self.ticket = ticket
        self.rng = rng
        self.findings = findings
        self.state: dict[str, Any] | None = None
        self.ids = 0
        self.last_id: str | None = None
        self.gone = False
        # The highest version seen of this room on any socket: every change is stored
        # before anyone hears of it, so no later socket, on any node, may show less.
        self.seen_version = 0

    @property
    def code(self) -> str:
        return str(self.ticket["code"])

    def next_id(self) -> str:
        self.ids += 1
        self.last_id = f"{self.ticket['seat']}-{self.ids}-{self.rng.randrange(10**6)}"
        return self.last_id

    async def connect(self) -> Any:
        protocols = ["dudo.v1"]
        if self.ticket.get("token"):
            protocols.append("token." + self.ticket["token"])
        base = self.rng.choice(self.servers.bases).replace("http://", "ws://")
        return await websockets.connect(
            f"{base}/ws/{self.code}", subprotocols=protocols, open_timeout=10
        )

    def check_state(self, message: dict[str, Any], last_version: list[int]) -> None:
        version = message.get("version", 0)
        if version < last_version[0]:
            self.findings.problem(f"{self.code}: version went down {last_version[0]} -> {version}")
        elif version < self.seen_version:
            self.findings.problem(
                f"{self.code}: version {self.seen_version} seen, then {version} on a new socket"
            )
        last_version[0] = version
        self.seen_version = max(self.seen_version, version)
        game = message.get("game")
        you = message.get("you") or {}
        if not game:
            return
        seat = you.get("seat")
        dice = game.get("dice", [])
        if seat is None:
            if dice:
                self.findings.problem(f"{self.code}: a spectator got dice {dice}")
        elif game.get("phase") != "bidding":
            if dice:
                self.findings.problem(f"{self.code}: seat {seat} got dice outside bidding")
        elif len(dice) != game["dice_counts"][seat]:
            self.findings.problem(
                f"{self.code}: seat {seat} got {len(dice)} dice, has {game['dice_counts'][seat]}"
            )

    async def read(self, connection: Any) -> None:
        last_version = [0]
        with contextlib.suppress(websockets.ConnectionClosed):
            async for raw in connection:
                try:
                    message = json.loads(raw)
                except (TypeError, ValueError):
                    self.findings.problem(f"{self.code}: not JSON from the server: {raw[:80]!r}")
                    continue
                kind = message.get("type")
                self.findings.answers[kind if kind != "error" else "error:" + message["code"]] += 1
                if kind == "error" and message.get("code") == "internal":
                    self.findings.problem(f"{self.code}: internal error: {message}")
                if kind == "state":
                    self.check_state(message, last_version)
                    if message.get("you", {}).get("seat") == self.ticket.get("seat"):
                        self.state = message

    def legal_move(self) -> dict[str, Any] | None:
        state = self.state
        if not state:
            return None
        status = (state.get("room") or {}).get("status")
        if status == "over" or (status == "lobby" and state["you"].get("host")):
            return {"type": "rematch" if status == "over" else "start", "id": self.next_id()}
        game = state.get("game")
        if not game:
            return None
        legal = game["legal"]
        choices: list[dict[str, Any]] = []
        for bid in legal["bids"][:4]:
            if isinstance(bid, dict):
                choices.append({"type": "bid", "bid": bid})
            else:
                choices.append({"type": "bid", "quantity": bid[0], "face": bid[1]})
        for call in legal["calls"]:
            choices.append({"type": "call", "call": call})
        if game["phase"] == "roll":
            choices.append({"type": "next_round"})
        if not choices:
            return None
        move = self.rng.choice(choices)
        move["id"] = self.next_id()
        if self.rng.random() < 0.5 and move["type"] in ("bid", "call"):
            move["version"] = state["version"]
        return move

    def odd_message(self) -> str | bytes | dict[str, Any]:
        rng = self.rng
        state = self.state or {}
        version = state.get("version", 0)
        seats = len((state.get("room") or {}).get("seats", [])) or 4
        pick = rng.randrange(24)
        if pick == 0:
            return {
                "type": "bid",
                "id": self.next_id(),
                "quantity": rng.randint(-2, 40),
                "face": rng.randint(-1, 8),
            }
        if pick == 1:
            return {
                "type": "bid",
                "id": self.next_id(),
                "bid": {"hand": rng.choice(HANDS), "faces": [rng.randint(0, 7)]},
            }
        if pick == 2:
            return {
                "type": "call",
                "id": self.next_id(),
                "call": rng.choice(["dudo", "calza"]),
                "version": version - rng.randint(0, 2),
            }
        if pick == 3:
            return {"type": "start", "id": self.next_id()}
        if pick == 4:
            return {"type": "rematch", "id": self.next_id()}
        if pick == 5:
            return {"type": "next_round", "id": self.next_id()}
        if pick == 6:
            config: dict[str, Any] = {"type": "configure", "id": self.next_id()}
            if rng.random() < 0.5:
                config["rules"] = {"preset": rng.choice(PRESETS)}
            if rng.random() < 0.4:
                config["timer"] = rng.choice([0, 5, 30, 3, 700])
            if rng.random() < 0.4:
                config["seats"] = [
                    rng.choice([None, {"kind": "open"}, {"kind": "bot", "level": "easy"}])
                    for _ in range(rng.choice([seats, seats, seats - 1]))
                ]
            if rng.random() < 0.2:
                config["locked"] = rng.random() < 0.5
            if rng.random() < 0.2:
                config["chat"] = rng.random() < 0.5
            if rng.random() < 0.2:
                config["public"] = rng.random() < 0.5
            return config
        if pick == 7:
            return {"type": "remove", "id": self.next_id(), "seat": rng.randint(0, 6)}
        if pick == 8:
            game = state.get("game") or {}
            round_: Any = rng.choice(
                [game.get("round", 1), (game.get("round") or 0) + 1, "rolloff-1", 0, -3, "x"]
            )
            return {
                "type": "seed",
                "id": self.next_id(),
                "round": round_,
                "seed": rng.choice(["00c0ffee", "zz", "a" * 129, "f" * 64]),
            }
        if pick == 9:
            return {
                "type": "chat",
                "text": rng.choice(["nice", "\u202e evil", " ", "x" * 141, "🎲" * 5]),
            }
        if pick == 10:
            return {"type": "emote", "emote": rng.choice(["👍", "🎲", "x"])}
        if pick == 11:
            return {"type": "ping"}
        if pick == 12:
            return "{not json"
        if pick == 13:
            return b"\x00\x01binary"
        if pick == 14:
            return json.dumps({"type": "chat", "text": "y" * 5000})
        if pick == 15:
            return {"type": "bid", "id": self.next_id(), "quantity": "3", "face": 2}
        if pick == 16:
            return {"type": "warp", "id": self.next_id()}
        if pick == 17:
            return {"type": "bid", "id": self.last_id or "x", "quantity": 1, "face": 2}
        if pick == 18:
            return {"type": "bid", "v": 2, "id": self.next_id(), "quantity": 1, "face": 2}
        if pick == 19:
            return {"type": "call", "id": self.next_id(), "call": "dudo", "extra": 1}
        if pick == 20:
            return "[]"
        if pick == 21:
            return {"type": "bid", "id": "", "quantity": 1, "face": 2}
        if pick == 22:
            return {"type": "configure", "id": self.next_id(), "rules": {"starting_dice": 99}}
        return {"type": "seed", "round": 1, "seed": "ab"}

    async def play(self, until: float) -> None:
        """Act until ``until`` (monotonic time), reconnecting and rejoining as it goes."""
        rng = self.rng
        while time.monotonic() < until and not self.gone:
            try:
                connection = await self.connect()
            except Exception as error:  # refusals (429, 4xx) are answers here
                self.findings.answers[f"connect refused: {type(error).__name__}"] += 1
                await asyncio.sleep(rng.uniform(0.2, 1.0))
                if rng.random() < 0.3:
                    await self.rejoin()
                continue
            reader = asyncio.create_task(self.read(connection))
            extra = None
            try:
                while time.monotonic() < until and not reader.done():
                    await asyncio.sleep(rng.uniform(0.05, 0.4))
                    roll = rng.random()
                    if roll < 0.55:
                        message: Any = self.legal_move()
                        if message is None:
                            continue
                    elif roll < 0.85:
                        message = self.odd_message()
                    elif roll < 0.92:
                        if self.ticket.get("token") is None:
                            await self.rejoin()  # a watcher takes a seat when one opens
                            if self.ticket.get("token") is not None:
                                break
                        continue
                    elif roll < 0.95:
                        break  # reconnect
                    elif roll < 0.96:
                        connection.transport.abort()  # cut it, no close frame
                        break
                    elif roll < 0.97 and extra is None:
                        with contextlib.suppress(Exception):
                            extra = await self.connect()
                        continue
                    elif roll < 0.9705:
                        message = {"type": "leave", "id": self.next_id()}
                        self.findings.sent["leave"] += 1
                        with contextlib.suppress(websockets.ConnectionClosed):
                            await connection.send(json.dumps(message))
                        await asyncio.sleep(0.3)
                        await self.rejoin()
                        break
                    else:
                        continue
                    kind = message["type"] if isinstance(message, dict) else "raw"
                    self.findings.sent[kind] += 1
                    text = json.dumps(message) if isinstance(message, dict) else message
                    try:
                        await connection.send(text)
                    except websockets.ConnectionClosed:
                        break
            finally:
                reader.cancel()
                with contextlib.suppress(Exception):
                    await connection.close()
                if extra is not None:
                    with contextlib.suppress(Exception):
                        await extra.close()

    async def rejoin(self) -> None:
        """Take a seat again as someone else, or watch if none is open."""
        base = self.rng.choice(self.servers.bases)
        async with httpx.AsyncClient(base_url=base, timeout=10) as http:
            name = self.rng.choice(["Ana", "Ben", "Аna", "\u0007bell", "x" * 64, "Lía"])
            try:
                answer = await http.post(f"/api/rooms/{self.code}/join", json={"name": name})
            except httpx.HTTPError as error:  # a node being killed: try again later
                self.findings.answers[f"join failed: {type(error).__name__}"] += 1
                return
            self.findings.answers[f"join {answer.status_code}"] += 1
            if answer.status_code == 500:
                self.findings.problem(f"{self.code}: join answered {answer.status_code}")
            if answer.status_code == 200:
                self.ticket = answer.json()
            else:
                self.ticket = {"code": self.code, "seat": None, "token": None}
            self.state = None


async def create_room(
    http: httpx.AsyncClient, rng: random.Random, findings: Findings
) -> list[dict[str, Any]]:
    """A room with random rules and bots; its human seats' tickets."""
    seats = rng.randint(2, 6)
    bots = [None] + [rng.choice([None, None, *LEVELS]) for _ in range(seats - 1)]
    if all(bot is not None for bot in bots[1:]):
        bots[1] = None
    body = {
        "name": rng.choice(["Host", "Ĥöst", "H" * 30]),
        "seats": seats,
        "bots": bots,
        "timer": rng.choice([0, 5, 10]),
        "rules": {"preset": rng.choice(PRESETS)},
        "public": rng.random() < 0.3,
    }
    answer = await http.post("/api/rooms", json=body)
    findings.answers[f"create {answer.status_code}"] += 1
    if answer.status_code == 429:  # the per-address limit on new rooms: an answer, not a fault
        return []
    if answer.status_code != 201:
        findings.problem(f"create answered {answer.status_code}: {answer.text[:200]}")
        return []
    host = answer.json()
    tickets = [host]
    for _ in range(sum(bot is None for bot in bots[1:])):
        joined = await http.post(f"/api/rooms/{host['code']}/join", json={"name": "Guest"})
        if joined.status_code == 200:
            tickets.append(joined.json())
    return tickets


class Servers:
    """``dudo serve`` alone (SQLite), or ``nodes`` cluster nodes sharing a Redis of their
    own and one SQLite file; each logs JSON lines to a file of its own."""

    def __init__(self, folder: Path, nodes: int, database: str | None = None) -> None:
        self.folder = folder
        self.nodes = nodes
        self.database = database or f"sqlite:///{folder}/chaos.db"
        self.ports = [free_port() for _ in range(max(1, nodes))]
        self.bases = [f"http://127.0.0.1:{port}" for port in self.ports]
        self.processes: list[subprocess.Popen[bytes] | None] = [None] * len(self.ports)
        self.starts = [0] * len(self.ports)
        self.redis: ScratchRedis | None = None
        self.redis_url: str | None = None
        self.restarting: set[int] = set()

    def start(self) -> None:
        if self.nodes:
            self.redis = ScratchRedis(self.folder).start()
            self.redis_url = self.redis.url
        for index in range(len(self.ports)):
            self.start_node(index)
        for index in range(len(self.ports)):
            self.wait_ready(index)

    def start_node(self, index: int) -> None:
        self.starts[index] += 1
        command = [
            sys.executable,
            "-m",
            "dudo",
            "serve",
            "--port",
            str(self.ports[index]),
            "--database",
            self.database,
        ]
        env = {**os.environ, "DUDO_LOG_FORMAT": "json"}
        if self.redis_url:
            command += ["--cluster", self.redis_url]
            env |= {"DUDO_LEASE": "1.5", "DUDO_RENEW_EVERY": "0.3", "DUDO_RESCAN_EVERY": "2"}
        log = self.log_path(index).open("a")
        with log:
            self.processes[index] = subprocess.Popen(
                command, stdout=log, stderr=subprocess.STDOUT, env=env
            )

    def log_path(self, index: int) -> Path:
        return self.folder / f"node{index}.log"

    def wait_ready(self, index: int) -> None:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(self.bases[index] + "/healthz", timeout=1).status_code == 200:
                    return
            time.sleep(0.2)
        print(self.log_path(index).read_text()[-3000:])
        raise SystemExit(f"node {index} did not start")

    async def kill_now_and_then(self, every: float, until: float, rng: random.Random) -> None:
        """SIGKILL a random node every ``every`` seconds and start it again 3 s later. The
        kills keep to their times (``every`` from the run's start, not from a node being
        back): on a busy machine a node takes longer to start, which must not leave a
        short run with a single kill."""
        kill_at = time.monotonic() + every
        while kill_at < until:
            await asyncio.sleep(max(0.0, kill_at - time.monotonic()))
            kill_at += every
            index = rng.randrange(len(self.ports))
            process = self.processes[index]
            assert process is not None
            self.restarting.add(index)
            process.kill()
            process.wait()
            print(f"killed node {index}", flush=True)
            await asyncio.sleep(3)
            self.start_node(index)
            await asyncio.to_thread(self.wait_ready, index)
            self.restarting.discard(index)

    def stop(self, findings: Findings) -> None:
        for process in self.processes:
            if process is None:
                continue
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                process.kill()
                findings.problem("a server did not stop within 30 s of SIGTERM")
        if self.redis is not None:
            self.redis.stop()

    def read_logs(self, findings: Findings) -> None:
        for index in range(len(self.ports)):
            for line in self.log_path(index).read_text().splitlines():
                try:
                    entry = json.loads(line)
                except ValueError:
                    if "Traceback" in line or "Error" in line:
                        findings.problem(f"node {index} output: {line[:300]}")
                    continue
                if str(entry.get("level", "")).lower() in ("error", "critical"):
                    findings.problem(f"node {index} logged: {json.dumps(entry)[:1500]}")


async def watch_health(servers: Servers, until: float, findings: Findings) -> None:
    async with httpx.AsyncClient(timeout=10) as http:
        while time.monotonic() < until:
            for index, base in enumerate(servers.bases):
                if index in servers.restarting:
                    continue
                try:
                    answer = await http.get(base + "/healthz")
                    if answer.status_code != 200:
                        findings.problem(f"node {index}: /healthz answered {answer.status_code}")
                except httpx.HTTPError as error:
                    if index not in servers.restarting:
                        findings.problem(f"node {index}: /healthz failed: {error!r}")
            await asyncio.sleep(0.5)


async def run(
    servers: Servers, minutes: float, rooms: int, seed: int, kill_every: float, findings: Findings
) -> list[str]:
    rng = random.Random(seed)
    until = time.monotonic() + minutes * 60
    codes: list[str] = []
    agents: list[Agent] = []
    for index in range(rooms):
        async with httpx.AsyncClient(
            base_url=servers.bases[index % len(servers.bases)], timeout=10
        ) as http:
            tickets = await create_room(http, rng, findings)
        for ticket in tickets:
            agents.append(Agent(servers, ticket, random.Random(rng.random()), findings))
        if tickets:
            codes.append(tickets[0]["code"])
    for index in range(max(1, rooms // 3)):  # spectators
        ticket = {"code": codes[index % len(codes)], "seat": None, "token": None}
        agents.append(Agent(servers, ticket, random.Random(rng.random()), findings))
    async with httpx.AsyncClient(base_url=servers.bases[0], timeout=10) as http:
        for _ in range(2):  # quick games
            answer = await http.post("/api/quick", json={"name": "Quick"})
            if answer.status_code == 200:
                agents.append(Agent(servers, answer.json(), random.Random(rng.random()), findings))
                codes.append(answer.json()["code"])
    tasks = [asyncio.create_task(agent.play(until)) for agent in agents]
    tasks.append(asyncio.create_task(watch_health(servers, until, findings)))
    if kill_every:
        tasks.append(asyncio.create_task(servers.kill_now_and_then(kill_every, until, rng)))
    results = await asyncio.gather(*tasks, return_exceptions=True)
    for result in results:
        if isinstance(result, BaseException):
            findings.problem(f"an agent of this script failed: {result!r}")
    return codes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=3.0)
    parser.add_argument("--rooms", type=int, default=8)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--nodes",
        type=int,
        default=0,
        help="run a cluster of this many nodes on a Redis of its own (default: dudo serve alone)",
    )
    parser.add_argument(
        "--kill-every",
        type=float,
        default=0,
        help="SIGKILL a random node (or the one server) every this many seconds, and start it "
        "again 3 s later",
    )
    parser.add_argument(
        "--database",
        metavar="URL",
        help="the database the server or the nodes use (default: a fresh SQLite file)",
    )
    args = parser.parse_args(argv)
    if args.nodes and shutil.which("redis-server") is None:
        parser.error("--nodes needs redis-server on the PATH")
    findings = Findings()
    with tempfile.TemporaryDirectory(prefix="dudo-chaos-") as folder:
        servers = Servers(Path(folder), args.nodes, args.database)
        try:
            servers.start()
            codes = asyncio.run(
                run(servers, args.minutes, args.rooms, args.seed, args.kill_every, findings)
            )
            # a room moving (or coming back) after the last kill settles
            time.sleep(3 if args.nodes or args.kill_every else 0)
            with httpx.Client(timeout=10) as http:
                for code in codes:
                    answer = http.get(f"{servers.bases[0]}/api/rooms/{code}")
                    if answer.status_code != 200:
                        findings.problem(f"{code}: summary answered {answer.status_code}")
                    else:
                        findings.answers["end status " + answer.json()["status"]] += 1
        finally:
            servers.stop(findings)
        servers.read_logs(findings)
    print("sent:", dict(findings.sent.most_common()))
    print("answers:", dict(findings.answers.most_common(40)))
    print(f"{len(findings.problems)} problems")
    return 1 if findings.problems else 0


if __name__ == "__main__":
    sys.exit(main())
