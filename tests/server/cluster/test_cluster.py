"""A cluster of real node processes on a real Redis and a shared database (PostgreSQL in
CI): rooms made on one node are played through others, a node killed mid-round loses
nothing, a node stopped with SIGTERM hands its rooms off, quick games and the site's
limits span the nodes, and two nodes that both believe they hold a room never both write.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed, InvalidHandshake
from websockets.sync.client import connect as connect_sync

from clusterkit import FAST_CLUSTER, Node, cluster, redis_server, shared_database
from dudo.bots import make_bot
from dudo.client import Client, ClientError, SeatTicket, Table
from dudo.game import Call
from dudo.rules import Rules
from dudo.server.cluster.presence import Cluster, ClusterSettings
from dudo.server.cluster.site import RedisSite
from dudo.server.site.lobby import Lobby
from dudo.server.table import inbox
from dudo.server.table.connection import Connection
from dudo.server.table.room import CLOSE_MOVED, RoomConfig, RoomError
from dudo.store import LogEntry, open_store
from serverkit import free_port

pytestmark = pytest.mark.slow  # tens of seconds: run first (tests/conftest.py)


def ws_url(base: str, code: str) -> str:
    return base.replace("http://", "ws://") + f"/ws/{code}"


class Player:
    """A seat played by a bot through whichever node answers: when its socket drops it
    reconnects through the next node and sends its unanswered action again under the same
    id (the server applies it once). ``acked`` is every action the server acknowledged."""

    def __init__(self, ticket: SeatTicket, nodes: list[str], first: int, seed: int) -> None:
        self.ticket = ticket
        self.nodes = nodes
        self.turn = first  # index of the node to connect through
        self.bot = make_bot("normal", seed=seed)
        self.acked: list[dict[str, Any]] = []
        self.pending: dict[str, Any] | None = None
        self.state: dict[str, Any] = {}
        self.reconnects = 0
        self.winners: list[int] | None = None
        self.started = False
        self._ids = 0

    def _message(self, table: Table) -> dict[str, Any] | None:
        state = table.state
        game = state.get("game")
        you = state["you"]
        if game is None:
            room = state["room"]
            if (
                you.get("host")
                and room["status"] == "lobby"
                and not self.started
                and not any(seat["kind"] == "open" for seat in room["seats"])
            ):
                self.started = True
                return {"type": "start"}
            return None
        seen = table.view()
        if seen is None or not seen.legal:
            return None
        action = self.bot.act(seen)
        if action is None:
            return None
        message: dict[str, Any] = {"version": state["version"]}
        if isinstance(action, Call):
            message.update(type="call", call=action.value)
        else:
            message.update(type="bid", quantity=action.quantity, face=action.face)
        return message

    async def play(self, timeout: float = 150.0) -> None:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            base = self.nodes[self.turn % len(self.nodes)]
            table = Table(ws_url(base, self.ticket.code), self.ticket)
            try:
                await table.connect()
            except (TimeoutError, OSError, ConnectionClosed, InvalidHandshake, ClientError):
                await self._next_node()
                continue
            try:
                if await self._play_on(table, end):
                    return
            except (TimeoutError, ConnectionClosed, OSError):
                pass
            finally:
                await table.close()
            await self._next_node()
        raise AssertionError(f"seat {self.ticket.seat} of {self.ticket.code} did not finish")

    async def _next_node(self) -> None:
        self.turn += 1
        self.reconnects += 1
        await asyncio.sleep(0.1)

    async def _play_on(self, table: Table, end: float) -> bool:
        """Play through one socket; True once the game is over."""
        if self.pending is not None:
            await table.send(self.pending)  # the same id: answered once, whatever happened
        answered = -1
        while True:
            self.state = table.state
            game = table.state.get("game")
            if game is not None and game["phase"] == "over":
                self.winners = list(game["winners"])
                return True
            if self.pending is None and table.state["version"] != answered:
                answered = table.state["version"]
                message = self._message(table)
                if message is not None:
                    self._ids += 1
                    self.pending = {"id": f"s{self.ticket.seat}-{self._ids}", **message}
                    await table.send(self.pending)
            reply = await table.receive(max(0.05, min(10.0, end - time.monotonic())))
            if (
                self.pending is not None
                and reply.get("id") == self.pending["id"]
                and reply["type"] in ("ack", "error")
            ):
                if reply["type"] == "ack" and self.pending["type"] in ("bid", "call"):
                    sent = self.pending
                    self.acked.append(
                        {"seat": self.ticket.seat, "call": sent["call"]}
                        if sent["type"] == "call"
                        else {"seat": self.ticket.seat, "bid": [sent["quantity"], sent["face"]]}
                    )
                self.pending = None
                answered = -1  # decide again on the newest state


async def game_record(base: str, game_id: str) -> dict[str, Any]:
    async with httpx.AsyncClient(base_url=base) as http:
        for _ in range(100):
            answer = await http.get(f"/api/games/{game_id}")
            if answer.status_code == 200:
                record: dict[str, Any] = answer.json()
                return record
            await asyncio.sleep(0.1)
    raise AssertionError(f"no record of game {game_id}")


def verify(record: dict[str, Any], directory: Path) -> None:
    path = directory / f"{record['game_id']}.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    checked = subprocess.run(
        [sys.executable, "-m", "dudo", "verify", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr


def metric(node: Node, name: str) -> float:
    for line in httpx.get(f"{node.base}/metrics", timeout=5).text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    raise AssertionError(f"no metric {name}")


async def wait_until(condition: Any, timeout: float = 15.0) -> None:
    end = time.monotonic() + timeout
    while not await condition():
        assert time.monotonic() < end, "timed out"
        await asyncio.sleep(0.05)


def dice_seen(players: list[Player]) -> dict[tuple[str, int], tuple[int, list[int]]]:
    """The dice each seat holds now, where a round is being played (between two rounds
    the cups are empty until the next roll)."""
    seen = {
        (p.ticket.code, p.ticket.seat): (p.state["game"]["round"], p.state["game"]["dice"])
        for p in players
        if (p.state.get("game") or {}).get("dice")
    }
    assert len(seen) >= len(players) // 2
    return seen


def check_games(
    players: list[Player],
    records: dict[str, dict[str, Any]],
    seen_before: dict[tuple[str, int], tuple[int, list[int]]],
    directory: Path,
) -> None:
    """Every acknowledged action is in its game's record, in order; the dice a seat saw
    before the failure are the record's; every record verifies."""
    for player in players:
        record = records[player.ticket.code]
        mine = [
            action
            for entry in record["rounds"]
            for action in entry["actions"]
            if action["seat"] == player.ticket.seat
        ]
        assert mine == player.acked, (player.ticket, mine, player.acked)
        if (player.ticket.code, player.ticket.seat) not in seen_before:
            continue
        round_number, dice = seen_before[(player.ticket.code, player.ticket.seat)]
        assert record["rounds"][round_number - 1]["dice"][player.ticket.seat] == dice
    for record in records.values():
        verify(record, directory)


