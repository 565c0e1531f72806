"""The database goes away under a running ``dudo serve``, and comes back.

Real servers made unreachable, never mocks: PostgreSQL behind a TCP proxy the test cuts
(connections refused) and blackholes (bytes swallowed), SQLite locked by another
connection and on a full filesystem made for the test. In each outage:

- a room played by bots and a stand-in backs off: the log says ``store_unavailable`` once
  per outage and ``store_recovered`` once after it, no error lines, no tracebacks (once:
  191 tracebacks a second per room);
- a player's bid is answered within 2 s with ``unavailable`` (and ``retry_after``) and
  changes nothing; the same id sent again after recovery is applied exactly once (its
  entry is in the log once);
- creating a room, joining one and a quick game answer ``503 unavailable``; /healthz
  answers promptly: it gives up on the database after 0.8 s (503 while it does not answer);
- afterwards the bots and the stand-in carry on by themselves to the end of the game, and
  a program in a seat (``Table.play``, which resends the same id when told
  ``unavailable``) finishes its game too.

PostgreSQL runs when ``DUDO_TEST_POSTGRES`` holds a URL (CI sets it).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import secrets
import shutil
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx
import pytest
from websockets.sync.client import ClientConnection, connect

from dudo.bots import make_bot
from dudo.client import Client
from serverkit import free_port
from tcpproxy import Proxy, proxy_to

pytestmark = pytest.mark.slow  # tens of seconds: run first (tests/conftest.py)

POSTGRES = os.environ.get("DUDO_TEST_POSTGRES")
ANSWER_WITHIN = 2.0  # seconds: the promise to a player
# /healthz gives up on the database after HEALTH_PATIENCE (0.8 s) and answers; before that
# bound it waited for the blackholed database (4 s and more). The bound here is generous so
# that a busy machine (a full test run on two cores) cannot fail it, and still below what a
# /healthz that waits on the database takes.
HEALTH_WITHIN = 3.0


@dataclass
class Fault:
    """One outage: how to begin it and how to end it."""

    name: str
    begin: Callable[[], None]
    end: Callable[[], None]


@contextlib.contextmanager
def serving(database: str, log: Path) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """``dudo serve`` writing its log to a file; bots and stand-ins a little slow, so a
    game lasts through the outages."""
    port = free_port()
    environment = {
        **os.environ,
        "DUDO_BOT_DELAY": "0.25",
        "DUDO_REVEAL_PAUSE": "0.25",
        "DUDO_SEED_WINDOW": "0",
        "DUDO_GRACE": "1",
        "DUDO_CREATION_BURST": "1000",
        "DUDO_CONNECT_BURST": "1000",
        "DUDO_ACCEPT_BURST": "1000",
        "DUDO_ADDRESS_MESSAGE_BURST": "100000",
    }
    with log.open("wb") as out:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "dudo",
                "serve",
                "--port",
                str(port),
                "--database",
                database,
                "--log-level",
                "warning",
            ],
            env=environment,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                    break
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the server did not start:\n{log.read_text()}")
            time.sleep(0.1)
        yield base, process
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=10)


class Seat:
    """A player's socket (synchronous websockets client)."""

    def __init__(self, base: str, code: str, token: str) -> None:
        url = "ws" + base.removeprefix("http") + f"/ws/{code}"
        self.socket: ClientConnection = connect(
            url,
            origin=base,
            subprotocols=["dudo.v1", f"token.{token}"],  # type: ignore[list-item]
            open_timeout=10,
        )
        self.state: dict[str, Any] = {}
        self.seat = -1

    def receive(self, timeout: float) -> dict[str, Any]:
        message: dict[str, Any] = json.loads(self.socket.recv(timeout=timeout))
        if message["type"] == "state":
            self.state = message
            self.seat = message["you"]["seat"]
        return message

    def send(self, message: dict[str, Any]) -> None:
        self.socket.send(json.dumps(message))

    def answer(self, message: dict[str, Any], timeout: float) -> tuple[dict[str, Any], float]:
        """Send and read up to the reply carrying the message's id; (reply, seconds)."""
        started = time.monotonic()
        self.send(message)
        while True:
            left = timeout - (time.monotonic() - started)
            assert left > 0, f"no answer to {message} within {timeout} s"
            try:
                reply = self.receive(left)
            except TimeoutError:
                raise AssertionError(f"no answer to {message} within {timeout} s") from None
            if reply.get("id") == message.get("id") and reply["type"] in ("ack", "error"):
                return reply, time.monotonic() - started

    def my_turn(self, timeout: float = 60) -> dict[str, Any]:
        """Wait until this seat is to bid; the state then."""
        deadline = time.monotonic() + timeout
        while True:
            game = self.state.get("game")
            if (
                game
                and game["phase"] == "bidding"
                and game["turn"] == self.seat
                and game["legal"]["bids"]
            ):
                return self.state
            assert time.monotonic() < deadline, f"never our turn: {self.state}"
            self.receive(deadline - time.monotonic())

    def close(self) -> None:
        self.socket.close()


