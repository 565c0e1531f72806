"""The lobby: room codes, creating and finding rooms, quick games, and restart recovery.

Room codes are four letters from an alphabet without look-alikes (no B/8, I/1, O/0, S/5,
Z/2), about 194,000 codes. Looking up codes that do not exist is rate-limited per client
address, so codes cannot be walked.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import defaultdict, deque
from collections.abc import Callable
from typing import Any

from dudo.dice import Cups
from dudo.fairness import derive_dice
from dudo.rules import Rules
from dudo.server.logs import log_event
from dudo.server.room import MAX_SEATS, MIN_SEATS, Room, RoomConfig, RoomError, system_entropy
from dudo.store import Store

log = logging.getLogger("dudo.lobby")

CODE_ALPHABET = "ACDEFGHJKLMNPQRTUVWXY"
CODE_LENGTH = 4
MAX_ROOMS = 5000


def normalise_code(text: str) -> str | None:
    """A code as typed (any case, spaces) in canonical form, or None if it cannot be one."""
    code = "".join(text.split()).upper()
    if len(code) != CODE_LENGTH or any(letter not in CODE_ALPHABET for letter in code):
        return None
    return code


class GuessLimiter:
    """At most ``limit`` misses (unknown codes) per client in any ``window`` seconds."""

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
        self.guesses = GuessLimiter()
        self._lock = asyncio.Lock()
        self.closed_rooms = 0  # so far; the garbage collector's policy counts departures

    async def close_idle_rooms(self) -> list[str]:
        """Close rooms nobody has used for a while: they leave memory and are no longer
        rebuilt after a restart (their finished games stay in the store)."""
        now = self.clock()
        closed = []
        for code, room in list(self.rooms.items()):
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
        """Close idle rooms once a minute (run as a task by the app)."""
        while True:
            await asyncio.sleep(every)
            await self.close_idle_rooms()

    async def recover(self) -> int:
        """Rebuild every live room from its log (after a start or a crash)."""
        for code in await self.store.live_rooms():
            room = await Room.load(code, self.store, self.config, self.clock, self.entropy,
                                   self.deal)
            self.rooms[code] = room
            room.start_task()
        return len(self.rooms)

    async def close(self) -> None:
        for room in list(self.rooms.values()):
            await room.stop()

    def find(self, code: str, client: str) -> Room:
        """The room with ``code``; misses count against the client's guesses."""
        if self.guesses.blocked(client):
            raise RoomError("too_many_guesses", "too many unknown room codes: wait a minute")
        canonical = normalise_code(code)
        room = self.rooms.get(canonical) if canonical else None
        if room is None or room.closed:
            self.guesses.miss(client)
            raise RoomError("no_room", f"there is no room {code!r}")
        return room

    async def create(self, name: str, *, rules: Rules, seats: int, bots: list[str | None],
                     timer: int, public: bool, quick: bool = False) -> dict[str, Any]:
        """A new room with its creator in seat 0 (the host)."""
        if not MIN_SEATS <= seats <= MAX_SEATS:
            raise RoomError("bad_seats", f"a table has {MIN_SEATS} to {MAX_SEATS} seats")
        if len(self.rooms) >= MAX_ROOMS:
            raise RoomError("server_full", "this server has no room for more tables now")
        bots = [None, *bots[1:seats]]  # the host's seat is never a bot
        for _ in range(50):
            digits = bytes.fromhex(self.entropy(CODE_LENGTH))
            code = "".join(CODE_ALPHABET[digit % len(CODE_ALPHABET)] for digit in digits)
            if code in self.rooms:
                continue
            room = await Room.create(code, self.store, self.config, rules=rules, seats=seats,
                                     bots=bots, timer=timer, public=public, quick=quick,
                                     clock=self.clock, entropy=self.entropy, deal=self.deal)
            if room is not None:
                self.rooms[code] = room
                room.start_task()
                log_event(log, "room_created", room=code, seats=seats, public=public,
                          quick=quick, rules=rules.to_overrides())
                joined: dict[str, Any] = await room.call("join", name)
                return joined
        raise RoomError("server_full", "could not find a free room code")

    async def quick(self, name: str) -> dict[str, Any]:
        """Seat the player at an open public quick table, or start a new one."""
        async with self._lock:
            for room in self.rooms.values():
                if (room.quick and room.public and room.status == "lobby"
                        and any(seat.kind == "open" for seat in room.seats)):
                    try:
                        joined: dict[str, Any] = await room.call("join", name)
                        return joined
                    except RoomError:
                        continue
            return await self.create(name, rules=Rules.preset("perudo"), seats=4,
                                     bots=[], timer=30, public=True, quick=True)

    def public_rooms(self) -> list[dict[str, Any]]:
        return [room.summary() for room in self.rooms.values()
                if room.public and room.status == "lobby" and not room.closed]