def test_a_killed_node_loses_nothing_and_its_rooms_finish_on_the_others(tmp_path: Path) -> None:
    with cluster(tmp_path, nodes=3) as running:
        holder, second, third = running.nodes
        elsewhere = [second.base, third.base]

        async def scenario() -> None:
            players: list[Player] = []
            async with Client(holder.base) as on_holder, Client(second.base) as on_second:
                for index in range(4):
                    host = await on_holder.create_room(
                        f"Host{index}", seats=3, bots=[None, None, "normal"]
                    )
                    # Joined through another node: the join is relayed to the holder.
                    guest = await on_second.join(host.code, f"Guest{index}")
                    players += [
                        Player(host, elsewhere, index, seed=10 * index),
                        Player(guest, elsewhere, index + 1, seed=10 * index + 1),
                    ]
                # A room with a turn timer whose second player never comes: the timer
                # moves for them, and must fire once per turn across the failure.
                timed = await on_holder.create_room(
                    "Timed", seats=2, timer=5, rules={"preset": "perudo", "starting_dice": 2}
                )
                await on_second.join(timed.code, "Absent")
                players.append(Player(timed, elsewhere, 0, seed=99))
            games = [asyncio.create_task(player.play()) for player in players]

            async def played_a_while() -> bool:
                return all(len(player.acked) >= 3 for player in players[:8])

            await wait_until(played_a_while, timeout=60)
            seen_before = dice_seen(players)
            holder.kill()
            killed_at = time.monotonic()
            await asyncio.gather(*games)
            print(
                f"all rooms finished {time.monotonic() - killed_at:.1f} s after the kill; "
                f"reconnects: {[player.reconnects for player in players]}"
            )
            records = {}
            for player in players:
                game_id = player.state["fair"]["game_id"]
                records[player.ticket.code] = await game_record(third.base, game_id)
            check_games(players, records, seen_before, tmp_path)
            assert all(player.reconnects >= 1 for player in players)
            assert (
                metric(second, "dudo_rooms_taken_over_total")
                + metric(third, "dudo_rooms_taken_over_total")
                >= 5
            )
            await check_the_timer_fired_once(running.database, timed.code)

        asyncio.run(scenario())


