"""The server's policy for Python's cyclic garbage collector.

Why the server needs one (measured in docs/benchmarks.md, 2,000 rooms = 8,000 sockets):

- A full collection walks every live object: about 70 µs per connected socket, a pause of
  half a second and more for the whole server.
- Young collections are no cure by themselves. CPython starts one when *allocations minus
  deallocations* pass a threshold, and a server in its steady state frees about as much as
  it allocates: every message replaces a waiting coroutine and future per socket, every
  action a state per room. The count then creeps up for seconds while the young generation
  fills with everything that is still alive, and one young collection walked 200,000
  objects in 145 ms. A lower threshold only moved the pause.

So the collector runs by the clock instead of by the count:

- Every ``interval`` the young generation is collected (garbage that lived less than an
  interval, the cycles of HTTP requests and short tasks, is freed here) and whatever
  survived is frozen: moved to the permanent generation that no collection walks. Each
  pause is bounded by what one interval leaves alive: a few milliseconds at 2,000 rooms.
- Frozen objects are still freed by reference counting, which is how nearly everything in
  a game dies. What the freeze keeps is *cyclic* garbage among frozen objects: what closed
  sockets and rooms leave behind, measured at about one object per four departed sockets
  (4,000 sockets left, 948 objects freed). To free it, a reclaim (unfreeze, a full
  collection, freeze again) runs once enough sockets and rooms were released since the
  last one: at least ``reclaim_after``, and at least ``per_live`` times as many as are
  connected now. A reclaim's pause grows with the live sockets (700 ms with 4,000), so it
  is paid rarely, while the garbage kept in between stays a few megabytes at most. (The
  floor was 20,000 departures; a crowd of 2,000 spectators leaving an otherwise quiet
  server then left about 6 MB of garbage for good, although a reclaim with few sockets
  connected costs little: 2,000 now.)
- After a reclaim the C allocator is asked to give freed memory back to the system
  (glibc's ``malloc_trim``): without it, memory freed after a crowd left stays with the
  process (docs/benchmarks.md, "Crowds and floods").
"""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
import gc
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from dudo.server.logs import log_event

log = logging.getLogger("dudo.gc")


@cache
def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's malloc_trim, or None where the C library has none (musl, macOS)."""
    name = ctypes.util.find_library("c")
    try:
        trim: Callable[[int], int] = ctypes.CDLL(name).malloc_trim
    except (OSError, AttributeError, TypeError):
        return None
    return trim


def give_back_memory() -> bool:
    """Return freed heap memory to the operating system, where the C library can."""
    trim = _malloc_trim()
    if trim is None:
        return False
    trim(0)
    return True


@dataclass
class CollectorStats:
    """What /metrics reports about the collector."""

    young_collections: int = 0
    young_seconds: float = 0.0
    longest_young: float = 0.0
    reclaims: int = 0
    reclaimed_objects: int = 0
    last_reclaim_seconds: float = 0.0


class Collector:
    """Young collections by the clock, survivors frozen, garbage reclaimed after churn.

    ``released`` returns a count that only grows: sockets and rooms closed so far.
    ``live`` returns how many sockets are connected now.
    """

    def __init__(
        self,
        released: Callable[[], int],
        live: Callable[[], int],
        *,
        interval: float = 0.2,
        reclaim_after: int = 2_000,
        per_live: int = 10,
    ) -> None:
        self.released = released
        self.live = live
        self.interval = interval
        self.reclaim_after = reclaim_after
        self.per_live = per_live
        self.stats = CollectorStats()
        self._released_at_reclaim = released()
        self._thresholds = gc.get_threshold()

    def start(self) -> None:
        """After start-up: collect once, freeze what is left (modules, the app, the
        bots' tables), and leave the count-based collections only as a backstop."""
        self._thresholds = gc.get_threshold()
        gc.collect()
        gc.freeze()
        gc.set_threshold(50_000, 20, 100)
        self._released_at_reclaim = self.released()

    def stop(self) -> None:
        """Leave the process's collector as it was before :meth:`start`."""
        gc.unfreeze()
        gc.set_threshold(*self._thresholds)

    def tick(self) -> None:
        """One young collection, then the survivors join the frozen objects; a reclaim
        when enough was released since the last one."""
        started = time.perf_counter()
        gc.collect(0)
        gc.freeze()
        took = time.perf_counter() - started
        self.stats.young_collections += 1
        self.stats.young_seconds += took
        self.stats.longest_young = max(self.stats.longest_young, took)
        bar = max(self.reclaim_after, self.per_live * self.live())
        if self.released() - self._released_at_reclaim >= bar:
            self.reclaim()

    def reclaim(self) -> int:
        """Free the cyclic garbage kept among frozen objects (one full pause)."""
        started = time.perf_counter()
        gc.unfreeze()
        found = gc.collect()
        gc.freeze()
        give_back_memory()
        self.stats.reclaims += 1
        self.stats.reclaimed_objects += found
        self.stats.last_reclaim_seconds = time.perf_counter() - started
        self._released_at_reclaim = self.released()
        log_event(
            log,
            "gc_reclaim",
            seconds=round(self.stats.last_reclaim_seconds, 4),
            objects=found,
            sockets=self.live(),
        )
        return found

    async def run(self) -> None:
        while True:
            await asyncio.sleep(self.interval)
            self.tick()

    def metrics(self) -> list[str]:
        """Prometheus lines."""
        stats = self.stats
        return [
            "# TYPE dudo_gc_young_collections_total counter",
            f"dudo_gc_young_collections_total {stats.young_collections}",
            "# TYPE dudo_gc_young_seconds_total counter",
            f"dudo_gc_young_seconds_total {stats.young_seconds:.6f}",
            "# TYPE dudo_gc_young_longest_seconds gauge",
            f"dudo_gc_young_longest_seconds {stats.longest_young:.6f}",
            "# TYPE dudo_gc_reclaims_total counter",
            f"dudo_gc_reclaims_total {stats.reclaims}",
            "# TYPE dudo_gc_reclaimed_objects_total counter",
            f"dudo_gc_reclaimed_objects_total {stats.reclaimed_objects}",
            "# TYPE dudo_gc_last_reclaim_seconds gauge",
            f"dudo_gc_last_reclaim_seconds {stats.last_reclaim_seconds:.6f}",
        ]  # no gc.get_freeze_count(): it walks every frozen object (200 ms at 2,000 rooms)
