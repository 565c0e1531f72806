"""The deployment example of docs/deploy.md ("Many nodes"), run for real: HAProxy with
deploy/haproxy.cfg in front of three ``dudo serve --cluster`` nodes on a Redis and a shared
database (PostgreSQL in CI), and everything checked through the balancer alone: rooms made
and joined, games played to the end, public rooms and quick games across the nodes, requests
spread over all nodes with no stickiness, a rolling restart of one node, and /healthz taking
the nodes out of the rotation when Redis is gone.

HAProxy is Debian's package, which .ci/run installs: missing it fails under CI and skips
elsewhere, as clusterkit does for redis-server.
"""

from __future__ import annotations

import asyncio
import contextlib
import csv
import io
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
from websockets.exceptions import ConnectionClosed

import clusterkit
from clusterkit import Cluster, Node, cluster
from dudo.bots import make_bot
from dudo.client import Client
from dudo.scenario import replay
from serverkit import free_port

pytestmark = pytest.mark.slow  # tens of seconds: run first (tests/conftest.py)

CONFIG = Path(__file__).resolve().parents[3] / "deploy" / "haproxy.cfg"
CLOSE_MOVED = 4412  # docs/protocol.md: the room is held elsewhere now, reconnect
HAPROXY = shutil.which("haproxy") or next(
    (path for path in ("/usr/sbin/haproxy", "/sbin/haproxy") if os.access(path, os.X_OK)), None
)


def need_haproxy() -> str:
    """haproxy's path; missing it fails under CI (.ci/run installs it) and skips elsewhere."""
    if HAPROXY is None:
        if os.environ.get("CI"):
            pytest.fail("CI must install haproxy (.ci/run)")
        pytest.skip("no haproxy on this machine")
    return HAPROXY


def render(template: str) -> str:
    """The shipped configuration for a process of the test's own: everything as it is but
    the lines that make a system HAProxy change root and user (the test may not be root).
    Addresses come from the environment, as the file's own "${NAME-default}" lines say."""
    dropped = ("chroot", "user", "group")
    kept = [
        line for line in template.splitlines() if not line.strip() or line.split()[0] not in dropped
    ]
    assert len(kept) == len(template.splitlines()) - 3, "deploy/haproxy.cfg changed shape"
    return "\n".join(kept) + "\n"


