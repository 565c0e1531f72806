"""Presence in a cluster of nodes: who holds which room, which nodes are alive, and the
site-wide facts every node must agree on (room caps, open quick tables, public rooms,
the guess limit). All of it lives in Redis; the rooms themselves live in the database.

How ownership works (docs/deploy.md, "Cluster"):

- Every node holds a **lease**: the key ``node:<id>`` with a time to live, renewed every
  ``renew_every`` seconds (on the event loop, and by a thread while the loop lives:
  :mod:`dudo.server.cluster.lease`). A node whose lease has expired is dead, and so are its claims.
- A room's **owner** is the key ``owner:<code>`` naming a node; the room is held while that
  node's lease lives (one lease covers all of a node's rooms, so a node with ten thousand
  rooms renews one key, not ten thousand). ``held:<id>`` lists the rooms a node holds, so
  survivors find a dead node's rooms without scanning.
- **Claiming** a room is one Lua script: it succeeds only if the room has no owner or its
  owner's lease is gone. When a node dies, survivors pop its rooms and claim them; a room
  asked for before that (a player reconnecting) is claimed by the node asked.
- The lease is not what keeps a room's log whole: appends are conditional on the log's
  next sequence number (``Store.append`` raises ``LogConflict``), so two nodes that both
  believe they hold a room (a node paused past its lease) can never both write; the one
  refused lets the room go (``Room._let_go``).

Redis must be a single primary (or Sentinel): the scripts name keys they compute, which
Redis Cluster's slot routing does not allow.
"""

from __future__ import annotations

import contextlib
import json
import logging
import secrets
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from redis.asyncio import BlockingConnectionPool, Redis
from redis.exceptions import RedisError

log = logging.getLogger("dudo.cluster")

# Claim a room for ARGV[2] if nobody holds it, or its holder's lease is gone.
# KEYS[1] owner:<code>; ARGV: code, me, node-key prefix, held-set prefix.
CLAIM = """
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[2] then return 1 end
if holder and redis.call('EXISTS', ARGV[3] .. holder) == 1 then return 0 end
redis.call('SET', KEYS[1], ARGV[2])
if holder then redis.call('SREM', ARGV[4] .. holder, ARGV[1]) end
redis.call('SADD', ARGV[4] .. ARGV[2], ARGV[1])
return 1
"""

# A new room under the site's caps: refuse if the code is live or held, or the site or
# its lobbies are full; else count it and hold it. KEYS: live, lobbies, owner:<code>,
# held:<me>; ARGV: code, me, max rooms, max lobbies.
RESERVE = """
if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 1 or redis.call('EXISTS', KEYS[3]) == 1 then
  return 'taken'
end
if redis.call('SCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 'rooms' end
if redis.call('SCARD', KEYS[2]) >= tonumber(ARGV[4]) then return 'lobbies' end
redis.call('SADD', KEYS[1], ARGV[1])
redis.call('SADD', KEYS[2], ARGV[1])
redis.call('SET', KEYS[3], ARGV[2])
redis.call('SADD', KEYS[4], ARGV[1])
return 'ok'
"""

# Let a room go (closed, or handed off): its owner key only if it is still ours.
# KEYS: owner:<code>, held:<me>; ARGV: code, me.
RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[2] then redis.call('DEL', KEYS[1]) end
redis.call('SREM', KEYS[2], ARGV[1])
return 1
"""

# A token bucket (KEYS[1]: a hash of tokens and when they were counted): take one token if
# there is one. ARGV: tokens a second, burst. Redis's own clock, so nodes' clocks never
# matter.
TAKE_TOKEN = """
local clock = redis.call('TIME')
local now = tonumber(clock[1]) + tonumber(clock[2]) / 1000000
local rate, burst = tonumber(ARGV[1]), tonumber(ARGV[2])
local tokens = tonumber(redis.call('HGET', KEYS[1], 't') or burst)
local at = tonumber(redis.call('HGET', KEYS[1], 'a') or now)
tokens = math.min(burst, tokens + math.max(0, now - at) * rate)
local taken = 0
if tokens >= 1 then
  tokens = tokens - 1
  taken = 1
