"""How much of the site one client may use: the limits and the one-process guess budget."""

from __future__ import annotations

import time
from collections import defaultdict, deque
from collections.abc import Callable
from dataclasses import dataclass


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


class GuessLimiter:
    """At most ``limit`` misses (unknown codes) per key in any ``window`` seconds."""

    def __init__(
        self, limit: int = 20, window: float = 60.0, clock: Callable[[], float] = time.monotonic
    ) -> None:
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

    def __init__(
        self,
        per_client: int = 20,
        per_address: int = 200,
        window: float = 60.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
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
        return self.clients.blocked(self.key(address, client_id)) or self.addresses.blocked(address)

    def miss(self, address: str, client_id: str | None = None) -> None:
        self.clients.miss(self.key(address, client_id))
        self.addresses.miss(address)