def create(
    base: str, name: str, seats: int, bots: list[str | None], rules: dict[str, Any]
) -> dict[str, Any]:
    answer = httpx.post(
        f"{base}/api/rooms",
        json={"name": name, "seats": seats, "bots": bots, "rules": rules},
        timeout=10,
    )
    assert answer.status_code == 201, answer.text
    created: dict[str, Any] = answer.json()
    return created


def log_events(log: Path) -> list[dict[str, Any]]:
    events = []
    for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
        with contextlib.suppress(ValueError):
            events.append(json.loads(line))
    return events


class Program(threading.Thread):
    """A program in a seat (``dudo.client``'s ``Table.play``), playing a whole game against
    a bot through the outages: told ``unavailable``, it sends the same id again."""

    def __init__(self, base: str) -> None:
        super().__init__(daemon=True)
        self.base = base
        self.winners: list[int] | None = None
        self.error: BaseException | None = None
        self.started_playing = threading.Event()

    def run(self) -> None:
        async def play() -> list[int]:
            async with Client(self.base) as client:
                seat = await client.create_room(
                    "Robo",
                    rules={"preset": "perudo", "starting_dice": 3},
                    seats=2,
                    bots=[None, "easy"],
                )
                async with client.table(seat) as table:
                    await table.start()
                    self.started_playing.set()
                    return await table.play(make_bot("normal", seed=4), timeout=180)

        try:
            self.winners = asyncio.run(play())
        except BaseException as error:  # reported by the test
            self.error = error


def post_until_served(url: str, body: dict[str, Any], patience: float = 15.0) -> int:
    """POST, and again after each 503 ``unavailable`` as its Retry-After says; the final
    status."""
    deadline = time.monotonic() + patience
    while True:
        answer = httpx.post(url, json=body, timeout=10)
        if answer.status_code != 503 or time.monotonic() > deadline:
            return answer.status_code
        assert answer.json()["error"] == "unavailable", answer.text
        time.sleep(float(answer.headers["retry-after"]))


