"""The site of a cluster (dudo serve --cluster): what every node must agree on, in Redis
(:class:`dudo.server.cluster.presence.Cluster`), and the upkeep that keeps this node in it:
renewing the lease, publishing what others list, adopting dead nodes' rooms."""

from __future__ import annotations

import asyncio
import logging
import time
from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING, Any

from redis.exceptions import RedisError

from dudo.server.cluster.presence import Cluster
from dudo.server.logs import log_event
from dudo.server.site.base import JoinElsewhere
from dudo.server.site.limits import GuessBudget, SiteLimits
from dudo.server.table.room import RoomError

if TYPE_CHECKING:
    from dudo.server.site.lobby import Lobby

log = logging.getLogger("dudo.lobby")


class RedisSite:
    """:class:`dudo.server.site.base.Site` for a node of a cluster, through Redis. The caps
    and buckets are the whole site's; a network's share of the lobbies is not checked."""

    shared = True

    def __init__(self, cluster: Cluster, join_elsewhere: JoinElsewhere | None = None) -> None:
        self.cluster = cluster
        self._join_elsewhere = join_elsewhere
        self.limits = SiteLimits()

    @property
    def node_id(self) -> str | None:
        return self.cluster.node_id

    def configure(self, limits: SiteLimits) -> None:
        self.limits = limits

    @staticmethod
    def _guess_keys(client: str, client_id: str | None) -> list[str]:
        return [f"c:{GuessBudget.key(client, client_id)}", f"a:{client}"]

    async def guess_blocked(self, client: str, client_id: str | None) -> bool:
        limits = self.limits
        per_client, per_address = await self.cluster.misses(
            self._guess_keys(client, client_id), limits.guess_window
        )
        return per_client >= limits.guesses_per_client or per_address >= limits.guesses_per_address

    async def guess_missed(self, client: str, client_id: str | None) -> None:
        await self.cluster.count_miss(self._guess_keys(client, client_id), self.limits.guess_window)

    async def take_creation(self, client: str) -> bool:
        limits = self.limits
        return await self.cluster.take_token(
            f"create:{client}", limits.creations_per_minute / 60.0, limits.creation_burst
        )

    async def reserve(self, code: str, max_rooms: int, max_lobbies: int) -> str:
        return await self.cluster.reserve(code, max_rooms, max_lobbies)

    async def unreserve(self, code: str) -> None:
        await self.cluster.unreserve(code)

    async def claim(self, code: str) -> bool:
        return await self.cluster.claim(code)

    async def release(self, code: str) -> None:
        await self.cluster.release(code)

    async def forget(self, code: str, quick_key: str | None) -> None:
        await self.cluster.forget(code, quick_key)

    async def mark_live(self, codes: list[str]) -> None:
        await self.cluster.mark_live(codes)

    async def unheld(self, codes: list[str]) -> list[str]:
        return await self.cluster.unheld(codes)

    async def holder(self, code: str) -> str | None:
        node, address = await self.cluster.holder(code)
        if node is not None and node != self.cluster.node_id and address:
            return address
        return None

    async def join_elsewhere(
        self, address: str, code: str, name: str, client: str, profile: str | None
    ) -> dict[str, Any]:
        if self._join_elsewhere is None:
            raise RoomError("full", "cannot reach that table")
        return await self._join_elsewhere(address, code, name, client, profile)

    def quick_lock(self, key: str) -> AbstractAsyncContextManager[None]:
        return self.cluster.quick_lock(key)

    async def quick_tables(self, key: str) -> list[str]:
        return await self.cluster.quick_tables(key)

    async def add_quick(self, key: str, code: str) -> None:
        await self.cluster.add_quick(key, code)

    async def drop_quick(self, key: str, code: str) -> None:
        await self.cluster.drop_quick(key, code)

    async def public_rooms(self) -> list[dict[str, Any]]:
        return await self.cluster.public_rooms()

    async def publish(
        self,
        lobbies_left: list[str],
        public: dict[str, str | None],
        quick: dict[str, tuple[str, bool]],
    ) -> None:
        await self.cluster.publish(lobbies_left, public, quick)

    async def leave(self) -> None:
        await self.cluster.leave()

    # -- upkeep: the lease, the listings, the rooms of dead nodes ---------------------------

    async def adopt_from_dead_nodes(self, lobby: Lobby) -> int:
        """Take over the rooms of nodes whose lease expired (each popped by one node)."""
        taken = 0
        async for code in self.cluster.orphans_of_dead_nodes():
            if await lobby.take_over(code) is not None:
                taken += 1
        return taken

    async def keep_forever(self, lobby: Lobby) -> None:
        """Renew the lease, publish what others list, adopt dead nodes' rooms (run as a
        task by the app in a cluster)."""
        settings = self.cluster.settings
        last_rescan = time.monotonic()
        this_task = asyncio.current_task()
        adopting: asyncio.Task[None] | None = None
        try:
            # A cancellation that redis-py's client swallowed mid-command
            # (redis/redis-py#2028: seen here with 8.1) still counts: the loop ends
            # instead of running on forever.
            while not lobby.draining and not (this_task and this_task.cancelling()):
                await asyncio.sleep(settings.renew_every)
                try:
                    if not await self.cluster.renew():
                        await lobby.let_go_all()
                    await self.cluster.refresh_secret()
                    await lobby.publish()
                except asyncio.CancelledError:
                    raise
                except (RedisError, OSError) as error:  # away for a moment: try again
                    log_event(log, "cluster_unreachable", logging.WARNING, error=str(error)[:200])
                    continue
                except Exception:
                    log.exception("cluster upkeep failed")
                    continue
                if adopting is None or adopting.done():
                    rescan = time.monotonic() - last_rescan >= settings.rescan_every
                    if rescan:
                        last_rescan = time.monotonic()
                    adopting = asyncio.create_task(self._adopt(lobby, rescan), name="dudo-adopt")
        finally:
            if adopting is not None and not adopting.done():
                adopting.cancel()

    async def _adopt(self, lobby: Lobby, rescan: bool) -> None:
        """Take over dead nodes' rooms and (``rescan``) live rooms nobody holds, in a task
        of its own: both read the database, and the lease's renewals must not wait for a
        database that does not answer (a blackholed one takes seconds per try, longer
        than a lease: the node would lose its lease and drop every room). A database
        that fails here is the store's outage, logged once per outage with the rooms'
        (:class:`StoreHealth`), not a ``cluster_unreachable`` at every rescan."""
        try:
            await self.adopt_from_dead_nodes(lobby)
            if rescan:
                await lobby.adopt_unheld()
        except asyncio.CancelledError:
            raise
        except RedisError as error:  # away for a moment: the next renewal tries again
            log_event(log, "cluster_unreachable", logging.WARNING, error=str(error)[:200])
        except Exception as error:  # StoreError, a driver's own, or TimeoutError
            lobby.health.failed(None, error)
        else:
            if rescan:  # the database answered
                lobby.health.succeeded()