async def stored_log(database: str, code: str) -> list[LogEntry]:
    """A room's log as the shared database holds it."""
    store = open_store(database)
    await store.open()
    try:
        return await store.load_log(code)
    finally:
        await store.close()


async def check_the_timer_fired_once(database: str, code: str) -> None:
    """Each move the turn timer made came a full timer after the turn began (the entry
    before it): a deadline fired twice, or early after the takeover, would not."""
    log = await stored_log(database, code)
    # Refusals and seeds change nothing anyone sees: a turn begins at another entry.
    moves = [entry for entry in log if entry.kind not in ("refused", "seeded")]
    timed = [
        (before, entry)
        for before, entry in itertools.pairwise(moves)
        if entry.kind == "action" and entry.data.get("by") == "timer"
    ]
    assert timed, "the timer never moved for the absent player"
    for before, entry in timed:
        assert entry.data["seat"] == 1
        assert entry.at - before.at >= 5 - 0.05, (before, entry)


def test_sigterm_hands_the_rooms_off_and_players_carry_on(tmp_path: Path) -> None:
    with cluster(tmp_path, nodes=2, log_level="info") as running:
        leaving, staying = running.nodes

        async def scenario() -> None:
            players = []
            async with Client(leaving.base) as client:
                for index in range(3):
                    host = await client.create_room(f"H{index}", seats=3, bots=[None, None, "easy"])
                    guest = await client.join(host.code, f"G{index}")
                    # Connected straight to the node that leaves: told to reconnect, they
                    # come back through the other.
                    nodes = [leaving.base, staying.base]
                    players += [
                        Player(host, nodes, 0, seed=index),
                        Player(guest, nodes, 0, seed=index + 50),
                    ]
            games = [asyncio.create_task(player.play()) for player in players]

            async def playing() -> bool:
                # Everyone has played, and at least half hold dice in a round under way (a
                # busy machine can find many between two rounds, their cups still empty).
                holding = sum(
                    1 for player in players if (player.state.get("game") or {}).get("dice")
                )
                return all(len(player.acked) >= 2 for player in players) and (
                    holding >= len(players) // 2
                )

            await wait_until(playing, timeout=60)
            seen_before = dice_seen(players)  # (no await since: the same states)
            stopped = await asyncio.to_thread(leaving.terminate)
            # uvicorn ends by raising the signal it caught again, once it has shut down.
            assert stopped in (0, -15), leaving.output()
            drained = [
                json.loads(line)
                for line in leaving.output().splitlines()
                if '"node_drained"' in line
            ]
            assert drained and drained[0]["rooms"] == 3, leaving.output()
            await asyncio.gather(*games)
            records = {}
            for player in players:
                records[player.ticket.code] = await game_record(
                    staying.base, player.state["fair"]["game_id"]
                )
            check_games(players, records, seen_before, tmp_path)
            assert metric(staying, "dudo_rooms_taken_over_total") >= 3

        asyncio.run(scenario())


