"""A model-based restart test: rooms are driven through their whole life while the real
server is killed with SIGKILL at random points and started again on the same database
(a game is its log: a crash loses nothing).

A seeded random walk takes the steps a site sees: create a room (bots, people, or an empty
lobby nobody comes back to), configure it, start it, bid and call, end a round and stay in
the pause after the reveal, send a seed for the next roll, play a game to the end, ask
for a rematch, sit at a quick table, and let idle rooms be closed. Between steps, at
random, every room is brought to rest and photographed (each seat's own state), the
server is killed, and a new one is started on the same database. After every restart:

- the server starts and holds exactly the rooms the model says are live;
- every live room answers ``GET /api/rooms/{code}`` as it stood, and every ticket gets its
  seat back with the same version, dice, bids, clocks and fairness commitment (a room
  that could move by the clock alone, a pending roll, a running turn timer or a quick
  table filling up, may have moved, forwards only);
- every acknowledged message answers again with the same reply (exactly once);
- nothing any socket was shown is lost or changed (dice, bids, versions);
- a closed room stays closed, and the database holds each finished game once, unchanged.

At the end every room plays to the end (bots in the people's seats, through
``Table.play``), and every finished game's record passes ``dudo verify``.

Some kills come in the middle of a game played at full speed, between an action and its
answer. Idle rooms are closed by the server's own sweep (``Lobby.close_idle_rooms``) run
on the dead server's database with a clock moved past the limits: the live sweeper runs
once a minute, longer than a whole run of this test.

PostgreSQL runs when ``DUDO_TEST_POSTGRES`` holds a URL; under CI its absence is a
failure. The server gets a schema of its own there (other tests share the database).

A failure names the backend, the seed and the last steps taken. The seed fixes every choice
the test makes; the dice are the server's own, so a replay with the same seed takes the
same path as far as the dice lead it there (the steps in the message show the path).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import secrets
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from dudo.bots import make_bot
from dudo.bots.base import Bot
from dudo.client import Client, ClientError, SeatTicket, Table
from dudo.game import Action
from dudo.rules import Rules
from dudo.server.site.lobby import Lobby
from dudo.server.table.room import Room, RoomConfig
from dudo.store import open_store
from dudo.view import SeatView
from serverkit import FakeClock, server_process, sqlite_url

pytestmark = pytest.mark.slow  # tens of seconds: run first (tests/conftest.py)

POSTGRES = os.environ.get("DUDO_TEST_POSTGRES")
SQLITE_SEEDS = (7, 19)
POSTGRES_SEEDS = (11, 29)

STEPS = 22  # model steps per run
PLANNED_KILLS = 5  # after random steps; a reveal may add one, a game at full speed too
MAX_KILLS = 7  # per run, the one before the finale included
MAX_ROOMS = 6

# Bots answer at once; the pause after a reveal and the seed window are real states of a
# second or so; absent people are never replaced by bots (GRACE), so a room at rest stays
# where it is, except for what the clock moves: a roll, a turn timer, a quick table's fill.
SERVER_ENV = {
    "DUDO_BOT_DELAY": "0",
    "DUDO_REVEAL_PAUSE": "1.5",
    "DUDO_SEED_WINDOW": "1",
    "DUDO_GRACE": "3600",
    "DUDO_QUICK_FILL": "3",
    "DUDO_GC": "python",
}
# What the offline sweep uses: a lobby nobody is in, and a finished game, have been idle
# long enough; a game in progress has not.
SWEEP = RoomConfig(close_empty_lobby=60.0, close_after_game=120.0, close_when_idle=86_400.0)
SWEEP_ADVANCE = 200.0

# The server gets its own PostgreSQL schema through search_path: the server has no setting
# for it, so this file, first on the server's PYTHONPATH, wraps asyncpg.connect.
SCHEMA_SHIM = """\
import os

_schema = os.environ.get("DUDO_TEST_PG_SCHEMA")
if _schema:
    import asyncpg

    _connect = asyncpg.connect

    async def _connect_in_schema(*args, **kwargs):
        settings = dict(kwargs.pop("server_settings", None) or {})
        settings["search_path"] = _schema
        return await _connect(*args, server_settings=settings, **kwargs)

    asyncpg.connect = _connect_in_schema
"""


def cases() -> list[Any]:
    found = [pytest.param("sqlite", seed, id=f"sqlite-{seed}") for seed in SQLITE_SEEDS]
    skip = (
        []
        if POSTGRES or os.environ.get("CI")
        else [pytest.mark.skip(reason="no PostgreSQL: set DUDO_TEST_POSTGRES to a URL")]
    )
    found += [
        pytest.param("postgresql", seed, id=f"postgresql-{seed}", marks=skip)
        for seed in POSTGRES_SEEDS
    ]
    return found


@pytest.mark.parametrize(("backend", "seed"), cases())
def test_rooms_survive_kill_9_at_any_point_of_their_life(
    backend: str, seed: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if backend == "postgresql":
        assert POSTGRES, "CI must provide a PostgreSQL server in DUDO_TEST_POSTGRES"
    asyncio.run(ModelRun(backend, seed, tmp_path, monkeypatch).run())


# -- small helpers ------------------------------------------------------------------------


class Paced:
    """A bot that takes a short breath before answering (several seats share one loop)."""

    def __init__(self, bot: Bot, pause: float = 0.01) -> None:
        self.bot = bot
        self.name = bot.name
        self.pause = pause

    def act(self, view: SeatView) -> Action | None:
        time.sleep(self.pause)
        return self.bot.act(view)


def kill(process: subprocess.Popen[bytes]) -> str:
    """SIGKILL: no shutdown hooks, no flushing; returns what the server wrote."""
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=10)
    return process.stdout.read().decode(errors="replace") if process.stdout else ""


def server_errors(output: str) -> list[str]:
    """Log lines at level error (room errors, unhandled exceptions, a failed start)."""
    found = []
    for line in output.splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            if "Traceback" in line or "Error" in line:
                found.append(line)
            continue
        if isinstance(entry, dict) and entry.get("level") in ("error", "critical"):
            found.append(line[:2000])
    return found


async def ping(table: Table, timeout: float = 30.0) -> int:
    """The room's version now (a pong comes after every state sent before it)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    await table.send({"type": "ping"})
    while True:
        message = await table.receive(max(0.01, end - loop.time()))
        if message["type"] == "pong":
            version: int = message["version"]
            return version
        if (
            message["type"] == "error"
            and message.get("code") == "rate_limited"
            and "id" not in message
        ):
            await asyncio.sleep(0.15)  # the server said slow down: ask again later
            await table.send({"type": "ping"})


