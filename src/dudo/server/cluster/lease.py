"""Keeping a busy node's lease alive from a thread of its own.

The lease (``node:<id>`` in Redis, see :mod:`dudo.server.cluster.presence`) used to be renewed only
by a task on the event loop. A node whose loop was merely slow (every core busy, a burst of
rooms to replay) then renewed late, lost its lease, and dropped every room onto survivors
that were just as busy: overload spread through the cluster instead of being ridden out.

:class:`LeaseKeeper` renews the lease from a daemon thread with its own Redis connection,
but only while the event loop shows signs of life: a task on the loop calls :meth:`beat`
every fraction of a second, and the thread stops renewing once no beat has come for
``stall_limit`` seconds. So:

- a slow loop keeps its lease (the thread renews between its late turns);
- a stuck loop (a deadlock, an endless computation) loses it after ``stall_limit`` plus
  the lease, and survivors take its rooms as from a dead node;
- a paused or killed process (SIGSTOP, kill -9) stops the thread too: nothing changes
  there.

The thread renews with ``XX`` only (set if the key exists), so it can never bring a lapsed
lease back: a lease that did lapse is noticed by the loop's own renewal
(:meth:`Cluster.renew`), which lets the rooms go and starts over under a new name.
Safety never rested on the lease anyway: appends are conditional on the log's sequence.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable

from redis import Redis
from redis.exceptions import RedisError

log = logging.getLogger("dudo.server")


class LeaseKeeper:
    """Renew a lease key every ``renew_every`` seconds while the loop beats."""

    def __init__(
        self,
        url: str,
        lease_key: Callable[[], str],
        value: str,
        lease: float,
        renew_every: float,
        stall_limit: float,
    ) -> None:
        self.url = url
        self.lease_key = lease_key  # read at each renewal: the node may take a new name
        self.value = value
        self.lease_ms = int(lease * 1000)
        self.renew_every = renew_every
        self.stall_limit = stall_limit
        self.renewals = 0  # renewals the thread made (the loop's own are not counted)
        self.skipped = 0  # turns skipped because the loop had not beaten for too long
        # The longest time between two of the thread's renewals (from its start): past the
        # lease, the machine itself kept the thread from running (every core busy for that
        # long), and no renewal scheme inside the process could have held the lease.
        self.longest_gap = 0.0
        self._last_renewal = time.monotonic()
        self._last_beat = time.monotonic()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def beat(self) -> None:
        """The event loop is alive (called from a task on it)."""
        self._last_beat = time.monotonic()

    async def beat_forever(self) -> None:
        """Beat twice a renewal while the loop runs (a task on the loop)."""
        while True:
            self.beat()
            await asyncio.sleep(self.renew_every / 2)

    def start(self) -> None:
        self._last_renewal = time.monotonic()  # the lease was just taken (Cluster.join)
        self._thread = threading.Thread(target=self._run, name="dudo-lease-keeper", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def renew_once(self, redis: Redis) -> bool | None:
        """One turn of the thread: True renewed, False the lease had lapsed (left to the
        loop), None not tried (the loop is stalled)."""
        if time.monotonic() - self._last_beat > self.stall_limit:
            self.skipped += 1
            return None
        renewed = bool(redis.set(self.lease_key(), self.value, px=self.lease_ms, xx=True))
        if renewed:
            now = time.monotonic()
            self.longest_gap = max(self.longest_gap, now - self._last_renewal)
            self._last_renewal = now
        self.renewals += renewed
        return renewed

    def _run(self) -> None:
        # Timeouts under the lease: a renewal that hangs must not outlive what it renews.
        timeout = max(0.1, self.lease_ms / 2000)
        redis = Redis.from_url(self.url, socket_timeout=timeout, socket_connect_timeout=timeout)
        try:
            while not self._stop.wait(self.renew_every):
                try:
                    self.renew_once(redis)
                except (RedisError, OSError) as error:  # the loop's renewal reports it
                    log.debug("lease keeper could not reach redis: %s", error)
        finally:
            redis.close()