def test_quick_games_and_the_sites_limits_span_the_nodes(tmp_path: Path) -> None:
    limits = {
        "DUDO_MAX_ROOMS": "4",
        "DUDO_MAX_LOBBIES": "4",
        "DUDO_GUESSES_PER_CLIENT": "4",
        "DUDO_QUICK_FILL": "3600",
    }
    with cluster(tmp_path, nodes=2, env=limits) as running:
        a, b = running.nodes
        with httpx.Client() as http:
            # Four players asking for a quick game at alternate nodes sit at one table.
            seats = [
                http.post(f"{(a, b)[index % 2].base}/api/quick", json={"name": f"Q{index}"})
                for index in range(4)
            ]
            assert all(seat.status_code == 200 for seat in seats), [s.text for s in seats]
            assert len({seat.json()["code"] for seat in seats}) == 1
            assert sorted(seat.json()["seat"] for seat in seats) == [0, 1, 2, 3]
            # A seat token in the query string (deprecated, still honoured) seats its
            # player through either node, relayed or not.
            for node in (a, b):
                url = ws_url(node.base, seats[0].json()["code"])
                with connect_sync(f"{url}?token={seats[0].json()['token']}") as socket:
                    greeting = json.loads(socket.recv(timeout=10))
                    assert greeting["you"]["seat"] == seats[0].json()["seat"], greeting
            # Other house rules: another table.
            tavern = http.post(
                f"{b.base}/api/quick", json={"name": "T", "rules": {"preset": "tavern"}}
            )
            assert tavern.status_code == 200
            assert tavern.json()["code"] != seats[0].json()["code"]
            # The room cap is the site's: two rooms so far, two more on either node...
            made = [http.post(f"{node.base}/api/rooms", json={"name": "R"}) for node in (a, b)]
            assert [answer.status_code for answer in made] == [201, 201]
            full = [http.post(f"{node.base}/api/rooms", json={"name": "R"}) for node in (a, b)]
            assert [answer.status_code for answer in full] == [503, 503]
            assert full[0].json()["error"] == "server_full"
            # ...and every code is unique across the site.
            codes = {
                seats[0].json()["code"],
                tavern.json()["code"],
                *(answer.json()["code"] for answer in made),
            }
            assert len(codes) == 4
            # Rooms held by either node are found through both.
            for code in codes:
                for node in (a, b):
                    assert http.get(f"{node.base}/api/rooms/{code}").status_code == 200
            # Unknown codes: the misses of one client add up across the nodes.
            headers = {"X-Dudo-Client": "guesser"}
            misses = [
                http.get(f"{(a, b)[index % 2].base}/api/rooms/QQQQ", headers=headers)
                for index in range(4)
            ]
            assert [miss.status_code for miss in misses] == [404] * 4
            blocked = http.get(f"{a.base}/api/rooms/{seats[0].json()['code']}", headers=headers)
            assert blocked.status_code == 429 and blocked.json()["error"] == "too_many_guesses"
            other = http.get(
                f"{b.base}/api/rooms/{seats[0].json()['code']}",
                headers={"X-Dudo-Client": "someone else"},
            )
            assert other.status_code == 200
            # The public list is the site's: each node lists the table the other holds
            # (nodes publish their changes at every renewal).
            time.sleep(1.0)
            for node in (a, b):
                listed = {
                    room["code"] for room in http.get(f"{node.base}/api/rooms").json()["rooms"]
                }
                assert tavern.json()["code"] in listed


def test_two_nodes_that_both_believe_they_hold_a_room_never_both_write(tmp_path: Path) -> None:
    """The split, forced: node X holds a room; Redis is made to say Y holds it (as after X
    was paused past its lease and Y took over). Y appends; X's next append is refused, X
    lets the room go and sends its sockets away; the log has one history, Y's."""
    with redis_server(tmp_path) as redis, shared_database(tmp_path) as database:

        async def scenario() -> None:
            config = RoomConfig(bot_delay=0, reveal_pause=0, seed_window=0)
            lobbies = []
            clusters: dict[str, Cluster] = {}
            for name in ("x", "y"):
                store = open_store(database)
                await store.open()
                lobby = Lobby(store, config)
                cluster = Cluster(
                    redis,
                    f"http://{name}:1",
                    ClusterSettings(lease=30, renew_every=30),
                    node_id=name,
                )
                lobby.join_site(RedisSite(cluster))
                await cluster.join()
                clusters[name] = cluster
                lobbies.append(lobby)
            x, y = lobbies
            try:
                joined = await x.create(
                    "Host",
                    rules=Rules.preset("perudo"),
                    seats=3,
                    bots=[None, None, "normal"],
                    timer=0,
                    public=False,
                )
                code = joined["code"]
                room_x = x.rooms[code]
                sent: list[str] = []

                async def keep(text: str) -> None:
                    sent.append(text)

                watcher = Connection(keep, None)
                room_x.tell(inbox.Connect(watcher))
                await room_x.ask(inbox.Describe())
                # The split: Y is told it holds the room (X does not know).
                await clusters["y"].redis.set(clusters["y"].owner_key(code), "y")
                room_y = await y.take_over(code)
                assert room_y is not None and room_y is not room_x
                assert room_y.seq == room_x.seq
                # Both try to seat someone in the one open seat: only Y's append lands.
                assert (await room_y.ask(inbox.Join("Yara", None)))["seat"] == 1
                try:
                    await room_x.ask(inbox.Join("Xavi", None))
                    raise AssertionError("the second holder's append was accepted")
                except RoomError as error:
                    assert error.code == "moved"
                assert room_x.closed
                assert watcher.closed and watcher.close_code == CLOSE_MOVED
                assert any('"moved"' in text for text in sent)
                # One history: Y's.
                log = await stored_log(database, code)
                names = [entry.data["name"] for entry in log if entry.kind == "joined"]
                assert names == ["Host", "Yara"]
                assert [entry.seq for entry in log] == list(range(len(log)))
                # X's sweep drops the room it let go; Y plays on.
                await x.close_idle_rooms()
                assert code not in x.rooms
                await room_y.ask(inbox.Describe())
                assert not room_y.closed
            finally:
                for lobby, cluster in zip(lobbies, clusters.values(), strict=True):
                    await lobby.close()
                    await lobby.store.close()
                    await cluster.leave()

        asyncio.run(scenario())


