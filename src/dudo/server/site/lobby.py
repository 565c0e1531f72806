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
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from dudo.dice import Cups
from dudo.fairness import derive_dice
from dudo.printable import clipped
from dudo.rules import Rules
from dudo.server.guard.gate import Buckets
from dudo.server.guard.networks import network_of
from dudo.server.logs import log_event
from dudo.server.outage import StoreHealth
from dudo.server.site.admission import admit_creation, full
from dudo.server.site.base import JoinElsewhere, Site, rules_key
from dudo.server.site.limits import GuessBudget, GuessLimiter, SiteLimits
from dudo.server.site.local import LocalSite
from dudo.server.site.publishing import publication
from dudo.server.table.inbox import Join
from dudo.server.table.room import MAX_SEATS, MIN_SEATS, Room, RoomConfig, RoomError, system_entropy
from dudo.store import Store

log = logging.getLogger("dudo.lobby")

CODE_ALPHABET = "ACDEFGHJKLMNPQRTUVWXY"
CODE_LENGTH = 4
CODE_TRIES = 100


@dataclass(frozen=True)
class Elsewhere:
    """A room another node of the cluster holds: requests for it are relayed there."""

    code: str
    address: str  # the holder's http://host:port


__all__ = [
    "CODE_ALPHABET",
    "CODE_LENGTH",
    "Elsewhere",
    "GuessBudget",
    "GuessLimiter",
    "JoinElsewhere",
    "Lobby",
    "SiteLimits",
    "normalise_code",
]


def normalise_code(text: str) -> str | None:
    """A code as typed (any case, spaces) in canonical form, or None if it cannot be one."""
    code = "".join(text.split()).upper()
    if len(code) != CODE_LENGTH or any(letter not in CODE_ALPHABET for letter in code):
        return None
    return code