async def request(
    table: Table, body: dict[str, Any], message_id: str | None = None, timeout: float = 30.0
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Send a message with an id and wait for its answer; resends after rate_limited
    (which is not kept under the id). Returns (message, reply)."""
    message = {"id": message_id or table.new_id(), **body}
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while True:
        table.replies.pop(message["id"], None)
        await table.send(message)
        while message["id"] not in table.replies:
            await table.receive(max(0.01, end - loop.time()))
        reply = table.replies[message["id"]]
        if reply["type"] == "error" and reply.get("code") == "rate_limited":
            await asyncio.sleep(0.15)
            continue
        return message, reply


def rolled_after(version: int) -> Callable[[dict[str, Any]], bool]:
    def condition(state: dict[str, Any]) -> bool:
        return bool(state["version"] > version)

    return condition


def bot_to_move(state: dict[str, Any]) -> bool:
    """A bot seat holds the turn: the room moves on its own at once (DUDO_BOT_DELAY=0)."""
    game = state.get("game")
    if state["room"]["status"] != "playing" or not game or game["phase"] != "bidding":
        return False
    return bool(state["room"]["seats"][game["turn"]]["kind"] == "bot")


def calza_check_may_follow(state: dict[str, Any]) -> bool:
    """After a bot's bid the room asks bot seats about calza on its next turn of the loop:
    a pong may come before that answer."""
    game = state.get("game")
    return bool(
        game
        and game["phase"] == "bidding"
        and game["bids"]
        and any(seat["kind"] == "bot" for seat in state["room"]["seats"])
    )


def snapshot(state: dict[str, Any], version: int) -> dict[str, Any]:
    """What a seat is shown, minus who is connected right now."""
    room = state["room"]
    return {
        "version": version,
        "seat": state["you"]["seat"],
        "status": room["status"],
        "games": room["game"],
        "timer": room["timer"],
        "rules": room["rules"],
        "public": room["public"],
        "quick": room["quick"],
        "seats": [[seat["kind"], seat["name"], seat["level"]] for seat in room["seats"]],
        "game": state["game"],
        "deadline": state.get("deadline"),
        "roll_at": state.get("roll_at"),
        "fair": state.get("fair"),
    }


def summary_part(shot: dict[str, Any]) -> dict[str, Any]:
    return {
        key: shot[key] for key in ("status", "games", "timer", "rules", "public", "quick", "seats")
    }


def summary_of(data: dict[str, Any]) -> dict[str, Any]:
    return {
        "status": data["status"],
        "games": data["game"],
        "timer": data["timer"],
        "rules": data["rules"],
        "public": data["public"],
        "quick": data["quick"],
        "seats": [[seat["kind"], seat["name"], seat["level"]] for seat in data["seats"]],
    }


def is_subsequence(part: list[Any], whole: list[Any]) -> bool:
    rest = iter(whole)
    return all(any(item == other for other in rest) for item in part)


def record_actions(record: dict[str, Any]) -> list[tuple[int, int, Any]]:
    """Every action of a record as (round, seat, action)."""
    found = []
    for number, played in enumerate(record["rounds"], start=1):
        for action in played["actions"]:
            what = {"bid": action["bid"]} if "bid" in action else {"call": action["call"]}
            found.append((number, action["seat"], what))
    return found


# -- the model ----------------------------------------------------------------------------


@dataclass
class Acked:
    """A bid or call the server acknowledged."""

    game_id: str
    round: int
    seat: int
    action: dict[str, Any]


@dataclass
class RoomModel:
    code: str
    seats: int
    tickets: dict[int, SeatTicket]
    quick: bool = False
    empty: bool = False  # a lobby with open seats nobody came back to
    status: str = "lobby"
    closed: bool = False
    games: list[str] = field(default_factory=list)  # game ids in order
    records: dict[str, dict[str, Any] | None] = field(default_factory=dict)  # finished
    acked: list[Acked] = field(default_factory=list)
    seeds: list[tuple[str, int, int, str]] = field(default_factory=list)  # game, round, seat
    answered: list[tuple[int, dict[str, Any], dict[str, Any]]] = field(default_factory=list)
    max_seen: int = 0  # the highest version any socket was shown (state, ack, pong)
    version: int = 0  # the room's version when it was last brought to rest
    shots: dict[int, dict[str, Any]] = field(default_factory=dict)  # by seat, at the kill


class ModelRun:
    def __init__(
        self, backend: str, seed: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        self.backend = backend
        self.seed = seed
        self.tmp_path = tmp_path
        self.monkeypatch = monkeypatch
        self.rng = random.Random(seed)
        self.rooms: dict[str, RoomModel] = {}
        self.trail: list[str] = []
        self.life = 0
        self.kills = 0
        self.names = 0
        self.env = dict(SERVER_ENV)
        self.schema = ""
        self.database = ""
        self.base = ""
        self.process: subprocess.Popen[bytes] | None = None
        self._server: contextlib.AbstractContextManager[Any] | None = None
        self.client: Client | None = None
        self.tables: dict[tuple[str, int], Table] = {}
        self.extra_tables: list[Table] = []
        self.harvested: dict[Table, int] = {}  # messages of a socket already looked at
        self.seen_dice: dict[tuple[str, int, int], list[int]] = {}
        self.seen_bids: dict[tuple[str, int], list[Any]] = {}
        self.close_next: set[str] = set()  # rooms the next offline sweep must close
        self.keep_next: set[str] = set()  # ...and rooms it must leave alone
        self.kill_states: list[str] = []
        self.stats: Counter[str] = Counter()
        self.started = time.monotonic()
        self.timings: dict[str, float] = {}

    # -- reporting ----------------------------------------------------------------------

    def where(self) -> str:
        return (
            f"[backend={self.backend} seed={self.seed} life={self.life} "
            f"last steps: {' | '.join(self.trail[-10:])}]"
        )

    def note(self, text: str) -> None:
        self.trail.append(f"{self.life}:{text}")

    def check(self, condition: bool, message: str) -> None:
        assert condition, f"{message} {self.where()}"

    def live(self) -> list[RoomModel]:
        return [room for room in self.rooms.values() if not room.closed]

    def new_name(self, prefix: str) -> str:
        self.names += 1
        return f"{prefix}{self.names}"

    # -- the run ------------------------------------------------------------------------

    async def run(self) -> None:
        if self.backend == "sqlite":
            self.database = sqlite_url(self.tmp_path)
        else:
            await self.make_schema()
        try:
            await self.start_server()
            kill_plan = set(self.rng.sample(range(STEPS), PLANNED_KILLS))
            for index in range(STEPS):
                name = self.pick_step()
                with self.timed(name):
                    killed = await getattr(self, f"step_{name}")()
                if killed or self.kills >= MAX_KILLS - 1:
                    continue
                reveal_wait = name == "reveal" and self.rng.random() < 0.6
                if index in kill_plan or reveal_wait:
                    with self.timed("kill"):
                        await self.crash_and_restart()
            with self.timed("kill"):
                await self.crash_and_restart()
            with self.timed("finale"):
                await self.finale()
            await self.stop_server()
        finally:
            with contextlib.suppress(Exception):
                await self.drop_tables()
            if self.process is not None and self.process.poll() is None:
                kill(self.process)
            if self._server is not None:
                self._server.__exit__(None, None, None)
            if self.schema:
                await self.drop_schema()
        elapsed = time.monotonic() - self.started
        print(
            f"\n{self.backend} seed {self.seed}: {self.life} restarts, "
            f"{len(self.rooms)} rooms, {sum(len(r.records) for r in self.rooms.values())} "
            f"games finished, {elapsed:.1f} s; {dict(sorted(self.stats.items()))}; "
            f"kills at {self.kill_states}; seconds "
            f"{ {name: round(took, 1) for name, took in sorted(self.timings.items())} }"
        )

    @contextlib.contextmanager
    def timed(self, name: str) -> Iterator[None]:
        started = time.monotonic()
        try:
            yield
        finally:
            self.timings[name] = self.timings.get(name, 0.0) + time.monotonic() - started

    def pick_step(self) -> str:
        live = self.live()
        lobby = [r for r in live if r.status == "lobby" and not r.quick]
        playing = [r for r in live if r.status == "playing"]
        over = [r for r in live if r.status == "over"]
        weights: dict[str, float] = {}
        quick = [r for r in live if r.quick]
        if len(live) < MAX_ROOMS:
            weights["create"] = 3.0 if len(live) < 3 else 1.5
            if not quick:
                weights["quick"] = 0.7
        if len(quick) == 1 and quick[0].status == "lobby":
            weights["quick"] = 1.5  # a second player at the table, before it fills
        if lobby:
            weights["configure"] = 1.2
            weights["start"] = 2.0
        if playing:
            weights["act"] = 4.0
            weights["reveal"] = 2.5
            weights["finish"] = 1.2
            if self.kills < MAX_KILLS - 1:
                weights["play_and_kill"] = 1.0
        if over:
            weights["rematch"] = 2.0
        if any(r.empty for r in lobby) or over:
            weights["close_idle"] = 0.8
        names = sorted(weights)
        return self.rng.choices(names, weights=[weights[n] for n in names])[0]

    # -- servers ------------------------------------------------------------------------

    async def start_server(self) -> None:
        self._server = server_process(self.database, env=self.env)
        try:
            self.base, self.process = self._server.__enter__()
        except RuntimeError as error:  # it did not start: say after what
            self._server = None
            self.check(False, f"{error}\n")
        self.client = Client(self.base, timeout=30)
        self.life += 1

    async def stop_server(self) -> None:
        await self.drop_tables()
        assert self.process is not None and self._server is not None
        output = kill(self.process)
        self._server.__exit__(None, None, None)
        self._server = None
        self.check(
            not server_errors(output), f"the server logged errors: {server_errors(output)[:5]}"
        )

    async def drop_tables(self, dead: bool = False) -> None:
        """Close every socket (``dead``: the server is gone, no closing handshake to wait
        for, which can take the client's close timeout)."""
        for table in [*self.tables.values(), *self.extra_tables]:
            self.harvest(table)
            if dead and table.socket is not None:
                with contextlib.suppress(Exception):
                    table.socket.transport.abort()
            await table.close()
        self.tables.clear()
        self.extra_tables.clear()
        if self.client is not None:
            await self.client.__aexit__(None, None, None)
            self.client = None

    async def table(self, room: RoomModel, seat: int) -> Table:
        """The seat's socket in this server's life (opened on first use)."""
        found = self.tables.get((room.code, seat))
        if found is None:
            assert self.client is not None
            found = self.client.table(room.tickets[seat])
            await found.connect()
            self.check(
                found.state["you"]["seat"] == seat,
                f"ticket of seat {seat} in {room.code} sat in {found.state['you']}",
            )
            self.tables[(room.code, seat)] = found
        return found

    # -- what sockets were shown ----------------------------------------------------------

    def harvest(self, table: Table) -> None:
        """Remember every die and bid a socket was shown; each must hold for good."""
        start = self.harvested.get(table, 0)
        self.harvested[table] = len(table.received)
        code = table.url.rsplit("/ws/", 1)[-1].split("?")[0]
        room = self.rooms.get(code)
        for message in table.received[start:]:
            if room is not None and message.get("version") is not None:
                room.max_seen = max(room.max_seen, message["version"])
            if message["type"] != "state" or not message.get("game"):
                continue
            game, fair = message["game"], message.get("fair") or {}
            if game["phase"] != "bidding" or not fair.get("game_id"):
                continue
            seat = message["you"]["seat"]
            if seat is not None:
                key = (fair["game_id"], game["round"], seat)
                earlier = self.seen_dice.setdefault(key, game["dice"])
                self.check(
                    earlier == game["dice"],
                    f"seat {seat} was shown dice {earlier} and then {game['dice']} "
                    f"in round {game['round']} of game {fair['game_id']}",
                )
            bids_key = (fair["game_id"], game["round"])
            known = self.seen_bids.get(bids_key, [])
            bids = game["bids"]
            shorter, longer = (known, bids) if len(known) <= len(bids) else (bids, known)
            self.check(
                longer[: len(shorter)] == shorter,
                f"round {game['round']} of game {fair['game_id']} was shown bids "
                f"{known} and then {bids}",
            )
            self.seen_bids[bids_key] = longer

    # -- bringing a room to rest ----------------------------------------------------------

    async def settle(self, room: RoomModel, known: int | None = None) -> dict[str, Any]:
        """Wait until nothing happens in the room without the clock: no bot to move, no
        calza check pending (two pongs in a row at the same version). Returns the latest
        state of seat 0's socket, every socket of the room brought up to date.

        ``known``: the version an ack just reported. Without bots nothing follows it but
        its own state, which every socket gets: waiting for that saves the pings (each
        seat's messages are rate-limited)."""
        seats = sorted(room.tickets)
        tables = [await self.table(room, seat) for seat in seats]
        first = tables[0]
        bots = any(seat["kind"] == "bot" for seat in first.state["room"]["seats"])
        if known is not None and not bots:
            for table in tables:
                await table.wait_for(lambda state: state["version"] >= known, timeout=30)
            version = max(known, first.state["version"])
        else:
            previous = -1
            while True:
                await first.wait_for(lambda state: not bot_to_move(state), timeout=30)
                version = await ping(first)
                if not bot_to_move(first.state) and (
                    version == previous or not calza_check_may_follow(first.state)
                ):
                    break
                previous = version
            for other in tables[1:]:
                if first.state["version"] == version:  # every change so far went out
                    await other.wait_for(lambda state: state["version"] >= version, timeout=30)
                else:  # a seed (stored, counted, not sent as a state)
                    await ping(other)
        room.max_seen = max(room.max_seen, version)
        room.version = version
        room.status = first.state["room"]["status"]
        self._follow_games(room, first.state)
        return first.state

    def _follow_games(self, room: RoomModel, state: dict[str, Any]) -> None:
        fair = state.get("fair") or {}
        game_id = fair.get("game_id")
        if game_id and game_id not in room.games:
            room.games.append(game_id)
        if state["room"]["status"] == "over" and game_id:
            room.records.setdefault(game_id, None)

    @staticmethod
    def describe(tables: list[Table]) -> str:
        """Where the room stands for each socket, and the last messages it got."""
        lines = []
        for table in tables:
            state = table.state
            game = state.get("game") or {}
            lines.append(
                f"\n  seat {state['you']['seat']} v{state['version']} "
                f"{state['room']['status']}/{game.get('phase')} round {game.get('round')} "
                f"turn {game.get('turn')} bids {game.get('bids')} legal {game.get('legal')} "
                f"seats {[seat['kind'] for seat in state['room']['seats']]} "
                f"last: {[json.dumps(m)[:300] for m in table.received[-4:]]}"
            )
        return "".join(lines)

    # -- steps ----------------------------------------------------------------------------

    def pick_rules(self) -> dict[str, Any]:
        return self.rng.choice(
            [
                {"preset": "perudo", "starting_dice": 1},
                {"preset": "perudo", "starting_dice": 2},
                {
                    "preset": "perudo",
                    "starting_dice": 2,
                    "calza": "any_time",
                    "calza_min_players": 2,
                },
                {"preset": "dudo", "starting_dice": 2},
                {"preset": "tavern", "starting_dice": 2},
                {"preset": "ones-lock", "starting_dice": 2},
                {"preset": "perudo", "format": "points", "points_rounds": 3},
            ]
        )

    async def step_create(self) -> bool:
        assert self.client is not None
        seats = self.rng.choice([2, 3, 3, 4])
        empty = self.rng.random() < 0.25
        levels: list[str | None] = [None, None, "easy", "normal", "hard"]
        bots = [None, *(self.rng.choice(levels) for _ in range(seats - 1))]
        rules = self.pick_rules()
        host = await self.client.create_room(
            self.new_name("Host"), rules=rules, seats=seats, bots=bots
        )
        room = RoomModel(host.code, seats, {0: host}, empty=empty)
        self.rooms[room.code] = room
        if not empty:
            for seat in range(1, seats):
                if bots[seat] is None:
                    ticket = await self.client.join(room.code, self.new_name("Guest"))
                    self.check(ticket.seat == seat, f"joined {ticket} for seat {seat}")
                    room.tickets[seat] = ticket
        self.note(f"create {room.code} seats={seats} bots={bots} rules={rules} empty={empty}")
        await self.settle(room)
        return False

    async def step_quick(self) -> bool:
        assert self.client is not None
        ticket = await self.client.quick(self.new_name("Quick"))
        room = self.rooms.get(ticket.code)
        if room is None:
            room = RoomModel(ticket.code, 4, {}, quick=True)
            self.rooms[ticket.code] = room
        self.check(
            room.quick and ticket.seat not in room.tickets,
            f"quick seat {ticket} in a room we know otherwise",
        )
        room.tickets[ticket.seat] = ticket
        self.note(f"quick {ticket.code} seat {ticket.seat}")
        await self.settle(room)
        return False

    def pick(self, rooms: list[RoomModel]) -> RoomModel:
        return self.rng.choice(sorted(rooms, key=lambda room: room.code))

    async def step_configure(self) -> bool:
        room = self.pick([r for r in self.live() if r.status == "lobby" and not r.quick])
        host = await self.table(room, 0)
        await self.settle(room)
        change: dict[str, Any] = {}
        if self.rng.random() < 0.6:
            change["rules"] = self.pick_rules()
        if self.rng.random() < 0.5:
            change["timer"] = self.rng.choice([0, 300, 600])
        if self.rng.random() < 0.3:
            change["public"] = self.rng.random() < 0.5
        seats = host.state["room"]["seats"]
        if self.rng.random() < 0.5 and any(seat["kind"] == "bot" for seat in seats):
            change["seats"] = [
                {"kind": "bot", "level": self.rng.choice(["easy", "normal", "hard"])}
                if seat["kind"] == "bot"
                else None
                for seat in seats
            ]
        if not change:
            change["timer"] = 0
        message, reply = await request(host, {"type": "configure", **change})
        self.check(reply["type"] == "ack", f"configure {change} answered {reply}")
        room.answered.append((0, message, reply))
        state = await self.settle(room, reply["version"])
        if "timer" in change:
            self.check(state["room"]["timer"] == change["timer"], f"timer: {state['room']}")
        if "rules" in change:
            self.check(
                state["room"]["rules"] == Rules.from_json(change["rules"]).to_json(),
                f"rules {change['rules']} configured, room has {state['room']['rules']}",
            )
        self.note(f"configure {room.code} {change}")
        return False

    async def fill_and_start(self, room: RoomModel) -> None:
        assert self.client is not None
        host = await self.table(room, 0)
        await self.settle(room)
        for seat, info in enumerate(host.state["room"]["seats"]):
            if info["kind"] == "open":
                ticket = await self.client.join(room.code, self.new_name("Late"))
                self.check(ticket.seat == seat, f"joined {ticket} for open seat {seat}")
                room.tickets[seat] = ticket
        room.empty = False
        await self.settle(room)
        message, reply = await request(host, {"type": "start"})
        self.check(reply["type"] == "ack", f"start answered {reply}")
        room.answered.append((0, message, reply))
        state = await self.settle(room, reply["version"])
        self.check(state["room"]["status"] in ("playing", "over"), f"after start: {state}")

    async def step_start(self) -> bool:
        room = self.pick([r for r in self.live() if r.status == "lobby" and not r.quick])
        await self.fill_and_start(room)
        self.note(f"start {room.code} game {room.games[-1:]}")
        if self.rng.random() < 0.5:
            await self.send_seed(room)
        return False

    async def send_seed(self, room: RoomModel) -> None:
        """A seat's seed for the round waiting to be rolled; an ack means it is used."""
        seat = self.rng.choice(sorted(room.tickets))
        table = await self.table(room, seat)
        fair = table.state.get("fair") or {}
        game = table.state.get("game") or {}
        if game.get("phase") != "roll" or not fair.get("round"):
            return
        seed = secrets.token_hex(16)
        message, reply = await request(
            table, {"type": "seed", "round": fair["round"], "seed": seed}
        )
        if reply["type"] == "ack":  # the last seed before the roll counts
            room.seeds = [
                entry for entry in room.seeds if entry[:3] != (fair["game_id"], fair["round"], seat)
            ]
            room.seeds.append((fair["game_id"], fair["round"], seat, seed))
            self.stats["seeds acked"] += 1
            room.answered.append((seat, message, reply))
            room.max_seen = max(room.max_seen, reply["version"])
        else:  # the pause ran out first
            self.check(reply.get("code") == "wrong_round", f"seed answered {reply}")
        self.note(f"seed {room.code} seat {seat} round {fair['round']}: {reply['type']}")

    async def one_action(
        self, room: RoomModel, state: dict[str, Any], call: str | None = None
    ) -> dict[str, Any] | None:
        """One bid or call by a person whose turn it is (or calza out of turn), from the
        room at rest in ``state``; the room's next state at rest, or None if no person
        can act now."""
        game = state.get("game")
        if state["room"]["status"] != "playing" or not game:
            return None
        if game["phase"] == "roll":
            seat = self.rng.choice(sorted(room.tickets))
            table = await self.table(room, seat)
            message, reply = await request(table, {"type": "next_round"})
            if reply["type"] == "ack":
                room.answered.append((seat, message, reply))
            else:  # rolled by the clock meanwhile
                self.check(reply.get("code") == "not_now", f"next_round answered {reply}")
            return await self.settle(room, reply.get("version"))
        if game["phase"] != "bidding":
            return None
        seat = game["turn"]
        if seat not in room.tickets:
            return None
        table = await self.table(room, seat)
        legal = table.state["game"]["legal"]
        calzas = [
            s
            for s in sorted(room.tickets)
            if s != seat and "calza" in (await self.table(room, s)).state["game"]["legal"]["calls"]
        ]
        if call == "dudo" and "dudo" not in legal["calls"]:
            return None
        if call is None and calzas and self.rng.random() < 0.15:
            seat, call = self.rng.choice(calzas), "calza"
            table = await self.table(room, seat)
        elif (
            call is None
            and "dudo" in legal["calls"]
            and (self.rng.random() < 0.2 or not legal["bids"])
        ):
            call = "dudo"
        body: dict[str, Any]
        if call is not None:
            body = {"type": "call", "call": call}
            action: dict[str, Any] = {"call": call}
        else:
            quantity, face = self.rng.choice(legal["bids"][:4])
            body = {"type": "bid", "quantity": quantity, "face": face}
            action = {"bid": [quantity, face]}
        stale = self.rng.random() < 0.05
        version = table.state["version"] - (1 if stale else 0)
        message, reply = await request(table, {**body, "version": version})
        room.answered.append((seat, message, reply))
        if reply["type"] == "ack":
            self.check(not stale, f"a stale action was taken: {message} {reply}")
            room.acked.append(Acked(state["fair"]["game_id"], game["round"], seat, action))
            self.stats["actions acked"] += 1
            room.max_seen = max(room.max_seen, reply["version"])
        else:
            self.check(reply.get("code") == "stale", f"{message} answered {reply}")
        return await self.settle(room, reply.get("version"))

    async def step_act(self) -> bool:
        room = self.pick([r for r in self.live() if r.status == "playing"])
        count = self.rng.randint(1, 4)
        done = 0
        state: dict[str, Any] | None = await self.settle(room)
        for _ in range(count):
            assert state is not None
            state = await self.one_action(room, state)
            if state is None:
                break
            done += 1
        self.note(f"act {room.code} x{done}")
        await self.after_actions(room)
        return False

    async def step_reveal(self) -> bool:
        """End a round with a call: the room then waits for the roll (the reveal pause)."""
        room = self.pick([r for r in self.live() if r.status == "playing"])
        state: dict[str, Any] | None = await self.settle(room)
        for _ in range(4):
            assert state is not None
            game = state.get("game")
            if state["room"]["status"] != "playing" or not game:
                break
            if game["phase"] == "bidding" and game["bids"] and game["turn"] in room.tickets:
                await self.one_action(room, state, call="dudo")
                break
            state = await self.one_action(room, state)
            if state is None:
                break
        state = await self.settle(room)
        phase = (state.get("game") or {}).get("phase")
        self.note(f"reveal {room.code}: {state['room']['status']}/{phase}")
        if phase == "roll" and self.rng.random() < 0.5:
            await self.send_seed(room)
        await self.after_actions(room)
        return False

    async def after_actions(self, room: RoomModel) -> None:
        state = await self.settle(room)
        if state["room"]["status"] == "over" and self.rng.random() < 0.5:
            await self.fetch_records(room)  # else only after the next restart

    async def step_finish(self) -> bool:
        room = self.pick([r for r in self.live() if r.status == "playing"])
        await self.play_out(room)
        self.note(f"finish {room.code}")
        await self.after_actions(room)
        return False

    async def step_rematch(self) -> bool:
        room = self.pick([r for r in self.live() if r.status == "over"])
        seat = self.rng.choice(sorted(room.tickets))
        table = await self.table(room, seat)
        await self.settle(room)
        message, reply = await request(table, {"type": "rematch"})
        self.check(reply["type"] == "ack", f"rematch answered {reply}")
        room.answered.append((seat, message, reply))
        state = await self.settle(room, reply["version"])
        self.check(
            state["fair"]["game_id"] == room.games[-1] and len(room.games) >= 2,
            f"rematch made no new game: {room.games} {state['fair']}",
        )
        self.note(f"rematch {room.code} by {seat}")
        return False

    async def step_close_idle(self) -> bool:
        """Let the next restart find these rooms idle for long enough (the offline sweep
        closes them while the server is down); one game in progress must stay."""
        live = self.live()
        lobbies = [r for r in live if r.status == "lobby" and r.empty and not r.quick]
        over = [r for r in live if r.status == "over"]
        for group in (lobbies, over):
            if group:
                self.close_next.add(self.pick(group).code)
        playing = [r for r in live if r.status == "playing" and not r.quick]
        if playing:
            self.keep_next.add(self.pick(playing).code)
        self.note(f"close_idle {sorted(self.close_next)} keep {sorted(self.keep_next)}")
        return False

    async def play_out(self, room: RoomModel) -> None:
        """Every person's seat played by a bot through Table.play, and a second socket
        that cuts the pause after each reveal short (next_round), to the game's end."""
        assert self.client is not None
        await self.settle(room)  # every socket has the latest state: none plays an old one
        tables = [await self.table(room, seat) for seat in sorted(room.tickets)]
        roller = self.client.table(room.tickets[min(room.tickets)])
        self.extra_tables.append(roller)
        await roller.connect()

        async def roll() -> None:
            while True:
                state = await roller.wait_for(
                    lambda s: s["room"]["status"] != "playing" or s["game"]["phase"] == "roll",
                    timeout=65,
                )
                if state["room"]["status"] != "playing":
                    return
                await asyncio.sleep(0.05)  # the players' seeds first
                _, reply = await request(roller, {"type": "next_round"})
                if reply["type"] == "ack":
                    room.max_seen = max(room.max_seen, reply["version"])
                await roller.wait_for(rolled_after(state["version"]), timeout=60)

        room.answered.clear()  # many answers follow: the oldest kept ones drop out
        # The players send seeds of their own now, for the round waiting too: theirs count
        # (and Table checks them against the reveal).
        fair = tables[0].state.get("fair") or {}
        room.seeds = [
            entry
            for entry in room.seeds
            if (entry[0], entry[1]) != (fair.get("game_id"), fair.get("round"))
        ]
        levels = ["easy", "normal", "hard"]
        results = await asyncio.gather(
            roll(),
            *(
                table.play(
                    Paced(make_bot(self.rng.choice(levels), seed=self.rng.randrange(9**9))),
                    timeout=60,
                )
                for table in tables
            ),
            return_exceptions=True,
        )
        for result in results:
            if isinstance(result, TimeoutError):
                self.check(False, f"{room.code} stopped moving: {self.describe(tables)}")
            if isinstance(result, BaseException):
                raise result
        for table in tables:
            self.check(
                not table.seed_mismatches,
                f"{room.code}: acknowledged seeds not used in {table.seed_mismatches}",
            )

    async def step_play_and_kill(self) -> bool:
        """Kill the server while games are played at full speed: between an action and
        its answer, a commit and its broadcast."""
        assert self.client is not None
        playing = sorted(
            (r for r in self.live() if r.status == "playing"), key=lambda room: room.code
        )
        chosen = self.rng.sample(playing, min(len(playing), self.rng.randint(1, 2)))
        others = [room for room in self.live() if room not in chosen]
        await self.photograph(others, mid_play=len(chosen))
        watchers = []
        for room in chosen:
            watcher = self.client.table(code=room.code)
            self.extra_tables.append(watcher)
            await watcher.connect()
            watchers.append((room, watcher, watcher.state["version"]))
        tasks = [asyncio.create_task(self.play_out(room)) for room in chosen]

        async def progress(watcher: Table, version: int, steps: int) -> None:
            await watcher.wait_for(
                lambda s: s["version"] >= version + steps or s["room"]["status"] != "playing",
                timeout=60,
            )

        async def every_room_moved() -> None:
            await asyncio.gather(
                *(
                    progress(watcher, version, self.rng.randint(1, 12))
                    for _room, watcher, version in watchers
                )
            )

        watching = asyncio.create_task(every_room_moved())
        await asyncio.wait([watching, *tasks], return_when=asyncio.FIRST_COMPLETED)
        for task in [watching, *tasks]:
            if task.done() and task.exception() is not None:
                raise task.exception()  # type: ignore[misc]
        watching.cancel()
        for room in chosen:
            room.shots = {}  # not at rest: what the sockets were shown is checked instead
        self.note(f"play_and_kill {[room.code for room in chosen]}")
        await self.crash(tasks)
        await self.restart_and_check()
        return True

    # -- kill and restart -----------------------------------------------------------------

    async def photograph(self, rooms: list[RoomModel], mid_play: int = 0) -> None:
        """Every room at rest, every seat's state kept to compare after the restart."""
        where: list[str] = ["mid-play"] * mid_play
        for room in rooms:
            state = await self.settle(room)
            version = room.version
            room.shots = {}
            for seat in sorted(room.tickets):
                table = await self.table(room, seat)
                room.shots[seat] = snapshot(table.state, version)
            game = state.get("game")
            where.append(
                game["phase"]
                if game and state["room"]["status"] == "playing"
                else state["room"]["status"]
            )
        self.kill_states.append(
            " ".join(f"{name}x{count}" for name, count in sorted(Counter(where).items()))
        )

    async def crash_and_restart(self) -> None:
        await self.photograph(self.live())
        self.note("kill")
        await self.crash([])
        await self.restart_and_check()

    async def crash(self, tasks: list[asyncio.Task[None]]) -> None:
        assert self.process is not None and self._server is not None
        output = kill(self.process)
        self.kills += 1
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(BaseException):
                await task
        self._server.__exit__(None, None, None)
        self._server = None
        await self.drop_tables(dead=True)
        errors = server_errors(output)
        self.check(not errors, f"the server logged errors before the kill: {errors[:5]}")

    async def restart_and_check(self) -> None:
        if self.close_next or self.keep_next:
            await self.sweep_offline()
        await self.start_server()
        assert self.client is not None
        health = httpx.get(f"{self.base}/healthz", timeout=10).json()
        self.check(
            health["rooms"] == len(self.live()),
            f"the server holds {health['rooms']} rooms, the model "
            f"{len(self.live())}: {sorted(r.code for r in self.live())}",
        )
        now = time.time()
        for room in self.rooms.values():
            if room.closed:
                await self.check_closed(room)
            else:
                await self.check_room(room, now)
        await self.check_exactly_once()
        for room in self.rooms.values():
            await self.fetch_records(room)
        await self.check_database()

    async def sweep_offline(self) -> None:
        """The server's own idle sweep on the dead server's database, its clock moved past
        the limits: lobbies and finished games close, games in progress stay."""
        store = open_store(self.database)
        await store.open()
        try:
            clock = FakeClock(time.time())
            lobby = Lobby(store, SWEEP, clock=clock)
            codes = sorted(self.close_next | self.keep_next)
            for code in codes:
                lobby.rooms[code] = await Room.load(code, store, SWEEP, clock)
            statuses = {code: lobby.rooms[code].status for code in codes}
            clock.advance(SWEEP_ADVANCE)
            closed = await lobby.close_idle_rooms()
        finally:
            await store.close()
        expected = {code for code in codes if statuses[code] in ("lobby", "over")}
        self.check(
            set(closed) == expected,
            f"the sweep closed {closed}, expected {sorted(expected)} of {statuses}",
        )
        for code in closed:
            self.rooms[code].closed = True
        self.stats["rooms closed idle"] += len(closed)
        self.note(f"swept {closed}")
        self.close_next.clear()
        self.keep_next.clear()

    async def check_closed(self, room: RoomModel) -> None:
        assert self.client is not None
        with pytest.raises(ClientError) as refused:
            await self.client.room(room.code)
        self.check(refused.value.code == "no_room", f"closed {room.code}: {refused.value}")
        table = self.client.table(room.tickets[min(room.tickets)])
        with pytest.raises(ClientError) as refused:
            await table.connect()
        await table.close()
        self.check(refused.value.code == "no_room", f"closed {room.code}: {refused.value}")

    async def check_room(self, room: RoomModel, now: float) -> None:
        """The room is where it stood at the kill (or moved forwards by the clock)."""
        assert self.client is not None
        summary = summary_of(await self.client.room(room.code))
        tables = {seat: await self.table(room, seat) for seat in sorted(room.tickets)}
        for seat, table in tables.items():
            self.harvest(table)
            after = table.state
            version = await ping(table)
            self.check(
                version >= room.max_seen,
                f"{room.code} seat {seat} is at version {version} after the restart, "
                f"but version {room.max_seen} had been shown before",
            )
            shot = room.shots.get(seat)
            if shot is None:
                continue  # killed mid-play: the observations and the records tell
            moved = self.clock_may_move(shot, now)
            again = snapshot(after, version)
            if version == shot["version"]:
                self.stats["seats as they were"] += 1
                self.check(
                    again == shot,
                    f"{room.code} seat {seat} after the restart:\n"
                    f"{again}\nbefore the kill:\n{shot}",
                )
                self.check(
                    summary_part(shot) == summary,
                    f"{room.code} summary {summary} != {summary_part(shot)}",
                )
                continue
            self.check(
                moved is not None and version > shot["version"],
                f"{room.code} seat {seat} moved from version {shot['version']} to "
                f"{version} while at rest:\n{again}\nbefore the kill:\n{shot}",
            )
            self.stats[f"moved by the clock: {moved}"] += 1
            if shot["fair"] and again["fair"] and shot["fair"]["round"] == again["fair"]["round"]:
                self.check(
                    again["fair"]["commitment"] == shot["fair"]["commitment"],
                    f"{room.code}: round {shot['fair']['round']}'s commitment changed",
                )
            order = ["lobby", "playing", "over"]
            self.check(
                order.index(again["status"]) >= order.index(shot["status"]),
                f"{room.code} went back from {shot['status']} to {again['status']}",
            )
            if shot["fair"] and again["status"] != "lobby":
                self.check(
                    again["fair"]["game_id"] == shot["fair"]["game_id"],
                    f"{room.code} changed game by the clock ({moved})",
                )
        state = await self.settle(room)
        game = state.get("game")
        if game and state["room"]["status"] == "playing" and game["phase"] == "bidding":
            game_id = state["fair"]["game_id"]
            mine = [
                [a.seat, a.action["bid"]]
                for a in room.acked
                if a.game_id == game_id and a.round == game["round"] and "bid" in a.action
            ]
            self.check(
                is_subsequence(mine, game["bids"]),
                f"{room.code}: acknowledged bids {mine} are not all in {game['bids']}",
            )

    @staticmethod
    def clock_may_move(shot: dict[str, Any], now: float) -> str | None:
        """What could move a room at rest without anyone's message."""
        if shot["status"] == "lobby":
            return "quick fill" if shot["quick"] else None
        if shot["status"] != "playing":
            return None
        if shot["roll_at"] is not None:
            return "roll"
        if shot["deadline"] is not None and shot["deadline"] <= now + 1:
            return "turn timer"
        return None

    async def check_exactly_once(self) -> None:
        """The last answered message of every seat, sent again with its id, gets the same
        answer and changes nothing."""
        for room in self.live():
            last: dict[int, tuple[dict[str, Any], dict[str, Any]]] = {}
            for seat, message, reply in room.answered:
                last[seat] = (message, reply)
            for seat, (message, reply) in sorted(last.items()):
                table = await self.table(room, seat)
                before = await ping(table)
                _, again = await request(
                    table, {k: v for k, v in message.items() if k != "id"}, message_id=message["id"]
                )
                self.check(
                    again == reply,
                    f"{room.code} seat {seat}: {message} answered "
                    f"{reply} before the restart and {again} after",
                )
                self.check(
                    await ping(table) == before,
                    f"{room.code}: resending {message} changed the room",
                )
                self.stats["answers resent"] += 1

    async def fetch_records(self, room: RoomModel) -> None:
        """Finished games' records: fetched once, and the same every time after."""
        assert self.client is not None
        for game_id in list(room.records):
            record = None
            for _ in range(100):
                try:
                    record = await self.client.game_record(game_id)
                    break
                except ClientError as error:
                    self.check(error.code == "no_game", f"record {game_id}: {error}")
                    await asyncio.sleep(0.05)  # saved just after the last state went out
            self.check(record is not None, f"no record of finished game {game_id}")
            assert record is not None
            first = room.records[game_id]
            if first is None:
                room.records[game_id] = record
                self.check_record(room, game_id, record)
            else:
                self.check(record == first, f"the record of {game_id} changed")

    def check_record(self, room: RoomModel, game_id: str, record: dict[str, Any]) -> None:
        """Everything acknowledged and everything shown is in the finished game."""
        self.check(
            record["game_id"] == game_id and record["room"] == room.code,
            f"record {record.get('game_id')} of {record.get('room')}",
        )
        mine = [(a.round, a.seat, a.action) for a in room.acked if a.game_id == game_id]
        actions = record_actions(record)
        self.check(
            is_subsequence(mine, actions),
            f"acknowledged actions {mine} of {game_id} are not all in {actions}",
        )
        for (seen_game, number, seat), dice in self.seen_dice.items():
            if seen_game == game_id:
                self.check(
                    record["rounds"][number - 1]["dice"][seat] == dice,
                    f"seat {seat} was shown {dice} in round {number} of {game_id}; "
                    f"the record has {record['rounds'][number - 1]['dice'][seat]}",
                )
        for (seen_game, number), bids in self.seen_bids.items():
            if seen_game == game_id:
                kept = [
                    [action["seat"], action["bid"]]
                    for action in record["rounds"][number - 1]["actions"]
                    if "bid" in action
                ]
                self.check(
                    kept[: len(bids)] == bids,
                    f"round {number} of {game_id} showed bids {bids}; record {kept}",
                )
        # A seed may be for a round or for a roll-off attempt ("rolloff-K", the dudo preset).
        fairness = {
            entry["round"]: entry
            for entry in record["fairness"] + record.get("rolloff_fairness", [])
        }
        for seed_game, number, seat, seed in room.seeds:
            if seed_game == game_id:
                self.check(
                    fairness[number]["seat_seeds"][seat] == seed,
                    f"seat {seat}'s acknowledged seed for round {number} of {game_id} "
                    f"was not used: {fairness[number]['seat_seeds']}",
                )

    # -- the database ---------------------------------------------------------------------

    async def query(self, sql: str) -> list[tuple[Any, ...]]:
        if self.backend == "sqlite":
            with contextlib.closing(sqlite3.connect(self.tmp_path / "dudo.db")) as db:
                return list(db.execute(sql).fetchall())
        import asyncpg  # type: ignore[import-untyped]

        assert POSTGRES
        connection = await asyncpg.connect(POSTGRES, server_settings={"search_path": self.schema})
        try:
            return [tuple(row) for row in await connection.fetch(sql)]
        finally:
            await connection.close()

    async def check_database(self) -> None:
        """Each finished game stored once and unchanged, only those; closed rooms closed;
        every room's log without gaps. (The database is this run's own.)"""
        games = await self.query("SELECT game_id, code, record FROM games")
        ids = [game_id for game_id, _, _ in games]
        self.check(len(ids) == len(set(ids)), f"a game stored twice: {sorted(ids)}")
        finished = {game_id: room for room in self.rooms.values() for game_id in room.records}
        self.check(
            set(ids) == set(finished), f"games stored {sorted(ids)}, finished {sorted(finished)}"
        )
        for game_id, code, text in games:
            room = finished[game_id]
            self.check(code == room.code, f"game {game_id} stored for {code}")
            first = room.records[game_id]
            if first is not None:
                self.check(json.loads(text) == first, f"stored record of {game_id} changed")
        rooms = dict(await self.query("SELECT code, closed FROM rooms"))
        self.check(
            set(rooms) == set(self.rooms),
            f"rooms stored {sorted(rooms)}, made {sorted(self.rooms)}",
        )
        for code, closed in rooms.items():
            self.check(bool(closed) == self.rooms[code].closed, f"{code}: closed={closed}")
        sequences: dict[str, list[int]] = {}
        for code, seq in await self.query("SELECT code, seq FROM room_log ORDER BY code, seq"):
            sequences.setdefault(code, []).append(seq)
        for code, seqs in sequences.items():
            self.check(seqs == list(range(len(seqs))), f"{code}'s log has gaps: {seqs}")

    async def make_schema(self) -> None:
        import asyncpg

        assert POSTGRES
        self.schema = f"dudo_restart_{self.seed}_{secrets.token_hex(4)}"
        connection = await asyncpg.connect(POSTGRES)
        try:
            await connection.execute(f'CREATE SCHEMA "{self.schema}"')
        finally:
            await connection.close()
        shim = self.tmp_path / "pgshim"
        shim.mkdir()
        (shim / "sitecustomize.py").write_text(SCHEMA_SHIM, encoding="utf-8")
        path = os.environ.get("PYTHONPATH")
        self.env["PYTHONPATH"] = str(shim) + (os.pathsep + path if path else "")
        self.env["DUDO_TEST_PG_SCHEMA"] = self.schema
        self.database = POSTGRES
        # This process's own connections (the offline sweep) go to the schema as well.
        original = asyncpg.connect
        schema = self.schema

        async def connect_in_schema(*args: Any, **kwargs: Any) -> Any:
            settings = dict(kwargs.pop("server_settings", None) or {})
            settings.setdefault("search_path", schema)
            return await original(*args, server_settings=settings, **kwargs)

        self.monkeypatch.setattr(asyncpg, "connect", connect_in_schema)

    async def drop_schema(self) -> None:
        import asyncpg

        assert POSTGRES
        connection = await asyncpg.connect(POSTGRES)
        try:
            await connection.execute(f'DROP SCHEMA IF EXISTS "{self.schema}" CASCADE')
        finally:
            await connection.close()

    # -- the end --------------------------------------------------------------------------

    async def finale(self) -> None:
        """Every room plays to the end; every finished game verifies."""
        assert self.client is not None
        live = self.live()
        for room in live:
            state = await self.settle(room)
            if state["room"]["status"] == "over":
                table = await self.table(room, min(room.tickets))
                _, reply = await request(table, {"type": "rematch"})
                self.check(reply["type"] == "ack", f"rematch answered {reply}")
            elif state["room"]["status"] == "lobby" and not room.quick:
                await self.fill_and_start(room)
        for room in live:
            if room.quick:
                table = await self.table(room, min(room.tickets))
                await table.wait_for(lambda s: s["room"]["status"] != "lobby", timeout=30)
        await asyncio.gather(*(self.play_out(room) for room in live))
        for room in live:
            state = await self.settle(room)
            self.check(state["room"]["status"] == "over", f"{room.code} did not end: {state}")
        for table in [*self.tables.values(), *self.extra_tables]:
            self.harvest(table)
        for room in live:
            await self.fetch_records(room)
        await self.check_database()
        await self.verify_records()

    async def verify_records(self) -> None:
        folder = self.tmp_path / "records"
        folder.mkdir(exist_ok=True)
        paths = []
        for room in self.rooms.values():
            for game_id, record in room.records.items():
                self.check(record is not None, f"{game_id} was never fetched")
                path = folder / f"{game_id}.json"
                path.write_text(json.dumps(record), encoding="utf-8")
                paths.append(path)
        for room in self.live():
            self.check(bool(room.records), f"{room.code} finished no game")
        seen = {key[0] for key in self.seen_dice} | {key[0] for key in self.seen_bids}
        finished = {game_id for room in self.rooms.values() for game_id in room.records}
        self.check(seen <= finished, f"games shown but never finished: {seen - finished}")
        limit = asyncio.Semaphore(4)

        async def verify(path: Path) -> None:
            async with limit:
                process = await asyncio.create_subprocess_exec(
                    sys.executable,
                    "-m",
                    "dudo",
                    "verify",
                    str(path),
                    stdout=asyncio.subprocess.PIPE,
                    stderr=asyncio.subprocess.STDOUT,
                )
                output, _ = await asyncio.wait_for(process.communicate(), 60)
            self.check(
                process.returncode == 0 and b"verified" in output,
                f"dudo verify {path.name}: {output.decode(errors='replace')}",
            )

        await asyncio.gather(*(verify(path) for path in paths))
