"""Whether a new room may be made: the creator's bucket, its network's share of the
lobbies, the site's caps, and (near the cap) an unattended lobby that gives way."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from dudo.server.logs import log_event
from dudo.server.outage import within
from dudo.server.table.room import RoomError

if TYPE_CHECKING:
    from dudo.server.site.lobby import Lobby

log = logging.getLogger("dudo.lobby")  # the lobby's events, wherever they are decided


def full(lobby: Lobby, what: str) -> RoomError:
    """The refusal when the site (``what``: 'rooms') or its lobbies are full."""
    lobby.refused_creations += 1
    if what == "rooms":
        return RoomError("server_full", "this server has no room for more tables now")
    return RoomError(
        "server_full",
        "too many tables are waiting for players now: join one (quick game) or try again later",
    )


async def admit_creation(lobby: Lobby, client: str) -> str:
    """Refuse a new room if the address or its network made too many lately, if its
    network holds its share of the lobbies, or if the site is full (near the cap an
    unattended lobby gives way first); counts the creation as under way (the caller
    must call _creation_done) and returns the creator's network. On a shared site the
    caps are the whole site's, checked in Redis when the code is chosen (``reserve``),
    and the buckets are the site's too (the network's share is not counted there)."""
    if lobby.draining:
        raise RoomError("moved", "this server is shutting down: try again")
    group = lobby.network_of(client)
    limits = lobby.limits
    evict = 0  # unattended lobbies to close once the creation is allowed
    if not lobby.site.shared:
        lobbies = held = 0
        for room in lobby.rooms.values():
            if room.status == "lobby":
                lobbies += 1
                held += room.group == group
        share = max(limits.creation_burst, int(limits.max_lobbies * limits.group_share))
        if held + lobby._creating_in[group] >= share:
            lobby.refused_creations += 1
            raise RoomError(
                "too_many_rooms",
                "many tables from your network are waiting for players: join one first",
            )
        evict = int(
            len(lobby.rooms) + lobby._creating >= limits.max_rooms
            or lobbies + lobby._creating >= limits.max_lobbies
        )
    if not await lobby.site.take_creation(client):
        lobby.refused_creations += 1
        raise RoomError(
            "too_many_rooms",
            "you created many rooms just now: wait a minute, or share a room you made",
        )
    if evict and not await evict_unattended(lobby):
        raise full(lobby, "rooms" if len(lobby.rooms) >= limits.max_rooms else "lobbies")
    lobby._creating += 1
    lobby._creating_in[group] += 1
    return group


async def evict_unattended(lobby: Lobby) -> bool:
    """Near the cap, close the lobby that waited longest with nobody at it: no
    player's socket open, no one but its creator ever sat down, idle for
    ``evict_idle_after`` (a crowd's rooms, made and left). A lobby whose host is
    here, or that someone joined, never goes.
    True if one went."""
    idle_since = lobby.clock() - lobby.limits.evict_idle_after
    unattended = [
        room
        for room in lobby.rooms.values()
        if room.status == "lobby"
        and not room.closed
        and room.last_activity <= idle_since
        and not room.audience.players_here()
        and sum(seat.kind == "human" for seat in room.seats) <= 1
    ]
    if not unattended:
        return False
    oldest = min(unattended, key=lambda room: room.last_activity)
    try:
        await within(lobby.store.close_room(oldest.code), lobby.config.write_patience)
    except Exception:  # the store is away: nothing is closed, nothing made
        return False
    await oldest.stop()
    oldest.closed = True
    del lobby.rooms[oldest.code]
    lobby._published.pop(oldest.code, None)
    lobby.closed_rooms += 1
    lobby.evicted += 1
    log_event(log, "lobby_evicted", room=oldest.code)
    return True