class Lobby:
    """All rooms of this server process, and what it shares with the rest of the site
    (:class:`Site`: this process alone, or a cluster through Redis)."""

    def __init__(
        self,
        store: Store,
        config: RoomConfig,
        clock: Callable[[], float] = time.time,
        entropy: Callable[[int], str] = system_entropy,
        deal: Callable[..., Cups] = derive_dice,
        site: Site | None = None,
    ) -> None:
        self.store = store
        self.config = config
        self.clock = clock
        self.entropy = entropy
        self.deal = deal
        self.rooms: dict[str, Room] = {}
        self.closed_rooms = 0  # so far; the garbage collector's policy counts departures
        self._creating = 0  # creations under way, counted against the caps
        self._creating_in: Counter[str] = Counter()  # ...and by the creator's network
        self.evicted = 0  # unattended lobbies closed to make room near the cap
        self.unrecoverable: list[str] = []  # live rooms whose log would not replay
        self.refused_creations = 0
        self.draining = False
        self.adopted = 0  # rooms taken over from nodes that died or left
        self._taking: dict[str, asyncio.Lock] = {}
        self._published: dict[str, tuple[bool, str | None, bool]] = {}
        self.health = StoreHealth()  # shared by the rooms: one log line per outage
        # Rooms stopped and let go of, whose closing the store did not take (an outage):
        # the next sweep tries again, rather than dropping them unclosed (to be rebuilt
        # after a restart).
        self._closing: set[str] = set()
        self.site: Site = site or LocalSite(self.rooms.values, lambda: self.public_rooms())
        self.configure(SiteLimits())

    def join_site(self, site: Site) -> None:
        """Share the site with other nodes (dudo serve --cluster), before ``recover``."""
        self.site = site
        site.configure(self.limits)

    def configure(self, limits: SiteLimits) -> None:
        """Put the site's limits in force (the app passes the server's settings)."""
        self.limits = limits
        self.site.configure(limits)

    @property
    def guesses(self) -> GuessBudget:
        """The one-process site's guess budget (tests look into it)."""
        assert isinstance(self.site, LocalSite)
        return self.site.guesses

    @property
    def creations(self) -> Buckets:
        """The one-process site's creation buckets (tests set their clock)."""
        assert isinstance(self.site, LocalSite)
        return self.site.creations

    async def close_idle_rooms(self) -> list[str]:
        """Close rooms nobody has used for a while: they leave memory and are no longer
        rebuilt after a restart (their finished games stay in the store)."""
        now = self.clock()
        closed = []
        for code, room in list(self.rooms.items()):
            closing = code in self._closing
            if room.closed and not closing:  # let go (another writer holds it now): not
                await room.stop()  # ours to close
                del self.rooms[code]
                self._published.pop(code, None)
                continue
            if closing or room.idle(now):
                if not closing:
                    await room.stop()
                    for game_id in room.journal.unentered:
                        log_event(
                            log, "game_not_entered", logging.WARNING, room=code, game_id=game_id
                        )
                    room.closed = True
                    self._closing.add(code)
                await self.store.close_room(code)  # (raises in an outage: tried again)
                self._closing.discard(code)
                del self.rooms[code]
                self._published.pop(code, None)
                await self.site.forget(code, rules_key(room.rules) if room.quick else None)
                self.closed_rooms += 1
                closed.append(code)
                log_event(log, "room_closed", room=code, status=room.status)
        return closed

    async def recover(self) -> int:
        """Rebuild every live room from its log (after a start or a crash). A room whose
        log cannot be replayed is logged and left out (``unrecoverable``), never allowed to
        keep the whole site from starting; its log stays in the store for a look.

        On a shared site, only the live rooms nobody holds are taken (all of them when the
        first node starts; none when a node joins a running cluster): the one branch on
        the kind of site here, since taking over claims each room and counts it adopted."""
        self.unrecoverable = []
        if self.site.shared:
            await self.adopt_unheld()
            return len(self.rooms)
        for code in await self.store.live_rooms():
            await self._load(code)
        return len(self.rooms)

    async def _load(self, code: str) -> Room | None:
        """Rebuild one room from its log and start it; None if its log will not replay."""
        try:
            room = await Room.load(
                code, self.store, self.config, self.clock, self.entropy, self.deal, self.health
            )
        except Exception:
            log.exception(
                "room %s cannot be rebuilt from its log: left out",
                code,
                extra={"fields": {"event": "room_unrecoverable", "room": code}},
            )
            self.unrecoverable.append(code)
            return None
        self.rooms[code] = room
        room.start_task()
        return room

    # -- a shared site: holding rooms, taking over, handing off ---------------------------

    async def take_over(self, code: str) -> Room | None:
        """Claim a live room nobody (alive) holds and rebuild it here; None if another
        node got it first, or it is not live. One attempt per code at a time."""
        lock = self._taking.setdefault(code, asyncio.Lock())
        try:
            async with lock:
                room = self.rooms.get(code)
                if room is not None and not room.closed:
                    return room
                if self.draining or not await self.store.is_live(code):
                    return None
                if not await self.site.claim(code):
                    return None
                room = await self._load(code)
                if room is None:
                    await self.site.release(code)
                    return None
                self.adopted += 1
                log_event(log, "room_taken_over", room=code, seq=room.seq)
                return room
        finally:
            if not lock.locked():
                self._taking.pop(code, None)

    async def adopt_unheld(self) -> int:
        """Take over live rooms nobody holds (the safety net behind the dead nodes' lists:
        a node that died while adopting, or Redis that lost its data)."""
        live = await self.store.live_rooms()
        await self.site.mark_live(live)
        taken = 0
        for code in await self.site.unheld([c for c in live if c not in self.rooms]):
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
        ends so that surviving nodes take the rooms over at once. Alone, nobody could
        take them: nothing is done (the rooms stop in ``close``)."""
        if not self.site.shared or self.draining:
            return
        self.draining = True
        rooms = list(self.rooms.values())
        await asyncio.gather(*(room.hand_off() for room in rooms))
        self.rooms.clear()
        await self.site.leave()
        log_event(log, "node_drained", rooms=len(rooms))

    async def publish(self) -> None:
        """Tell the site what changed here: rooms that left the lobby (for the lobby
        cap), public lobbies (for the list on the home page), open quick tables."""
        lobbies_left, public, quick = publication(self.rooms, self._published)
        if lobbies_left or public or quick:
            await self.site.publish(lobbies_left, public, quick)

    # -- finding rooms ----------------------------------------------------------------------

    async def locate(
        self, code: str, client: str, client_id: str | None = None, relayed: bool = False
    ) -> Room | Elsewhere:
        """The room with ``code``, here or on the node that holds it; on a shared site a
        live room nobody holds is taken over here. ``relayed``: the request came from
        another node, which found this node the holder: never sent on again. Alone, every
        live room is here already: the lookup is ``find``'s, without a wait."""
        if not self.site.shared:
            return self.find(code, client, client_id)
        if self.draining:  # before asking Redis: the node is letting go of it
            raise RoomError("moved", "this server is shutting down: reconnect")
        if await self.site.guess_blocked(client, client_id):
            raise RoomError("too_many_guesses", "too many unknown room codes: wait a minute")
        canonical = normalise_code(code)
        if canonical is not None:
            for _ in range(3):
                room = self.rooms.get(canonical)
                if room is not None and not room.closed:
                    return room
                if self.draining:
                    raise RoomError("moved", "this server is shutting down: reconnect")
                address = await self.site.holder(canonical)
                if address is not None:
                    if relayed:
                        raise RoomError("moved", "this room is held elsewhere: reconnect")
                    return Elsewhere(canonical, address)
                if not await self.store.is_live(canonical):
                    break
                room = await self.take_over(canonical)
                if room is not None:
                    return room
        await self.site.guess_missed(client, client_id)
        raise RoomError("no_room", f"there is no room {clipped(code)!r}")

    async def guess_blocked(self, client: str, client_id: str | None = None) -> bool:
        """Whether the client spent its budget of unknown codes and wrong keys."""
        return await self.site.guess_blocked(client, client_id)

    async def wrong_key(self, client: str, client_id: str | None = None) -> None:
        """A wrong invite key for a locked room counts as a guess, like an unknown code:
        keys cannot be walked any faster than codes."""
        await self.site.guess_missed(client, client_id)

    async def close(self) -> None:
        for room in list(self.rooms.values()):
            await room.stop()

    def find(self, code: str, client: str, client_id: str | None = None) -> Room:
        """The room with ``code`` in this process, synchronously (one process only);
        misses count against the client's guesses (``client`` is the address,
        ``client_id`` the browser's own id when it sent one)."""
        if self.guesses.blocked(client, client_id):
            raise RoomError("too_many_guesses", "too many unknown room codes: wait a minute")
        canonical = normalise_code(code)
        room = self.rooms.get(canonical) if canonical else None
        if room is None or room.closed:
            self.guesses.miss(client, client_id)
            raise RoomError("no_room", f"there is no room {clipped(code)!r}")
        return room

    # -- making rooms and quick games -------------------------------------------------------

    def network_of(self, client: str) -> str:
        return network_of(client, self.limits.ipv4_prefix, self.limits.ipv6_prefix)

    async def create(
        self,
        name: str,
        *,
        rules: Rules,
        seats: int,
        bots: list[str | None],
        timer: int,
        public: bool,
        quick: bool = False,
        show_lost_dice: bool = True,
        lang: str = "en",
        client: str = "unknown",
        profile: str | None = None,
    ) -> dict[str, Any]:
        """A new room with its creator in seat 0 (the host), its bots named in ``lang``."""
        if not MIN_SEATS <= seats <= MAX_SEATS:
            raise RoomError("bad_seats", f"a table has {MIN_SEATS} to {MAX_SEATS} seats")
        group = await admit_creation(self, client)
        try:
            room = await self._new_room(
                rules=rules,
                seats=seats,
                bots=[None, *bots[1:seats]],
                timer=timer,
                public=public,
                quick=quick,
                show_lost_dice=show_lost_dice,
                lang=lang,
            )
            room.group = group
        finally:
            self._creating -= 1
            self._creating_in[group] -= 1
            if not self._creating_in[group]:
                del self._creating_in[group]
        log_event(
            log,
            "room_created",
            room=room.code,
            seats=seats,
            public=public,
            quick=quick,
            rules=rules.to_overrides(),
        )
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
            verdict = await self.site.reserve(code, self.limits.max_rooms, self.limits.max_lobbies)
            if verdict == "taken":
                continue
            if verdict != "ok":
                raise full(self, verdict)
            try:
                room = await Room.create(
                    code,
                    self.store,
                    self.config,
                    clock=self.clock,
                    entropy=self.entropy,
                    deal=self.deal,
                    reuse_closed_before=reuse_before,
                    health=self.health,
                    **settings,
                )
            except RoomError:  # the store is away: 503 unavailable
                await self.site.unreserve(code)
                raise
            if room is None:
                await self.site.unreserve(code)
            else:
                self.rooms[code] = room
                room.start_task()
                return room
        raise RoomError("server_full", "could not find a free room code")

    async def quick(
        self,
        name: str,
        client: str = "unknown",
        rules: Rules | None = None,
        profile: str | None = None,
        lang: str = "en",
    ) -> dict[str, Any]:
        """Seat the player at an open public quick table playing the same rules (Perudo
        unless the player chose others), or start a new one (bots named in ``lang``). The
        site lists the open quick tables by their rules; one matcher at a time seats
        players for one rule set (a lock, site-wide), joining a table here or relaying the
        join to the node that holds it."""
        rules = rules or Rules.preset("perudo")
        key = rules_key(rules)
        async with self.site.quick_lock(key):
            for code in await self.site.quick_tables(key):
                try:
                    here = self.rooms.get(code)
                    where = here if here is not None else await self.locate(code, client)
                    if isinstance(where, Room):
                        if where.rules != rules:
                            raise RoomError("full", "other rules")
                        joined: dict[str, Any] = await where.ask(Join(name, None, profile))
                    else:
                        joined = await self.site.join_elsewhere(
                            where.address, code, name, client, profile
                        )
                    return joined
                except RoomError as error:
                    if error.code == "unavailable":
                        raise  # the store is away: no other table can seat them
                    await self.site.drop_quick(key, code)  # full, started or gone
            joined = await self.create(
                name,
                rules=rules,
                seats=4,
                bots=[],
                timer=30,
                public=True,
                quick=True,
                lang=lang,
                client=client,
                profile=profile,
            )
            await self.site.add_quick(key, joined["code"])
            return joined

    async def list_public(self) -> list[dict[str, Any]]:
        """Public rooms waiting for players: this node's, or the whole cluster's."""
        return await self.site.public_rooms()

    def public_rooms(self) -> list[dict[str, Any]]:
        return [
            room.summary()
            for room in self.rooms.values()
            if room.public and room.status == "lobby" and not room.closed
        ]
