"""The site of one process: every room is here, so the lobby's own memory answers."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Iterable
from typing import Any

from dudo.server.guard.gate import Buckets
from dudo.server.site.base import rules_key
from dudo.server.site.limits import GuessBudget, SiteLimits
from dudo.server.table.room import Room, RoomError


class LocalSite:
    """:class:`dudo.server.site.base.Site` for one process, over the lobby's rooms."""

    shared = False

    @property
    def node_id(self) -> str | None:
        return None  # alone: no name needed

    def __init__(
        self,
        rooms: Callable[[], Iterable[Room]],
        listed: Callable[[], list[dict[str, Any]]] | None = None,
    ) -> None:
        self.rooms = rooms
        self.listed = listed or self._listed
        self._quick_lock = asyncio.Lock()
        self.configure(SiteLimits())

    def configure(self, limits: SiteLimits) -> None:
        self.guesses = GuessBudget(
            limits.guesses_per_client, limits.guesses_per_address, limits.guess_window
        )
        # Rooms an address may create: a burst, then a few a minute.
        self.creations = Buckets(limits.creations_per_minute / 60.0, limits.creation_burst)

    async def guess_blocked(self, client: str, client_id: str | None) -> bool:
        return self.guesses.blocked(client, client_id)

    async def guess_missed(self, client: str, client_id: str | None) -> None:
        self.guesses.miss(client, client_id)

    async def take_creation(self, client: str) -> bool:
        return self.creations.take(client)

    async def reserve(self, code: str, max_rooms: int, max_lobbies: int) -> str:
        """Always 'ok': alone, the lobby counts the caps itself (it has every room)."""
        return "ok"

    async def unreserve(self, code: str) -> None:
        pass

    async def claim(self, code: str) -> bool:
        return True  # nobody else could hold it

    async def release(self, code: str) -> None:
        pass

    async def forget(self, code: str, quick_key: str | None) -> None:
        pass

    async def mark_live(self, codes: list[str]) -> None:
        pass

    async def unheld(self, codes: list[str]) -> list[str]:
        return codes

    async def holder(self, code: str) -> str | None:
        return None  # no other node

    async def join_elsewhere(
        self, address: str, code: str, name: str, client: str, profile: str | None
    ) -> dict[str, Any]:
        raise RoomError("full", "cannot reach that table")

    @contextlib.asynccontextmanager
    async def quick_lock(self, key: str) -> AsyncIterator[None]:
        async with self._quick_lock:
            yield

    async def quick_tables(self, key: str) -> list[str]:
        return [
            room.code
            for room in self.rooms()
            if room.quick
            and room.public
            and room.status == "lobby"
            and rules_key(room.rules) == key
            and any(seat.kind == "open" for seat in room.seats)
        ]

    async def add_quick(self, key: str, code: str) -> None:
        pass  # listed by quick_tables from the room itself

    async def drop_quick(self, key: str, code: str) -> None:
        pass

    async def public_rooms(self) -> list[dict[str, Any]]:
        return self.listed()

    def _listed(self) -> list[dict[str, Any]]:
        return [
            room.summary()
            for room in self.rooms()
            if room.public and room.status == "lobby" and not room.closed
        ]

    async def publish(
        self,
        lobbies_left: list[str],
        public: dict[str, str | None],
        quick: dict[str, tuple[str, bool]],
    ) -> None:
        pass  # nobody else reads it

    async def leave(self) -> None:
        pass
