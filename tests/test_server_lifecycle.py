"""Rooms leave memory when nobody uses them, and are not rebuilt after a restart."""

from __future__ import annotations

import asyncio

from dudo.rules import Rules
from dudo.server.lobby import Lobby
from dudo.store.base import MemoryStore
from serverkit import FakeClock, fast_config


def test_idle_rooms_are_closed_and_not_recovered() -> None:
    async def scenario() -> None:
        clock = FakeClock()
        store = MemoryStore()
        lobby = Lobby(store, fast_config(close_when_idle=1800, close_after_game=600),
                      clock=clock)
        busy = await lobby.create("Ana", rules=Rules.preset("perudo"), seats=2, bots=[],
                                  timer=0, public=False)
        quiet = await lobby.create("Ben", rules=Rules.preset("perudo"), seats=2, bots=[],
                                   timer=0, public=False)
        clock.advance(1000)
        assert await lobby.close_idle_rooms() == []
        await lobby.rooms[busy["code"]].call("summary")  # someone looked at it: activity
        clock.advance(900)
        assert await lobby.close_idle_rooms() == [quiet["code"]]
        assert quiet["code"] not in lobby.rooms
        assert await store.live_rooms() == [busy["code"]]
        await lobby.close()
        restarted = Lobby(store, fast_config(), clock=clock)
        assert await restarted.recover() == 1
        assert list(restarted.rooms) == [busy["code"]]
        await restarted.close()

    asyncio.run(scenario())
