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
import logging
import time
from collections import defaultdict, deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from dudo.dice import Cups
from dudo.fairness import derive_dice
from dudo.rules import Rules
from dudo.server.gate import Buckets
from dudo.server.logs import log_event
from dudo.server.room import MAX_SEATS, MIN_SEATS, Room, RoomConfig, RoomError, system_entropy
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
        self.unrecoverable: list[str] = []  # live rooms whose log would not replay
        self.refused_creations = 0
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
                continue
            if room.idle(now):
                await room.stop()
                room.closed = True
                await self.store.close_room(code)
                del self.rooms[code]
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
        keep the whole site from starting; its log stays in the store for a look."""
        self.unrecoverable = []
        for code in await self.store.live_rooms():
            try:
                room = await Room.load(code, self.store, self.config, self.clock,
                                       self.entropy, self.deal)
            except Exception:
                log.exception("room %s cannot be rebuilt from its log: left out", code,
                              extra={"fields": {"event": "room_unrecoverable", "room": code}})
                self.unrecoverable.append(code)
                continue
            self.rooms[code] = room
            room.start_task()
        return len(self.rooms)

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

    def _admit_creation(self, client: str) -> None:
        """Refuse a new room if the address made too many lately or the site is full;
        counts the creation as under way (the caller must call _creation_done)."""
        lobbies = sum(1 for room in self.rooms.values() if room.status == "lobby")
        if len(self.rooms) + self._creating >= self.limits.max_rooms:
            self.refused_creations += 1
            raise RoomError("server_full", "this server has no room for more tables now")
        if lobbies + self._creating >= self.limits.max_lobbies:
            self.refused_creations += 1
            raise RoomError("server_full", "too many tables are waiting for players now: "
                                           "join one (quick game) or try again later")
        if not self.creations.take(client):
            self.refused_creations += 1
            raise RoomError("too_many_rooms", "you created many rooms just now: wait a "
                                              "minute, or share a room you made")
        self._creating += 1

    async def create(self, name: str, *, rules: Rules, seats: int, bots: list[str | None],
                     timer: int, public: bool, quick: bool = False,
                     show_lost_dice: bool = True, client: str = "unknown") -> dict[str, Any]:
        """A new room with its creator in seat 0 (the host)."""
        if not MIN_SEATS <= seats <= MAX_SEATS:
            raise RoomError("bad_seats", f"a table has {MIN_SEATS} to {MAX_SEATS} seats")
        self._admit_creation(client)
        try:
            room = await self._new_room(rules=rules, seats=seats, bots=[None, *bots[1:seats]],
                                        timer=timer, public=public, quick=quick,
                                        show_lost_dice=show_lost_dice)
        finally:
            self._creating -= 1
        log_event(log, "room_created", room=room.code, seats=seats, public=public,
                  quick=quick, rules=rules.to_overrides())
        joined: dict[str, Any] = await room.call("join", name, None)
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
            room = await Room.create(code, self.store, self.config, clock=self.clock,
                                     entropy=self.entropy, deal=self.deal,
                                     reuse_closed_before=reuse_before, **settings)
            if room is not None:
                self.rooms[code] = room
                room.start_task()
                return room
        raise RoomError("server_full", "could not find a free room code")

    async def quick(self, name: str, client: str = "unknown",
                    rules: Rules | None = None) -> dict[str, Any]:
        """Seat the player at an open public quick table playing the same rules (Perudo
        unless the player chose others), or start a new one."""
        rules = rules or Rules.preset("perudo")
        async with self._lock:
            for room in self.rooms.values():
                if (room.quick and room.public and room.status == "lobby"
                        and room.rules == rules
                        and any(seat.kind == "open" for seat in room.seats)):
                    try:
                        joined: dict[str, Any] = await room.call("join", name, None)
                        return joined
                    except RoomError:
                        continue
            return await self.create(name, rules=rules, seats=4, bots=[], timer=30,
                                     public=True, quick=True, client=client)

    def public_rooms(self) -> list[dict[str, Any]]:
        return [room.summary() for room in self.rooms.values()
                if room.public and room.status == "lobby" and not room.closed]
