"""The lobby's housekeeping, run as a task by the app: close idle rooms once a minute and
delete the logs of rooms closed longer than the retention period once an hour, with the
app's other hourly chores (the profile book's expired transfer codes)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any

from dudo.server.logs import log_event

if TYPE_CHECKING:
    from dudo.server.site.lobby import Lobby

log = logging.getLogger("dudo.lobby")


async def sweep_forever(
    lobby: Lobby, every: float = 60.0, hourly: Sequence[Callable[[], Awaitable[Any]]] = ()
) -> None:
    """Sweep every ``every`` seconds until cancelled; a failed sweep is logged, and the
    next one tries again (a store hiccup must not end the sweeping for good). Every 60th
    sweep (the first too) purges closed rooms and runs the ``hourly`` chores, each on its
    own (one failing does not keep the others from running)."""
    sweeps = 0
    while True:
        await asyncio.sleep(every)
        try:
            await lobby.close_idle_rooms()
            if sweeps % 60 == 0:
                await purge_closed_rooms(lobby)
        except Exception:
            log.exception("sweeping rooms failed")
        if sweeps % 60 == 0:
            for chore in hourly:
                try:
                    await chore()
                except Exception:
                    log.exception("an hourly chore failed")
        sweeps += 1


async def purge_closed_rooms(lobby: Lobby) -> int:
    """Delete the logs of rooms closed longer than the retention period."""
    purged = await lobby.store.purge_closed_rooms(lobby.clock() - lobby.limits.closed_retention)
    if purged:
        log_event(log, "rooms_purged", rooms=purged)
    return purged
