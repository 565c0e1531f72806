"""The presence contract on a real Redis: leases, claims, reservations under the site's
caps, a dead node's rooms popped by exactly one survivor, listings and counters."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from clusterkit import redis_server
from dudo.rules import Rules
from dudo.server.cluster.presence import Cluster, ClusterSettings
from dudo.server.site.base import rules_key

FAST = ClusterSettings(lease=0.5, renew_every=0.1)


def run(tmp_path: Path, body: Callable[[Callable[[str], Cluster]], Awaitable[None]]) -> None:
    with redis_server(tmp_path) as url:

        async def scenario() -> None:
            made: list[Cluster] = []

            def node(name: str) -> Cluster:
                cluster = Cluster(url, f"http://{name}:1", FAST, node_id=name)
                made.append(cluster)
                return cluster

            try:
                await body(node)
            finally:
                for cluster in made:
                    await cluster.leave()

        asyncio.run(scenario())


def test_one_holder_per_room_and_a_dead_holders_rooms_can_be_claimed(tmp_path: Path) -> None:
    async def body(node: Callable[[str], Cluster]) -> None:
        a, b = node("a"), node("b")
        await a.join()
        await b.join()
        assert a.secret and a.secret == b.secret  # made by the first, learnt by the rest
        assert await a.claim("ACDE")
        assert await a.claim("ACDE")  # holding it already
        assert not await b.claim("ACDE")  # a lives: b cannot take it
        assert await b.holder("ACDE") == ("a", "http://a:1")
        assert await b.unheld(["ACDE", "FGHJ"]) == ["FGHJ"]
        # a stops renewing: once its lease is gone, b may take the room.
        await asyncio.sleep(FAST.lease + 0.2)
        await b.renew()
        assert await b.holder("ACDE") == ("a", None)
        assert await b.unheld(["ACDE"]) == ["ACDE"]
        assert await b.claim("ACDE")  # (b slept too: it holds a new lease, a new name)
        assert await b.holder("ACDE") == (b.node_id, "http://b:1")
        # a comes back from its pause: its lease had expired, so it starts over holding
        # nothing (the caller lets all its rooms go).
        assert await a.renew() is False
        assert a.lease_lost == 1
        assert not await a.claim("ACDE")
        assert await a.redis.smembers(a.held_key) == set()

    run(tmp_path, body)


def test_a_dead_nodes_rooms_are_popped_by_exactly_one_survivor(tmp_path: Path) -> None:
    async def body(node: Callable[[str], Cluster]) -> None:
        dead, b, c = node("dead"), node("b"), node("c")
        for cluster in (dead, b, c):
            await cluster.join()
        codes = [f"R{index:03d}" for index in range(250)]
        for code in codes:
            assert await dead.claim(code)
        await dead.redis.delete(dead.node_key)  # killed: the lease is simply gone

        async def adopt(cluster: Cluster) -> list[str]:
            taken = []
            async for code in cluster.orphans_of_dead_nodes(batch=7):
                if await cluster.claim(code):
                    taken.append(code)
            return taken

        got_b, got_c = await asyncio.gather(adopt(b), adopt(c))
        assert sorted(got_b + got_c) == codes  # every room once, none twice
        assert not set(got_b) & set(got_c)
        assert "dead" not in await b.redis.smembers(f"{b.p}nodes")  # forgotten
        for code in got_b:
            assert await c.holder(code) == ("b", "http://b:1")

    run(tmp_path, body)


def test_reservations_hold_the_site_caps_exactly_under_concurrency(tmp_path: Path) -> None:
    async def body(node: Callable[[str], Cluster]) -> None:
        a, b = node("a"), node("b")
        await a.join()
        await b.join()
        verdicts = await asyncio.gather(
            *((a if index % 2 else b).reserve(f"C{index:03d}", 10, 6) for index in range(40))
        )
        assert verdicts.count("ok") == 6  # the lobby cap, exactly, across both nodes
        assert set(verdicts) == {"ok", "lobbies"}
        assert await a.reserve("C000" if verdicts[0] == "ok" else "C001", 10, 100) == "taken"
        # Rooms that start leave the lobby count; the room cap then binds.
        listed = [f"C{index:03d}" for index, verdict in enumerate(verdicts) if verdict == "ok"]
        await a.publish(listed, {}, {})
        more = [await a.reserve(f"D{index:03d}", 10, 100) for index in range(6)]
        assert more == ["ok"] * 4 + ["rooms"] * 2
        # A refused creation (the database had the code) gives its place back.
        await a.unreserve("D000")
        assert await a.reserve("E000", 10, 100) == "ok"
        # A closed room no longer counts and nobody holds it.
        await b.forget(listed[0])
        assert await a.holder(listed[0]) == (None, None)
        assert await a.reserve("E001", 10, 100) == "ok"
        assert await a.reserve("E002", 10, 100) == "rooms"

    run(tmp_path, body)


def test_public_rooms_and_quick_tables_are_listed_across_nodes(tmp_path: Path) -> None:
    async def body(node: Callable[[str], Cluster]) -> None:
        a, b = node("a"), node("b")
        await a.join()
        await b.join()
        key = rules_key(Rules.preset("perudo"))
        assert key != rules_key(Rules.preset("tavern"))
        await a.publish([], {"AAAA": json.dumps({"code": "AAAA"})}, {"AAAA": (key, True)})
        await b.publish([], {"BBBB": json.dumps({"code": "BBBB"})}, {"BBBB": (key, True)})
        assert sorted(room["code"] for room in await a.public_rooms()) == ["AAAA", "BBBB"]
        assert await b.quick_tables(key) == ["AAAA", "BBBB"]
        await b.publish([], {"BBBB": None}, {"BBBB": (key, False)})
        assert [room["code"] for room in await a.public_rooms()] == ["AAAA"]
        assert await a.quick_tables(key) == ["AAAA"]
        # A dead node's listings go with it.
        await a.redis.delete(a.node_key)
        await asyncio.sleep(FAST.renew_every)
        assert await b.public_rooms() == []

    run(tmp_path, body)


def test_guess_misses_add_up_across_nodes(tmp_path: Path) -> None:
    async def body(node: Callable[[str], Cluster]) -> None:
        a, b = node("a"), node("b")
        await a.join()
        await b.join()
        for index in range(5):
            await (a if index % 2 else b).count_miss(["c:1.2.3.4|x", "a:1.2.3.4"], 60)
        assert await a.misses(["c:1.2.3.4|x", "a:1.2.3.4", "a:5.6.7.8"], 60) == [5, 5, 0]
        ttl = await a.redis.ttl(f"{a.p}guess:a:1.2.3.4:{int(time.time() // 60)}")
        assert 0 < ttl <= 61

    run(tmp_path, body)


def test_a_token_bucket_is_shared_by_the_nodes(tmp_path: Path) -> None:
    async def body(node: Callable[[str], Cluster]) -> None:
        a, b = node("a"), node("b")
        await a.join()
        await b.join()
        taken = [
            await (a if index % 2 else b).take_token("create:1.2.3.4", 0.001, 5)
            for index in range(8)
        ]
        assert taken == [True] * 5 + [False] * 3  # the burst, across both nodes
        assert await a.take_token("create:5.6.7.8", 0.001, 5)  # another address
        fast = [await a.take_token("create:9.9.9.9", 20.0, 1) for _ in range(2)]
        assert fast == [True, False]
        await asyncio.sleep(0.1)  # 20 a second: refilled
        assert await b.take_token("create:9.9.9.9", 20.0, 1)

    run(tmp_path, body)


def test_nodes_agree_on_a_new_relay_secret_after_redis_lost_its_data(tmp_path: Path) -> None:
    async def body(node: Callable[[str], Cluster]) -> None:
        a, b = node("a"), node("b")
        await a.join()
        await b.join()
        old = a.secret
        await a.redis.flushdb()  # Redis restarted without its data
        assert await b.renew() is False  # b's lease went with it: it starts over
        await b.refresh_secret()
        await a.refresh_secret()
        assert a.secret == b.secret and a.secret != old

    run(tmp_path, body)


def test_a_node_that_lost_its_lease_starts_over_and_its_rooms_are_adopted(tmp_path: Path) -> None:
    async def body(node: Callable[[str], Cluster]) -> None:
        a = node("a")
        await a.join()
        for code in ("R001", "R002"):
            assert await a.claim(code)
        await asyncio.sleep(FAST.lease + 0.2)  # a stalled past its lease
        assert await a.renew() is False
        assert a.node_id != "a" and a.healthy
        # The old name is dead, its list intact: its rooms are adopted like any dead
        # node's (here by the node itself; by a survivor just the same).
        adopted = [code async for code in a.orphans_of_dead_nodes()]
        assert sorted(adopted) == ["R001", "R002"]
        for code in adopted:
            assert await a.claim(code)
            assert (await a.holder(code))[0] == a.node_id

    run(tmp_path, body)
