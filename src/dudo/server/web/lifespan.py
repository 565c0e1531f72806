"""The app's lifespan: what opens when the server starts (the store, the profile book, the
lobby with its recovered rooms, a cluster node's presence, relay and lease keeper, the
background tasks) and closes, in the opposite order, when it stops.

What it opens goes on ``Server.running`` (dudo.server.web.state), where the endpoints find it.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

from starlette.applications import Starlette

from dudo.profiles.book import open_book
from dudo.profiles.series import game_recorder
from dudo.server.cluster.lease import LeaseKeeper
from dudo.server.cluster.presence import Cluster
from dudo.server.cluster.relay import Relay
from dudo.server.cluster.site import RedisSite
from dudo.server.collector import Collector
from dudo.server.logs import log_event
from dudo.server.site.lobby import Lobby
from dudo.server.site.sweeper import sweep_forever
from dudo.server.table.room import RoomConfig
from dudo.server.tasks import stop_task
from dudo.server.web.state import Running, Server
from dudo.store import Store, open_store
from dudo.store.base import hide_password

log = logging.getLogger("dudo.server")

LobbyFactory = Callable[[Store, RoomConfig], Lobby]


class Lifespan:
    """Starlette's lifespan for one ``Server``: ``store`` and ``lobby_factory`` let tests
    put in their own storage, clock and entropy."""

    def __init__(
        self, server: Server, store: Store | None = None, lobby_factory: LobbyFactory | None = None
    ) -> None:
        self.server = server
        self.store = store
        self.lobby_factory = lobby_factory

    @contextlib.asynccontextmanager
    async def __call__(self, app: Starlette) -> AsyncIterator[None]:
        server = self.server
        logging.getLogger("uvicorn.error").addFilter(server.quiet)
        logging.getLogger("uvicorn.error").addFilter(server.refusals)
        running, tasks = await self.open(app)
        try:
            yield
        finally:
            await self.close(running, tasks)

    async def open(self, app: Starlette) -> tuple[Running, list[asyncio.Task[Any]]]:
        """Open the store, the book and the lobby, join the cluster, recover the rooms and
        start the background tasks."""
        server, settings = self.server, self.server.settings
        chosen = self.store or open_store(settings.database)
        await chosen.open()
        book = await open_book(chosen)
        room_config = settings.room
        if room_config.after_game is None:
            room_config = dataclasses.replace(
                room_config, after_game=game_recorder(lambda: server.live.book)
            )
        lobby = (self.lobby_factory or Lobby)(chosen, room_config)
        lobby.configure(settings.limits)
        running = server.running = Running(store=chosen, book=book, lobby=lobby)
        tasks = []
        if settings.cluster:
            cluster = Cluster(
                settings.cluster,
                settings.advertise or "http://127.0.0.1:8000",
                settings.cluster_settings,
            )
            await cluster.join()
            relay = running.relay = Relay(lambda: cluster.secret)
            lobby.join_site(RedisSite(cluster, relay.join))
            running.cluster = cluster
            timings = settings.cluster_settings
            keeper = running.keeper = LeaseKeeper(
                settings.cluster,
                lambda: cluster.node_key,
                cluster.address,
                timings.lease,
                timings.renew_every,
                timings.stall_limit,
            )
            keeper.start()
            app.state.cluster, app.state.keeper = cluster, keeper  # for tests and tools
            tasks.append(asyncio.create_task(keeper.beat_forever(), name="dudo-heartbeat"))
        recovered = await lobby.recover()
        log_event(
            log,
            "server_started",
            database=hide_password(settings.database),
            rooms_recovered=recovered,
            node=lobby.site.node_id,
        )
        if isinstance(lobby.site, RedisSite):
            tasks.append(asyncio.create_task(lobby.site.keep_forever(lobby), name="dudo-lease"))
        tasks.append(
            asyncio.create_task(
                sweep_forever(lobby, settings.sweep_interval, hourly=[self._purge_transfers]),
                name="dudo-room-sweeper",
            )
        )
        app.state.drain = lobby.drain  # DrainingServer hands rooms off on SIGTERM
        if settings.gc_policy == "clock":
            metrics = server.metrics
            collector = running.collector = Collector(
                released=lambda: metrics.closed_sockets + lobby.closed_rooms,
                live=lambda: metrics.sockets,
            )
            collector.start()
            tasks.append(asyncio.create_task(collector.run(), name="dudo-gc"))
        return running, tasks

    async def _purge_transfers(self) -> None:
        """Delete the transfer codes expired by now, used or not (hourly: the sweeper)."""
        gone = await self.server.live.book.purge_transfers(time.time())
        if gone:
            log_event(log, "transfer_codes_purged", codes=gone)

    async def close(self, running: Running, tasks: list[asyncio.Task[Any]]) -> None:
        """Stop the tasks, hand the rooms off (a cluster node), close the lobby, leave the
        cluster and close the store."""
        for task in tasks:
            await stop_task(task)
        if running.collector is not None:
            running.collector.stop()
            running.collector = None
        if running.keeper is not None:  # before the drain ends the lease (it could not
            running.keeper.stop()  # revive it anyway: it renews only a living key)
            running.keeper = None
        await running.lobby.drain()  # a cluster node hands its rooms off (no-op alone)
        await running.lobby.close()
        if running.relay is not None:
            relay, running.relay = running.relay, None
            await relay.close()
        if running.cluster is not None:
            cluster, running.cluster = running.cluster, None
            await cluster.close()
        await running.store.close()
        logging.getLogger("uvicorn.error").removeFilter(self.server.quiet)
        logging.getLogger("uvicorn.error").removeFilter(self.server.refusals)
        self.server.analyses.close()