class Balancer:
    """A running HAProxy: its address and its runtime API (the stats socket)."""

    def __init__(self, base: str, sock: Path, process: subprocess.Popen[bytes], log: Path) -> None:
        self.base = base
        self.sock = sock
        self.process = process
        self.log = log

    def command(self, line: str) -> str:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as api:
            api.settimeout(5)
            api.connect(str(self.sock))
            api.sendall(line.encode() + b"\n")
            chunks = []
            while chunk := api.recv(65536):
                chunks.append(chunk)
        return b"".join(chunks).decode()

    def servers(self) -> dict[str, dict[str, str]]:
        """The backend's servers as HAProxy sees them (status, sessions so far...)."""
        text = self.command("show stat").lstrip("# ")
        rows = csv.DictReader(io.StringIO(text))
        return {
            row["svname"]: row
            for row in rows
            if row["pxname"] == "nodes" and row["svname"] not in ("FRONTEND", "BACKEND")
        }

    def wait_for(
        self, condition: Callable[[dict[str, str]], bool], what: str, timeout: float = 15.0
    ) -> None:
        deadline = time.monotonic() + timeout
        while True:
            states = {name: row["status"] for name, row in self.servers().items()}
            if condition(states):
                return
            if time.monotonic() > deadline or self.process.poll() is not None:
                raise AssertionError(f"HAProxy never saw {what}: {states}\n{self.output()}")
            time.sleep(0.1)

    def output(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")[-4000:]


@contextlib.contextmanager
def balancer(binary: str, directory: Path, nodes: list[Node]) -> Iterator[Balancer]:
    """deploy/haproxy.cfg in the foreground on a free port, in front of ``nodes``."""
    config = directory / "haproxy.cfg"
    config.write_text(render(CONFIG.read_text(encoding="utf-8")), encoding="utf-8")
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="dudo-hx") as short:  # AF_UNIX paths are short
        sock = Path(short) / "admin.sock"
        env = {
            **os.environ,
            "DUDO_LISTEN": f"127.0.0.1:{port}",
            "DUDO_HAPROXY_SOCKET": str(sock),
            **{
                f"DUDO_NODE{number}": f"127.0.0.1:{node.port}"
                for number, node in enumerate(nodes, start=1)
            },
        }
        checked = subprocess.run(
            [binary, "-c", "-q", "-f", str(config)],
            env=env,
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert checked.returncode == 0, checked.stdout + checked.stderr
        log = directory / "haproxy.log"
        with log.open("wb") as out:
            # -db: in the foreground; -n: fewer connections than the file's maxconn, so
            # that an unprivileged test needs no more file descriptors than it may have.
            process = subprocess.Popen(
                [binary, "-db", "-n", "400", "-f", str(config)],
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        running = Balancer(f"http://127.0.0.1:{port}", sock, process, log)
        try:
            deadline = time.monotonic() + 10
            while not sock.exists():
                assert process.poll() is None and time.monotonic() < deadline, running.output()
                time.sleep(0.05)
            running.wait_for(lambda states: set(states.values()) == {"UP"}, "every node UP")
            yield running
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)


def metric(node: Node, name: str) -> float:
    for line in httpx.get(f"{node.base}/metrics", timeout=5).text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    raise AssertionError(f"no metric {name} on {node.base}")


def node_id(base: str) -> str:
    answer: str = httpx.get(f"{base}/healthz", timeout=5).json()["node"]
    return answer


async def play_to_the_end(
    front: str, seed: int, together: asyncio.Barrier, turn: asyncio.Lock
) -> None:
    """A seat and a server bot, through the balancer: started and played until over; the
    game's record is then found through the balancer too. The set-up (create, look, connect)
    is three requests in a row, one game at a time (``turn``), so that round robin puts
    the seat's socket on another node than the room's: its socket is relayed."""
    async with Client(front) as client:
        async with turn:
            ticket = await client.create_room(f"Deployer{seed}", seats=2, bots=[None, "normal"])
            assert (await client.room(ticket.code))["status"] == "lobby"
            table = client.table(ticket)
            await table.connect()
        try:
            await together.wait()  # every game set up: they are played at the same time
            await table.start()
            winners = await table.play(make_bot("normal", seed=seed), timeout=40)
            game_id = table.state["fair"]["game_id"]
        finally:
            await table.close()
        assert winners
        for _ in range(50):
            answer = await client.http.get(f"/api/games/{game_id}")
            if answer.status_code == 200:
                record = answer.json()
                assert (record["game_id"], record["room"]) == (game_id, ticket.code)
                assert list(replay(record).winners) == winners  # the record is the game
                return
            await asyncio.sleep(0.1)
        raise AssertionError(f"no record of game {game_id} through the balancer")


async def play_games(front: str, count: int) -> None:
    together, turn = asyncio.Barrier(count), asyncio.Lock()
    await asyncio.gather(*(play_to_the_end(front, seed, together, turn) for seed in range(count)))


async def through_the_balancer(front: str, running: Cluster) -> list[str]:
    """Lobby HTTP, quick games and whole games through HAProxy alone; the codes made."""
    # No stickiness: one client's requests are spread over every node.
    async with httpx.AsyncClient(base_url=front, timeout=10) as http:
        seen = [(await http.get("/healthz")).json()["node"] for _ in range(9)]
    assert set(seen) == {node_id(node.base) for node in running.nodes}, seen

    codes: list[str] = []
    async with Client(front) as hosts, Client(front) as guests:

        async def listed() -> set[str]:
            """Public rooms of every node, listed by whichever node answers."""
            answer = await hosts.http.get("/api/rooms")
            assert answer.status_code == 200, answer.text
            return {room["code"] for room in answer.json()["rooms"]}

        # Four requests a room, so that round robin puts the rooms on every node in turn
        # (and most joins and looks land on a node that does not hold the room).
        for index in range(6):
            ticket = await hosts.create_room(f"Host{index}", seats=3, public=index < 3)
            joined = await guests.join(ticket.code, f"Guest{index}")
            assert (joined.code, joined.seat) == (ticket.code, 1)
            info = await guests.room(ticket.code)
            assert info["code"] == ticket.code
            assert [seat["name"] for seat in info["seats"]][:2] == [f"Host{index}", f"Guest{index}"]
            await listed()
            codes.append(ticket.code)

        deadline = time.monotonic() + 10
        while not set(codes[:3]) <= await listed():
            assert time.monotonic() < deadline, (codes[:3], await listed())
            await asyncio.sleep(0.1)

        # Quick games: the second player is seated at the first one's table, whichever
        # nodes their requests reached.
        first = await hosts.quick("Quick1")
        second = await guests.quick("Quick2")
        assert second.code == first.code and second.seat != first.seat

    holding = [metric(node, "dudo_rooms") for node in running.nodes]
    assert all(holding), holding

    # Whole games, a seat's socket through the balancer each.
    await play_games(front, 3)
    return codes


async def create_on(base: str, name: str) -> str:
    """A room made on one node directly (not through the balancer): that node holds it."""
    async with Client(base) as client:
        return (await client.create_room(name, seats=3)).code


def refusal(answer: httpx.Response) -> str:
    """The error code of an answer ("" for a success)."""
    if answer.status_code < 400:
        return ""
    try:
        data = answer.json()
    except ValueError:
        return f"not JSON: {answer.text[:100]}"
    return str(data.get("error"))


def restart_in_place(running: Cluster, node: Node, monkeypatch: pytest.MonkeyPatch) -> Node:
    """A new node process on the stopped one's port (what systemd does for dudo@PORT)."""
    node.log.rename(node.log.with_suffix(".before-restart.log"))  # the new one takes its name
    monkeypatch.setattr(clusterkit, "free_port", lambda: node.port)
    try:
        return running.start_node()
    finally:
        monkeypatch.undo()


async def rolling_restart(
    front: Balancer, running: Cluster, codes: list[str], monkeypatch: pytest.MonkeyPatch
) -> tuple[list[Node], Node]:
    """A rolling restart of one node as docs/deploy.md describes it: out of HAProxy's
    rotation, SIGTERM (it hands its rooms off), started again, back in the rotation. A room
    it held answers through the balancer all along (a "moved" answer asks the client to try
    again), and a socket to it is sent to reconnect (4412) and reconnects through the
    balancer. Returns the surviving nodes and the new one."""
    restarted = running.nodes[2]
    held = await create_on(restarted.base, "Held")
    answers: list[tuple[int, str]] = []
    stop = asyncio.Event()

    async def watch() -> None:
        async with httpx.AsyncClient(base_url=front.base, timeout=10) as http:
            while not stop.is_set():
                answer = await http.get(f"/api/rooms/{held}")
                answers.append((answer.status_code, refusal(answer)))
                await asyncio.sleep(0.02)

    async def still_there(code: str) -> None:
        async with httpx.AsyncClient(base_url=front.base, timeout=10) as http:
            for _ in range(100):
                answer = await http.get(f"/api/rooms/{code}")
                if answer.status_code == 200:
                    assert answer.json()["code"] == code
                    return
                assert refusal(answer) == "moved", answer.text
                await asyncio.sleep(0.1)
        raise AssertionError(f"room {code} never came back")

    watcher = asyncio.create_task(watch())
    async with Client(front.base) as client, client.table(code=held) as watching:
        front.command("set server nodes/node3 state drain")
        await asyncio.to_thread(
            front.wait_for, lambda states: states["node3"] == "DRAIN", "node3 draining"
        )
        # uvicorn raises the signal again once it has shut down: "killed by SIGTERM" is its
        # clean exit (systemd counts it as one too).
        exit_code = await asyncio.to_thread(restarted.terminate)
        assert exit_code in (0, -signal.SIGTERM), restarted.output()
        with contextlib.suppress(ConnectionClosed):
            while True:
                await watching.receive(timeout=10)
        assert watching.socket.close_code == CLOSE_MOVED
        for code in [held, *codes]:
            await still_there(code)
        async with client.table(code=held) as again_watching:
            assert again_watching.state["room"]["code"] == held
    await asyncio.to_thread(
        front.wait_for, lambda states: states["node3"].startswith(("DOWN", "MAINT")), "node3 down"
    )
    survivors = running.nodes[:2]
    assert sum(metric(node, "dudo_rooms_taken_over_total") for node in survivors) >= 1
    again = await asyncio.to_thread(restart_in_place, running, restarted, monkeypatch)
    front.command("set server nodes/node3 state ready")
    await asyncio.to_thread(
        front.wait_for, lambda states: set(states.values()) == {"UP"}, "node3 back UP"
    )
    await still_there(held)
    stop.set()
    await watcher
    async with httpx.AsyncClient(base_url=front.base, timeout=10) as http:
        seen = {(await http.get("/healthz")).json()["node"] for _ in range(6)}
    assert node_id(again.base) in seen
    # A look at the room while its node drains may be told to try again ("moved"), never
    # anything worse.
    expected = ((200, ""), (503, "moved"))
    unexpected = [answer for answer in answers if answer not in expected]
    assert not unexpected and answers[-1] == (200, ""), answers
    print(
        f"{len(answers)} looks at a room during the restart: "
        f"{answers.count((503, 'moved'))} answered 'moved'"
    )
    return survivors, again


def test_the_deploy_example_runs_behind_haproxy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    binary = need_haproxy()
    started = time.monotonic()
    with (
        cluster(tmp_path, nodes=3, env={"DUDO_FORWARDED_ALLOW_IPS": "127.0.0.1"}) as running,
        balancer(binary, tmp_path, running.nodes) as front,
    ):
        codes = asyncio.run(through_the_balancer(front.base, running))

        # Requests and sockets really landed on nodes that did not hold their rooms.
        relayed = sum(metric(node, "dudo_relayed_requests_total") for node in running.nodes)
        sockets = sum(metric(node, "dudo_relayed_sockets_total") for node in running.nodes)
        assert relayed >= 1 and sockets >= 1, (relayed, sockets)
        sessions = {name: int(row["stot"]) for name, row in front.servers().items()}
        assert all(sessions.values()), sessions

        survivors, again = asyncio.run(rolling_restart(front, running, codes, monkeypatch))

        # Last: Redis gone. Each node says so on /healthz, and HAProxy takes them all out.
        port = running.redis.rsplit(":", 1)[1].split("/")[0]
        subprocess.run(
            ["redis-cli", "-p", port, "shutdown", "nosave"], capture_output=True, timeout=10
        )
        for node in [*survivors, again]:
            answer = httpx.get(f"{node.base}/healthz", timeout=10)
            assert answer.status_code == 503, answer.text
            assert answer.json()["redis"] is False and answer.json()["status"] == "unhealthy"
        front.wait_for(
            lambda states: all(state.startswith("DOWN") for state in states.values()),
            "every node DOWN",
        )
        answer = httpx.get(f"{front.base}/api/rooms/{codes[0]}", timeout=10)
        assert answer.status_code == 503 and answer.json()["error"] == "moved", answer.text
    print(f"the deploy example took {time.monotonic() - started:.1f} s")
