"""Limits per client address and per seat, for sockets and the messages they carry.

A single client must not be able to slow the site for everyone (docs/protocol.md,
limits): so the server counts, per address, the sockets open and the connection attempts
per second, and shares each message budget between all the sockets of one seat and of one
address, not per socket (50 sockets of one seat once made the server store 24,000
refusals a minute). Token buckets refill continuously; buckets that are full again are
forgotten, so the tables only hold the clients that were busy lately.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass


@dataclass
class GateLimits:
    """Per-address and per-seat limits; ``dudo serve`` reads DUDO_* overrides."""

    sockets_per_address: int = 64
    connects_per_second: float = 10.0  # per address, after a burst of
    connect_burst: int = 40
    messages_per_second: float = 8.0  # per seat (all its sockets together)
    message_burst: int = 24
    address_messages_per_second: float = 40.0  # per address (all its sockets together)
    address_message_burst: int = 120
    # New TCP connections per address, of any kind: beyond them the address is flooding,
    # and its connections are dropped as they are accepted, before any HTTP is parsed
    # (dudo serve without a proxy in front; see Gate.accept). Well above the socket
    # limits, so that an address over those still hears why (HTTP 429 and an error).
    accepts_per_second: float = 30.0
    accept_burst: int = 100


class Buckets:
    """Token buckets by key: ``rate`` tokens a second, up to ``burst``."""

    def __init__(
        self, rate: float, burst: int, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.rate = rate
        self.burst = float(burst)
        self.clock = clock
        self.levels: dict[Hashable, tuple[float, float]] = {}  # key -> (tokens, when)

    def take(self, key: Hashable) -> bool:
        now = self.clock()
        tokens, then = self.levels.get(key, (self.burst, now))
        tokens = min(self.burst, tokens + (now - then) * self.rate)
        if tokens < 1:
            self.levels[key] = (tokens, now)
            return False
        self.levels[key] = (tokens - 1, now)
        if len(self.levels) > 4096:
            self._forget_full(now)
        return True

    def _forget_full(self, now: float) -> None:
        for key, (tokens, then) in list(self.levels.items()):
            if tokens + (now - then) * self.rate >= self.burst:
                del self.levels[key]


class Gate:
    """Who may open a socket now, and whose messages may pass."""

    def __init__(
        self, limits: GateLimits | None = None, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.limits = limits or GateLimits()
        self.open: dict[str, int] = {}
        self.connects = Buckets(self.limits.connects_per_second, self.limits.connect_burst, clock)
        self.seat_messages = Buckets(
            self.limits.messages_per_second, self.limits.message_burst, clock
        )
        self.address_messages = Buckets(
            self.limits.address_messages_per_second, self.limits.address_message_burst, clock
        )
        self.accepts = Buckets(self.limits.accepts_per_second, self.limits.accept_burst, clock)
        self.refused_sockets = 0
        self.dropped_connections = 0

    def admit(self, address: str) -> tuple[str, str] | None:
        """None if ``address`` may open one more socket (then counted as open: call
        :meth:`release` when it closes), else (code, message) of the refusal."""
        if self.open.get(address, 0) >= self.limits.sockets_per_address:
            self.refused_sockets += 1
            return (
                "too_many_sockets",
                f"at most {self.limits.sockets_per_address} "
                "connections from one address: close some first",
            )
        if not self.connects.take(address):
            self.refused_sockets += 1
            return (
                "too_many_connects",
                "too many new connections from your address: wait a moment",
            )
        self.open[address] = self.open.get(address, 0) + 1
        return None

    def accept(self, address: str) -> bool:
        """Whether a new TCP connection from ``address`` may be read at all; if not it is
        dropped at once (counted in ``dropped_connections``). Called as the connection is
        accepted, so it counts even connections that arrive together in one burst, which
        the socket limits (checked once a request is parsed) see only after all of them
        were parsed: 2,000 handshakes at once stalled every room for 0.2-0.5 s."""
        if self.accepts.take(address):
            return True
        self.dropped_connections += 1
        return False

    def release(self, address: str) -> None:
        left = self.open.get(address, 0) - 1
        if left > 0:
            self.open[address] = left
        else:
            self.open.pop(address, None)

    def message(self, address: str, seat: Hashable) -> bool:
        """Whether a message from this address and seat (a spectator socket is its own
        seat) may pass: both budgets must have a token."""
        return self.address_messages.take(address) and self.seat_messages.take(seat)
