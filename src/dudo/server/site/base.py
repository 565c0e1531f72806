"""What every node of a site must agree on, behind one interface (:class:`Site`).

The lobby keeps one code path and asks its site: whether a code is free (``reserve``),
who holds a room (``holder``, ``claim``, ``release``), how many wrong codes and keys a
client guessed, how many rooms an address may create, the open quick tables, the public
rooms, and what changed here (``publish``). One process answers from memory
(:class:`dudo.server.site.local.LocalSite`); a cluster answers from Redis
(:class:`dudo.server.cluster.site.RedisSite`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from typing import Any, Protocol

from dudo.rules import Rules
from dudo.server.site.limits import SiteLimits

# Joining a room on another node (the app relays it): (address, code, name, client, the
# player's profile id or None) -> the join's answer, or a RoomError.
JoinElsewhere = Callable[[str, str, str, str, str | None], Awaitable[dict[str, Any]]]


class Site(Protocol):
    """The facts a lobby shares with the other nodes of its site (none, alone)."""

    #: Whether other nodes share the site: rooms are then rebuilt on demand, handed off
    #: when this node leaves, and the site-wide caps are counted by ``reserve``. Alone,
    #: every live room is loaded at the start, and the caps are counted in the lobby.
    shared: bool

    @property
    def node_id(self) -> str | None:
        """This node's name in the cluster, None alone."""

    def configure(self, limits: SiteLimits) -> None:
        """Put the site's limits in force (guess windows, creation buckets)."""

    async def guess_blocked(self, client: str, client_id: str | None) -> bool:
        """Whether the client spent its budget of unknown codes and wrong keys."""

    async def guess_missed(self, client: str, client_id: str | None) -> None:
        """Count one unknown code or wrong key against the client."""

    async def take_creation(self, client: str) -> bool:
        """Take one room creation from the address's bucket; False if it is empty."""

    async def reserve(self, code: str, max_rooms: int, max_lobbies: int) -> str:
        """Hold a new room's code: 'ok', 'taken', 'rooms' or 'lobbies' (a cap is hit)."""

    async def unreserve(self, code: str) -> None:
        """Undo a reservation whose room the store refused."""

    async def claim(self, code: str) -> bool:
        """Hold a room nobody (alive) holds; True if it is ours now."""

    async def release(self, code: str) -> None:
        """Stop holding a room (it would not load here)."""

    async def forget(self, code: str, quick_key: str | None) -> None:
        """A room closed: no longer counted, listed or held."""

    async def mark_live(self, codes: list[str]) -> None:
        """Count rooms the database says are live."""

    async def unheld(self, codes: list[str]) -> list[str]:
        """Those of ``codes`` nobody (alive) holds."""

    async def holder(self, code: str) -> str | None:
        """The address of another live node holding the room, or None."""

    async def join_elsewhere(
        self, address: str, code: str, name: str, client: str, profile: str | None
    ) -> dict[str, Any]:
        """Seat a player at a table another node holds (relayed there)."""

    def quick_lock(self, key: str) -> AbstractAsyncContextManager[None]:
        """One matcher at a time for one rule set."""

    async def quick_tables(self, key: str) -> list[str]:
        """Codes of open public quick tables playing the rules named ``key``."""

    async def add_quick(self, key: str, code: str) -> None:
        """List a new quick table."""

    async def drop_quick(self, key: str, code: str) -> None:
        """Unlist a quick table that is full, started or gone."""

    async def public_rooms(self) -> list[dict[str, Any]]:
        """Public rooms waiting for players, site-wide."""

    async def publish(
        self,
        lobbies_left: list[str],
        public: dict[str, str | None],
        quick: dict[str, tuple[str, bool]],
    ) -> None:
        """This node's changes since the last call (see ``Lobby.publish``)."""

    async def leave(self) -> None:
        """This node leaves the site (a drain)."""


def rules_key(rules: Rules) -> str:
    """A short stable name for a rule set (quick tables are matched by their rules)."""
    text = json.dumps(rules.to_json(), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]
