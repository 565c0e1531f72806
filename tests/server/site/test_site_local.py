"""The one-process site (dudo.server.site.local), and the contract every Site keeps: the
same answers from LocalSite and from RedisSite on a real Redis (skipped without one)."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from dudo.rules import Rules
from dudo.server.cluster.presence import Cluster, ClusterSettings
from dudo.server.cluster.site import RedisSite
from dudo.server.site.base import Site, rules_key
from dudo.server.site.limits import SiteLimits
from dudo.server.site.lobby import Lobby
from dudo.server.site.local import LocalSite
from dudo.server.table.room import RoomConfig, RoomError
from dudo.store.base import MemoryStore

LIMITS = SiteLimits(
    guesses_per_client=3, guesses_per_address=5, creation_burst=2, creations_per_minute=0.001
)


def run(scenario: Callable[[], Awaitable[None]]) -> None:
    asyncio.run(scenario())  # type: ignore[arg-type]


def test_alone_the_lobby_counts_the_caps_and_nobody_else_holds_a_room() -> None:
    async def scenario() -> None:
        site = LocalSite(list)
        assert not site.shared and site.node_id is None
        assert await site.reserve("ACDE", 0, 0) == "ok"  # the lobby checks its caps itself
        assert await site.claim("ACDE")
        assert await site.holder("ACDE") is None
        assert await site.unheld(["ACDE", "FGHJ"]) == ["ACDE", "FGHJ"]
        with pytest.raises(RoomError) as refused:
            await site.join_elsewhere("http://x:1", "ACDE", "Ana", "1.2.3.4", None)
        assert refused.value.code == "full"

    run(scenario)


def test_the_guess_budget_blocks_the_client_then_its_address() -> None:
    async def scenario() -> None:
        site = LocalSite(list)
        site.configure(LIMITS)
        for _ in range(3):
            assert not await site.guess_blocked("1.2.3.4", "me")
            await site.guess_missed("1.2.3.4", "me")
        assert await site.guess_blocked("1.2.3.4", "me")
        assert not await site.guess_blocked("1.2.3.4", "my sister")
        await site.guess_missed("1.2.3.4", "my sister")
        await site.guess_missed("1.2.3.4", "my sister")
        assert await site.guess_blocked("1.2.3.4", "a third")  # the address's 5 are spent
        assert not await site.guess_blocked("5.6.7.8", None)

    run(scenario)


def test_quick_tables_and_public_rooms_are_read_from_the_lobby_s_rooms() -> None:
    async def scenario() -> None:
        # Not fast_config: it fills a quick table with bots at once.
        lobby = Lobby(MemoryStore(), RoomConfig(bot_delay=0, reveal_pause=0, seed_window=0))
        site = lobby.site
        assert isinstance(site, LocalSite)
        perudo = Rules.preset("perudo")
        joined = await lobby.quick("Ana", rules=perudo)
        private = await lobby.create("Bo", rules=perudo, seats=2, bots=[], timer=0, public=False)
        assert await site.quick_tables(rules_key(perudo)) == [joined["code"]]
        assert await site.quick_tables("other rules") == []
        listed = await lobby.list_public()
        assert [room["code"] for room in listed] == [joined["code"]]
        assert private["code"] not in {room["code"] for room in listed}
        second = await lobby.quick("Cid", rules=perudo)  # seated at the same table
        assert second["code"] == joined["code"]
        await lobby.close()

    run(scenario)


@asynccontextmanager
async def local_site() -> AsyncIterator[Site]:
    yield LocalSite(list)


@asynccontextmanager
async def redis_site(url: str) -> AsyncIterator[Site]:
    cluster = Cluster(url, "http://me:1", ClusterSettings(lease=30, renew_every=30), node_id="me")
    await cluster.join()
    try:
        yield RedisSite(cluster)
    finally:
        await cluster.leave()
        await cluster.close()


async def keeps_the_contract(site: Site) -> None:
    """What every Site answers alike, whatever it is backed by."""
    site.configure(LIMITS)
    assert await site.reserve("ACDE", 10, 10) == "ok"
    assert await site.claim("ACDE")  # ours already
    assert await site.holder("ACDE") is None  # not another node's
    assert await site.take_creation("1.2.3.4")
    assert await site.take_creation("1.2.3.4")
    assert not await site.take_creation("1.2.3.4")  # the burst of 2 is spent
    assert await site.take_creation("5.6.7.8")
    for _ in range(3):
        await site.guess_missed("1.2.3.4", "me")
    assert await site.guess_blocked("1.2.3.4", "me")
    assert not await site.guess_blocked("5.6.7.8", "me")
    async with site.quick_lock("perudo"):
        pass
    await site.forget("ACDE", None)
    await site.leave()


def test_the_local_site_keeps_the_contract() -> None:
    async def scenario() -> None:
        async with local_site() as site:
            await keeps_the_contract(site)

    run(scenario)


@pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server")
def test_the_redis_site_keeps_the_contract(tmp_path: Path) -> None:
    from clusterkit import redis_server

    with redis_server(tmp_path) as url:

        async def scenario() -> None:
            async with redis_site(url) as site:
                assert site.shared and site.node_id == "me"
                await keeps_the_contract(site)
                assert await site.reserve("FGHJ", 1, 10) == "ok"
                assert await site.reserve("FGHJ", 10, 10) == "taken"
                assert await site.reserve("KLMN", 1, 10) == "rooms"  # the site's cap

        run(scenario)