end
redis.call('HSET', KEYS[1], 't', tostring(tokens), 'a', tostring(now))
redis.call('EXPIRE', KEYS[1], math.ceil(burst / math.max(rate, 0.000001)) + 1)
return taken
"""

# Count one miss in a fixed window and say whether the budget was spent before it.
# KEYS[1] the window's counter; ARGV: window seconds.
COUNT = """
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return n
"""


@dataclass
class ClusterSettings:
    """Timings of the cluster; ``lease`` bounds how long a dead node's rooms wait."""

    lease: float = 3.0  # seconds a node's lease lives without renewal
    renew_every: float = 1.0  # also how often dead nodes are looked for
    rescan_every: float = 30.0  # a look at the database for live rooms nobody holds
    stall_limit: float = 10.0  # an event loop silent this long no longer keeps the lease
    prefix: str = "dudo:"
    # Connections to Redis this node opens at most; beyond them a command waits (up to
    # redis_wait seconds) for one to come free, instead of failing with redis-py's "Too
    # many connections" as a busy node once did (DUDO_REDIS_CONNECTIONS).
    redis_connections: int = 64
    redis_wait: float = 5.0


class Cluster:
    """This node's view of the cluster, through Redis."""

    def __init__(
        self,
        url: str,
        address: str,
        settings: ClusterSettings | None = None,
        node_id: str | None = None,
        redis: Redis | None = None,
    ) -> None:
        self.url = url
        self.address = address  # where other nodes reach this one (http://host:port)
        self.settings = settings or ClusterSettings()
        self._set_node_id(node_id or secrets.token_hex(6))
        # Typed Any: redis-py's stubs answer bytes | str whatever decode_responses says.
        # redis://[:PASSWORD@]HOST:PORT/DB, or rediss:// for TLS (redis-py's URL rules).
        self.redis: Any = redis or Redis(
            connection_pool=BlockingConnectionPool.from_url(
                url,
                max_connections=self.settings.redis_connections,
                timeout=self.settings.redis_wait,
                decode_responses=True,
                socket_timeout=5,
                socket_connect_timeout=5,
            )
        )
        self._claim = self.redis.register_script(CLAIM)
        self._reserve = self.redis.register_script(RESERVE)
        self._release = self.redis.register_script(RELEASE)
        self._count = self.redis.register_script(COUNT)
        self._take_token = self.redis.register_script(TAKE_TOKEN)
        self.secret = ""  # shared by all nodes: relayed requests carry it
        self.healthy = False  # whether the last renewal reached Redis with our lease alive
        self.lease_lost = 0
        self.adopted = 0
        self._addresses: dict[str, tuple[str | None, float]] = {}  # node id -> (url, until)

    def _set_node_id(self, node_id: str) -> None:
        self.p = self.settings.prefix
        self.node_id = node_id
        self.node_key = f"{self.p}node:{node_id}"
        self.held_key = f"{self.p}held:{node_id}"
        self.public_key = f"{self.p}public:{node_id}"

    # -- this node's lease ------------------------------------------------------------------

    async def join(self) -> None:
        """Take a lease and learn the cluster's relay secret (made by the first node)."""
        await self.refresh_secret()
        await self._take_lease()

    async def refresh_secret(self) -> str:
        """The relay secret all nodes share: made by whichever node finds none (the first
        node, or the first after Redis lost its data), read again at every renewal, so
        that every node agrees on it within one renewal."""
        await self.redis.set(f"{self.p}secret", secrets.token_urlsafe(32), nx=True)
        self.secret = await self.redis.get(f"{self.p}secret") or ""
        return self.secret

    async def _take_lease(self) -> None:
        lease_ms = int(self.settings.lease * 1000)
        await self.redis.set(self.node_key, self.address, px=lease_ms)
        await self.redis.sadd(f"{self.p}nodes", self.node_id)
        self.healthy = True

    async def renew(self) -> bool:
        """Renew the lease; False if it had expired (the node was paused or cut off for
        longer than the lease): the caller must let all its rooms go, since survivors may
        have taken them, and then this node starts over with a fresh lease."""
        lease_ms = int(self.settings.lease * 1000)
        try:
            renewed = await self.redis.set(self.node_key, self.address, px=lease_ms, xx=True)
        except (RedisError, OSError):
            self.healthy = False
            raise
        if renewed:
            self.healthy = True
            return True
        self.lease_lost += 1
        lost = self.node_id
        # Start over under a new name: the old one stays dead, so the rooms it held (its
        # owner keys and its held list, left as they are) are adopted like any dead
        # node's, by the survivors or by this node itself, and none is left stranded.
        await self.redis.delete(self.public_key)
        self._set_node_id(secrets.token_hex(6))
        log.warning(
            "lease lost",
            extra={"fields": {"event": "lease_lost", "node": lost, "new_node": self.node_id}},
        )
        await self._take_lease()
        return False

    async def leave(self) -> None:
        """End the lease now (a drain): survivors adopt what is still listed as held.
        The connection stays open for requests still under way (see :meth:`close`)."""
        with contextlib.suppress(RedisError, OSError):
            await self.redis.delete(self.node_key, self.public_key)
        self.healthy = False

    async def close(self) -> None:
        with contextlib.suppress(RedisError, OSError):
            await self.redis.aclose(close_connection_pool=True)

    # -- rooms --------------------------------------------------------------------------------

    def owner_key(self, code: str) -> str:
        return f"{self.p}owner:{code}"

    async def reserve(self, code: str, max_rooms: int, max_lobbies: int) -> str:
        """Count a new room against the site's caps and hold it: 'ok', 'taken' (the code is
        in use), 'rooms' (the site is full) or 'lobbies' (too many waiting tables)."""
        answer: str = await self._reserve(
            keys=[f"{self.p}live", f"{self.p}lobbies", self.owner_key(code), self.held_key],
            args=[code, self.node_id, max_rooms, max_lobbies],
        )
        return answer

    async def unreserve(self, code: str) -> None:
        """Undo a reservation whose room the database refused (its code was taken)."""
        await self._release(keys=[self.owner_key(code), self.held_key], args=[code, self.node_id])
        await self.redis.srem(f"{self.p}live", code)
        await self.redis.srem(f"{self.p}lobbies", code)

    async def claim(self, code: str) -> bool:
        """Hold a room nobody holds (or whose holder died); True if it is ours now."""
        won = await self._claim(
            keys=[self.owner_key(code)],
            args=[code, self.node_id, f"{self.p}node:", f"{self.p}held:"],
        )
        return bool(won)

    async def release(self, code: str) -> None:
        """Stop holding a room (handed off): another node may claim it at once."""
        await self._release(keys=[self.owner_key(code), self.held_key], args=[code, self.node_id])

    async def forget(self, code: str, quick_key: str | None = None) -> None:
        """A room closed: it no longer counts, is no longer listed, nobody holds it."""
        await self.release(code)
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.srem(f"{self.p}live", code)
            pipe.srem(f"{self.p}lobbies", code)
            pipe.hdel(self.public_key, code)
            if quick_key:
                pipe.srem(f"{self.p}quick:{quick_key}", code)
            await pipe.execute()

    async def mark_live(self, codes: list[str]) -> None:
        """Count rooms the database says are live (after Redis lost its data)."""
        if codes:
            await self.redis.sadd(f"{self.p}live", *codes)

    async def holder(self, code: str) -> tuple[str | None, str | None]:
        """(node id, its address) of the room's holder; (id, None) if that node is dead,
        (None, None) if nobody holds the room."""
        node = await self.redis.get(self.owner_key(code))
        if node is None:
            return None, None
        return node, await self.address_of(node)

    async def address_of(self, node: str) -> str | None:
        """A live node's address, cached for a fraction of the lease."""
        now = time.monotonic()
        cached = self._addresses.get(node)
        if cached is not None and cached[1] > now:
            return cached[0]
        address: str | None = await self.redis.get(f"{self.p}node:{node}")
        self._addresses[node] = (address, now + self.settings.renew_every / 2)
        return address

    async def unheld(self, codes: list[str]) -> list[str]:
        """Those of ``codes`` whose holder is missing or dead."""
        if not codes:
            return []
        holders = await self.redis.mget([self.owner_key(code) for code in codes])
        nodes = sorted({node for node in holders if node})
        alive: set[str] = set()
        if nodes:
            leases = await self.redis.mget([f"{self.p}node:{node}" for node in nodes])
            alive = {node for node, lease in zip(nodes, leases, strict=True) if lease}
        return [
            code
            for code, node in zip(codes, holders, strict=True)
            if node is None or node not in alive
        ]

    async def orphans_of_dead_nodes(self, batch: int = 100) -> AsyncIterator[str]:
        """Codes held by nodes whose lease expired, each popped by exactly one survivor
        (SPOP); a dead node is forgotten once it holds nothing."""
        for node in await self.redis.smembers(f"{self.p}nodes"):
            if node == self.node_id or await self.redis.exists(f"{self.p}node:{node}"):
                continue
            while True:
                codes = await self.redis.spop(f"{self.p}held:{node}", batch)
                if not codes:
                    break
                for code in codes:
                    yield code
            await self.redis.srem(f"{self.p}nodes", node)
            await self.redis.delete(f"{self.p}public:{node}")

    # -- site-wide listings -------------------------------------------------------------------

    async def publish(
        self,
        lobbies_left: list[str],
        public: dict[str, str | None],
        quick: dict[str, tuple[str, bool]],
    ) -> None:
        """This node's changes since the last call: rooms that left the lobby, public
        lobby summaries (None: no longer listed), quick tables (open or not)."""
        async with self.redis.pipeline(transaction=False) as pipe:
            if lobbies_left:
                pipe.srem(f"{self.p}lobbies", *lobbies_left)
            for code, summary in public.items():
                if summary is None:
                    pipe.hdel(self.public_key, code)
                else:
                    pipe.hset(self.public_key, code, summary)
            for code, (key, is_open) in quick.items():
                if is_open:
                    pipe.sadd(f"{self.p}quick:{key}", code)
                else:
                    pipe.srem(f"{self.p}quick:{key}", code)
            await pipe.execute()

    async def public_rooms(self) -> list[dict[str, Any]]:
        """Public rooms waiting for players, on every live node."""
        rooms: list[dict[str, Any]] = []
        for node in sorted(await self.redis.smembers(f"{self.p}nodes")):
            if node != self.node_id and not await self.address_of(node):
                continue
            for text in await self.redis.hvals(f"{self.p}public:{node}"):
                rooms.append(json.loads(text))
        return rooms

    async def quick_tables(self, key: str) -> list[str]:
        return sorted(await self.redis.smembers(f"{self.p}quick:{key}"))

    async def add_quick(self, key: str, code: str) -> None:
        await self.redis.sadd(f"{self.p}quick:{key}", code)

    async def drop_quick(self, key: str, code: str) -> None:
        await self.redis.srem(f"{self.p}quick:{key}", code)

    @contextlib.asynccontextmanager
    async def quick_lock(self, key: str, hold: float = 5.0) -> AsyncIterator[None]:
        """One node at a time matches players for one rule set, so two nodes never open
        two half-empty tables for two players who could sit together."""
        lock = self.redis.lock(f"{self.p}quicklock:{key}", timeout=hold, blocking_timeout=hold)
        async with lock:
            yield

    # -- limits across nodes -----------------------------------------------------------------

    async def take_token(self, key: str, rate: float, burst: int) -> bool:
        """Take one token of a site-wide bucket (``rate`` a second, up to ``burst``)."""
        return bool(await self._take_token(keys=[f"{self.p}bucket:{key}"], args=[rate, burst]))

    # -- the guess limit across nodes ---------------------------------------------------------

    async def count_miss(self, keys: list[str], window: float) -> None:
        slot = int(time.time() // window)
        for key in keys:
            await self._count(keys=[f"{self.p}guess:{key}:{slot}"], args=[int(window) + 1])

    async def misses(self, keys: list[str], window: float) -> list[int]:
        slot = int(time.time() // window)
        values = await self.redis.mget([f"{self.p}guess:{key}:{slot}" for key in keys])
        return [int(value or 0) for value in values]

    async def ping(self) -> bool:
        try:
            return bool(await self.redis.ping())
        except (RedisError, OSError):
            return False