def run_outages(
    base: str, log: Path, faults: list[Fault], stored_ids: Callable[[str, str], int]
) -> None:
    """The scenario, through each fault in turn (see the module's docstring)."""
    program = Program(base)
    program.start()
    assert program.started_playing.wait(30), program.error
    # A room played by bots and a stand-in: its player leaves at once.
    ana = create(base, "Ana", 3, [None, "easy", "normal"], {"preset": "perudo", "starting_dice": 4})
    leaving = Seat(base, ana["code"], ana["token"])
    leaving.receive(10)
    assert leaving.answer({"type": "start", "id": "go"}, 10)[0]["type"] == "ack"
    leaving.close()
    # A room with a player at the table, who opens every round it loses.
    ben_room = create(
        base,
        "Ben",
        2,
        [None, "easy"],
        {"preset": "perudo", "first_opener": "host", "starting_dice": 5},
    )
    ben = Seat(base, ben_room["code"], ben_room["token"])
    ben.receive(10)
    assert ben.answer({"type": "start", "id": "go"}, 10)[0]["type"] == "ack"
    # A lobby with an open seat, to join during the outage.
    lobby_room = create(base, "Cy", 3, [None, None, "easy"], {"preset": "perudo"})
    game_id = None
    for number, fault in enumerate(faults, start=1):
        state = ben.my_turn()
        game_id = state["fair"]["game_id"]
        quantity, face = state["game"]["legal"]["bids"][0]
        bid = {"type": "bid", "id": f"bid-{number}", "quantity": quantity, "face": face}
        fault.begin()
        # The bots' room meets the fault too: wait until it has (a full disk may still
        # take a few writes, into the space SQLite's write-ahead log had already taken).
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            kinds = [event.get("event") for event in log_events(log)]
            if kinds.count("store_unavailable") >= number:
                break
            time.sleep(0.1)
        reply, took = ben.answer(bid, ANSWER_WITHIN + 1)
        assert reply["type"] == "error" and reply["code"] == "unavailable", (fault.name, reply)
        assert took < ANSWER_WITHIN, f"{fault.name}: the answer took {took:.2f} s"
        assert reply["retry_after"] > 0
        version = ben.state["version"]
        again, took = ben.answer(bid, ANSWER_WITHIN + 1)  # again during the outage
        assert again["code"] == "unavailable" and took < ANSWER_WITHIN, (fault.name, again)
        for path, body in (
            ("/api/rooms", {"name": "Dee", "seats": 2}),
            (f"/api/rooms/{lobby_room['code']}/join", {"name": "Eve"}),
            ("/api/quick", {"name": "Flo"}),
        ):
            started = time.monotonic()
            refused = httpx.post(f"{base}{path}", json=body, timeout=ANSWER_WITHIN + 3)
            assert refused.status_code == 503, (fault.name, path, refused.text)
            assert refused.json()["error"] == "unavailable", (fault.name, path, refused.text)
            assert refused.headers["retry-after"] == "1"
            assert time.monotonic() - started < ANSWER_WITHIN + 1.5, (fault.name, path)
        started = time.monotonic()
        health = httpx.get(f"{base}/healthz", timeout=HEALTH_WITHIN)  # raises if slower
        assert time.monotonic() - started < HEALTH_WITHIN
        assert health.status_code in (200, 503), health.text
        time.sleep(2.0)  # long enough for a hot loop to show in the log
        assert ben.state["version"] == version  # nothing changed meanwhile
        fault.end()
        # The same id again, until the store is back: applied exactly once.
        deadline = time.monotonic() + 30
        while True:
            reply, took = ben.answer(bid, ANSWER_WITHIN + 1)
            assert took < ANSWER_WITHIN + 0.5, f"{fault.name}: {took:.2f} s after recovery"
            if reply["type"] == "ack":
                break
            assert reply["code"] == "unavailable", (fault.name, reply)
            assert time.monotonic() < deadline, f"{fault.name}: the store never came back"
            time.sleep(0.3)
        assert ben.answer(bid, 5)[0] == reply  # the same answer, not applied again
        assert stored_ids(ben_room["code"], bid["id"]) == 1
        healthy = httpx.get(f"{base}/healthz", timeout=HEALTH_WITHIN)
        assert healthy.status_code == 200, healthy.text
        events = log_events(log)
        kinds = [event.get("event") for event in events]
        assert kinds.count("store_unavailable") == number, (fault.name, events[-20:])
        assert kinds.count("store_recovered") == number, (fault.name, events[-20:])
        # Once per outage, not per retry: at most a line about checkpoints besides.
        warnings = [event for event in events if event.get("level") == "warning"]
        assert len(warnings) <= 4 * number, (fault.name, warnings)
    # Everything works again: rooms are made and joined (a room whose last write was
    # still under way answers 503 with Retry-After a moment longer: the client waits as
    # told), and the bots' room plays to its end.
    assert post_until_served(f"{base}/api/rooms", {"name": "Gus", "seats": 2}) == 201
    assert post_until_served(f"{base}/api/rooms/{lobby_room['code']}/join", {"name": "Hal"}) == 200
    bots_game = None
    deadline = time.monotonic() + 90
    while bots_game is None:
        summary = httpx.get(f"{base}/api/rooms/{ana['code']}").json()
        if summary["status"] == "over":
            bots_game = summary
        assert time.monotonic() < deadline, f"the bots' room did not finish: {summary}"
        time.sleep(0.5)
    ben.close()
    assert game_id is not None
    program.join(timeout=180)
    assert program.error is None and program.winners, program.error
    text = log.read_text(encoding="utf-8", errors="replace")
    assert "Traceback" not in text, text[-3000:]
    assert not [event for event in log_events(log) if event.get("level") == "error"], text[-3000:]


# -- PostgreSQL behind a proxy ----------------------------------------------------------------