def test_entries_keep_their_order_when_nodes_append_concurrently(tmp_path: Path) -> None:
    """The conditional append itself on the shared database: of two writers racing for
    the same sequence numbers, exactly one wins each."""
    with shared_database(tmp_path) as database:

        async def scenario() -> None:
            stores = [open_store(database), open_store(database)]
            for store in stores:
                await store.open()
            try:
                code = "RACE"
                assert await stores[0].create_room(code, False, LogEntry(0, 0.0, "created", {}))
                outcomes = await asyncio.gather(
                    *(
                        stores[index % 2].append(
                            code, [LogEntry(1 + index // 2, 1.0, "joined", {"by": index})]
                        )
                        for index in range(20)
                    ),
                    return_exceptions=True,
                )
                won = [outcome for outcome in outcomes if outcome is None]
                assert len(won) == 10  # one per sequence number
                log = await stores[1].load_log(code)
                assert [entry.seq for entry in log] == list(range(11))
            finally:
                for store in stores:
                    await store.close()

        asyncio.run(scenario())


def worker_pids(parent: int) -> list[int]:
    """The node processes ``dudo serve --workers`` started (not multiprocessing's helper)."""
    found = subprocess.run(["pgrep", "-P", str(parent)], capture_output=True, text=True)
    pids = []
    for pid in map(int, found.stdout.split()):
        with contextlib.suppress(OSError):
            command = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
            if "spawn_main" in command and "resource_tracker" not in command:
                pids.append(pid)
    return pids


def test_workers_share_one_port_and_a_killed_worker_is_replaced(tmp_path: Path) -> None:
    with redis_server(tmp_path) as redis, shared_database(tmp_path) as database:
        port = free_port()
        base = f"http://127.0.0.1:{port}"
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
                "--cluster",
                redis,
                "--workers",
                "2",
                "--log-level",
                "warning",
            ],
            env={**os.environ, **FAST_CLUSTER},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.STDOUT,
        )
        try:

            async def scenario() -> None:
                async def two_nodes_answer() -> bool:
                    seen = set()
                    for _ in range(40):
                        with contextlib.suppress(httpx.HTTPError):
                            async with httpx.AsyncClient() as http:  # a new connection
                                answer = await http.get(f"{base}/healthz", timeout=2)
                                seen.add(answer.json().get("node"))
                    return len(seen - {None}) == 2

                await wait_until(two_nodes_answer, timeout=60)
                workers = worker_pids(process.pid)
                assert len(workers) == 2
                async with Client(base) as client:
                    host = await client.create_room("Host", seats=3, bots=[None, None, "easy"])
                    guest = await client.join(host.code, "Guest")
                players = [Player(host, [base], 0, seed=1), Player(guest, [base], 0, seed=2)]
                games = [asyncio.create_task(player.play()) for player in players]

                async def playing() -> bool:
                    return all(len(player.acked) >= 2 for player in players)

                await wait_until(playing, timeout=60)
                os.kill(workers[0], signal.SIGKILL)

                async def replaced() -> bool:
                    now = worker_pids(process.pid)
                    return len(now) == 2 and workers[0] not in now

                await wait_until(replaced, timeout=30)
                await asyncio.gather(*games)
                record = await game_record(base, players[0].state["fair"]["game_id"])
                check_games(players, {host.code: record}, {}, tmp_path)

            asyncio.run(scenario())
            process.send_signal(signal.SIGTERM)
            assert process.wait(timeout=60) == 0
            assert worker_pids(process.pid) == []
        finally:
            if process.poll() is None:
                process.kill()
                process.wait(timeout=10)


