"""When the database cannot take a room's writes: the room backs off, players are answered
at once, and the site logs once per outage.

A PostgreSQL refusing connections for 10 s once made every room played by bots retry its
failed write in a hot loop (191 tracebacks a second per room), and a player's bid got no
answer at all. Now a room whose write fails (or does not finish within
``RoomConfig.write_patience``) keeps a :class:`Backoff`: until its next try, whatever would
write is answered ``unavailable`` without touching the store, and the tries space out
(0.25 s, doubling, at most 5 s). :class:`StoreHealth`, shared by the rooms of a process,
logs one warning when writes start failing and one line when one works again.

A write that failed or timed out may still have landed (the database was slow, not gone,
or the commit's answer was lost): before anything else the room waits for it, reads its
log and takes back (deletes) any such entry, since its sender was told nothing changed.
The same message id sent again is then judged anew and applied exactly once. (A crash
between the landing and the taking back leaves the entry in the log: the restarted room
applies it, and the resent id gets its ``ack``, still exactly once.)
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from sqlalchemy import exc as sql_errors

from dudo.server.logs import log_event
from dudo.store.base import StoreError

log = logging.getLogger("dudo.store")
T = TypeVar("T")

FIRST_RETRY = 0.25
MAX_RETRY = 5.0
RETRY_ADVICE = 1.0  # seconds a client is told to wait before resending


async def within(work: Awaitable[T], seconds: float) -> T:
    """``work``'s result, or TimeoutError after ``seconds`` *without waiting for it to
    stop*: a store call blocked in a driver's thread (SQLite's busy wait, a connection to
    a blackholed host) cannot be cancelled promptly, and ``asyncio.timeout`` would wait
    for its clean-up. The call runs on to its end in the background."""
    task = asyncio.ensure_future(work)
    # Not ``wait_for`` over ``shield``: on Python 3.11 it drops a cancellation of the
    # caller that lands just as ``work`` finishes (a room stopped as it saved a game ran
    # on, and its stop hung). ``settled_within`` lets the caller's cancellation through.
    try:
        settled = await settled_within(task, seconds)
    except asyncio.CancelledError:
        task.add_done_callback(_forget)  # it runs on to its end, unwatched
        raise
    if not settled:
        task.add_done_callback(_forget)
        raise TimeoutError(f"the store did not answer within {seconds:g} s")
    return task.result()


async def settled_within(write: asyncio.Future[Any], seconds: float) -> bool:
    """Wait until ``write`` is done, at most ``seconds``; True if it is. Never cancels it
    (a timed-out write may still land and is kept as in flight), nor raises what it
    raised (the caller reads its result).

    What ``asyncio.timeout`` over ``asyncio.shield`` does for a room's every commit, at
    the cost of one future and one timer: the hottest wait of the server (one per
    action) should not make a task, a shield and a timeout context each time. If the
    waiting task is cancelled, only the wait is."""
    if write.done():
        return True
    loop = asyncio.get_running_loop()
    waiter = loop.create_future()

    def wake(_: object = None) -> None:
        if not waiter.done():
            waiter.set_result(None)

    write.add_done_callback(wake)
    timer = loop.call_later(seconds, wake)
    try:
        await waiter
    finally:
        timer.cancel()
        write.remove_done_callback(wake)
    return write.done()


def store_outage(error: BaseException) -> bool:
    """Whether ``error`` is the database's being away (refused, reset, blackholed, locked,
    full, too slow: the store's, the driver's or the pool's) rather than a bug. The rooms
    treat whatever their writes raise as an outage; a background task that does more than
    write (the sweeper) uses this to keep the traceback for what is not."""
    if isinstance(error, (StoreError, OSError, TimeoutError)):
        return True  # (asyncpg's ConnectionRefusedError is an OSError)
    if isinstance(error, sql_errors.DBAPIError):
        return error.connection_invalidated or isinstance(
            error, (sql_errors.OperationalError, sql_errors.InterfaceError)
        )  # (not a ProgrammingError, an IntegrityError: those are bugs)
    return isinstance(error, (sql_errors.TimeoutError, sql_errors.DisconnectionError))


def _forget(task: asyncio.Future[Any]) -> None:
    if not task.cancelled():
        task.exception()  # retrieved: whatever became of it is no longer anyone's business


@dataclass
class Backoff:
    """One room's outage: when it may next try the store, and a write still in flight."""

    delay: float = 0.0
    next_try: float = 0.0  # loop time
    tries: int = 0
    inflight: asyncio.Future[Any] | None = None
    # Entries whose write failed or timed out: any of them found in the log afterwards
    # is taken back (its sender heard 'unavailable'), anything else there is not ours.
    unconfirmed: list[Any] = field(default_factory=list)

    def failed(self, now: float) -> None:
        self.tries += 1
        self.delay = min(MAX_RETRY, max(FIRST_RETRY, self.delay * 2))
        self.next_try = now + self.delay

    def ready(self, now: float) -> bool:
        return now >= self.next_try


class StoreHealth:
    """Whether the database takes writes, as the rooms of this process find out: one
    ``store_unavailable`` warning when the first write fails, one ``store_recovered`` line
    (with how long it lasted and how many writes failed) when one works again."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.down_since: float | None = None
        self.outages = 0
        self.failures = 0  # failed or timed-out writes, all outages together
        self._failures_now = 0
        self._rooms: set[str] = set()

    @property
    def down(self) -> bool:
        return self.down_since is not None

    def failed(self, room: str | None, error: BaseException) -> None:
        """A write (or, ``room`` None, the cluster's look for unheld rooms) failed."""
        self.failures += 1
        self._failures_now += 1
        if room is not None:
            self._rooms.add(room)
        if self.down_since is None:
            self.down_since = self.clock()
            self.outages += 1
            reason = "timed out" if isinstance(error, TimeoutError) else str(error)
            log_event(
                log,
                "store_unavailable",
                logging.WARNING,
                room=room,
                error=f"{type(error).__name__}: {reason}"[:300],
            )

    def succeeded(self) -> None:
        if self.down_since is None:
            return
        log_event(
            log,
            "store_recovered",
            logging.WARNING,
            seconds=round(self.clock() - self.down_since, 3),
            failed_writes=self._failures_now,
            rooms=len(self._rooms),
        )
        self.down_since = None
        self._failures_now = 0
        self._rooms.clear()

    def metrics(self) -> list[str]:
        return [
            "# TYPE dudo_store_unavailable gauge",
            f"dudo_store_unavailable {int(self.down)}",
            "# TYPE dudo_store_outages_total counter",
            f"dudo_store_outages_total {self.outages}",
            "# TYPE dudo_store_failed_writes_total counter",
            f"dudo_store_failed_writes_total {self.failures}",
        ]
