"""The lobby's housekeeping, run as a task by the app: close idle rooms once a minute and
delete the logs of rooms closed longer than the retention period once an hour, with the
app's other hourly chores (the profile book's expired transfer codes)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any

from dudo.server.logs import log_event
from dudo.server.outage import store_outage

if TYPE_CHECKING:
    from dudo.server.site.lobby import Lobby

log = logging.getLogger("dudo.lobby")


async def sweep_forever(
    lobby: Lobby, every: float = 60.0, hourly: Sequence[Callable[[], Awaitable[Any]]] = ()
) -> None:
    """Sweep every ``every`` seconds (``DUDO_SWEEP_INTERVAL``) until cancelled; a failed
    sweep is tried again at the next one (a store outage must not end the sweeping). The
    first sweep and then one an hour (60 sweeps) purge closed rooms and run the ``hourly``
    chores, each on its own (one failing does not keep the others from running).

    A database that is away is the store's outage as the rooms see it: it goes to the
    lobby's :class:`StoreHealth` (one ``store_unavailable`` warning per outage, one
    ``store_recovered`` line when a sweep's store call works again), never an error line
    with a traceback once a minute for as long as it lasts. Anything else is a bug, and
    logged as one. A purge that failed is tried again at the next sweep."""
    sweeps = 0
    purge_at = 0  # the sweep that purges next: the first, then one an hour (60 sweeps)
    while True:
        await asyncio.sleep(every)
        try:
            closed = await lobby.close_idle_rooms()
            purged = sweeps >= purge_at
            if purged:
                await purge_closed_rooms(lobby)
                purge_at = sweeps + 60
        except Exception as error:
            if store_outage(error):
                lobby.health.failed(None, error)
            else:
                log.exception("sweeping rooms failed")
        else:
            if closed or purged:  # the store answered (a sweep with nothing to do asks none)
                lobby.health.succeeded()
        if sweeps % 60 == 0:
            for chore in hourly:
                try:
                    await chore()
                except Exception as error:
                    if store_outage(error):
                        lobby.health.failed(None, error)
                    else:
                        log.exception("an hourly chore failed")
        sweeps += 1


async def purge_closed_rooms(lobby: Lobby) -> int:
    """Delete the logs of rooms closed longer than the retention period."""
    purged = await lobby.store.purge_closed_rooms(lobby.clock() - lobby.limits.closed_retention)
    if purged:
        log_event(log, "rooms_purged", rooms=purged)
    return purged
