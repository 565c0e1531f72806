"""The shared database goes away under a running cluster, and comes back; Redis stays.

Two real ``dudo serve --cluster`` nodes on a real Redis, their shared PostgreSQL (a schema
of the test's own) behind a TCP proxy the test cuts (connections refused) and then
blackholes (bytes swallowed). In each outage:

- a player connected through the node that holds the room, and one connected through the
  other node (relayed to the holder), each bid and are answered within 2 s with
  ``unavailable`` (and ``retry_after``); nothing changes; the same id sent again after
  recovery is acknowledged and is in the stored log exactly once;
- creating a room on either node answers ``503 unavailable``, and the refused room is not
  left counted in Redis;
- each node's /healthz answers promptly: it gives up on the database after 0.8 s (503
  while it does not answer);
- no node loses its lease, none drops or hands over a room: the database being away is
  no reason to give rooms up while Redis answers (a node whose upkeep waited on the
  database past its lease would let every room go);
- each node says ``store_unavailable`` once per outage and ``store_recovered`` once after.

Afterwards the rooms played by bots and stand-ins, on both nodes, finish their games.

PostgreSQL runs when ``DUDO_TEST_POSTGRES`` holds a URL and Redis when ``redis-server`` is
installed; CI provides both, and there their absence is a failure, not a skip.
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from test_server_outage import (
    ANSWER_WITHIN,
    HEALTH_WITHIN,
    POSTGRES,
    Fault,
    Seat,
    create,
    log_events,
    postgres_address,
    postgres_behind,
)

from clusterkit import Cluster, Node, redis_server
from tcpproxy import proxy_to

pytestmark = pytest.mark.slow  # tens of seconds: run first (tests/conftest.py)

# Bots and stand-ins a little slow, so the games last through both outages; the look at
# the database for unheld rooms every second, so an outage always meets it.
SLOW_GAMES = {
    "DUDO_BOT_DELAY": "0.25",
    "DUDO_REVEAL_PAUSE": "0.25",
    "DUDO_GRACE": "1",
    "DUDO_RESCAN_EVERY": "1",
}


def redis_get(redis: str, key: str) -> str:
    done = subprocess.run(
        ["redis-cli", "-u", redis, "GET", key], capture_output=True, text=True, timeout=10
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def redis_count(redis: str, key: str) -> int:
    done = subprocess.run(
        ["redis-cli", "-u", redis, "SCARD", key], capture_output=True, text=True, timeout=10
    )
    assert done.returncode == 0, done.stderr
    return int(done.stdout.strip())


def metric(node: Node, name: str) -> float:
    for line in httpx.get(f"{node.base}/metrics", timeout=5).text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    raise AssertionError(f"no metric {name}")


def health(node: Node) -> dict[str, Any]:
    """/healthz, which must answer in time whatever the database does (HEALTH_WITHIN)."""
    started = time.monotonic()
    answer = httpx.get(f"{node.base}/healthz", timeout=HEALTH_WITHIN)  # raises if slower
    assert time.monotonic() - started < HEALTH_WITHIN
    assert answer.status_code in (200, 503), answer.text
    body: dict[str, Any] = answer.json()
    return body


def bid_refused(seat: Seat, bid: dict[str, Any], where: str) -> None:
    reply, took = seat.answer(bid, ANSWER_WITHIN + 1)
    assert reply["type"] == "error" and reply["code"] == "unavailable", (where, reply)
    assert took < ANSWER_WITHIN, f"{where}: the answer took {took:.2f} s"
    assert reply["retry_after"] > 0, (where, reply)


def bid_until_acknowledged(seat: Seat, bid: dict[str, Any], where: str) -> None:
    """The same id again until the store is back: acknowledged, and the same answer to
    it once more (not applied twice)."""
    deadline = time.monotonic() + 30
    while True:
        reply, took = seat.answer(bid, ANSWER_WITHIN + 1)
        assert took < ANSWER_WITHIN + 0.5, f"{where}: {took:.2f} s after recovery"
        if reply["type"] == "ack":
            break
        assert reply["code"] == "unavailable", (where, reply)
        assert time.monotonic() < deadline, f"{where}: the store never came back"
        time.sleep(0.3)
    assert seat.answer(bid, 5)[0] == reply, where


def recovered(node: Node, outages: int, where: str) -> None:
    """The node said ``store_unavailable`` once per outage, and ``store_recovered`` once
    after each (when a room of its own next wrote: a room backing off tries again within
    5 s)."""
    deadline = time.monotonic() + 10
    while True:
        kinds = [event.get("event") for event in log_events(node.log)]
        assert kinds.count("store_unavailable") == outages, (where, node.output())
        if kinds.count("store_recovered") == outages:
            return
        assert time.monotonic() < deadline, (where, node.output())
        time.sleep(0.2)


@pytest.mark.skipif(
    not POSTGRES and not os.environ.get("CI"),
    reason="no PostgreSQL: set DUDO_TEST_POSTGRES to a URL",
)
def test_a_cluster_answers_a_database_outage_and_keeps_its_rooms(tmp_path: Path) -> None:
    assert POSTGRES, "CI must provide a PostgreSQL server in DUDO_TEST_POSTGRES"
    with (
        redis_server(tmp_path) as redis,
        proxy_to(*postgres_address()) as proxy,
        postgres_behind(proxy) as (database, stored_ids),
    ):
        running = Cluster(redis, database, tmp_path, SLOW_GAMES)
        try:
            holder, other = running.start_node(), running.start_node()
            scenario(running, holder, other, proxy.down, proxy.blackhole, proxy.restore, stored_ids)
        finally:
            running.stop()


def scenario(
    running: Cluster,
    holder: Node,
    other: Node,
    down: Any,
    blackhole: Any,
    restore: Any,
    stored_ids: Any,
) -> None:
    nodes = (holder, other)
    # Rooms played by bots and a stand-in (the player leaves at once), one on each node.
    bots_rooms = []
    for node in nodes:
        made = create(
            node.base, "Ana", 3, [None, "easy", "normal"], {"preset": "perudo", "starting_dice": 4}
        )
        leaving = Seat(node.base, made["code"], made["token"])
        leaving.receive(10)
        assert leaving.answer({"type": "start", "id": "go"}, 10)[0]["type"] == "ack"
        leaving.close()
        bots_rooms.append(made["code"])
    # Two rooms held by the first node: a player through it, and one through the other
    # node, whose messages are relayed to the holder.
    players = {}
    for name, through in (("near", holder), ("relayed", other)):
        made = create(
            holder.base,
            name.title(),
            2,
            [None, "easy"],
            {"preset": "perudo", "first_opener": "host", "starting_dice": 5},
        )
        seat = Seat(through.base, made["code"], made["token"])
        seat.receive(10)
        assert seat.answer({"type": "start", "id": "go"}, 10)[0]["type"] == "ack"
        players[name] = (seat, made["code"])
    names = {node.base: health(node)["node"] for node in nodes}
    rooms = {node.base: metric(node, "dudo_rooms") for node in nodes}
    owners = {
        code: redis_get(running.redis, f"dudo:owner:{code}")
        for code in [*bots_rooms, *(code for _, code in players.values())]
    }
    assert owners[players["near"][1]] == owners[players["relayed"][1]] == names[holder.base]
    assert owners[bots_rooms[1]] == names[other.base]
    live = redis_count(running.redis, "dudo:live")

    faults = [Fault("refused", down, restore), Fault("blackholed", blackhole, restore)]
    for number, fault in enumerate(faults, start=1):
        bids = {}
        for name, (seat, _) in players.items():
            state = seat.my_turn()
            quantity, face = state["game"]["legal"]["bids"][0]
            bids[name] = {"type": "bid", "id": f"bid-{number}", "quantity": quantity, "face": face}
        fault.begin()
        time.sleep(0.5)  # the bots' rooms meet the fault too
        versions = {}
        for name, (seat, _) in players.items():
            bid_refused(seat, bids[name], f"{fault.name}, {name}")
            bid_refused(seat, bids[name], f"{fault.name}, {name}, again")
            versions[name] = seat.state["version"]
        for node in nodes:
            started = time.monotonic()
            refused = httpx.post(
                f"{node.base}/api/rooms",
                json={"name": "Dee", "seats": 2},
                timeout=ANSWER_WITHIN + 3,
            )
            assert refused.status_code == 503, (fault.name, node.base, refused.text)
            assert refused.json()["error"] == "unavailable", (fault.name, refused.text)
            assert refused.headers["retry-after"] == "1"
            assert time.monotonic() - started < ANSWER_WITHIN + 1.5, (fault.name, node.base)
            seen = health(node)
            assert seen["lease"] is True and seen["redis"] is True, (fault.name, seen)
        time.sleep(2.5)  # longer than the lease, and a look at the database meanwhile
        for name, (seat, _) in players.items():
            assert seat.state["version"] == versions[name], (fault.name, name)
        fault.end()
        for name, (seat, code) in players.items():
            bid_until_acknowledged(seat, bids[name], f"{fault.name}, {name}")
            assert stored_ids(code, bids[name]["id"]) == 1, (fault.name, name)
        for node in nodes:
            seen = health(node)
            assert seen["node"] == names[node.base], (fault.name, seen)  # the same lease
            assert metric(node, "dudo_node_leases_lost_total") == 0, fault.name
            assert metric(node, "dudo_rooms_taken_over_total") == 0, fault.name
            assert metric(node, "dudo_rooms") == rooms[node.base], fault.name
            recovered(node, number, fault.name)
        for code, owner in owners.items():
            assert redis_get(running.redis, f"dudo:owner:{code}") == owner, (fault.name, code)
        assert redis_count(running.redis, "dudo:live") == live, fault.name  # none refused

    # The players leave; stand-ins and bots play every room to its end.
    for seat, _ in players.values():
        seat.close()
    deadline = time.monotonic() + 90
    for code in [*bots_rooms, *(code for _, code in players.values())]:
        while True:
            summary = httpx.get(f"{other.base}/api/rooms/{code}", timeout=5).json()
            if summary["status"] == "over":
                break
            assert time.monotonic() < deadline, f"{code} did not finish: {summary}"
            time.sleep(0.5)
    for node in nodes:
        assert health(node)["status"] == "ok"
        text = node.output()
        assert "Traceback" not in text, text[-3000:]
        events = log_events(node.log)
        assert not [event for event in events if event.get("level") == "error"], text[-3000:]
        warnings = [event for event in events if event.get("level") == "warning"]
        assert len(warnings) <= 4 * len(faults), warnings