def test_a_node_that_loses_redis_answers_try_again_and_changes_nothing(tmp_path: Path) -> None:
    from starlette.testclient import TestClient

    from dudo.server.web.app import ServerSettings, create_app

    with redis_server(tmp_path) as redis, shared_database(tmp_path) as database:
        settings = ServerSettings(
            database=database, cluster=redis, advertise="http://127.0.0.1:1", gc_policy="python"
        )
        with TestClient(create_app(settings)) as client:
            made = client.post("/api/rooms", json={"name": "Ana"})
            assert made.status_code == 201
            code = made.json()["code"]
            assert client.get("/healthz").json()["redis"] is True
            subprocess.run(
                ["redis-cli", "-u", redis, "shutdown", "nosave"], capture_output=True, timeout=10
            )
            for answer in (
                client.get("/api/rooms/QQQQ"),
                client.get("/api/rooms"),
                client.post("/api/rooms", json={"name": "Bo"}),
                client.post("/api/quick", json={"name": "Cy"}),
            ):
                assert answer.status_code == 503, answer.text
                assert answer.json()["error"] == "unavailable"
            health = client.get("/healthz")
            assert health.status_code == 503 and health.json()["redis"] is False
            with client.websocket_connect(f"/ws/{code}") as socket:
                assert json.loads(socket.receive_text())["code"] == "unavailable"
                closed = socket.receive()
                assert closed["type"] == "websocket.close" and closed["code"] == 1013


def test_a_node_stalled_past_its_lease_takes_its_rooms_back_and_they_play_on(
    tmp_path: Path,
) -> None:
    """A node frozen longer than its lease (SIGSTOP: a long pause, a starved CPU) drops
    its rooms when it wakes; they are adopted again (here by the node itself, the only
    one) and their bots and stand-ins play on without anyone reconnecting."""
    slow_bots = {"DUDO_BOT_DELAY": "0.3", "DUDO_GRACE": "1"}
    with cluster(tmp_path, nodes=1, env=slow_bots) as running:
        (node,) = running.nodes

        async def entries(code: str) -> int:
            return len(await stored_log(running.database, code))

        async def scenario() -> None:
            async with Client(node.base) as client:
                host = await client.create_room(
                    "Host", seats=4, bots=[None, "easy", "easy", "easy"]
                )
                async with client.table(host) as table:
                    assert (await table.start())["type"] == "ack"
            before = httpx.get(f"{node.base}/healthz").json()["node"]
            await asyncio.sleep(1.5)  # the host is away: a stand-in plays for them
            node.process.send_signal(signal.SIGSTOP)
            await asyncio.sleep(3.0)  # twice the lease
            node.process.send_signal(signal.SIGCONT)
            await asyncio.sleep(1.0)
            woke = await entries(host.code)

            async def playing_again() -> bool:
                return await entries(host.code) >= woke + 3

            await wait_until(playing_again, timeout=20)
            after = httpx.get(f"{node.base}/healthz").json()
            assert after["node"] != before and after["lease"] is True  # a new lease
            assert metric(node, "dudo_node_leases_lost_total") >= 1

        asyncio.run(scenario())


def test_cluster_nodes_do_not_drop_connections_by_address(tmp_path: Path) -> None:
    """Nodes relay each other's players from their own few addresses, so the drop of a
    flooding address's connections (for a lone server facing the internet) is off on a
    cluster node, however small its budget."""
    budget = {"DUDO_ACCEPT_BURST": "5", "DUDO_ACCEPTS_PER_SECOND": "1"}
    with cluster(tmp_path, nodes=1, env=budget) as running:
        (node,) = running.nodes
        answers = [httpx.get(f"{node.base}/healthz", timeout=5) for _ in range(20)]
        assert all(answer.status_code == 200 for answer in answers)
        assert metric(node, "dudo_connections_dropped_total") == 0
