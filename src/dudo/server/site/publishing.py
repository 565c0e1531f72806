"""What a node tells its site about its rooms, as changes since it last told: the site
keeps the lobby cap, the home page's list of public rooms and the open quick tables, and a
node that sent only what changed keeps a busy site's traffic to the rooms that moved."""

from __future__ import annotations

import json
from collections.abc import Mapping

from dudo.server.site.base import rules_key
from dudo.server.table.room import Room

# What was last told of a room: (waiting in its lobby, its public listing, open quick table)
Told = tuple[bool, str | None, bool]


def publication(
    rooms: Mapping[str, Room], told: dict[str, Told]
) -> tuple[list[str], dict[str, str | None], dict[str, tuple[str, bool]]]:
    """The changes since ``told`` (updated in place): rooms that left the lobby, public
    listings (None: no longer listed) and quick tables opened or closed, by rules."""
    lobbies_left: list[str] = []
    public: dict[str, str | None] = {}
    quick: dict[str, tuple[str, bool]] = {}
    for code in [code for code in told if code not in rooms]:
        del told[code]
    for code, room in rooms.items():
        waiting = room.status == "lobby" and not room.closed
        listed = (
            json.dumps(room.summary(), separators=(",", ":")) if waiting and room.public else None
        )
        open_quick = (
            waiting
            and room.quick
            and room.public
            and any(seat.kind == "open" for seat in room.seats)
        )
        before = told.get(code, (True, None, False))
        if before[0] and not waiting:
            lobbies_left.append(code)
        if before[1] != listed:
            public[code] = listed
        if room.quick and before[2] != open_quick:
            quick[code] = (rules_key(room.rules), open_quick)
        told[code] = (waiting, listed, open_quick)
    return lobbies_left, public, quick
