"""The lobby: room codes, creating and finding rooms, quick games, and restart recovery.

Room codes are four letters from an alphabet without look-alikes (no B/8, I/1, O/0, S/5,
Z/2), about 194,000 codes. A closed room's code is free again once the room has been
closed for the retention period (its log is deleted then; finished games keep their
records under ids of their own), so the codes never run out.

Limits that keep one client from closing the site to everyone (:class:`SiteLimits`):

- looking up codes that do not exist is rate-limited per *client* (an address plus the
  browser's own client id, so one person mistyping codes behind a school's or a café's
  shared address blocks only themselves) and, more loosely, per address (so rotating
  client ids does not walk the codes either);
- creating rooms is rate-limited per address (a token bucket);
- rooms still in their lobby may take only part of the site's capacity, so a flood of
  empty lobbies never stops games from being played; lobbies nobody is in are closed
  after a few minutes (RoomConfig.close_empty_lobby).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections import Counter, defaultdict, deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from redis.exceptions import RedisError

from dudo.dice import Cups
from dudo.fairness import derive_dice
from dudo.rules import Rules
from dudo.server.cluster.presence import Cluster, rules_key
from dudo.server.guard.gate import Buckets
from dudo.server.guard.networks import network_of
from dudo.server.logs import log_event
from dudo.server.outage import StoreHealth, within
from dudo.server.table.inbox import Join
from dudo.server.table.room import MAX_SEATS, MIN_SEATS, Room, RoomConfig, RoomError, system_entropy
from dudo.store import Store

log = logging.getLogger("dudo.lobby")

CODE_ALPHABET = "ACDEFGHJKLMNPQRTUVWXY"
CODE_LENGTH = 4
CODE_TRIES = 100


@dataclass
class SiteLimits:
    """How much of the site one client may use; ``dudo serve`` reads DUDO_* overrides."""

    max_rooms: int = 5000
    max_lobbies: int = 2000  # rooms not yet started: the rest is kept for games
    creations_per_minute: float = 3.0  # per address, after a burst of
    creation_burst: int = 10
    guesses_per_client: int = 20  # unknown codes per client (address + client id)...
    guesses_per_address: int = 200  # ...and per address, in any guess_window seconds
    guess_window: float = 60.0
    closed_retention: float = 86_400.0  # seconds a closed room's log is kept
    # Addresses grouped by network (dudo.server.guard.networks): each network may hold at most
    # this share of the lobbies (and always at least one address's burst).
    ipv4_prefix: int = 24
    ipv6_prefix: int = 64
    group_share: float = 0.05
    # Near the cap, a lobby nobody is at and nobody but its creator ever sat in gives
    # way to a new one once it has been idle this long (its creator's page connects at
    # once, and a reload takes a moment).
    evict_idle_after: float = 10.0


@dataclass(frozen=True)
class Elsewhere:
    """A room another node of the cluster holds: requests for it are relayed there."""

    code: str
    address: str  # the holder's http://host:port


# Joining a room on another node (the app relays it): (address, code, name, client, the
# player's profile id or None) -> the join's answer, or a RoomError.
JoinElsewhere = Callable[[str, str, str, str, str | None], Awaitable[dict[str, Any]]]


def normalise_code(text: str) -> str | None:
    """A code as typed (any case, spaces) in canonical form, or None if it cannot be one."""
    code = "".join(text.split()).upper()
    if len(code) != CODE_LENGTH or any(letter not in CODE_ALPHABET for letter in code):
        return None
    return code


class GuessLimiter:
    """At most ``limit`` misses (unknown codes) per key in any ``window`` seconds."""

    def __init__(self, limit: int = 20, window: float = 60.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.limit = limit
        self.window = window
        self.clock = clock
        self.misses: dict[str, deque[float]] = defaultdict(deque)

    def blocked(self, client: str) -> bool:
        misses = self.misses[client]
        cutoff = self.clock() - self.window
        while misses and misses[0] < cutoff:
            misses.popleft()
        if not misses:
            del self.misses[client]
            return False
        return len(misses) >= self.limit

    def miss(self, client: str) -> None:
        self.misses[client].append(self.clock())


class GuessBudget:
    """Misses counted per client (address + client id) and per address: a client is
    blocked when either budget is spent. Without a client id, the address is the client."""

    def __init__(self, per_client: int = 20, per_address: int = 200, window: float = 60.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.clients = GuessLimiter(per_client, window, clock)
        self.addresses = GuessLimiter(per_address, window, clock)

    @property
    def clock(self) -> Callable[[], float]:
        return self.clients.clock

    @clock.setter
    def clock(self, clock: Callable[[], float]) -> None:
        self.clients.clock = self.addresses.clock = clock

    @staticmethod
    def key(address: str, client_id: str | None) -> str:
        return f"{address}|{client_id}" if client_id else address

    def blocked(self, address: str, client_id: str | None = None) -> bool:
        return (self.clients.blocked(self.key(address, client_id))
                or self.addresses.blocked(address))

    def miss(self, address: str, client_id: str | None = None) -> None:
        self.clients.miss(self.key(address, client_id))
        self.addresses.miss(address)


class Lobby:
    """All rooms of this server process."""

    def __init__(self, store: Store, config: RoomConfig,
                 clock: Callable[[], float] = time.time,
                 entropy: Callable[[int], str] = system_entropy,
                 deal: Callable[..., Cups] = derive_dice) -> None:
        self.store = store
        self.config = config
        self.clock = clock
        self.entropy = entropy
        self.deal = deal
        self.rooms: dict[str, Room] = {}
        self._lock = asyncio.Lock()
        self.closed_rooms = 0  # so far; the garbage collector's policy counts departures
        self._creating = 0  # creations under way, counted against the caps
        self._creating_in: Counter[str] = Counter()  # ...and by the creator's network
        self.evicted = 0  # unattended lobbies closed to make room near the cap
        self.unrecoverable: list[str] = []  # live rooms whose log would not replay
        self.refused_creations = 0
        # In a cluster (dudo serve --cluster): presence in Redis, and how to join a quick
        # table another node holds. None: one process, everything here.
        self.cluster: Cluster | None = None
        self.join_elsewhere: JoinElsewhere | None = None
        self.draining = False
        self.adopted = 0  # rooms taken over from nodes that died or left
        self._taking: dict[str, asyncio.Lock] = {}
        self._published: dict[str, tuple[bool, str | None, bool]] = {}
        self.health = StoreHealth()  # shared by the rooms: one log line per outage
        self.configure(SiteLimits())

    def configure(self, limits: SiteLimits) -> None:
        """Put the site's limits in force (the app passes the server's settings)."""
        self.limits = limits
        self.guesses = GuessBudget(limits.guesses_per_client, limits.guesses_per_address,
                                   limits.guess_window)
        # Rooms an address may create: a burst, then a few a minute.
        self.creations = Buckets(limits.creations_per_minute / 60.0, limits.creation_burst)

    async def close_idle_rooms(self) -> list[str]:
        """Close rooms nobody has used for a while: they leave memory and are no longer
        rebuilt after a restart (their finished games stay in the store)."""
        now = self.clock()
        closed = []
        for code, room in list(self.rooms.items()):
            if room.closed:  # let go (another writer holds it now): not ours to close
                await room.stop()
                del self.rooms[code]
                self._published.pop(code, None)
                continue
            if room.idle(now):
                await room.stop()
                room.closed = True
                await self.store.close_room(code)
                del self.rooms[code]
                self._published.pop(code, None)
                if self.cluster is not None:
                    await self.cluster.forget(code, rules_key(room.rules) if room.quick
                                              else None)
                self.closed_rooms += 1
                closed.append(code)
                log_event(log, "room_closed", room=code, status=room.status)
        return closed

    async def sweep_forever(self, every: float = 60.0) -> None:
        """Close idle rooms once a minute and apply the retention policy once an hour
        (run as a task by the app)."""
        sweeps = 0
        while True:
            await asyncio.sleep(every)
            try:
                await self.close_idle_rooms()
                if sweeps % 60 == 0:
                    await self.purge_closed_rooms()
            except Exception:  # a store hiccup must not end the sweeping for good
                log.exception("sweeping rooms failed")
            sweeps += 1

    async def purge_closed_rooms(self) -> int:
        """Delete the logs of rooms closed longer than the retention period."""
        purged = await self.store.purge_closed_rooms(self.clock() - self.limits.closed_retention)
        if purged:
            log_event(log, "rooms_purged", rooms=purged)
        return purged

    async def recover(self) -> int:
        """Rebuild every live room from its log (after a start or a crash). A room whose
        log cannot be replayed is logged and left out (``unrecoverable``), never allowed to
        keep the whole site from starting; its log stays in the store for a look.

        In a cluster, only the live rooms nobody holds are taken (all of them when the
        first node starts; none when a node joins a running cluster)."""
        self.unrecoverable = []
        if self.cluster is not None:
            await self.adopt_unheld()
            return len(self.rooms)
        for code in await self.store.live_rooms():
            await self._load(code)
        return len(self.rooms)

    async def _load(self, code: str) -> Room | None:
        """Rebuild one room from its log and start it; None if its log will not replay."""
        try:
            room = await Room.load(code, self.store, self.config, self.clock,
                                   self.entropy, self.deal, self.health)
        except Exception:
            log.exception("room %s cannot be rebuilt from its log: left out", code,
                          extra={"fields": {"event": "room_unrecoverable", "room": code}})
            self.unrecoverable.append(code)
            return None
        self.rooms[code] = room
        room.start_task()
        return room

    # -- the cluster: holding rooms, taking over, handing off -----------------------------

    async def take_over(self, code: str) -> Room | None:
        """Claim a live room nobody (alive) holds and rebuild it here; None if another
        node got it first, or it is not live. One attempt per code at a time."""
        assert self.cluster is not None
        lock = self._taking.setdefault(code, asyncio.Lock())
        try:
            async with lock:
                room = self.rooms.get(code)
                if room is not None and not room.closed:
                    return room
                if self.draining or not await self.store.is_live(code):
                    return None
                if not await self.cluster.claim(code):
                    return None
                room = await self._load(code)
                if room is None:
                    await self.cluster.release(code)
                    return None
                self.adopted += 1
                log_event(log, "room_taken_over", room=code, seq=room.seq)
                return room
        finally:
            if not lock.locked():
                self._taking.pop(code, None)

    async def adopt_from_dead_nodes(self) -> int:
        """Take over the rooms of nodes whose lease expired (each popped by one node)."""
        assert self.cluster is not None
        taken = 0
        async for code in self.cluster.orphans_of_dead_nodes():
            if await self.take_over(code) is not None:
                taken += 1
        return taken

    async def adopt_unheld(self) -> int:
        """Take over live rooms nobody holds (the safety net behind the dead nodes' lists:
        a node that died while adopting, or Redis that lost its data)."""
        assert self.cluster is not None
        live = await self.store.live_rooms()
        await self.cluster.mark_live(live)
        taken = 0
        for code in await self.cluster.unheld([c for c in live if c not in self.rooms]):
            if await self.take_over(code) is not None:
                taken += 1
        return taken

    async def let_go_all(self) -> None:
        """Our lease expired before we renewed it (a long pause): survivors may hold our
        rooms now, so every room here is dropped and its sockets sent to reconnect."""
        for code, room in list(self.rooms.items()):
            room._let_go()
            await room.stop()
            del self.rooms[code]
        self._published.clear()

    async def drain(self) -> None:
        """Hand every room off before this node exits (SIGTERM, a rolling deploy): each
        room stops between two commands, its sockets are told to reconnect, and the lease
        ends so that surviving nodes take the rooms over at once."""
        if self.cluster is None or self.draining:
            return
        self.draining = True
        rooms = list(self.rooms.values())
        await asyncio.gather(*(room.hand_off() for room in rooms))
        self.rooms.clear()
        await self.cluster.leave()
        log_event(log, "node_drained", rooms=len(rooms))

    async def keep_lease_forever(self) -> None:
        """Renew the lease, publish what others list, adopt dead nodes' rooms (run as a
        task by the app in a cluster)."""
        assert self.cluster is not None
        settings = self.cluster.settings
        last_rescan = time.monotonic()
        this_task = asyncio.current_task()
        adopting: asyncio.Task[None] | None = None
        try:
            # A cancellation that redis-py's client swallowed mid-command
            # (redis/redis-py#2028: seen here with 8.1) still counts: the loop ends
            # instead of running on forever.
            while not self.draining and not (this_task and this_task.cancelling()):
                await asyncio.sleep(settings.renew_every)
                try:
                    if not await self.cluster.renew():
                        await self.let_go_all()
                    await self.cluster.refresh_secret()
                    await self.publish()
                except asyncio.CancelledError:
                    raise
                except (RedisError, OSError) as error:  # away for a moment: try again
                    log_event(log, "cluster_unreachable", logging.WARNING,
                              error=str(error)[:200])
                    continue
                except Exception:
                    log.exception("cluster upkeep failed")
                    continue
                if adopting is None or adopting.done():
                    rescan = time.monotonic() - last_rescan >= settings.rescan_every
                    if rescan:
                        last_rescan = time.monotonic()
                    adopting = asyncio.create_task(self._adopt(rescan), name="dudo-adopt")
        finally:
            if adopting is not None and not adopting.done():
                adopting.cancel()

    async def _adopt(self, rescan: bool) -> None:
        """Take over dead nodes' rooms and (``rescan``) live rooms nobody holds, in a task
        of its own: both read the database, and the lease's renewals must not wait for a
        database that does not answer (a blackholed one takes seconds per try, longer
        than a lease: the node would lose its lease and drop every room). A database
        that fails here is the store's outage, logged once per outage with the rooms'
        (:class:`StoreHealth`), not a ``cluster_unreachable`` at every rescan."""
        try:
            await self.adopt_from_dead_nodes()
            if rescan:
                await self.adopt_unheld()
        except asyncio.CancelledError:
            raise
        except RedisError as error:  # away for a moment: the next renewal tries again
            log_event(log, "cluster_unreachable", logging.WARNING, error=str(error)[:200])
        except Exception as error:  # StoreError, a driver's own, or TimeoutError
            self.health.failed(None, error)
        else:
            if rescan:  # the database answered
                self.health.succeeded()

    async def publish(self) -> None:
        """Tell the cluster what changed here: rooms that left the lobby (for the lobby
        cap), public lobbies (for the list on the home page), open quick tables."""
        assert self.cluster is not None
        lobbies_left: list[str] = []
        public: dict[str, str | None] = {}
        quick: dict[str, tuple[str, bool]] = {}
        for code in [code for code in self._published if code not in self.rooms]:
            del self._published[code]
        for code, room in self.rooms.items():
            waiting = room.status == "lobby" and not room.closed
            listed = (json.dumps(room.summary(), separators=(",", ":"))
                      if waiting and room.public else None)
            open_quick = (waiting and room.quick and room.public
                          and any(seat.kind == "open" for seat in room.seats))
            before = self._published.get(code, (True, None, False))
            if before[0] and not waiting:
                lobbies_left.append(code)
            if before[1] != listed:
                public[code] = listed
            if room.quick and before[2] != open_quick:
                quick[code] = (rules_key(room.rules), open_quick)
            self._published[code] = (waiting, listed, open_quick)
        if lobbies_left or public or quick:
            await self.cluster.publish(lobbies_left, public, quick)

    async def locate(self, code: str, client: str, client_id: str | None = None,
                     relayed: bool = False) -> Room | Elsewhere:
        """The room with ``code``, here or on the node that holds it (a cluster); a live
        room nobody holds is taken over here. ``relayed``: the request came from another
        node, which found this node the holder: never sent on again."""
        if self.cluster is None:
            return self.find(code, client, client_id)
        if self.draining:  # before asking Redis: the node is letting go of it
            raise RoomError("moved", "this server is shutting down: reconnect")
        if await self._guess_blocked(client, client_id):
            raise RoomError("too_many_guesses", "too many unknown room codes: wait a minute")
        canonical = normalise_code(code)
        if canonical is not None:
            for _ in range(3):
                room = self.rooms.get(canonical)
                if room is not None and not room.closed:
                    return room
                if self.draining:
                    raise RoomError("moved", "this server is shutting down: reconnect")
                node, address = await self.cluster.holder(canonical)
                if node is not None and node != self.cluster.node_id and address:
                    if relayed:
                        raise RoomError("moved", "this room is held elsewhere: reconnect")
                    return Elsewhere(canonical, address)
                if not await self.store.is_live(canonical):
                    break
                room = await self.take_over(canonical)
                if room is not None:
                    return room
        await self._guess_miss(client, client_id)
        raise RoomError("no_room", f"there is no room {code!r}")

    async def _guess_blocked(self, client: str, client_id: str | None) -> bool:
        assert self.cluster is not None
        limits = self.limits
        per_client, per_address = await self.cluster.misses(
            [f"c:{GuessBudget.key(client, client_id)}", f"a:{client}"], limits.guess_window)
        return (per_client >= limits.guesses_per_client
                or per_address >= limits.guesses_per_address)

    async def _guess_miss(self, client: str, client_id: str | None) -> None:
        assert self.cluster is not None
        await self.cluster.count_miss([f"c:{GuessBudget.key(client, client_id)}",
                                       f"a:{client}"], self.limits.guess_window)

    async def wrong_key(self, client: str, client_id: str | None = None) -> None:
        """A wrong invite key for a locked room counts as a guess, like an unknown code:
        keys cannot be walked any faster than codes."""
        if self.cluster is None:
            self.guesses.miss(client, client_id)
        else:
            await self._guess_miss(client, client_id)

    async def close(self) -> None:
        for room in list(self.rooms.values()):
            await room.stop()

    def find(self, code: str, client: str, client_id: str | None = None) -> Room:
        """The room with ``code``; misses count against the client's guesses (``client``
        is the address, ``client_id`` the browser's own id when it sent one)."""
        if self.guesses.blocked(client, client_id):
            raise RoomError("too_many_guesses", "too many unknown room codes: wait a minute")
        canonical = normalise_code(code)
        room = self.rooms.get(canonical) if canonical else None
        if room is None or room.closed:
            self.guesses.miss(client, client_id)
            raise RoomError("no_room", f"there is no room {code!r}")
        return room

    def _full(self, what: str) -> RoomError:
        self.refused_creations += 1
        if what == "rooms":
            return RoomError("server_full", "this server has no room for more tables now")
        return RoomError("server_full", "too many tables are waiting for players now: "
                                        "join one (quick game) or try again later")

    def network_of(self, client: str) -> str:
        return network_of(client, self.limits.ipv4_prefix, self.limits.ipv6_prefix)

    async def _admit_creation(self, client: str) -> str:
        """Refuse a new room if the address or its network made too many lately, if its
        network holds its share of the lobbies, or if the site is full (near the cap an
        unattended lobby gives way first); counts the creation as under way (the caller
        must call _creation_done) and returns the creator's network. In a cluster the
        caps are the whole site's, checked in Redis when the code is chosen, and the
        buckets are the site's too (the network's share is counted per node)."""
        if self.draining:
            raise RoomError("moved", "this server is shutting down: try again")
        group = self.network_of(client)
        limits = self.limits
        evict = 0  # unattended lobbies to close once the creation is allowed
        if self.cluster is None:
            lobbies = held = 0
            for room in self.rooms.values():
                if room.status == "lobby":
                    lobbies += 1
                    held += room.group == group
            share = max(limits.creation_burst, int(limits.max_lobbies * limits.group_share))
            if held + self._creating_in[group] >= share:
                self.refused_creations += 1
                raise RoomError("too_many_rooms", "many tables from your network are "
                                                  "waiting for players: join one first")
            evict = int(len(self.rooms) + self._creating >= limits.max_rooms
                        or lobbies + self._creating >= limits.max_lobbies)
        if self.cluster is not None:
            allowed = await self.cluster.take_token(
                f"create:{client}", limits.creations_per_minute / 60.0,
                limits.creation_burst)
        else:
            allowed = self.creations.take(client)
        if not allowed:
            self.refused_creations += 1
            raise RoomError("too_many_rooms", "you created many rooms just now: wait a "
                                              "minute, or share a room you made")
        if evict and not await self._evict_unattended():
            raise self._full("rooms" if len(self.rooms) >= limits.max_rooms else "lobbies")
        self._creating += 1
        self._creating_in[group] += 1
        return group

    async def _evict_unattended(self) -> bool:
        """Near the cap, close the lobby that waited longest with nobody at it: no
        player's socket open, no one but its creator ever sat down, idle for
        ``evict_idle_after`` (a crowd's rooms, made and left). A lobby whose host is
        here, or that someone joined, never goes.
        True if one went."""
        idle_since = self.clock() - self.limits.evict_idle_after
        unattended = [room for room in self.rooms.values()
                      if room.status == "lobby" and not room.closed
                      and room.last_activity <= idle_since
                      and not room.audience.players_here()
                      and sum(seat.kind == "human" for seat in room.seats) <= 1]
        if not unattended:
            return False
        oldest = min(unattended, key=lambda room: room.last_activity)
        try:
            await within(self.store.close_room(oldest.code), self.config.write_patience)
        except Exception:  # the store is away: nothing is closed, nothing made
            return False
        await oldest.stop()
        oldest.closed = True
        del self.rooms[oldest.code]
        self._published.pop(oldest.code, None)
        self.closed_rooms += 1
        self.evicted += 1
        log_event(log, "lobby_evicted", room=oldest.code)
        return True

    async def create(self, name: str, *, rules: Rules, seats: int, bots: list[str | None],
                     timer: int, public: bool, quick: bool = False,
                     show_lost_dice: bool = True, client: str = "unknown",
                     profile: str | None = None) -> dict[str, Any]:
        """A new room with its creator in seat 0 (the host)."""
        if not MIN_SEATS <= seats <= MAX_SEATS:
            raise RoomError("bad_seats", f"a table has {MIN_SEATS} to {MAX_SEATS} seats")
        group = await self._admit_creation(client)
        try:
            room = await self._new_room(rules=rules, seats=seats, bots=[None, *bots[1:seats]],
                                        timer=timer, public=public, quick=quick,
                                        show_lost_dice=show_lost_dice)
            room.group = group
        finally:
            self._creating -= 1
            self._creating_in[group] -= 1
            if not self._creating_in[group]:
                del self._creating_in[group]
        log_event(log, "room_created", room=room.code, seats=seats, public=public,
                  quick=quick, rules=rules.to_overrides())
        joined: dict[str, Any] = await room.ask(Join(name, None, profile))
        return joined

    async def _new_room(self, **settings: Any) -> Room:
        """A room under a free code: never a live one's, and a closed one's only after the
        retention period (the store checks that, atomically)."""
        reuse_before = self.clock() - self.limits.closed_retention
        for _ in range(CODE_TRIES):
            digits = bytes.fromhex(self.entropy(CODE_LENGTH))
            code = "".join(CODE_ALPHABET[digit % len(CODE_ALPHABET)] for digit in digits)
            if code in self.rooms:
                continue
            if self.cluster is not None:
                verdict = await self.cluster.reserve(code, self.limits.max_rooms,
                                                     self.limits.max_lobbies)
                if verdict == "taken":
                    continue
                if verdict != "ok":
                    raise self._full(verdict)
            try:
                room = await Room.create(code, self.store, self.config, clock=self.clock,
                                         entropy=self.entropy, deal=self.deal,
                                         reuse_closed_before=reuse_before,
                                         health=self.health, **settings)
            except RoomError:  # the store is away: 503 unavailable
                if self.cluster is not None:
                    await self.cluster.unreserve(code)
                raise
            if room is None and self.cluster is not None:
                await self.cluster.unreserve(code)
            if room is not None:
                self.rooms[code] = room
                room.start_task()
                return room
        raise RoomError("server_full", "could not find a free room code")

    async def quick(self, name: str, client: str = "unknown",
                    rules: Rules | None = None, profile: str | None = None) -> dict[str, Any]:
        """Seat the player at an open public quick table playing the same rules (Perudo
        unless the player chose others), or start a new one."""
        rules = rules or Rules.preset("perudo")
        if self.cluster is not None:
            return await self._quick_in_cluster(name, client, rules, profile)
        async with self._lock:
            for room in self.rooms.values():
                if (room.quick and room.public and room.status == "lobby"
                        and room.rules == rules
                        and any(seat.kind == "open" for seat in room.seats)):
                    try:
                        joined: dict[str, Any] = await room.ask(Join(name, None,
                                                                      profile))
                        return joined
                    except RoomError as error:
                        if error.code == "unavailable":
                            raise  # the store is away: no other table can seat them
                        continue
            return await self.create(name, rules=rules, seats=4, bots=[], timer=30,
                                     public=True, quick=True, client=client,
                                     profile=profile)

    async def _quick_in_cluster(self, name: str, client: str, rules: Rules,
                                profile: str | None = None) -> dict[str, Any]:
        """Quick games across nodes: open quick tables are listed in Redis by their rules;
        one node at a time seats players for one rule set (a lock), joining a table here
        or relaying the join to the node that holds it."""
        assert self.cluster is not None
        key = rules_key(rules)
        async with self.cluster.quick_lock(key):
            for code in await self.cluster.quick_tables(key):
                try:
                    where = await self.locate(code, client)
                    if isinstance(where, Room):
                        if where.rules != rules:
                            raise RoomError("full", "other rules")
                        joined: dict[str, Any] = await where.ask(Join(name, None,
                                                                       profile))
                    elif self.join_elsewhere is not None:
                        joined = await self.join_elsewhere(where.address, code, name, client,
                                                           profile)
                    else:
                        raise RoomError("full", "cannot reach that table")
                    return joined
                except RoomError as error:
                    if error.code == "unavailable":
                        raise
                    await self.cluster.drop_quick(key, code)  # full, started or gone
            joined = await self.create(name, rules=rules, seats=4, bots=[], timer=30,
                                       public=True, quick=True, client=client,
                                       profile=profile)
            await self.cluster.add_quick(key, joined["code"])
            return joined

    async def list_public(self) -> list[dict[str, Any]]:
        """Public rooms waiting for players: this node's, or the whole cluster's."""
        if self.cluster is None:
            return self.public_rooms()
        return await self.cluster.public_rooms()

    def public_rooms(self) -> list[dict[str, Any]]:
        return [room.summary() for room in self.rooms.values()
                if room.public and room.status == "lobby" and not room.closed]