@contextlib.contextmanager
def postgres_behind(proxy: Proxy) -> Iterator[tuple[str, Callable[[str, str], int]]]:
    assert POSTGRES is not None
    schema = f"dudo_outage_{secrets.token_hex(4)}"
    parts = urlsplit(POSTGRES)
    credentials = parts.netloc.rpartition("@")[0]
    netloc = f"{credentials}@127.0.0.1:{proxy.port}" if credentials else f"127.0.0.1:{proxy.port}"
    separator = "&" if parts.query else "?"
    through = urlunsplit(parts._replace(netloc=netloc)) + f"{separator}schema={schema}"
    dsn = POSTGRES.replace("postgresql://", "postgres://", 1)

    def stored_ids(code: str, message_id: str) -> int:
        query = (
            f"SELECT count(*) FROM \"{schema}\".room_log WHERE code = '{code}' "
            f"AND data::jsonb->>'id' = '{message_id}' AND kind = 'action'"
        )
        done = subprocess.run(
            ["psql", dsn, "-At", "-c", query], capture_output=True, text=True, timeout=30
        )
        assert done.returncode == 0, done.stderr
        return int(done.stdout.strip())

    try:
        yield through, stored_ids
    finally:
        subprocess.run(
            ["psql", dsn, "-q", "-c", f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'],
            capture_output=True,
            timeout=30,
        )


def postgres_address() -> tuple[str, int]:
    assert POSTGRES is not None
    parts = urlsplit(POSTGRES)
    return parts.hostname or "127.0.0.1", parts.port or 5432


@pytest.mark.skipif(
    not POSTGRES and not os.environ.get("CI"),
    reason="no PostgreSQL: set DUDO_TEST_POSTGRES to a URL",
)
def test_postgresql_refusing_then_blackholed(tmp_path: Path) -> None:
    assert POSTGRES, "CI must provide a PostgreSQL server in DUDO_TEST_POSTGRES"
    with proxy_to(*postgres_address()) as proxy, postgres_behind(proxy) as (database, ids):
        log = tmp_path / "server.log"
        with serving(database, log) as (base, _):
            run_outages(
                base,
                log,
                [
                    Fault("refused", proxy.down, proxy.restore),
                    Fault("blackholed", proxy.blackhole, proxy.restore),
                ],
                ids,
            )


# -- SQLite: locked, and a full disk ----------------------------------------------------------


def sqlite_ids(path: Path) -> Callable[[str, str], int]:
    def stored_ids(code: str, message_id: str) -> int:
        with contextlib.closing(sqlite3.connect(path, timeout=10)) as connection:
            rows = connection.execute(
                "SELECT data FROM room_log WHERE code = ? AND kind = 'action'", (code,)
            )
            return sum(1 for (data,) in rows if json.loads(data).get("id") == message_id)

    return stored_ids


def test_sqlite_locked_by_another_connection(tmp_path: Path) -> None:
    path = tmp_path / "dudo.db"
    holder: list[sqlite3.Connection] = []

    def lock() -> None:
        connection = sqlite3.connect(path, timeout=10, isolation_level=None)
        connection.execute("BEGIN EXCLUSIVE")
        holder.append(connection)

    def unlock() -> None:
        connection = holder.pop()
        connection.execute("ROLLBACK")
        connection.close()

    log = tmp_path / "server.log"
    with serving(f"sqlite:///{path}", log) as (base, _):
        run_outages(base, log, [Fault("locked", lock, unlock)], sqlite_ids(path))


@contextlib.contextmanager
def small_filesystem(directory: Path, size: str = "8m") -> Iterator[Path]:
    """A tmpfs of its own, so the test can fill it; skipped where mounting is impossible
    (not root, or no CAP_SYS_ADMIN in the container)."""
    directory.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(directory)],
        capture_output=True,
        text=True,
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small filesystem here: {mounted.stderr.strip()}")
    try:
        yield directory
    finally:
        subprocess.run(["umount", "-l", str(directory)], capture_output=True)


def test_sqlite_on_a_full_disk(tmp_path: Path) -> None:
    if shutil.which("mount") is None or os.geteuid() != 0:
        pytest.skip("mounting a small filesystem needs root and mount(8)")
    with small_filesystem(tmp_path / "disk") as disk:
        path = disk / "dudo.db"
        filler = disk / "filler"

        def fill() -> None:
            with filler.open("wb") as out, contextlib.suppress(OSError):
                while True:
                    out.write(b"\0" * 65536)
                    out.flush()

        def make_room() -> None:
            filler.unlink()

        log = tmp_path / "server.log"
        with serving(f"sqlite:///{path}", log) as (base, _):
            run_outages(base, log, [Fault("full disk", fill, make_room)], sqlite_ids(path))
