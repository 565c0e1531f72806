"""Profiles on a cluster (real node processes, a real Redis, the shared database:
PostgreSQL in CI): a profile made through one node is known to the other, a seat taken
through a node that does not hold the room (relayed, a quick game too) counts for its
profile, and the finished game is rated once, whichever node is asked afterwards."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import httpx
from test_cluster import stored_log, ws_url
from websockets.sync.client import connect as connect_sync

from clusterkit import cluster
from profilekit import new_secret


def leave_at_once(base: str, code: str, token: str, start: bool = False) -> None:
    """Connect a seat (through any node), start the game if asked, and leave: with grace
    0 the server's stand-in plays the seat."""
    with connect_sync(
        ws_url(base, code), subprotocols=["dudo.v1", f"token.{token}"], open_timeout=10
    ) as socket:
        json.loads(socket.recv(timeout=10))
        if start:
            socket.send(json.dumps({"type": "start", "id": "go"}))
            while json.loads(socket.recv(timeout=10)).get("type") != "ack":
                pass


def test_profiles_span_the_nodes_and_a_game_is_rated_once(tmp_path: Path) -> None:
    env = {"DUDO_GRACE": "0", "DUDO_QUICK_FILL": "3600"}
    ana, ben = new_secret(), new_secret()
    with cluster(tmp_path, nodes=2, env=env) as running, httpx.Client(timeout=10) as http:
        a, b = running.nodes
        made = http.post(f"{a.base}/api/profile", json={"secret": ana, "name": "Ana"})
        assert made.status_code == 201, made.text
        assert http.post(f"{b.base}/api/profile/me", json={"secret": ana}).status_code == 200
        assert (
            http.post(f"{b.base}/api/profile", json={"secret": ben, "name": "Ben"}).status_code
            == 201
        )
        ids = {
            secret: http.post(f"{a.base}/api/profile/me", json={"secret": secret}).json()[
                "profile"
            ]["id"]
            for secret in (ana, ben)
        }
        # A room held by node a; Ben joins through node b (the join is relayed).
        room = http.post(
            f"{a.base}/api/rooms",
            json={"name": "Ana", "seats": 3, "bots": [None, None, "normal"], "profile": ana},
        ).json()
        code = room["code"]
        joined = http.post(f"{b.base}/api/rooms/{code}/join", json={"name": "Ben", "profile": ben})
        assert joined.status_code == 200, joined.text
        leave_at_once(b.base, code, joined.json()["token"])
        leave_at_once(a.base, code, room["token"], start=True)
        end = time.monotonic() + 60
        while http.get(f"{b.base}/api/rooms/{code}").json()["status"] != "over":
            assert time.monotonic() < end, "the game did not end"
            time.sleep(0.1)
        for node in (a, b):
            for secret in (ana, ben):
                end = time.monotonic() + 10
                while True:
                    data = http.post(f"{node.base}/api/profile/me", json={"secret": secret}).json()
                    if data["stats"]["total"]["games"] or time.monotonic() > end:
                        break
                    time.sleep(0.1)
                assert data["stats"]["total"]["games"] == 1, data
                assert data["profile"]["rating"]["games"] == 1, data
            series = http.get(f"{node.base}/api/rooms/{code}/series").json()
            assert series["games"] == 1
        # Quick games: two players reaching different nodes sit at one table, each
        # seat with its own profile.
        first = http.post(f"{a.base}/api/quick", json={"name": "Ana", "profile": ana}).json()
        second = http.post(f"{b.base}/api/quick", json={"name": "Ben", "profile": ben}).json()
        assert first["code"] == second["code"]
        log = asyncio.run(stored_log(running.database, first["code"]))
        linked = {
            entry.data["name"]: entry.data.get("profile") for entry in log if entry.kind == "joined"
        }
        assert linked == {"Ana": ids[ana], "Ben": ids[ben]}
        assert ana not in json.dumps([entry.data for entry in log])
